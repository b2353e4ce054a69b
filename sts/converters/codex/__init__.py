"""Codex CLI rollout files → Session, for all three generations, detected from the content:

- TypeScript CLI (spring 2025): one JSON document ``{"session": {...}, "items": [...]}``;
- Rust "legacy" JSONL (May-Sep 2025): a bare header line ``{"id", "timestamp", ...}``, then bare
  response items and ``{"record_type": "state"}`` markers; no timestamps, no model;
- envelope JSONL (Sep 2025 on): ``{"timestamp", "type", "payload"}`` lines, optionally with
  ``ordinal``.

The header facts go to Session fields (id, cwd, git, cli_version as source_version, start time)
and header metadata (originator, provider, fork and sub-agent links). How the conversation is
built is documented in `builder`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.lines import BOM
from sts.model import Session

RECORD_KINDS = frozenset(
    ("session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state",
     "inter_agent_communication", "inter_agent_communication_metadata", "rollout_reference")
)
LEGACY_ITEMS = frozenset(
    ("message", "reasoning", "function_call", "function_call_output", "local_shell_call",
     "custom_tool_call", "custom_tool_call_output", "web_search_call")
)


class CodexConverter(Converter):
    """Reads Codex CLI / Desktop / exec rollout files (``~/.codex/sessions``)."""

    name = "codex"
    harness = "codex"
    description = "OpenAI Codex CLI rollout files (TypeScript .json, legacy and envelope JSONL)"
    priority = 10

    Options = OptionsFrom("sts.converters.codex.options:CodexOptions")

    def sniff(self, peek: Peek) -> float:
        if is_typescript_document(peek.document):
            return 0.95
        objects = peek.objects
        if not objects:
            head = peek.data.removeprefix(BOM).lstrip()
            if head.startswith(b"{") and b'"session"' in head[:300] and b'"items"' in head:
                return 0.6  # a TS document larger than the head
            return 0.0
        first = objects[0]
        kind = first.get("type")
        if type(first.get("payload")) is dict and type(kind) is str and kind in RECORD_KINDS:
            return 0.95 if kind == "session_meta" else 0.85
        if "record_type" in first or is_legacy_header(first):
            rest = objects[1:]
            if any("record_type" in o or is_legacy_item(o) for o in rest):
                return 0.9
            named = (peek.name or "").startswith("rollout-")
            return 0.6 if named else 0.3
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.codex.reader import read  # loaded only when used: start-up

        return read(stream, context)


def is_typescript_document(value: Any) -> bool:
    """True for the TypeScript CLI's ``{"session": {...}, "items": [...]}`` document."""
    return (
        type(value) is dict
        and type(value.get("items")) is list
        and type(value.get("session")) is dict
    )


def is_legacy_header(record: dict[str, Any]) -> bool:
    """A legacy (May-Sep 2025) header line: ``{"id", "timestamp", ...}`` with no type."""
    return "id" in record and "timestamp" in record and "type" not in record and (
        "payload" not in record
    )


def is_legacy_item(record: dict[str, Any]) -> bool:
    """A bare legacy response item (no envelope)."""
    kind = record.get("type")
    return type(kind) is str and kind in LEGACY_ITEMS and "payload" not in record


__all__ = ["CodexConverter"]
