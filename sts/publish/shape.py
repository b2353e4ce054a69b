"""What the Hub's dataset loader will make of a written trace file, predicted from its lines.

The loader (``datasets``' JSON builder with ``teich``) turns a file into one trace row only when
it infers the ``message`` column as JSON, which it does when the ``message`` objects of the
file's lines do not all have the same keys (``find_mixed_struct_types_field_paths``); otherwise
it reads one row per line. Its row counts tool calls from Pi ``toolCall`` blocks only (an STS
file is read as Pi: 0 tool calls), counts user messages that have text, and takes ``sent_at``
from the first such line's own string ``timestamp``. `stats` gives what a faithful reader
should find, so that ``sts publish --check`` can compare the loader's row against it.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.undated import HEADER_FIELD
from sts.writers.common import iso_from_ms


def stats(data: bytes) -> dict[str, Any]:
    """Counts of one written STS or Pi file: messages, user messages, tool calls, the first
    user message's time (ISO), `timestampFallback` (a Pi header's: its times were recorded by
    no one, `sts.undated`) and `shapeProblem` (why the loader would not see one trace)."""
    lines = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    target = "pi" if lines and lines[0].get("version") is not None else "sts"
    messages = 0
    users = 0
    calls = 0
    first_user: str | None = None
    shapes: list[frozenset[str]] = []
    for line in lines[1:]:
        message = line.get("message")
        if line.get("type") != "message" or not isinstance(message, dict):
            continue
        messages += 1
        shapes.append(frozenset(message))
        role = message.get("role")
        if role == "assistant":
            calls += _tool_calls(message, target)
        elif role == "user" and _has_text(message.get("content")):
            users += 1
            if first_user is None:
                first_user = _time(line, message, target)
    return {
        "messages": messages,
        "userMessages": users,
        "toolCalls": calls,
        "firstUserAt": first_user,
        "timestampFallback": lines[0].get(HEADER_FIELD) if target == "pi" else None,
        "shapeProblem": shape_problem(shapes),
    }


def shape_problem(shapes: list[frozenset[str]]) -> str | None:
    """Why the loader would read the file line by line instead of as one trace, or None."""
    if not shapes:
        return "no messages"
    if len(set(shapes)) == 1 and shapes[0]:
        if len(shapes) == 1:
            return "a single message: the loader reads the file as one row per line"
        return ("every message has the same fields "
                f"({', '.join(sorted(shapes[0]))}): the loader reads the file as one row per line")
    return None


def _tool_calls(message: dict[str, Any], target: str) -> int:
    if target == "sts":
        calls = message.get("toolCalls")
        return len(calls) if isinstance(calls, list) else 0
    content = message.get("content")
    if not isinstance(content, list):
        return 0
    return sum(
        1 for block in content if isinstance(block, dict) and block.get("type") == "toolCall"
    )


def _has_text(content: Any) -> bool:
    if isinstance(content, str):
        return True
    return isinstance(content, list) and any(
        isinstance(block, str) or (isinstance(block, dict) and isinstance(block.get("text"), str))
        for block in content
    )


def _time(line: dict[str, Any], message: dict[str, Any], target: str) -> str | None:
    if target == "pi":
        value = line.get("timestamp")
        return value if isinstance(value, str) else None
    value = message.get("timestamp")
    return iso_from_ms(value) if isinstance(value, int) and not isinstance(value, bool) else None
