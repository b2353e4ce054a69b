"""The head of an input, for sniffing without consuming the stream: what `sts.io` reads and
every converter's `sniff` looks at."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

import orjson

from sts.lines import loads_repaired
from sts.records import Record, record

#: How many head lines sniffing parses at most.
MAX_RECORDS = 50


@record
class Peek(Record):
    """The head of an input, for sniffing without consuming the stream.

    `data` is up to `HEAD_SIZE` bytes; `complete` says whether that is the whole input. `name`
    is the file name (None for stdin).
    """

    data: bytes
    name: str | None = None
    complete: bool = False

    @cached_property
    def objects(self) -> HeadObjects:
        """The JSON objects of the first complete lines of the head, parsed as far as asked.

        A sequence: ``objects[0]`` parses one line, ``objects[:20]`` twenty, a loop stops
        parsing where the sniffer stops looking; at most `MAX_RECORDS` objects. Unreadable
        lines and non-objects are left out.
        """
        return HeadObjects(self.data, self.complete)

    @cached_property
    def first_byte(self) -> bytes:
        """The first non-blank byte of the input (after a BOM), or b''."""
        return self.data.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]

    @cached_property
    def document(self) -> Any:
        """The whole input parsed as one JSON document, when it fits in the head; else None."""
        if not self.complete:
            return None
        try:
            return loads_repaired(self.data.removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError:
            return None


class HeadObjects(Sequence[dict[str, Any]]):
    """The objects of a head's complete lines, parsed lazily and remembered."""

    def __init__(self, data: bytes, complete: bool) -> None:
        self._lines = self._complete_lines(data, complete)
        self._parsed: list[dict[str, Any]] = []

    @staticmethod
    def _complete_lines(data: bytes, complete: bool) -> Iterator[bytes]:
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                if complete and start < len(data):
                    yield data[start:]
                return
            yield data[start:end]
            start = end + 1

    def _parse_until(self, count: int | None) -> None:
        parsed = self._parsed
        limit = MAX_RECORDS if count is None else min(count, MAX_RECORDS)
        while len(parsed) < limit:
            line = next(self._lines, None)
            if line is None:
                return
            line = line.strip().removeprefix(b"\xef\xbb\xbf")
            if not line:
                continue
            try:
                value = loads_repaired(line)
            except orjson.JSONDecodeError:
                continue
            if type(value) is dict:
                parsed.append(value)

    def __getitem__(self, index):
        if isinstance(index, slice):
            bounded = index.stop is not None and index.stop >= 0 and (index.start or 0) >= 0
            self._parse_until(index.stop if bounded else None)
            return self._parsed[index]
        self._parse_until(None if index < 0 else index + 1)
        return self._parsed[index]

    def __len__(self) -> int:
        self._parse_until(None)
        return len(self._parsed)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        position = 0
        while True:
            self._parse_until(position + 1)
            if position >= len(self._parsed):
                return
            yield self._parsed[position]
            position += 1

    def __bool__(self) -> bool:
        self._parse_until(1)
        return bool(self._parsed)
