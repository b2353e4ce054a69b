"""What the viewer reads from the model, in one place.

The page never sees `sts.model` objects: each message becomes a small dict of plain values
(short keys, to keep big pages small). Every read of a model field the viewer needs is here,
so that a change of the model (an enum for `kind`, typed fields for `extras` keys, canonical
stop reasons) costs this module only.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from sts.model import ImagePart, MediaPart, Message, Session, TextPart, ThinkingPart

# Kinds of user messages a person typed (or queued): prompts. Any other kind on a user message,
# and the kinds below on system messages, is context the harness injected.
PROMPT_KINDS = frozenset({"", "queued", "command", "bash_input", "steering"})
INJECTED_KINDS = frozenset({
    "system_prompt", "developer", "injected_context", "meta", "caveat", "command_prompt",
    "task_notification", "custom", "hook", "environment", "agents_md", "inter_agent",
})
COMPACTION_KINDS = frozenset({"compaction", "branch_summary", "compaction_summary"})
ABORT_KINDS = frozenset({"interrupt", "rollback"})
ERROR_KINDS = frozenset({"api_error"})
ABORTED_STOPS = frozenset({"aborted", "abort", "interrupted", "cancelled", "canceled"})
ERROR_STOPS = frozenset({"error"})
INLINE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(rb"[A-Za-z0-9+/=\r\n]*")
PRETTY_LIMIT = 4 * 1024 * 1024  # arguments longer than this are shown as written


def name_of(value: Any) -> str:
    """A kind or stop reason as text, whether the model holds a str or an enum."""
    if value is None:
        return ""
    value = getattr(value, "value", value)
    return value if type(value) is str else str(value)


def kind_of(message: Message) -> str:
    """The message's kind as text; "" for none (and for a plain ``system`` kind)."""
    kind = name_of(getattr(message, "kind", None))
    return "" if kind == "system" else kind


def stop_of(message: Message) -> str:
    return name_of(getattr(message, "stop_reason", None))


def is_injected(message: Message) -> bool:
    """Context the harness put in (system prompts, AGENTS.md, expanded commands), not a prompt."""
    kind = kind_of(message)
    if message.role == "user":
        return kind not in PROMPT_KINDS
    return message.role == "system" and kind in INJECTED_KINDS


def subagent_call(session: Session) -> str | None:
    """The id of the tool call that spawned this sub-agent session, when the source says."""
    value = session.metadata.get("parentToolCallId")
    return value if type(value) is str else None


def count_calls(session: Session) -> int:
    return sum(len(m.tool_calls) for m in session.messages)


def session_time(session: Session) -> int | None:
    if session.started_at is not None:
        return session.started_at
    return next((m.timestamp for m in session.messages if m.timestamp is not None), None)


def session_title(session: Session) -> str:
    if session.name:
        return session.name
    for message in session.messages:
        if message.role == "user" and not is_injected(message):
            text = " ".join(message.text.split())
            if text:
                return text[:120]
    return session.id


def session_model(session: Session) -> str | None:
    return next((m.model for m in session.messages if m.model), None)


@dataclass
class Links:
    """Where each tool call's result is and who called each result, by message index."""

    results: dict[tuple[int, int], int] = field(default_factory=dict)
    callers: dict[int, tuple[int, int]] = field(default_factory=dict)
    calls: dict[str, tuple[int, int]] = field(default_factory=dict)


def link_calls(session: Session) -> Links:
    """Pair tool calls with their results by id (the first result after the call)."""
    links = Links()
    open_calls: dict[str, tuple[int, int]] = {}
    for index, message in enumerate(session.messages):
        for position, call in enumerate(message.tool_calls):
            open_calls[call.id] = (index, position)
            links.calls.setdefault(call.id, (index, position))
        if message.role == "tool" and message.tool_call_id is not None:
            where = open_calls.pop(message.tool_call_id, None)
            if where is not None:
                links.results[where] = index
                links.callers[index] = where
    return links


def usage_view(message: Message) -> dict[str, Any] | None:
    usage = message.usage
    if usage is None:
        return None
    view: dict[str, Any] = {"in": usage.input, "out": usage.output}
    if usage.cache_read:
        view["cr"] = usage.cache_read
    if usage.cache_write:
        view["cw"] = usage.cache_write
    if usage.cost_total:
        view["cost"] = usage.cost_total
    return view


def pretty_arguments(arguments: Any, raw: str | None) -> str:
    """Tool-call arguments as a person reads them: indented JSON, or the source's own text."""
    if raw is not None and arguments is None:
        return raw
    if arguments is None:
        return ""
    if type(arguments) is str:  # a double-encoded object reads best decoded
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        if type(decoded) not in (dict, list):
            return arguments
        arguments = decoded
    try:
        text = orjson.dumps(arguments, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return repr(arguments)
    return text if len(text) <= PRETTY_LIMIT else orjson.dumps(arguments).decode()


def image_source(part: ImagePart) -> str | None:
    """A data: URI for an inline image of a safe type, else None (remote images never load)."""
    media_type = (part.media_type or "").lower()
    if part.data is None or media_type not in INLINE_IMAGE_TYPES:
        return None
    data = part.data.encode("ascii", "replace")
    if _BASE64.fullmatch(data) is None:
        return None
    try:
        base64.b64decode(data[:64] + b"=" * (-len(data[:64]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    return f"data:{media_type};base64,{part.data}"


def parts_view(message: Message) -> list[list[Any]]:
    """Content parts in source order: text, reasoning, images, media placeholders."""
    parts: list[list[Any]] = []
    for part in message.content:
        if type(part) is TextPart:
            text = part.text
            if text:
                parts.append(["t", text])
        elif type(part) is ThinkingPart:
            if part.redacted or not part.text:
                parts.append(["R"])
            else:
                parts.append(["r", part.text])
        elif type(part) is ImagePart:
            source = image_source(part)
            if source is not None:
                parts.append(["i", source, part.media_type])
            else:
                parts.append(["m", f"image {part.media_type or ''} {part.url or ''}".strip()])
        elif type(part) is MediaPart:
            label = " ".join(
                str(v) for v in (part.kind, part.media_type, part.name, part.url) if v
            )
            if part.size is not None:
                label += f" ({part.size} bytes)"
            parts.append(["m", label])
    return parts


def message_view(
    message: Message, index: int, links: Links, children: dict[str, int]
) -> dict[str, Any]:
    """One message as the page's JSON: short keys, only what is set."""
    view: dict[str, Any] = {"r": message.role}
    kind = kind_of(message)
    custom = getattr(message, "custom_type", None)
    if kind:
        view["k"] = f"{kind} · {custom}" if custom else kind
    tokens_before = getattr(message, "tokens_before", None)
    if tokens_before:
        view["tb"] = tokens_before
    if getattr(message, "rolled_back", False):
        view["rb"] = 1
    if getattr(message, "refusal", False):
        view["rf"] = 1
    parts = parts_view(message)
    if parts:
        view["p"] = parts
    if message.tool_calls:
        calls = []
        for position, call in enumerate(message.tool_calls):
            item: dict[str, Any] = {
                "id": call.id,
                "n": call.name,
                "a": pretty_arguments(call.arguments, call.raw_arguments),
            }
            result = links.results.get((index, position))
            if result is not None:
                item["r"] = result
            child = children.get(call.id)
            if child is not None:
                item["s"] = child
            calls.append(item)
        view["c"] = calls
    if message.role == "tool":
        if message.tool_name:
            view["tn"] = message.tool_name
        if message.tool_call_id:
            view["ci"] = message.tool_call_id
        caller = links.callers.get(index)
        if caller is not None:
            view["ce"] = list(caller)
    stop = stop_of(message)
    if stop:
        view["sr"] = stop
    if message.is_error or stop in ERROR_STOPS or kind in ERROR_KINDS or message.error_message:
        view["e"] = 1
    if message.error_message:
        view["em"] = message.error_message
    if stop in ABORTED_STOPS or kind in ABORT_KINDS:
        view["ab"] = 1
    if kind in COMPACTION_KINDS:
        view["cmp"] = 1
    if is_injected(message):
        view["inj"] = 1
    if message.timestamp is not None:
        view["ts"] = message.timestamp
    if message.model:
        view["mo"] = message.model
    usage = usage_view(message)
    if usage is not None:
        view["u"] = usage
    return view


def total_usage(session: Session) -> dict[str, int]:
    total = {"in": 0, "out": 0, "cr": 0, "cw": 0}
    for message in session.messages:
        usage = message.usage
        if usage is not None:
            total["in"] += usage.input
            total["out"] += usage.output
            total["cr"] += usage.cache_read
            total["cw"] += usage.cache_write
    return total


def flatten(sessions: Iterator[Session] | list[Session]) -> Iterator[tuple[Session, int]]:
    """Each session and its sub-agents, depth first, with the depth."""
    stack = [(s, 0) for s in reversed(list(sessions))]
    while stack:
        session, depth = stack.pop()
        yield session, depth
        stack.extend((c, depth + 1) for c in reversed(session.children))
