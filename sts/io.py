"""Opening inputs for sniffing without consuming them, and writing outputs atomically."""

from __future__ import annotations

import errno
import io
import itertools
import os
import stat
from contextlib import AbstractContextManager, suppress
from pathlib import Path
from typing import BinaryIO

from sts.peek import Peek

HEAD_SIZE = 256 * 1024
#: How far a head is read to hold a whole first line.
MAX_FIRST_LINE = 64 * 1024 * 1024
BUFFER_SIZE = 1024 * 1024
#: A database's head is never read on for a line end: it has no lines.
SQLITE_HEADER = b"SQLite format 3\x00"
_temporary_numbers = itertools.count()


class _Prefixed(io.RawIOBase):
    """A raw stream that replays `head` and then reads on from `rest` (stdin after a peek)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
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


def _read_head(stream: BinaryIO) -> tuple[bytes, bool]:
    """The head of `stream` for sniffing, and whether it is the whole input.

    `HEAD_SIZE` bytes, or more when no line ends in them: the first line is read whole (up to
    `MAX_FIRST_LINE`), so that a long first line (a Codex ``session_meta`` with long
    instructions, a big Pi header) can still be parsed by the sniffers.
    """
    chunks: list[bytes] = []
    size = 0
    limit = HEAD_SIZE
    line_ended = False
    while size < limit:
        chunk = stream.read(limit - size)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
        line_ended = line_ended or b"\n" in chunk or chunk.startswith(SQLITE_HEADER)
        if size >= limit and not line_ended:
            limit = min(limit * 2, MAX_FIRST_LINE)
    return b"".join(chunks), False


def peek_stream(stream: BinaryIO, name: str | None = None) -> tuple[Peek, BinaryIO]:
    """Peek at the head of a binary stream; return the peek and a stream that starts over."""
    head, complete = _read_head(stream)
    if stream.seekable():
        stream.seek(-len(head), os.SEEK_CUR)
        return Peek(head, name, complete), stream
    replay = io.BufferedReader(_Prefixed(head, stream), buffer_size=BUFFER_SIZE)
    return Peek(head, name, complete), replay


def peek_file(path: Path) -> Peek:
    """The head of a file, for sniffing."""
    with open(path, "rb") as handle:
        head, complete = _read_head(handle)
    return Peek(head, path.name, complete)


def open_binary(path: Path) -> BinaryIO:
    """Open a file for reading with a large buffer."""
    return open(path, "rb", buffering=BUFFER_SIZE)


def atomic_output(path: Path, streams: bool = True, absent: bool = False
                  ) -> AbstractContextManager[BinaryIO]:
    """Write to a temporary file beside `path` and rename it into place on success (use it in a
    ``with`` statement).

    A run killed half way leaves no half-written `path` (at most a hidden ``.*.tmp`` file, which
    an exception removes). A non-regular file is never replaced: a symlink is written through
    (to the file it names), and a FIFO or device is written into as a stream when `streams`,
    else refused. `absent`: the caller has just seen that nothing is at `path`.
    """
    try:
        mode = None if absent else os.stat(path).st_mode  # follows symlinks
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not streams:
            raise OSError(errno.EEXIST, "exists and is not a regular file: not replaced")
        return open(path, "wb", buffering=BUFFER_SIZE)  # a FIFO, a device
    if mode is not None and os.path.islink(path):
        path = Path(os.path.realpath(path))
    return _Replacing(path)


class _Replacing:
    """`atomic_output`'s temporary file, renamed over its path when the block ends without an
    exception, removed when it raises (a class rather than a generator: one per output of a
    stream of many sessions)."""

    __slots__ = ("handle", "path", "temporary")

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> BinaryIO:
        try:
            descriptor, self.temporary = _create_temporary(self.path)
        except FileNotFoundError:  # the folder is new
            self.path.parent.mkdir(parents=True, exist_ok=True)
            descriptor, self.temporary = _create_temporary(self.path)
        self.handle = os.fdopen(descriptor, "wb", buffering=BUFFER_SIZE)
        return self.handle

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            self.handle.close()
            if kind is None:
                os.replace(self.temporary, self.path)
                return
        except BaseException:
            self._remove()
            raise
        self._remove()

    def _remove(self) -> None:
        with suppress(FileNotFoundError):
            os.unlink(self.temporary)


#: Bytes of the output name a temporary name keeps (names are at most 255 bytes).
_TEMPORARY_STEM = 200


def _create_temporary(path: Path) -> tuple[int, str]:
    """Create a new hidden file beside `path` (``.NAME.PID-N.tmp``, NAME cut to stay a legal
    file name), never an existing one.

    (`tempfile` would do, but importing it costs more start-up time than a small conversion.)
    """
    folder, name = os.path.split(os.fspath(path))
    stem = name if len(name) <= _TEMPORARY_STEM // 4 and name.isascii() else \
        os.fsencode(name)[:_TEMPORARY_STEM].decode("utf-8", "ignore")
    while True:
        number = next(_temporary_numbers)
        temporary = os.path.join(folder, f".{stem}.{os.getpid()}-{number}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue
