"""ShareGPT source: ``{"conversations": [{"from", "value"}], "system"?, "tools"?}`` records.

Read as a JSON array (parsed whole: such files are documents, not streams), one object, or
JSONL with one conversation per line (streamed, one session per line). The turn mapping and the
Hermes ``<tool_call>``/``<tool_response>``/``<think>`` conventions are in
`sts.converters.chat.sharegpt_turns`; containers and keys in `sts.converters.openai.reader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any, BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.converters.chat.kinds import FROM_ROLES, is_sharegpt
from sts.model import Session


class ShareGPTConverter(Converter):
    """ShareGPT conversations (LLaMA-Factory, Glaive, OpenHermes, Hermes trajectories)."""

    name = "sharegpt"
    harness = "sharegpt"
    description = ('ShareGPT conversations: {"conversations": [{"from", "value"}]}, JSON or '
                   'JSONL; Hermes Agent trajectories (harness hermes-agent)')
    priority = 5

    def sniff(self, peek: Peek) -> float:
        document = peek.document
        if document is not None:
            values = document if type(document) is list else [document]
            return 0.95 if values and all_sharegpt(values[:20]) else 0.0
        objects = peek.objects
        if objects and peek.first_byte == b"{":
            return 0.95 if all_sharegpt(islice(objects, 20)) else 0.0
        head = peek.data
        if peek.first_byte in (b"[", b"{") and b'"conversations"' in head and b'"from"' in head:
            return 0.8
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.openai.reader import read_chat  # loaded only when used: start-up

        return read_chat(stream, context)


def all_sharegpt(values: Iterable[Any]) -> bool:
    """True when every value is a ShareGPT record whose first turn has a known sender."""
    for value in values:
        if not is_sharegpt(value):
            return False
        turns = value["conversations"]
        first = turns[0] if turns else None
        if first is not None and (
            type(first) is not dict or str(first.get("from", first.get("role"))).lower()
            not in FROM_ROLES
        ):
            return False
    return True
