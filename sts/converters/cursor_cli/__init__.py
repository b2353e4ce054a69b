"""Cursor Agent CLI transcripts (``cursor-agent`` / ``agent``) → `Session`.

Where they live (``$CURSOR_HOME``, default ``~/.cursor``)::

    projects/<encoded-cwd>/agent-transcripts/<session-uuid>/<session-uuid>.jsonl   (2026)
    projects/<encoded-cwd>/agent-transcripts/<session-uuid>.jsonl                  (older)
    chats/<md5(cwd)>/<session-uuid>/meta.json   {title, updatedAtMs, ...}: read for the title

Each line is a turn ``{"role", "message": {"content": [parts] | "text"}}`` or a control line
``{"type": "turn_ended", "status", "error"?}``; there are no timestamps, no model, no session id
(the file stem is the id) and, on the 2026.08 CLI, no tool-call ids and mostly no tool results.
The Cursor IDE's ``state.vscdb`` is a different source (not read here). How lines become
messages is documented in `reader`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.model import Session

FORMAT = "cursor-cli"
HARNESS = "cursor-cli"
TURN_ROLES = frozenset(("user", "assistant", "system"))
#: Control lines: Cursor's own, and the headers TeichAI/teich prepends to the lines it exports.
CONTROL_TYPES = frozenset(("turn_ended", "cursor_session_meta", "cursor_available_tools"))
TRANSCRIPTS_DIR = "agent-transcripts"
PROJECT_COMPANIONS = frozenset(("repo.json", "worker.log"))
PROJECT_COMPANION_DIRS = frozenset(("mcps", "terminals"))


class CursorCliConverter(Converter):
    """Reads Cursor Agent CLI transcripts (``~/.cursor/projects/*/agent-transcripts``)."""

    name = FORMAT
    harness = HARNESS
    priority = 10
    description = (
        "Cursor Agent CLI transcripts "
        "(~/.cursor/projects/<cwd>/agent-transcripts/<id>/<id>.jsonl)"
    )

    def sniff(self, peek: Peek) -> float:
        turns = controls = 0
        for record in peek.objects[:20]:
            if is_turn(record):
                turns += 1
            elif record.get("type") in CONTROL_TYPES:
                controls += 1
        if not turns:
            return 0.0
        in_place = TRANSCRIPTS_DIR in (peek.name or "")
        return 0.95 if controls or in_place else 0.9

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.cursor_cli.reader import read  # loaded only when used: start-up

        return read(stream, context)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """A session's ``meta.json`` (read for its title) and a project's own side files."""
        parts = path.parts
        if path.name == "meta.json" and len(parts) >= 4 and parts[-4] == "chats":
            return True
        for index in range(len(parts) - 2, 0, -1):
            if parts[index - 1] != "projects":
                continue
            project = Path(*parts[: index + 1])
            inside = parts[index + 1]
            if (path.name in PROJECT_COMPANIONS and len(parts) == index + 2) or (
                inside in PROJECT_COMPANION_DIRS
            ):
                return (project / TRANSCRIPTS_DIR).is_dir()
            return False
        return False


def is_turn(record: dict[str, Any]) -> bool:
    """A transcript turn: ``{"role", "message": {"content": ...}}`` with no ``type``."""
    message = record.get("message")
    return (
        "type" not in record
        and type(record.get("role")) is str
        and type(message) is dict
        and "content" in message
    )


__all__ = ["CursorCliConverter"]
