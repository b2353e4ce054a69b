"""The head of an input that may be JSON Lines or one JSON document: which of the two it is.

Converters whose inputs come both ways (chat datasets, Codex rollouts) read the first non-blank
line: when it is complete JSON (after repairing lone surrogates and invalid UTF-8, which the line
reader reports again later), the input is JSON Lines, or a one-line document, and is streamed.
When it is not, the input is either a document spread over several lines (pretty-printed) or
JSON Lines whose first line is damaged (cut off, a flipped byte): `read_unclear` looks at the
next lines, and when they are complete records on their own (in a pretty-printed document almost
none is: ``{``, ``"key": [``, ``{...},``) the input is streamed line by line, so a bad first line
costs that line only and the file is never held whole; otherwise it is parsed as a document.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable
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
) -> tuple[Any, Iterable[bytes] | None]:
    """The input after a first line that is not JSON: ``(document, None)`` or ``(None, lines)``.

    The document is None when it is not JSON (reported by `loads_document`); `lines` is the
    whole input again, to be read as JSON Lines. The choice is made on the next `SAMPLE`
    non-blank lines: when they are records of their own (JSON Lines with a damaged first line)
    the input is streamed, never read whole; otherwise it is read whole as one document.
    """
    sample: list[bytes] = []
    complete = 0
    for raw in stream:
        sample.append(raw)
        if raw.strip():
            complete += 1
            if complete > SAMPLE:
                break
    else:  # the input ended within the sample: small, decided on the whole of it
        data = b"".join(head.lines).removeprefix(BOM) + b"".join(sample)
        try:
            return orjson.loads(data), None
        except orjson.JSONDecodeError:
            pass
        if _repaired(data) is NOT_JSON and _lines_are_records(sample):
            return None, io.BytesIO(data)
        return loads_document(data, problems), None  # repaired (warned), or the error reported
    if _lines_are_records(sample):
        return None, itertools.chain(head.lines, sample, stream)
    data = b"".join(head.lines).removeprefix(BOM) + b"".join(sample) + stream.read()
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError:
        return loads_document(data, problems), None


def _lines_are_records(lines: list[bytes]) -> bool:
    """True when at least half of the (up to `SAMPLE`) non-blank lines are complete objects or
    arrays on their own."""
    sampled = records = 0
    for raw in lines:
        if not raw.strip():
            continue
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
