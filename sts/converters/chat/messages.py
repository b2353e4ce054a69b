"""OpenAI-style chat messages → model messages, through the session builder.

`ChatBuilder` is a `sts.building.SessionBuilder` (tool-call ids, results paired in order,
positional ids for id-less calls, orphans: see `sts.building.calls`) that also maps chat
messages.

`add_openai_message` maps one Chat Completions message: roles system, developer (a system
message of kind ``developer``), user, assistant, tool and legacy function (a tool result);
content as a string, null, missing or parts; reasoning from ``reasoning_content``,
``reasoning``, ``reasoning_details`` or a leading ``<think>`` block, each text kept once;
``refusal`` text kept as text (`Message.refusal`); ``tool_calls`` (function and custom
kinds, parallel calls on one message) and legacy ``function_call``.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.building import ReadContext, SessionBuilder
from sts.building.content import openai_parts
from sts.building.vocabulary import stop_reason
from sts.converters.chat.hermes import split_think
from sts.model import Message, MessageKind, Part, Role, TextPart, ThinkingPart, ToolCall
from sts.problems import Problems
from sts.timestamps import checked_ms

ROLE_MAP: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
TIME_KEYS = ("timestamp", "created_at", "created")
#: Keys of a message's id and time (`ChatBuilder.common_fields`): most messages have none.
COMMON_KEYS = frozenset(("id", *TIME_KEYS))
#: Keys of the reasoning an assistant message may carry (`add_reasoning_fields`).
REASONING_KEYS = frozenset(("reasoning_content", "reasoning", "reasoning_details"))
#: Keys of an assistant message read besides its role, content and calls: most messages have
#: none of them, and then none is looked up.
ASSISTANT_KEYS = frozenset(("refusal", "function_call", "model", "finish_reason"))
META_ROLE = "session_meta"
#: Hermes' state.db stores list or object content as this prefix plus its JSON text.
JSON_SENTINEL = "\x00json:"


class ChatBuilder(SessionBuilder):
    """A `SessionBuilder` that also reads OpenAI-style chat messages; `model` is the model of
    the assistant messages that do not name one."""

    def __init__(
        self,
        context: ReadContext,
        source_format: str,
        harness: str,
        *,
        key: str | None = None,
        model: str | None = None,
    ) -> None:
        super().__init__(context, source_format, harness, key=key)
        self.model = model

    # -- messages --------------------------------------------------------------------------
    def add_openai_message(self, data: Any, line: int | None) -> Message | None:
        """Map one Chat Completions message and append it; None (reported) when it is not one."""
        if type(data) is not dict:
            self.problems.error(line, "bad-message", "message is not an object: skipped")
            return None
        source_role = data.get("role")
        role = ROLE_MAP.get(source_role) if type(source_role) is str else None
        if role is None:
            if source_role == META_ROLE:
                return None  # Hermes' trailing session-metadata item: no message
            self.problems.error(line, "unknown-role", f"unknown role {source_role!r}: skipped")
            return None
        content = data.get("content")
        if type(content) is str and content.startswith(JSON_SENTINEL):
            content = decode_sentinel(content)
        message = Message(role, openai_parts(content, line, self.problems))
        if source_role == "developer":
            message.kind = MessageKind.DEVELOPER
        if not COMMON_KEYS.isdisjoint(data):
            self.common_fields(message, data, line)
        if role == "assistant":
            self.assistant_fields(message, data, line)
        elif role == "tool":
            name = data.get("name")
            if type(name) is not str:
                name = data.get("tool_name")
            message.tool_call_id = self.answer(data.get("tool_call_id"), name, line)
            message.tool_name = name if type(name) is str and name else self.tool_name(
                message.tool_call_id
            )
        elif type(data.get("name")) is str:
            message.extras["name"] = data["name"]
        return self.add(message)

    def common_fields(self, message: Message, data: dict[str, Any], line: int | None) -> None:
        """Id, time and model of a message, when the source gives them."""
        source_id = data.get("id")
        if type(source_id) is str or type(source_id) is int:
            message.id = str(source_id)
        for key in TIME_KEYS:
            if key in data:
                message.timestamp = checked_ms(data[key], self.problems, line, key)
                break

    def assistant_fields(self, message: Message, data: dict[str, Any], line: int | None) -> None:
        """Reasoning, refusal, tool calls, model and stop reason of an assistant message."""
        if message.content:  # most calling messages have none
            split_leading_think(message, self.problems, line)
        if not REASONING_KEYS.isdisjoint(data):
            add_reasoning_fields(message, data)
        calls = data.get("tool_calls")
        if type(calls) is str:  # stored as JSON text (Hermes' state.db, some loggers)
            calls = parse_json_list(calls)
        if type(calls) is list:
            for item in calls:
                call = self.openai_tool_call(item, line)
                if call is not None:
                    message.tool_calls.append(call)
        elif calls is not None:
            self.problems.error(line, "bad-tool-calls", "tool_calls is not a list: skipped")
        if ASSISTANT_KEYS.isdisjoint(data):
            message.model = self.model
            return
        refusal = data.get("refusal")
        if type(refusal) is str and refusal:
            message.refusal = True
            if refusal not in (p.text for p in message.content if type(p) is TextPart):
                message.content.append(TextPart(refusal))
        legacy = data.get("function_call")
        if type(legacy) is dict:
            message.tool_calls.append(
                self.call(None, legacy.get("name"), legacy.get("arguments"), line)
            )
        model = data.get("model")
        message.model = model if type(model) is str and model else self.model
        reason = stop_reason(data.get("finish_reason"))
        if reason is not None:
            message.stop_reason = reason

    def openai_tool_call(self, item: Any, line: int | None) -> ToolCall | None:
        """One ``tool_calls`` entry: ``function`` kind, or ``custom`` (input kept as text)."""
        if type(item) is not dict:
            self.problems.error(line, "bad-tool-call", "tool call is not an object: skipped")
            return None
        custom = item.get("custom") if item.get("type") == "custom" else None
        if type(custom) is dict:
            call = self.call(item.get("id"), custom.get("name"), {"input": custom.get("input")},
                             line)
            call.extras["type"] = "custom"
            return call
        function = item.get("function")
        if type(function) is not dict:
            function = item if "name" in item else None  # a flat {id, name, arguments} call
        if function is None:
            self.problems.error(line, "bad-tool-call", "tool call without a function: skipped")
            return None
        arguments = (function["arguments"] if "arguments" in function
                     else function.get("parameters", "{}"))
        return self.call(item.get("id"), function.get("name"), arguments, line)


def decode_sentinel(content: str) -> Any:
    """Content stored as ``"\\x00json:" + JSON`` (Hermes' state.db) as the value it encodes;
    a sentinel followed by no valid JSON stays the text it is."""
    try:
        return orjson.loads(content[len(JSON_SENTINEL):])
    except orjson.JSONDecodeError:
        return content


def parse_json_list(text: str) -> Any:
    """``tool_calls`` kept as JSON text: its list (an empty text or ``null`` is no calls); text
    that holds no JSON stays text, which the caller reports."""
    if not text.strip():
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    return value


def split_leading_think(message: Message, problems: Problems, line: int | None) -> None:
    """Move a leading ``<think>…</think>`` of the first text part into a ThinkingPart."""
    content = message.content
    if not content or type(content[0]) is not TextPart or "<think>" not in content[0].text:
        return
    think = split_think(content[0].text)
    if think.reasoning is None:
        return
    if not think.closed:
        problems.warning(line, "unclosed-think", "<think> never closed: the text is reasoning")
    rest: list[Part] = [TextPart(think.text)] if think.text else []
    thinking: list[Part] = [ThinkingPart(think.reasoning)] if think.reasoning.strip() else []
    message.content = thinking + rest + content[1:]


def add_reasoning_fields(message: Message, data: dict[str, Any]) -> None:
    """Reasoning from ``reasoning_content``, ``reasoning`` and ``reasoning_details``, once each.

    A text already present (from another field or a ``<think>`` block) is not added again; a
    signature or encrypted payload from ``reasoning_details`` goes onto the matching part.
    """
    found: list[ThinkingPart] = []
    for key in ("reasoning_content", "reasoning"):
        value = data.get(key)
        if type(value) is dict:  # {"content"|"text"|"summary": ...} objects some proxies write
            value = value.get("content", value.get("text", value.get("summary")))
        if type(value) is str and value.strip():
            found.append(ThinkingPart(value))
    details = data.get("reasoning_details")
    if type(details) is list:
        found.extend(detail_parts(details))
    if not found:
        return
    existing = [p for p in message.content if type(p) is ThinkingPart]
    added: list[Part] = []
    for part in found:
        twin = same_reasoning(part, existing)
        if twin is None:
            existing.append(part)
            added.append(part)
            continue
        if len(part.text) > len(twin.text):
            twin.text = part.text  # the fuller of two overlapping texts
        if part.signature and not twin.signature:
            twin.signature = part.signature
    message.content = added + message.content


def detail_parts(details: list[Any]) -> list[ThinkingPart]:
    """OpenRouter ``reasoning_details``: text, summary and encrypted entries."""
    parts = []
    for detail in details:
        if type(detail) is not dict:
            continue
        kind = detail.get("type")
        signature = detail.get("signature") if type(detail.get("signature")) is str else None
        if kind == "reasoning.encrypted" and type(detail.get("data")) is str:
            parts.append(ThinkingPart("", signature=detail["data"], redacted=True))
            continue
        text = detail.get("text", detail.get("summary"))
        if type(text) is str and text.strip():
            parts.append(ThinkingPart(text, signature=signature))
    return parts


def same_reasoning(part: ThinkingPart, existing: list[ThinkingPart]) -> ThinkingPart | None:
    """The existing part carrying the same reasoning (equal, or one containing the other)."""
    if part.redacted:
        return next((p for p in existing if p.redacted and p.signature == part.signature), None)
    text = part.text.strip()
    for other in existing:
        other_text = other.text.strip()
        if other_text and (text == other_text or text in other_text or other_text in text):
            return other
    return None


def side_fields(record: dict[str, Any], used: frozenset[str]) -> dict[str, Any]:
    """A record's scalar side fields not otherwise used (dataset bookkeeping), for metadata."""
    return {
        k: v
        for k, v in record.items()
        if k not in used and v is not None and type(v) in (str, int, float, bool)
    }
