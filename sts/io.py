"""Opening inputs for sniffing without consuming them, and writing outputs atomically."""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from sts.converters.base import Peek

HEAD_SIZE = 256 * 1024
BUFFER_SIZE = 1024 * 1024
_temporary_numbers = itertools.count()


class _Prefixed(io.RawIOBase):
    """A raw stream that replays `head` and then reads on from `rest` (stdin after a peek)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._rest.read1(len(buffer)) if hasattr(self._rest, "read1") else (
            self._rest.read(len(buffer))
        )
        buffer[: len(data)] = data
        return len(data)


def _read_head(stream: BinaryIO) -> bytes:
    chunks = []
    size = 0
    while size < HEAD_SIZE:
        chunk = stream.read(HEAD_SIZE - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def peek_stream(stream: BinaryIO, name: str | None = None) -> tuple[Peek, BinaryIO]:
    """Peek at the head of a binary stream; return the peek and a stream that starts over."""
    head = _read_head(stream)
    complete = len(head) < HEAD_SIZE
    if stream.seekable():
        stream.seek(-len(head), os.SEEK_CUR)
        return Peek(head, name, complete), stream
    replay = io.BufferedReader(_Prefixed(head, stream), buffer_size=BUFFER_SIZE)
    return Peek(head, name, complete), replay  # type: ignore[return-value]


def peek_file(path: Path) -> Peek:
    """The head of a file, for sniffing."""
    with open(path, "rb") as handle:
        head = handle.read(HEAD_SIZE)
    return Peek(head, path.name, len(head) < HEAD_SIZE)


def open_binary(path: Path) -> BinaryIO:
    """Open a file for reading with a large buffer."""
    return open(path, "rb", buffering=BUFFER_SIZE)


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """Write to a temporary file beside `path` and rename it into place on success.

    A run killed half way leaves no half-written `path` (at most a hidden ``.*.tmp`` file, which
    an exception removes).
    """
    try:
        descriptor, temporary = _create_temporary(path)
    except FileNotFoundError:  # the folder is new
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = _create_temporary(path)
    try:
        with os.fdopen(descriptor, "wb", buffering=BUFFER_SIZE) as handle:
            yield handle
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _create_temporary(path: Path) -> tuple[int, str]:
    """Create a new hidden file beside `path` (``.NAME.PID-N.tmp``), never an existing one.

    (`tempfile` would do, but importing it costs more start-up time than a small conversion.)
    """
    while True:
        number = next(_temporary_numbers)
        temporary = str(path.with_name(f".{path.name}.{os.getpid()}-{number}.tmp"))
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue
