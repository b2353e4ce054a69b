"""Cursor IDE agent conversations (``state.vscdb``) → `Session` (``shared/formats/cursor.md`` B).

Where Cursor keeps them (its ``User`` folder)::

    Linux    ~/.config/Cursor/User
    macOS    ~/Library/Application Support/Cursor/User
    Windows  %APPDATA%\\Cursor\\User
      globalStorage/state.vscdb               SQLite: cursorDiskKV rows composerData:<composer>
                                              and bubbleId:<composer>:<bubble>
      workspaceStorage/<hash>/workspace.json  {"folder": "file:///path"}: a composer's folder

The ``User`` folder (or its ``globalStorage``) is read as one input; the database alone too. Only
``cursorDiskKV``'s composer and bubble rows are read (the database's ``ItemTable`` holds the
account's tokens: never read). The Cursor Agent CLI's transcripts are another format
(``cursor-cli``). How bubbles become messages is documented in `reader`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.converters.sqlite_head import is_companion_file, is_sqlite, schema_mentions
from sts.model import Session

DATABASE = "state.vscdb"


class CursorIdeConverter(Converter):
    """Reads the Cursor IDE's agent conversations from its ``state.vscdb``."""

    name = "cursor"
    harness = "cursor"
    priority = 10
    description = (
        "Cursor IDE agent conversations (<Cursor User folder>/globalStorage/state.vscdb: "
        "~/.config/Cursor/User, ~/Library/Application Support/Cursor/User, %APPDATA%/Cursor/User)"
    )

    Options = OptionsFrom("sts.converters.cursor_ide.options:CursorIdeOptions")

    def sniff(self, peek: Peek) -> float:
        return 0.95 if is_sqlite(peek.data) and schema_mentions(peek.data, "cursorDiskKV") else 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.cursor_ide.reader import read  # loaded only when used: start-up

        return read(stream, context, self.options(context))

    def claims_folder(self, folder: Path) -> bool:
        """Cursor's ``User`` folder, or its ``globalStorage``: one input."""
        return (folder / "globalStorage" / DATABASE).is_file() or (
            folder.name == "globalStorage" and (folder / DATABASE).is_file())

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """A database's ``-wal``/``-shm``/``-journal`` file: part of the database."""
        return is_companion_file(path)
