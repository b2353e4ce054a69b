"""What a chat record is, told from its keys alone: the light half of the OpenAI and ShareGPT
readers, imported for sniffing without loading the readers themselves."""

from __future__ import annotations

from typing import Any

CALL_ITEM_TYPES = frozenset(
    ("function_call", "function_call_output", "reasoning", "custom_tool_call",
     "custom_tool_call_output")
)
USER, ASSISTANT, SYSTEM, CALL, RESULT = "user", "assistant", "system", "call", "result"
#: ShareGPT ``from`` values (lower case) → the turn they are.
FROM_ROLES = {
    "human": USER,
    "user": USER,
    "gpt": ASSISTANT,
    "assistant": ASSISTANT,
    "chatgpt": ASSISTANT,
    "bard": ASSISTANT,
    "bing": ASSISTANT,
    "model": ASSISTANT,
    "system": SYSTEM,
    "function_call": CALL,
    "tool_call": CALL,
    "observation": RESULT,
    "tool": RESULT,
    "function_response": RESULT,
    "tool_response": RESULT,
    "ipython": RESULT,
    "function": RESULT,
}


def record_kind(record: Any) -> str | None:
    """``log``, ``conversation``, ``sharegpt``, ``meta``, ``message``, ``messages`` or None."""
    if type(record) is list:
        return "messages" if record and is_message(record[0]) else None
    if type(record) is not dict:
        return None
    if is_log(record):
        return "log"
    if type(record.get("messages")) is list:
        return "conversation"
    if type(record.get("conversations")) is list:
        return "sharegpt"
    role = record.get("role")
    if role == "session_meta":
        return "meta"
    if type(role) is str:
        return "message"
    kind = record.get("type")
    return "message" if type(kind) is str and kind in CALL_ITEM_TYPES else None


def is_log(record: dict[str, Any]) -> bool:
    """A request/response log record (or a bare Responses API response object)."""
    request = record.get("request")
    response = record.get("response")
    if type(request) is dict and ("messages" in request or "input" in request or "body" in request):
        return True
    if type(response) is dict and (
        "choices" in response or "output" in response or "body" in response
    ):
        return True
    if type(response) is dict and type(record.get("messages")) is list:
        return True  # LiteLLM: the request's messages at the top, a response (maybe empty)
    return record.get("object") == "response" and type(record.get("output")) is list


def is_message(value: Any) -> bool:
    """True for a chat message or Responses item (not a record holding messages)."""
    return type(value) is dict and record_kind(value) == "message"


def is_sharegpt(record: Any) -> bool:
    """True for a ``{"conversations": [...]}`` record."""
    return type(record) is dict and type(record.get("conversations")) is list
