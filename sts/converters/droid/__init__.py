"""Factory Droid sessions → Session (``shared/formats/factory-droid.md``).

Two shapes, told apart by their first record:

- the session store, ``~/.factory/sessions/<cwd with / → ->/<uuid>.jsonl`` (older builds: directly
  under ``sessions/``): a ``session_start`` line, then ``message`` lines holding Anthropic-style
  messages, with ``todo_state``, ``compaction_state`` and ``session_end`` lines between them. Its
  companion ``<uuid>.settings.json`` (the model, reasoning effort, session token totals) is read
  with it and never converted on its own (`store.py`);
- ``droid exec --output-format stream-json`` output (stdout, not on disk): ``system``/``init``,
  ``message``, ``tool_call``, ``tool_result``, ``completion`` and ``error`` events. It holds a
  whole headless run, so it is read too rather than refused (`stream.py`).

Harness id ``factory-droid``. The Hub's registry (huggingface.js ``agent-harnesses.ts``) has no
Droid id; the Hub shows Droid's own files natively and the ``datasets`` loader labels them
``droid``. ``factory-droid`` says whose harness it is without claiming a registered id;
``--harness`` overrides.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.model import Session

SETTINGS_SUFFIX = ".settings.json"
STREAM_TYPES = frozenset(("system", "message", "tool_call", "tool_result", "completion", "error"))


class DroidConverter(Converter):
    """Reads Factory Droid session files and ``droid exec`` stream-json output."""

    name = "factory-droid"
    harness = "factory-droid"
    description = (
        "Factory Droid sessions (~/.factory/sessions/<cwd>/<id>.jsonl with <id>.settings.json) "
        "and droid exec --output-format stream-json output"
    )
    priority = 10

    def sniff(self, peek: Peek) -> float:
        objects = peek.objects
        if not objects or peek.first_byte != b"{":
            return 0.0
        first = objects[0]
        kind = first.get("type")
        if kind == "session_start" and type(first.get("id")) is str:
            return 0.95
        if kind == "system" and first.get("subtype") == "init" and _stream_id(first):
            return 0.95
        head = objects[:10]
        if all(r.get("type") in STREAM_TYPES and _stream_id(r) for r in head) and any(
            r.get("type") in ("tool_call", "completion") or "text" in r for r in head
        ):
            return 0.85
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.droid.reader import read  # loaded only when used: start-up

        return read(stream, context)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        if not path.name.endswith(SETTINGS_SUFFIX):
            return False
        stem = path.name.removesuffix(SETTINGS_SUFFIX)
        return path.with_name(stem + ".jsonl").is_file()


def _stream_id(record: dict[str, Any]) -> bool:
    """True when a record names its session as stream-json events do (either casing)."""
    return type(record.get("session_id", record.get("sessionId"))) is str
