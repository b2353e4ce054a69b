"""ShareGPT conversations (``{"conversations": [{"from", "value"}], ...}``) → a session.

Turns by ``from``: ``human``/``user`` → user, ``gpt``/``assistant`` (and ``chatgpt``,
``bard``, ``bing``, ``model``) → assistant, ``system`` → system, ``function_call`` /
``tool_call`` → tool calls, ``observation``/``tool``/``function_response``/``ipython`` → tool
results. ``{"role", "content"}`` turns are read the same way.

- A ``function_call`` value is JSON text ``{"name", "arguments"}`` (or a list of them) with no
  id: each call gets a stable id from its position (``call_<message>_<n>``) and joins the
  assistant message just before it when that one has no calls yet. The observations that follow
  answer the waiting calls in order (same name first); an observation with no call waiting is
  kept and reported (``orphan-result``).
- Hermes conventions inside the text: a leading ``<think>…</think>`` becomes reasoning (an
  empty one is dropped), ``<tool_call>{json}</tool_call>`` blocks become tool calls (text that is
  not a JSON call stays in the text, reported), and a tool turn's ``<tool_response>{json}
  </tool_response>`` blocks become one tool result each (``content`` as the text).
- Side fields: ``system`` → a leading system message, ``tools`` (a JSON string or a list) →
  metadata ``tools``, ``id`` → the session id, ``model`` → the assistant messages' model; other
  scalar fields (``timestamp``, ``completed``, ...) are kept in the metadata as they are. Media
  side lists (``images``, ...) are placed at their ``<image>`` tokens.
- A Hermes Agent trajectory (a record with ``model``, ``timestamp`` and ``completed``) gives
  harness ``hermes-agent``; other records ``sharegpt``.
"""

from __future__ import annotations

from typing import Any, cast

import orjson

from sts.building import ReadContext
from sts.building.coerce import text_or_none
from sts.building.content import json_text
from sts.converters.chat.containers import TopLevel
from sts.converters.chat.hermes import (
    CALL_CLOSE,
    CALL_OPEN,
    HERMES_HARNESS,
    RESPONSE_CLOSE,
    RESPONSE_OPEN,
    split_tagged,
)
from sts.converters.chat.kinds import ASSISTANT, CALL, FROM_ROLES, SYSTEM, USER
from sts.converters.chat.media import attach_side_media
from sts.converters.chat.messages import ChatBuilder, side_fields, split_leading_think
from sts.model import Message, MessageKind, Role, Session, TextPart, ToolCall

USED_FIELDS = frozenset(
    ("conversations", "system", "tools", "id", "model", "images", "videos", "audios")
)

#: The keys every Hermes Agent trajectory record carries (its save format).
HERMES_TRAJECTORY_KEYS = ("model", "timestamp", "completed")


def sharegpt_session(
    record: dict[str, Any], entry: TopLevel | None, context: ReadContext
) -> Session:
    """A session from one ShareGPT record."""
    key = entry.key if entry is not None and entry.key else None
    line = entry.line if entry is not None else None
    hermes = all(k in record for k in HERMES_TRAJECTORY_KEYS)
    builder = ChatBuilder(context, "sharegpt", HERMES_HARNESS if hermes else "sharegpt", key=key,
                          model=text_or_none(record.get("model")))
    builder.offer_id(record.get("id"))
    session = builder.session
    problems = builder.problems
    system = record.get("system")
    if type(system) is str and system:
        builder.add(Message(role="system", content=[TextPart(system)],
                            kind=MessageKind.SYSTEM_PROMPT))
    for turn in record["conversations"]:
        add_turn(builder, turn, line)
    tools = record.get("tools")
    if tools:
        session.metadata["tools"] = parse_json_text(tools)
    session.metadata.update(side_fields(record, USED_FIELDS))
    attach_side_media(session, record, problems, line)
    return builder.finish()


def parse_json_text(value: Any) -> Any:
    """A JSON string's value (the text itself when it is not JSON); other values as they are."""
    if type(value) is not str:
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def add_turn(builder: ChatBuilder, turn: Any, line: int | None) -> None:
    """Map one ShareGPT turn onto the session."""
    if type(turn) is not dict:
        builder.problems.error(line, "bad-turn", "turn is not an object: skipped")
        return
    source = turn.get("from", turn.get("role"))
    role = FROM_ROLES.get(source.lower()) if type(source) is str else None
    value = turn.get("value", turn.get("content"))
    text = value if type(value) is str else ("" if value is None else json_text(value))
    if role is None:
        builder.problems.error(line, "unknown-role", f"unknown turn sender {source!r}: skipped")
    elif role in (USER, SYSTEM):
        builder.add(Message(role=cast(Role, role), content=[TextPart(text)] if text else []))
    elif role == ASSISTANT:
        add_assistant(builder, text, line)
    elif role == CALL:
        add_function_call(builder, text, line)
    else:
        add_results(builder, text, line)


def add_assistant(builder: ChatBuilder, text: str, line: int | None) -> None:
    """An assistant turn, with Hermes ``<think>`` and ``<tool_call>`` blocks taken out."""
    message = Message(role="assistant", content=[TextPart(text)] if text else [])
    message.model = builder.model
    split_leading_think(message, builder.problems, line)
    body = message.content[-1] if message.content else None
    if type(body) is TextPart and CALL_OPEN in body.text:
        rest, blocks = split_tagged(body.text, CALL_OPEN, CALL_CLOSE)
        kept = [rest] if rest else []
        for block in blocks:
            call = call_from_value(builder, block.value, line) if block.is_json else None
            if call is None:
                builder.problems.warning(line, "bad-tool-call-text", "<tool_call> not a JSON call")
                kept.append(f"{CALL_OPEN}\n{block.raw}\n{CALL_CLOSE}")
            else:
                message.tool_calls.append(call)
        message.content[-1:] = [TextPart("\n".join(kept))] if kept else []
    builder.add(message)


def call_from_value(builder: ChatBuilder, value: Any, line: int | None) -> ToolCall | None:
    """A positional tool call from ``{"name", "arguments"}``; None when it is not one."""
    if type(value) is not dict or type(value.get("name")) is not str:
        return None
    arguments = value.get("arguments", value.get("parameters", {}))
    return builder.call(None, value["name"], arguments, line)


def add_function_call(builder: ChatBuilder, text: str, line: int | None) -> None:
    """A ``function_call`` turn: one call or a list of calls, joined to the assistant before."""
    value = parse_json_text(text)
    values = value if type(value) is list else [value]
    messages = builder.session.messages
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant" and not last.tool_calls:
        message = last
    else:
        message = builder.add(Message(role="assistant", model=builder.model))
    for item in values:
        call = call_from_value(builder, item, line)
        if call is None:
            builder.problems.warning(line, "bad-tool-call-text", "function_call is not a JSON call")
            message.content.append(TextPart(text))
            return
        message.tool_calls.append(call)


def add_results(builder: ChatBuilder, text: str, line: int | None) -> None:
    """An observation/tool turn: one result, or one per ``<tool_response>`` block."""
    if RESPONSE_OPEN not in text:
        add_result(builder, None, None, text, line)
        return
    rest, blocks = split_tagged(text, RESPONSE_OPEN, RESPONSE_CLOSE)
    for block in blocks:
        value = block.value if block.is_json and type(block.value) is dict else {}
        content = value.get("content", block.raw) if value else block.raw
        name = value.get("name")
        add_result(builder, value.get("tool_call_id"), name, json_text(content), line)
    if rest:
        add_result(builder, None, None, rest, line)


def add_result(
    builder: ChatBuilder, source_id: Any, name: Any, text: str, line: int | None
) -> None:
    builder.result(source_id, [TextPart(text)] if text else [], name=name, line=line)
