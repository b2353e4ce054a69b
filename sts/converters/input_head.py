"""The head of an input that may be JSON Lines or one JSON document: which of the two it is.

Converters whose inputs come both ways (chat datasets, Codex rollouts) read the first non-blank
line: when it is complete JSON (after repairing lone surrogates and invalid UTF-8, which the line
reader reports again later), the input is JSON Lines, or a one-line document, and is streamed.
When it is not, the input is either a document spread over several lines (pretty-printed) or
JSON Lines whose first line is damaged (cut off, a flipped byte): `read_unclear` reads it whole
and parses it as a document; only when that fails and the next lines are complete records on
their own (in a pretty-printed document almost none is: ``{``, ``"key": [``, ``{...},``) is it
read line by line, so a bad first line costs that line only, never the whole file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from sts.lines import BOM, loads_document, loads_repaired
from sts.problems import Problems

SAMPLE = 8  # non-blank lines looked at after a first line that is not JSON
NOT_JSON: Any = object()  # `Head.value` of a first line that is not complete JSON


@dataclass(slots=True)
class Head:
    """The lines read so far (to be read again before the rest of the stream) and the first one."""

    lines: list[bytes] = field(default_factory=list)
    first: bytes = b""  # the first non-blank line, BOM removed; b"" for a blank input
    value: Any = NOT_JSON  # the first line parsed, repaired when needed
    repaired: bool = False  # the first line needed a repair (reported when it is read again)


def read_head(stream: BinaryIO) -> Head:
    """Read up to the first non-blank line and parse it."""
    head = Head()
    for raw in stream:
        head.lines.append(raw)
        if raw.strip():
            head.first = raw.removeprefix(BOM) if len(head.lines) == 1 else raw
            break
    if head.first:
        try:
            head.value = orjson.loads(head.first)
        except orjson.JSONDecodeError:
            head.value = _repaired(head.first)
            head.repaired = head.value is not NOT_JSON
    return head


def read_unclear(
    stream: BinaryIO, head: Head, problems: Problems
) -> tuple[Any, BinaryIO | None]:
    """The input after a first line that is not JSON: ``(document, None)`` or ``(None, lines)``.

    The document is None when it is not JSON (reported by `loads_document`); `lines` is the
    whole input again, to be read as JSON Lines.
    """
    data = b"".join(head.lines).removeprefix(BOM) + stream.read()
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError:
        pass
    if _repaired(data) is NOT_JSON and _lines_are_records(data):
        return None, io.BytesIO(data)
    return loads_document(data, problems), None  # repaired (warned), or the error reported


def _lines_are_records(data: bytes) -> bool:
    """True when at least half of the (up to `SAMPLE`) non-blank lines after the first one are
    complete objects or arrays on their own."""
    lines = (raw for raw in io.BytesIO(data) if raw.strip())
    next(lines, None)  # the first line, known not to be JSON
    sampled = records = 0
    for raw in lines:
        sampled += 1
        if type(_repaired(raw)) in (dict, list):
            records += 1
        if sampled == SAMPLE:
            break
    return records > 0 and 2 * records >= sampled


def _repaired(data: bytes) -> Any:
    try:
        return loads_repaired(data)
    except orjson.JSONDecodeError:
        return NOT_JSON
