"""STS-Format → Session: so STS can become Pi, or be re-labelled with another harness.

Header keys this tool writes (``source``, ``sourceVersion``, ``cwd``, ``git``, ``startedAt``,
``toolErrors``) go back into their model fields; any other header key is kept in
`Session.metadata` and written back as it was. Message fields outside the spec are reported
once per file as a warning (the model has no place for them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, cast

from sts.building import SessionBuilder
from sts.building.coerce import text_or_none
from sts.converters.base import Converter, Peek, ReadContext
from sts.formats.sts import MESSAGE_FIELDS
from sts.lines import iter_records
from sts.model import ROLES, Message, Role, Session, TextPart, ThinkingPart, ToolCall
from sts.problems import Problems
from sts.timestamps import stated_ms

HEADER_FIELDS = frozenset(
    ("type", "harness", "id", "name", "source", "sourceVersion", "cwd", "git", "startedAt",
     "toolErrors")
)


class StsConverter(Converter):
    """Reads STS-Format files (one session per file)."""

    name = "sts"
    harness = "unknown"
    description = "STS-Format (Session Trace Simple Format), the Hub's simple trace format"
    priority = 10

    def sniff(self, peek: Peek) -> float:
        objects = peek.objects
        if not objects:
            return 0.0
        first = objects[0]
        if first.get("type") != "session" or "harness" not in first:
            return 0.0
        if "version" in first:
            return 0.3  # a Pi header with a harness field
        rest = objects[1:]
        if rest and all(o.get("type") == "message" and "id" not in o for o in rest):
            return 0.95
        return 0.7 if not rest else 0.4

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        problems = context.problems
        builder: SessionBuilder | None = None
        unknown_fields: set[str] = set()
        for lineno, record in iter_records(stream, problems):
            kind = record.get("type")
            if builder is None:
                if kind != "session":
                    problems.error(lineno, "no-header", "line before the STS header skipped")
                    continue
                builder = builder_from_header(record, lineno, context)
                continue
            if kind == "session":
                problems.error(lineno, "second-header", "a second header in one STS file skipped")
                continue
            if type(kind) is str and kind != "message":
                problems.unknown_type(lineno, f"line type {kind!r}")
                continue
            if kind != "message" or type(record.get("message")) is not dict:
                problems.error(lineno, "unknown-record", f"not an STS message line (type {kind!r})")
                continue
            message = message_from_sts(record["message"], lineno, problems, builder)
            if message is not None:
                unknown_fields.update(record["message"].keys() - MESSAGE_FIELDS)
                builder.add(message)
        if builder is None:
            problems.error(None, "no-header", "no STS header found: nothing to convert")
            return
        session = builder.finish()
        if unknown_fields:
            problems.warning(
                None, "unknown-fields",
                f"message fields outside the STS spec not carried over: {sorted(unknown_fields)}",
            )
        errors = session.metadata.pop("toolErrors", None)
        if isinstance(errors, list):
            failed = set(errors)
            for message in session.messages:
                if message.role == "tool" and message.tool_call_id in failed:
                    message.is_error = True
        yield session


def builder_from_header(
    header: dict[str, Any], lineno: int, context: ReadContext
) -> SessionBuilder:
    """The builder of the session an STS header line starts."""
    builder = SessionBuilder(context, text_or_none(header.get("source")),  # type: ignore[arg-type]
                             text_or_none(header.get("harness")))
    session_id = header.get("id")
    if type(session_id) is not str or not session_id:
        builder.problems.error(lineno, "bad-header", "header has no string id; using the file name")
    else:
        builder.offer_id(session_id)
    builder.title(header.get("name"))
    session = builder.session
    session.source_version = text_or_none(header.get("sourceVersion"))
    session.cwd = text_or_none(header.get("cwd"))
    session.git = header.get("git") if type(header.get("git")) is dict else None
    session.started_at = stated_ms(header.get("startedAt"), builder.problems, lineno, "startedAt")
    session.metadata = {
        k: v for k, v in header.items() if k not in HEADER_FIELDS or k == "toolErrors"
    }
    return builder


def message_from_sts(
    data: dict[str, Any], lineno: int, problems: Problems, calls: SessionBuilder
) -> Message | None:
    """A Message from an STS ``message`` object; None (reported) when it cannot be one.

    `calls` keeps the session's tool-call ids: a call id used again is renamed (``id~2``,
    warning ``duplicate-call-id``) and the results after it answer the renamed call."""
    role = data.get("role")
    if type(role) is not str or role not in ROLES:
        problems.error(lineno, "unknown-role", f"unknown role {role!r}: message skipped")
        return None
    content = data.get("content")
    if type(content) is not str:
        content = _coerce_content(content, lineno, problems)
    message = Message(role=cast(Role, role), content=[TextPart(content)] if content else [])
    reasoning = data.get("reasoningContent")
    if type(reasoning) is str and reasoning:
        message.content.insert(0, ThinkingPart(reasoning))
    tool_calls = data.get("toolCalls")
    if tool_calls is not None and role != "assistant":  # a damaged line that took another's
        problems.error(lineno, "misplaced-tool-calls", f"toolCalls on a {role} message: skipped")
    elif tool_calls is not None:
        message.tool_calls = _tool_calls(tool_calls, lineno, problems, calls)
    call_id = data.get("toolCallId")
    if call_id is not None and role != "tool":
        problems.error(lineno, "misplaced-tool-call-id",
                       f"toolCallId on a {role} message: skipped")
    elif call_id is not None:
        message.tool_call_id = calls.answer(call_id, None, lineno) or str(call_id)
    if "timestamp" in data:
        message.timestamp = stated_ms(data["timestamp"], problems, lineno, "timestamp")
    model = data.get("model")
    if type(model) is str and model:
        message.model = model
    return message


def _tool_calls(calls: Any, lineno: int, problems: Problems, ids: SessionBuilder
                ) -> list[ToolCall]:
    if type(calls) is not list:
        problems.error(lineno, "bad-tool-calls", "toolCalls is not a list: calls skipped")
        return []
    result = []
    for call in calls:
        function = call.get("function") if type(call) is dict else None
        if type(function) is not dict or not call.get("id"):
            problems.error(lineno, "bad-tool-call", "tool call without id or function skipped")
            continue
        name = str(function.get("name", ""))
        result.append(ids.call(call["id"], name, function.get("arguments", "{}"), lineno))
    return result


def _coerce_content(content: Any, lineno: int, problems: Problems) -> str:
    if content is None:
        return ""
    if type(content) is list:
        texts = [p["text"] for p in content if type(p) is dict and type(p.get("text")) is str]
        problems.warning(lineno, "content-not-string", "content was a list: its texts joined")
        return "\n\n".join(texts)
    problems.warning(lineno, "content-not-string", "content was not a string: converted")
    return str(content)

