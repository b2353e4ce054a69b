"""Responses API items (``input``/``output`` lists) → model messages.

- ``message`` items (and bare ``{role, content}`` items) map like chat messages; an assistant
  message's ``phase`` is kept in extras.
- ``reasoning`` items become thinking: the ``content`` texts, and the ``summary`` texts when
  they differ; ``encrypted_content`` is kept as the part's signature (never as text).
- Calls (``function_call``, ``custom_tool_call`` and every other ``*_call`` item such as
  ``shell_call``, ``mcp_call``, ``web_search_call``) become tool calls on the current assistant
  message, so a turn's parallel calls stay together; they are linked to their outputs
  (``*_call_output``) by ``call_id``, never by the item ``id``. An item that carries its own
  result (``mcp_call.output``, ``file_search_call.results``, ``image_generation_call.result``)
  gets a tool result right after it.
- ``item_reference``, ``mcp_list_tools``, ``additional_tools``, ``compaction``,
  ``compaction_trigger`` hold no conversation content and are left out on purpose.
"""

from __future__ import annotations

from typing import Any

from sts.building.content import image_from_url, json_text, openai_parts
from sts.converters.chat.messages import ChatBuilder
from sts.model import ImagePart, Message, TextPart, ThinkingPart

LEFT_OUT = frozenset(
    ("item_reference", "mcp_list_tools", "additional_tools", "compaction", "compaction_trigger")
)
RESULT_FIELDS = ("output", "results", "result")
CALL_SKIP = frozenset(("type", "id", "call_id", "status", "name", *RESULT_FIELDS))


def add_item(builder: ChatBuilder, item: Any, line: int | None) -> None:
    """Map one Responses item (or chat message) onto the session being built."""
    if type(item) is not dict:
        builder.problems.error(line, "bad-item", "item is not an object: skipped")
        return
    kind = item.get("type")
    if kind is None or kind == "message":
        add_message(builder, item, line)
        return
    if type(kind) is not str:  # a list or object would not even hash
        builder.problems.error(line, "unknown-record", f"unknown item type {kind!r} skipped")
    elif kind == "reasoning":
        add_reasoning(builder, item)
    elif kind in LEFT_OUT:
        return
    elif kind == "mcp_approval_response":
        add_result(builder, item.get("approval_request_id"), approval_text(item), None, line)
    elif kind.endswith("_output"):
        name = kind.removesuffix("_output").removesuffix("_call")
        add_result(builder, item.get("call_id", item.get("id")), item.get("output"), name, line)
    elif kind.endswith("_call") or kind == "mcp_approval_request":
        add_call(builder, item, kind, line)
    else:
        builder.problems.unknown_type(line, f"item type {kind!r}")


def add_message(builder: ChatBuilder, item: dict[str, Any], line: int | None) -> None:
    """A message item; an assistant one joins the reasoning-only message before it."""
    message = builder.add_openai_message(item, line)
    if message is None:
        return
    if "phase" in item and type(item["phase"]) is str:
        message.extras["phase"] = item["phase"]
    if message.role != "assistant":
        return
    messages = builder.session.messages  # `message` is the last of them
    before = messages[-2] if len(messages) > 1 else None
    if before is not None and before.role == "assistant" and only_thinking(before):
        messages.pop()
        before.content.extend(message.content)
        before.tool_calls.extend(message.tool_calls)
        before.id = before.id or message.id
        before.extras.update(message.extras)
        before.model = before.model or message.model
        before.timestamp = before.timestamp or message.timestamp


def open_assistant(builder: ChatBuilder, for_call: bool) -> Message:
    """The assistant message the next output item belongs to, created when there is none.

    A call joins the last assistant message (so parallel calls stay together); reasoning joins
    it only while it holds nothing but reasoning.
    """
    messages = builder.session.messages
    last = messages[-1] if messages else None
    if last is not None and last.role == "assistant" and (for_call or only_thinking(last)):
        return last
    return builder.add(Message(role="assistant", model=builder.model))


def only_thinking(message: Message) -> bool:
    """True for an assistant message holding reasoning only (no text, no calls)."""
    return not message.tool_calls and all(type(p) is ThinkingPart for p in message.content)


def add_reasoning(builder: ChatBuilder, item: dict[str, Any]) -> None:
    texts: list[str] = [
        p["text"] for p in _list(item.get("content"))
        if type(p) is dict and type(p.get("text")) is str and p["text"]
    ]
    summary = [p.get("text") for p in _list(item.get("summary")) if type(p) is dict]
    summary_text = "\n\n".join(t for t in summary if type(t) is str and t)
    if summary_text and summary_text not in texts:
        texts.append(summary_text)
    encrypted = item.get("encrypted_content")
    signature = encrypted if type(encrypted) is str and encrypted else None
    if not texts and signature is None:
        return
    message = open_assistant(builder, for_call=False)
    parts = [ThinkingPart(t) for t in texts] or [ThinkingPart("", redacted=True)]
    parts[-1].signature = signature
    message.content.extend(parts)


def add_call(builder: ChatBuilder, item: dict[str, Any], kind: str, line: int | None) -> None:
    if "arguments" in item:
        arguments = item["arguments"]
    elif "input" in item:
        arguments = {"input": item["input"]}
    else:
        arguments = {k: v for k, v in item.items() if k not in CALL_SKIP}
    name = item.get("name") or kind.removesuffix("_call")
    source_id = item.get("call_id") or item.get("id")
    call = builder.call(source_id, name, arguments, line)
    if kind != "function_call":
        call.extras["type"] = kind
    open_assistant(builder, for_call=True).tool_calls.append(call)
    result = item.get("result")
    if kind == "image_generation_call" and type(result) is str:
        image = Message(role="tool", content=[ImagePart("image/png", data=result)])
        image.tool_call_id = builder.answer(source_id, None, line)
        image.tool_name = name
        builder.add(image)
        return
    for field in RESULT_FIELDS:
        if item.get(field) is not None:
            add_result(builder, source_id, item[field], name, line)
            break


def add_result(
    builder: ChatBuilder, call_id: Any, output: Any, name: str | None, line: int | None
) -> None:
    """A tool message for an item output: text, content parts, or any JSON value as text."""
    message = Message(role="tool")
    message.tool_call_id = builder.answer(call_id, None, line)
    message.tool_name = builder.tool_name(message.tool_call_id) or name
    if type(output) is str or type(output) is list:
        message.content = openai_parts(output, line, builder.problems)
    elif type(output) is dict and output.get("type") == "computer_screenshot":
        message.content = [image_from_url(output.get("image_url") or "")]
    elif output is not None:
        message.content = [TextPart(json_text(output))]
    builder.add(message)


def approval_text(item: dict[str, Any]) -> str:
    verdict = "approved" if item.get("approve") else "denied"
    reason = item.get("reason")
    return f"{verdict}: {reason}" if type(reason) is str and reason else verdict


def _list(value: Any) -> list[Any]:
    return value if type(value) is list else []
