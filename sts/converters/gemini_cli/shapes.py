"""What each Gemini CLI file looks like: the checks detection makes (kept apart from the
records, whose classes detection has no use for: start-up)."""

from __future__ import annotations

from typing import Any


def is_metadata(record: dict[str, Any]) -> bool:
    """The first line of a JSONL file (or a whole legacy record): sessionId and projectHash."""
    return type(record.get("sessionId")) is str and type(record.get("projectHash")) is str


def is_legacy_document(value: Any) -> bool:
    """A legacy whole-document session: metadata plus a ``messages`` list."""
    return type(value) is dict and is_metadata(value) and type(value.get("messages")) is list


def is_api_turn(value: Any) -> bool:
    """One Gemini API ``Content``: ``{"role": "user"|"model", "parts": [...]}``."""
    return (
        type(value) is dict
        and value.get("role") in ("user", "model")
        and type(value.get("parts")) is list
    )


def is_checkpoint(value: Any) -> bool:
    """A ``/chat save`` checkpoint: ``{"history": [Content...]}`` or a bare ``[Content...]``."""
    if type(value) is dict:
        history = value.get("history")
        return type(history) is list and bool(history) and all(map(is_api_turn, history[:20]))
    if type(value) is list and value:
        head = value[:20]
        return all(map(is_api_turn, head)) and any(t["role"] == "model" for t in head)
    return False


def is_prompt_log(value: Any) -> bool:
    """``logs.json``: a list of ``{sessionId, messageId, type, message, timestamp}``."""
    if type(value) is not list or not value:
        return False
    first = value[0]
    return (
        type(first) is dict
        and "sessionId" in first
        and "messageId" in first
        and "message" in first
        and "role" not in first
    )
