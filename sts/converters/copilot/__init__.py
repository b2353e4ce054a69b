"""GitHub Copilot CLI sessions → `Session`: the ``events.jsonl`` log and the legacy JSON.

Where they live (``$COPILOT_HOME``, default ``~/.copilot``):

- ``session-state/<id>/events.jsonl``: one append-only event log per session (resumes append to
  the same file), with ``workspace.yaml`` beside it (title, cwd, branch) and artifact folders
  (checkpoints, plan, files); those are read with the log, never converted on their own;
- ``history-session-state/<id>.json``: the legacy shape (2025 builds), one JSON object
  ``{sessionId, startTime, chatMessages, timeline}``.

Event envelopes are ``{type, data, id, timestamp, parentId, agentId?}``. How they become
messages is documented in `events`; the legacy JSON in `legacy`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.lines import BOM
from sts.model import Session

FORMAT = "github-copilot"
HARNESS = "github-copilot"
#: Event types whose presence in the head marks a Copilot log (with a ``data`` object).
MARKER_TYPES = frozenset((
    "session.start", "session.resume", "user.message", "assistant.message", "system.message",
    "assistant.turn_start", "assistant.turn_end", "tool.execution_start",
    "tool.execution_complete", "session.usage_record", "session.shutdown", "hook.start",
    "session.model_change", "subagent.started",
))
EVENTS_FILE = "events.jsonl"


class CopilotConverter(Converter):
    """Reads GitHub Copilot CLI session logs (``session-state/<id>/events.jsonl``)."""

    name = FORMAT
    harness = HARNESS
    priority = 10
    description = (
        "GitHub Copilot CLI sessions (~/.copilot/session-state/<id>/events.jsonl; legacy "
        "history-session-state/*.json)"
    )

    def sniff(self, peek: Peek) -> float:
        if is_legacy_document(peek.document):
            return 0.95
        objects = peek.objects
        if not objects:
            head = peek.data.removeprefix(BOM).lstrip()[:4096]
            if head.startswith(b"{") and b'"chatMessages"' in head and b'"sessionId"' in head:
                return 0.6  # a legacy document larger than the head
            return 0.0
        score = 0.0
        for record in objects[:10]:
            if not is_event(record):
                continue
            data = record["data"]
            if record["type"] == "session.start" and data.get("producer") == "copilot-agent":
                return 0.95
            score = 0.9
        return score

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.copilot.events import read  # loaded only when used: start-up

        return read(stream, context, self.options(context).subagents)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """Files of a session folder other than its log (``workspace.yaml``, checkpoints, ...)."""
        if path.name == EVENTS_FILE:
            return False
        folder = path.parent
        for _ in range(4):
            if folder.parent.name == "session-state":
                return (folder / EVENTS_FILE).is_file()
            if not folder.name:
                return False
            folder = folder.parent
        return False


def is_event(record: dict[str, Any]) -> bool:
    """A Copilot event envelope of a known marker type with a ``data`` object."""
    kind = record.get("type")
    return type(kind) is str and kind in MARKER_TYPES and type(record.get("data")) is dict


def is_legacy_document(value: Any) -> bool:
    """The legacy ``history-session-state`` JSON: ``{sessionId, chatMessages: [...]}``."""
    return (
        type(value) is dict
        and type(value.get("chatMessages")) is list
        and "sessionId" in value
    )


__all__ = ["CopilotConverter"]
