"""What every source converter is: a name, a default harness id, a priority, its options, a
sniff and a read."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO, ClassVar

import orjson

from sts.building.context import Options, ReadContext
from sts.lines import loads_repaired
from sts.model import Session

__all__ = ["Converter", "HeadObjects", "Options", "Peek", "ReadContext", "gc_paused"]

#: How many head lines sniffing parses at most.
MAX_RECORDS = 50


@dataclass
class Peek:
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


class Converter:
    """Base class of a source format adapter.

    Subclasses set `name` (the format name users type after ``--from``), `harness` (the default
    harness id, as the Hub's registry spells it) and `description`, and implement `sniff` and
    `read`. `priority` says how specific the format is: when two converters are equally sure
    they can read an input, the higher priority wins (a generic chat-log reader stays at 0, a
    harness's own transcript format takes 10). A converter with options of its own names a frozen
    dataclass subclass of `Options` as its ``Options``; `options` gives the instance for a read.
    """

    name: ClassVar[str] = ""
    harness: ClassVar[str] = ""
    description: ClassVar[str] = ""
    priority: ClassVar[int] = 0
    Options: ClassVar[type[Options]] = Options

    def sniff(self, peek: Peek) -> float:
        """How sure (0 to 1) this converter is that it can read the input: a statement about
        this format alone, never about another. Must not do I/O."""
        return 0.0

    def options(self, context: ReadContext) -> Any:
        """This converter's typed options for one read (``context.options`` may be a mapping)."""
        return self.Options.of(context.options)

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        """Yield the sessions in `stream`, reporting problems to `context.problems`."""
        raise NotImplementedError

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """True when `path` is part of another input's session (a sub-agent file, say) that is
        converted in the same run: when `root` (the folder walked) is given, that session's
        file lies inside it.

        Directory walks skip such files; their main session's converter reads them itself.
        """
        return False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a converter builds a session.

    Parsed records and messages hold no reference cycles, and the collector's passes over
    millions of fresh objects cost a quarter of the reading time of a large file.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
