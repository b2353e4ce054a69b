"""OpenCode sessions → `Session` (``shared/formats/opencode.md``).

Where OpenCode keeps them (``$XDG_DATA_HOME/opencode``, default ``~/.local/share/opencode`` on
Linux and macOS, ``%USERPROFILE%\\.local\\share\\opencode`` on Windows):

- ``opencode.db`` (1.2 and later; ``opencode-<channel>.db`` for other release channels): SQLite
  in WAL mode, 1.x tables ``session``/``message``/``part``, 2.x ``session_v2`` +
  ``session_message``. Read safely (`sts.converters.sqlite`), one file per session.
- ``storage/`` (before 1.2): ``session/<project>/<id>.json``, ``message/<session>/<id>.json``,
  ``part/<message>/<id>.json``: read as one input, the tree's folder.
- ``opencode export <id>`` documents: one JSON file per session.

Given the data folder itself, every database in it is read, then the sessions of the old JSON
tree that no database holds (OpenCode imports the tree once; sessions it missed stay there).
Nothing else in the folder is read (``auth.json``, logs, snapshots). ``--session ID`` (the
``sessions`` option, repeatable) picks sessions; sub-agent sessions (``parent_id``, the task
tool's ``metadata.sessionId``) are the children of the session that started them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.converters.sqlite_head import is_companion_file, is_sqlite, schema_mentions
from sts.model import Session

FORMAT = "opencode"
DATABASE_NAME = r"opencode(-[\w.-]+)?\.db"  # compiled when first needed (re's cache)
#: The head of an export document, pretty-printed or not.
EXPORT_HEAD = re.compile(rb'^\s*\{\s*"info"\s*:\s*\{[^{}]*"id"\s*:\s*"ses_')


class OpenCodeConverter(Converter):
    """Reads OpenCode's database, its pre-1.2 JSON tree and ``opencode export`` documents."""

    name = FORMAT
    harness = "opencode"
    priority = 10
    description = (
        "OpenCode sessions (~/.local/share/opencode/opencode.db, the pre-1.2 storage/ tree, "
        "opencode export JSON)"
    )

    Options = OptionsFrom("sts.converters.opencode.options:OpenCodeOptions")

    def sniff(self, peek: Peek) -> float:
        data = peek.data
        if is_sqlite(data):
            if schema_mentions(data, "message", "part") and (
                schema_mentions(data, "session") or schema_mentions(data, "session_v2")
            ):
                return 0.95
            return 0.9 if schema_mentions(data, "session_v2", "session_message") else 0.0
        if peek.first_byte != b"{":
            return 0.0
        document = peek.document
        if document is not None:
            return 0.95 if is_export(document) else 0.0
        return 0.9 if EXPORT_HEAD.match(data) else 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.opencode.read import read  # loaded only when used: start-up

        return read(stream, context, self.options(context))

    def claims_folder(self, folder: Path) -> bool:
        """OpenCode's data folder (``opencode``, holding its database or the old ``storage``
        tree) or the ``storage`` tree itself: one input. Any other folder with a database in it
        is walked as usual (the database is an input of its own there, found by content)."""
        if (folder / "session").is_dir() and (folder / "message").is_dir():
            return folder.name == "storage" or (folder / "part").is_dir()
        if (folder / "storage" / "session").is_dir():
            return True
        return folder.name.startswith("opencode") and any(
            re.fullmatch(DATABASE_NAME, p.name) and p.is_file() for p in _listing(folder))

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """A database's ``-wal``/``-shm``/``-journal`` file: part of the database."""
        return is_companion_file(path)


def _listing(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def is_export(document: Any) -> bool:
    """Whether a parsed document is an ``opencode export``: ``{info: {id}, messages: [{info,
    parts}]}``."""
    if type(document) is not dict or type(document.get("info")) is not dict:
        return False
    messages = document.get("messages")
    if type(messages) is not list or "id" not in document["info"]:
        return False
    first = messages[0] if messages else None
    return first is None or (type(first) is dict and type(first.get("info")) is dict
                             and "parts" in first)
