"""Conventions some chat datasets write inside message text, parsed out of it.

- A leading ``<think>…</think>`` block (R1-style models, Hermes trajectories, many datasets) is
  the model's reasoning. Hermes writes an empty one when there was none.
- Hermes function calling writes calls as ``<tool_call>{"name", "arguments"}</tool_call>`` in
  the assistant text (several per turn allowed) and results as
  ``<tool_response>{"tool_call_id"?, "name", "content"}</tool_response>`` blocks in a tool turn.

Only plain string searches are used; the checks are cheap when a text holds no tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

#: The Hub's harness id for Hermes Agent (huggingface.js ``agent-harnesses.ts``).
HERMES_HARNESS = "hermes-agent"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"
RESPONSE_OPEN = "<tool_response>"
RESPONSE_CLOSE = "</tool_response>"


@dataclass(slots=True)
class Think:
    """A text split into its leading reasoning and the rest.

    `reasoning` is None when the text has no leading ``<think>`` block; `closed` is False when
    the block is never closed (then all the text after ``<think>`` is reasoning).
    """

    reasoning: str | None
    text: str
    closed: bool = True


def split_think(text: str) -> Think:
    """Split a leading ``<think>…</think>`` block off `text`."""
    stripped = text.lstrip()
    if not stripped.startswith(THINK_OPEN):
        return Think(None, text)
    body_start = len(THINK_OPEN)
    end = stripped.find(THINK_CLOSE, body_start)
    if end < 0:
        return Think(stripped[body_start:].strip("\n"), "", closed=False)
    reasoning = stripped[body_start:end].strip("\n")
    rest = stripped[end + len(THINK_CLOSE) :].lstrip("\n")
    return Think(reasoning, rest)


@dataclass(slots=True)
class TaggedBlock:
    """One ``<tag>…</tag>`` block: its inner text and, when that is JSON, the parsed value."""

    raw: str
    value: Any = None
    is_json: bool = False


def split_tagged(text: str, open_tag: str, close_tag: str) -> tuple[str, list[TaggedBlock]]:
    """Take every ``open_tag…close_tag`` block out of `text`.

    Returns the text outside the blocks (stripped) and the blocks in order. An unclosed last
    block runs to the end of the text.
    """
    if open_tag not in text:
        return text, []
    outside: list[str] = []
    blocks: list[TaggedBlock] = []
    position = 0
    while True:
        start = text.find(open_tag, position)
        if start < 0:
            outside.append(text[position:])
            break
        outside.append(text[position:start])
        body_start = start + len(open_tag)
        end = text.find(close_tag, body_start)
        body = text[body_start:] if end < 0 else text[body_start:end]
        blocks.append(parse_block(body.strip()))
        if end < 0:
            break
        position = end + len(close_tag)
    rest = "\n".join(piece.strip() for piece in outside if piece.strip())
    return rest, blocks


def parse_block(body: str) -> TaggedBlock:
    """The inner text of a block, parsed as JSON when it is JSON.

    Hermes prompts show calls as Python dicts (single quotes); such text is not JSON and is kept
    as raw text.
    """
    try:
        return TaggedBlock(body, orjson.loads(body), True)
    except orjson.JSONDecodeError:
        return TaggedBlock(body)
