"""``droid exec --output-format stream-json`` output → one Session.

The events (openai-hub-hermes-droid-others.md §D; keys come as ``session_id`` or ``sessionId``,
times as ISO text or epoch ms):

- ``system``/``init``: the session id, ``model``, ``cwd``, ``tools`` and ``reasoning_effort``;
- ``message`` ``{role, id, text}``: a user or assistant message (a ``<system-reminder>`` leading
  a user's text is split off as injected context, as in the store);
- ``tool_call`` ``{id, toolName, parameters}``: a call of the assistant message being written,
  else of a new assistant message (its ``messageId`` names the message it answers, not its own);
- ``tool_result`` ``{id = the call's id, isError, value}``: a tool message (a value that is not
  text is kept as JSON text);
- ``completion`` ``{finalText, usage}``: the final answer, added as an assistant message unless
  the last one already says it; ``usage`` (the run's totals, the only counts the stream gives)
  goes on the last assistant message;
- ``error`` ``{message}``: a system message of kind ``error``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sts.building import SessionBuilder
from sts.building.coerce import text_or_none
from sts.building.content import json_text
from sts.converters.base import ReadContext
from sts.converters.droid import DroidConverter
from sts.converters.droid.reader import split_reminders
from sts.model import Message, MessageKind, Session, TextPart, Usage
from sts.timestamps import checked_ms

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
              "cache_creation_input_tokens")


def read_stream(records: Iterator[tuple[int, dict[str, Any]]], context: ReadContext
                ) -> Iterator[Session]:
    """Yield the one session of a stream-json run."""
    problems = context.problems
    builder = SessionBuilder(context, DroidConverter.name, DroidConverter.harness,
                             title_from_prompt=True)
    session = builder.session
    session.source_version = "stream-json"
    model: str | None = None
    for lineno, record in records:
        kind = record.get("type")
        ts = checked_ms(record["timestamp"], problems, lineno, "timestamp") \
            if "timestamp" in record else None
        builder.offer_id(text_or_none(record.get("session_id", record.get("sessionId"))))
        if kind == "system":
            model = text_or_none(record.get("model")) or model
            session.cwd = text_or_none(record.get("cwd")) or session.cwd
            for key in ("tools", "reasoning_effort"):
                if record.get(key) is not None:
                    session.metadata[key] = record[key]
        elif kind == "message":
            text = record.get("text")
            if type(text) is not str:
                problems.error(lineno, "bad-message", "message event without a text: skipped")
                continue
            role = record.get("role")
            if role == "assistant":
                builder.add(Message("assistant", [TextPart(text)] if text else [], timestamp=ts,
                                    model=model))
            elif role == "user":
                reminders, rest = split_reminders(text)
                if reminders:
                    builder.add(Message("system", [TextPart(r) for r in reminders],
                                        kind=MessageKind.INJECTED_CONTEXT, timestamp=ts))
                if rest.strip():
                    builder.add(Message("user", [TextPart(rest)], timestamp=ts))
            else:
                problems.error(lineno, "unknown-role", f"unknown role {role!r}: skipped")
        elif kind == "tool_call":
            last = session.messages[-1] if session.messages else None
            if last is None or last.role != "assistant":
                last = builder.add(Message("assistant", timestamp=ts, model=model))
            name = record.get("toolName", record.get("toolId"))
            last.tool_calls.append(builder.call(record.get("id"), name,
                                                record.get("parameters"), lineno))
        elif kind == "tool_result":
            builder.result(record.get("id"), [TextPart(json_text(record.get("value")))],
                           line=lineno, is_error=record.get("isError") is True, timestamp=ts)
        elif kind == "completion":
            final = text_or_none(record.get("finalText"))
            last = session.messages[-1] if session.messages else None
            if final and (last is None or last.role != "assistant" or last.text != final):
                last = builder.add(Message("assistant", [TextPart(final)], timestamp=ts,
                                           model=model))
            usage = record.get("usage")
            if type(usage) is dict and last is not None and last.role == "assistant":
                counts = [usage.get(k) for k in USAGE_KEYS]
                last.usage = Usage(*(c if type(c) is int and c >= 0 else 0 for c in counts))
        elif kind == "error":
            text = text_or_none(record.get("message")) or "error"
            builder.add(Message("system", [TextPart(text)], kind=MessageKind.API_ERROR,
                                error_message=text, timestamp=ts))
        elif type(kind) is str:
            problems.unknown_type(lineno, f"event type {kind!r}")
        else:
            problems.error(lineno, "unknown-record", f"event of type {kind!r} skipped")
    times = [m.timestamp for m in session.messages if m.timestamp is not None]
    session.started_at = times[0] if times else None
    if session.messages:
        yield builder.finish()
