"""Kimi CLI records: ``context.jsonl`` lines and the ``wire.jsonl`` timeline.

``context.jsonl`` (one JSON object a line, written by ``kimi_cli.soul.context.Context``):
``{"role": "_system_prompt", "content"}`` first; ``{"role": "_checkpoint", "id"}`` markers;
``{"role": "_usage", "token_count"}`` after each model call, the size of the context then (not
billed tokens); and kosong ``Message`` objects (``role`` user, assistant, tool or system,
``content`` a string or parts, ``tool_calls``, ``tool_call_id``).

``wire.jsonl``: a ``{"type": "metadata", "protocol_version"}`` line (older files: ``{"type":
"hello"}`` or none), then ``{"timestamp": <epoch seconds, float>, "message": {"type",
"payload"}}`` events. `Wire` keeps what the context lacks: each turn's start and prompt
(``TurnBegin``), each step's times, tool calls and token usage (``StepBegin``, ``ContentPart``,
``ToolCall``, ``StatusUpdate``), and each tool's outcome (``ToolResult``). Other events (approval
requests, compaction, sub-agent traffic, ...) carry nothing a message needs and are passed over.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sts.problems import Problems
from sts.timestamps import SECONDS_2000, checked_ms

WIRE_HEADERS = frozenset(("metadata", "hello"))


@dataclass(slots=True, eq=False)
class Step:
    """One model call of a turn: when it ran, what it called, what it cost."""

    begin: int | None
    last: int | None = None  # the time of its last streamed part or call
    end: int | None = None  # its StatusUpdate
    calls: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    message_id: str | None = None

    @property
    def time(self) -> int | None:
        """When the reply was complete: its last part, else its status, else its start."""
        for value in (self.last, self.end, self.begin):
            if value is not None:
                return value
        return None


@dataclass(slots=True)
class Turn:
    """One user turn: its start, its prompt and its steps."""

    begin: int | None
    prompt: str | None
    steps: list[Step] = field(default_factory=list)


@dataclass
class Wire:
    """The timeline of a ``wire.jsonl``."""

    version: str | None = None
    turns: list[Turn] = field(default_factory=list)
    results: dict[str, tuple[int | None, bool | None]] = field(default_factory=dict)
    first: int | None = None
    #: call id -> the turn and step indexes of the step that made the call
    calls: dict[str, tuple[int, int]] = field(default_factory=dict)


def read_wire(records: Iterable[tuple[int, Any]], problems: Problems) -> Wire:
    """The timeline of a wire file's parsed lines; unknown lines are reported."""
    wire = Wire()
    turn: Turn | None = None
    step: Step | None = None
    for lineno, record in records:
        message = record.get("message")
        if type(message) is not dict:
            kind = record.get("type")
            if type(kind) is str and kind in WIRE_HEADERS:
                version = record.get("protocol_version")
                wire.version = str(version) if version is not None else None
            elif type(kind) is str:
                problems.unknown_type(lineno, f"wire record type {kind[:40]!r}")
            else:
                problems.error(lineno, "unknown-record", f"wire record {kind!r:.40} skipped")
            continue
        time = record.get("timestamp")
        # float epoch seconds, as the wire writes them (anything else through `checked_ms`)
        time = round(time * 1000) if type(time) is float and SECONDS_2000 <= time < 1e11 else \
            checked_ms(time, problems, lineno, "timestamp")
        if time is not None and wire.first is None:
            wire.first = time
        kind = message.get("type")
        payload = message.get("payload")
        payload = payload if type(payload) is dict else {}
        if kind == "TurnBegin":
            turn = Turn(time, prompt_text(payload.get("user_input")))
            wire.turns.append(turn)
            step = None
        elif kind == "StepBegin":
            if turn is None:
                turn = Turn(None, None)
                wire.turns.append(turn)
            step = Step(time)
            turn.steps.append(step)
        elif kind in ("ContentPart", "ToolCall", "ToolCallPart") and step is not None:
            step.last = time if time is not None else step.last
            call_id = payload.get("id")
            if kind == "ToolCall" and type(call_id) is str and turn is not None:
                step.calls.append(call_id)
                wire.calls.setdefault(call_id, (len(wire.turns) - 1, len(turn.steps) - 1))
        elif kind == "StatusUpdate" and step is not None:
            step.end = time
            usage = payload.get("token_usage")
            if type(usage) is dict:
                step.usage = usage
            message_id = payload.get("message_id")
            if type(message_id) is str:
                step.message_id = message_id
        elif kind == "ToolResult":
            call_id = payload.get("tool_call_id")
            value = payload.get("return_value")
            failed = value.get("is_error") if type(value) is dict else None
            if type(call_id) is str:
                wire.results[call_id] = (time, failed if type(failed) is bool else None)
    return wire


def prompt_text(value: Any) -> str | None:
    """A ``TurnBegin.user_input``: a string, or content parts whose texts are joined."""
    if type(value) is str:
        return value
    if type(value) is list:
        texts = [p["text"] for p in value if type(p) is dict and type(p.get("text")) is str]
        return "".join(texts) if texts else None
    return None
