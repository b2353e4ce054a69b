"""Large texts kept in a temporary file while a big session is converted.

A session is written only once it has been read whole (an STS header comes first; Claude Code
and Pi pick their thread at the end of the file), so a 50 MB session would otherwise sit in
memory as Python strings, which take up to four bytes per character. Instead, once the texts
of the current session pass `BUDGET` bytes, each further text of `MIN_CHARS` characters or
more is stored in an unnamed temporary file (in ``$TMPDIR``) as its JSON string literal, and
the model holds a `StoredText` handle. Reading `TextPart.text` loads it back; the writers copy
the stored JSON into their output without decoding it (`orjson.Fragment`).

Each conversion has a store of its own (`TextStore`: the budget, the file, a pause), made
current by its driver while the conversion runs, so that conversions in threads or interleaved
in one process never share one; outside a conversion texts stay in memory. The driver resets
its store at each session boundary (the converted session has been written or handed over), so
that streams of small sessions never touch the disk. A temporary file lives as long as a handle
to it does. Texts orjson cannot encode (lone surrogates) and texts met after a failed write to
the temporary file stay in memory.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import orjson

#: Bytes of text (as Python holds it) a session keeps in memory before storing large texts.
BUDGET = 1 << 20
#: Texts shorter than this always stay in memory.
MIN_CHARS = 512
_FLUSH_AT = 1 << 20
T = TypeVar("T")


class SpillFile:
    """An unnamed temporary file that texts are appended to, written in 1 MiB blocks. Safe to
    use from several threads (sessions read in parallel by a library user)."""

    __slots__ = ("_buffer", "_file", "_lock", "_written")

    def __init__(self) -> None:
        import tempfile  # only big sessions get here: no import cost for the rest

        self._file = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115 (lives with self)
        self._buffer = bytearray()
        self._written = 0
        self._lock = threading.Lock()

    def add(self, data: bytes) -> int:
        """Append `data`; return its offset. Raises OSError when the file cannot be written."""
        with self._lock:
            if len(self._buffer) >= _FLUSH_AT:
                self._flush()
            offset = self._written + len(self._buffer)
            self._buffer += data
            return offset

    def read(self, offset: int, size: int) -> bytes:
        """The `size` bytes stored at `offset` (a text may lie partly in the file and partly
        still in the buffer, after a write that stopped half way). Raises OSError when the file
        gives back less than was written to it."""
        with self._lock:
            start = offset - self._written
            if start >= 0:
                return bytes(self._buffer[start:start + size])
            on_disk = min(size, -start)
            head = _read_exactly(self._file.fileno(), on_disk, offset)
            return head + bytes(self._buffer[: size - on_disk])

    def _flush(self) -> None:
        """Write the buffer to the file; a short write goes on with the rest, a failure (ENOSPC)
        raises with what was not written still in the buffer, readable."""
        buffer = self._buffer
        while buffer:
            done = os.write(self._file.fileno(), buffer)
            del buffer[:done]
            self._written += done


def _read_exactly(descriptor: int, size: int, offset: int) -> bytes:
    """`size` bytes at `offset`, however many reads it takes."""
    chunks = []
    while size > 0:
        chunk = os.pread(descriptor, size, offset)
        if not chunk:
            raise OSError(f"temporary file ended {size} bytes early")
        chunks.append(chunk)
        size -= len(chunk)
        offset += len(chunk)
    return b"".join(chunks)


class StoredText:
    """A text held in a `SpillFile` as its JSON string literal (UTF-8)."""

    __slots__ = ("_file", "_offset", "_size")

    def __init__(self, file: SpillFile, offset: int, size: int) -> None:
        self._file = file
        self._offset = offset
        self._size = size

    def json(self) -> bytes:
        """The text's JSON string literal, quotes included."""
        return self._file.read(self._offset, self._size)

    def load(self) -> str:
        """The text itself."""
        return orjson.loads(self.json())


class TextStore:
    """One conversion's store: the bytes its current session keeps in memory, its temporary
    file, whether storing is paused or broken. A driver owns one per conversion
    (`sts.pipeline.one_behind`) and makes it current while the conversion runs (`current`,
    `within`), so that conversions in several threads, or interleaved in one, never share a
    budget, a pause or a reset."""

    __slots__ = ("broken", "file", "in_memory", "paused")

    def __init__(self) -> None:
        self.in_memory = 0
        self.file: SpillFile | None = None
        self.broken = False
        self.paused = False

    def keep(self, text: str) -> str | StoredText:
        """`text` itself while the session's budget lasts (or storing is paused), else a
        handle to a stored copy."""
        if self.paused:
            return text
        size = sys.getsizeof(text)
        if self.in_memory + size <= BUDGET or self.broken:
            self.in_memory += size
            return text
        try:
            data = orjson.dumps(text)
        except orjson.JSONEncodeError:  # lone surrogates: the writers clean them later
            return text
        try:
            file = self.file
            if file is None:
                file = self.file = SpillFile()
            return StoredText(file, file.add(data), len(data))
        except OSError:
            self.broken = True
            return text

    def reset(self) -> None:
        """Start a new session: its texts count from zero and go to a new temporary file (the
        old one lives as long as a handle to it does)."""
        self.in_memory = 0
        self.file = None
        self.broken = False

    @contextmanager
    def current(self) -> Iterator[TextStore]:
        """Make this the store `keep` hands texts to, in this thread, meanwhile."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    def within(self, items: Iterator[T]) -> Iterator[T]:
        """`items` (a converter's sessions, a streamed session's messages), each made while
        this store is current: the caller's own code between them runs without it."""
        while True:
            token = _CURRENT.set(self)  # `current`, without a context manager per item
            try:
                item = next(items, _END)
            finally:
                _CURRENT.reset(token)
            if item is _END:
                return
            yield item  # type: ignore[misc]


_CURRENT: ContextVar[TextStore | None] = ContextVar("sts_spill_store", default=None)
_END = object()


def keep(text: str) -> str | StoredText:
    """`text` itself when short or with no store current (outside a conversion), else what the
    current store makes of it (`TextStore.keep`)."""
    if len(text) < MIN_CHARS:
        return text
    store = _CURRENT.get()
    return text if store is None else store.keep(text)


def keep_strings(value: Any) -> Any:
    """`value` (a JSON value: tool-call arguments) with each string inside its objects and
    arrays handed to `keep`, in place. Only for a caller that writes the value and reads it no
    other way (`sts.building.ReadContext.deferred`): the writers copy the handles
    (`as_fragment`), anyone else would meet them where a string was."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            for key, member in item.items():
                if type(member) is str:
                    item[key] = keep(member)
                elif type(member) is dict or type(member) is list:
                    stack.append(member)
        elif type(item) is list:
            for index, member in enumerate(item):
                if type(member) is str:
                    item[index] = keep(member)
                elif type(member) is dict or type(member) is list:
                    stack.append(member)
    return value


def as_fragment(value: Any) -> orjson.Fragment:
    """orjson's ``default``: a `StoredText` is copied as the JSON it is stored as."""
    if type(value) is StoredText:
        return orjson.Fragment(value.json())
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def as_text(value: Any) -> str:
    """`sts.lines.dumps_deep`'s ``default``: a `StoredText` read back."""
    if type(value) is StoredText:
        return value.load()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


@contextmanager
def paused() -> Iterator[None]:
    """Keep every text in memory meanwhile: for messages written as soon as they are made (a
    `sts.model.StreamedSession`), which storing would only slow down. Pauses the current
    store only."""
    store = _CURRENT.get()
    if store is None:
        yield
        return
    was, store.paused = store.paused, True
    try:
        yield
    finally:
        store.paused = was


def _install() -> None:
    """Make `keep` the store new `TextPart` texts go to (until every converter feeds
    `sts.building.SessionBuilder`, which stores texts through the read context)."""
    from sts.model import install_text_store

    install_text_store(keep)


_install()
