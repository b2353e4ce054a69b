"""Opening a chat-data input: one JSON document, or JSON Lines streamed one record at a time.

Chat datasets come as a JSON document (an array of conversations or of messages, or one object,
possibly pretty-printed) or as JSONL (one object per line). The first non-blank line decides:
when it is a complete JSON object, the input is JSONL and is streamed line by line through
`sts.lines.iter_records` (a 1 GB file is never held whole); when it is not complete JSON, the
input is one document and is parsed whole with `sts.lines.loads_document`. A first line that is
a complete JSON array is a one-line document, unless more lines follow (JSONL of arrays).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from sts.lines import BOM, iter_records, loads_document
from sts.problems import Problems


@dataclass(slots=True)
class Entry:
    """One top-level value: a JSONL line (`line` set) or an item of a document array."""

    value: Any
    line: int | None
    key: str


@dataclass(slots=True)
class Opened:
    """An opened input: `document` (parsed whole) or `lines` (streamed entries)."""

    document: Any = None
    lines: Iterator[Entry] | None = None


def open_input(stream: BinaryIO, problems: Problems) -> Opened:
    """Look at the first non-blank line and open the input as a document or as JSONL."""
    head: list[bytes] = []
    first = b""
    for raw in stream:
        head.append(raw)
        if raw.strip():
            first = raw
            break
    if not first:
        return Opened()
    try:
        value = orjson.loads(first.removeprefix(BOM) if len(head) == 1 else first)
    except orjson.JSONDecodeError:
        return Opened(document=loads_document(b"".join(head) + stream.read(), problems))
    if type(value) is not dict:
        for raw in stream:
            head.append(raw)
            if raw.strip():
                break
        else:
            return Opened(document=value)
    records = iter_records(itertools.chain(head, stream), problems, objects_only=False)
    return Opened(lines=(Entry(value, line, f"L{line}") for line, value in records))


def document_entries(values: list[Any]) -> Iterator[Entry]:
    """The items of a document array as entries keyed ``item1``, ``item2``, ..."""
    for index, value in enumerate(values, 1):
        yield Entry(value, None, f"item{index}")
