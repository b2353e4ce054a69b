"""Opening a chat-data input: one JSON document, or JSON Lines streamed one record at a time.

Chat datasets come as a JSON document (an array of conversations or of messages, or one object,
possibly pretty-printed) or as JSONL (one object per line). The first non-blank line decides
(`sts.converters.input_head`): when it is a complete JSON object, the input is JSONL and is
streamed line by line through `sts.lines.iter_records` (a 1 GB file is never held whole); when it
is not complete JSON, the input is parsed whole as one document, and when that fails too while
the next lines are complete records, it is JSONL with a damaged first line: read line by line,
only that line is lost. A first line that is a complete JSON array is a one-line document,
unless more lines follow (JSONL of arrays).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from sts.converters.input_head import NOT_JSON, read_head, read_unclear
from sts.lines import iter_records, loads_document
from sts.problems import Problems


@dataclass(slots=True)
class TopLevel:
    """One top-level value: a JSONL line (`line` set) or an item of a document array."""

    value: Any
    line: int | None
    key: str


@dataclass(slots=True)
class Opened:
    """An opened input: `document` (parsed whole) or `lines` (streamed entries)."""

    document: Any = None
    lines: Iterator[TopLevel] | None = None


def open_input(stream: BinaryIO, problems: Problems) -> Opened:
    """Look at the first non-blank line(s) and open the input as a document or as JSONL."""
    head = read_head(stream)
    value = head.value
    if not head.first:
        return Opened()
    if value is NOT_JSON:
        document, lines = read_unclear(stream, head, problems)
        if lines is None:
            return Opened(document=document)
        return Opened(lines=entries(lines, problems))
    if type(value) is not dict:
        for raw in stream:
            head.lines.append(raw)
            if raw.strip():
                break
        else:
            if head.repaired:  # parsed again to report the repair
                value = loads_document(b"".join(head.lines), problems)
            return Opened(document=value)
    return Opened(lines=entries(itertools.chain(head.lines, stream), problems))


def entries(lines: Iterable[bytes], problems: Problems) -> Iterator[TopLevel]:
    """Every readable JSONL line as an entry keyed ``L<line>``."""
    records = iter_records(lines, problems, objects_only=False)
    return (TopLevel(value, line, f"L{line}") for line, value in records)


def document_entries(values: list[Any]) -> Iterator[TopLevel]:
    """The items of a document array as entries keyed ``item1``, ``item2``, ..."""
    for index, value in enumerate(values, 1):
        yield TopLevel(value, None, f"item{index}")
