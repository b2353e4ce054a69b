"""The entries of a Pi file, kept slim: flat arrays indexed by position, no object per entry.

Each entry is converted as soon as it is read (`EntryConverter`), and the table keeps only what
the tree and the path walk need: its line, its byte offset, its parent's position, whether it
has an id and a message, the model state it sets (an index into the few distinct ones), and,
for the few entries that have them, its problems and a compaction's kept-range start. Its
message is kept too, unless the file has more than `DEFER_AT` entries averaging under
`KEEP_BYTES`, the caller allows it (`ReadContext.deferred`) and the input can be read again (a
seekable file): then messages are dropped and made again from the input, line by line, once
as the session is written (a `sts.model.StreamedSession`; `EntryTable.message`), since 2M tiny
entries would otherwise hold a ~500-byte `Message` each, several times the input. Each line
read again (from the file as it is then, `LineSource`) must be the one read first (its CRC-32
is noted): a file changed in between fails the input (`InputChanged`) rather than be written
with other content, or with none.

Parents are resolved to positions as entries are read, with pi's rules kept: an id used twice
names its later entry (`finish` points the earlier ones' children there), a parent read after
its child is resolved at the end, and a parent never read makes a root. The id index
(`IdIndex`) holds pi's own ids in flat arrays too.
"""

from __future__ import annotations

import errno
import os
from array import array
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO
from zlib import crc32

from sts.converters.pi.index import IdIndex
from sts.converters.pi.messages import Change, Notes
from sts.formats.pi import Key, id_key
from sts.lines import reparse
from sts.model import Message

#: Entries whose messages are always kept; past this many a deferring reader drops them when
#: the entries so far average less than `KEEP_BYTES` (a `Message` costs ~500 bytes)
DEFER_AT = 50_000
KEEP_BYTES = 1024

HAS_ID = 1  #: the entry has a string id and is the one its id names (not superseded)
HAS_MESSAGE = 2  #: the entry converts to a message
NAMED = 4  #: the entry has a string id (`HAS_ID` also when no later entry took it over)
CALLS = 8  #: the entry's message makes tool calls or is a tool result (the ledger needs it)

Adjust = Callable[[Message, Change | None], Change | None]

class EntryTable:
    """The entries of one file in file order (positions 0, 1, ...); see the module docstring.

    `lines`: line numbers; `parents`: the parent's position (-1: none, missing or not a string);
    `flags`: `HAS_ID`, `NAMED`, `HAS_MESSAGE`, `CALLS`; `changes`: index into `change_values`
    (-1: none); `offsets`, `sums`: where each entry's line starts in `source` (when it can be
    read again) and its CRC-32; `notes`, `first_kept`: by position, only for entries that have
    them; `by_id`: id (its `id_key`) → the position it names; `id_problems`: the line of each
    entry without an id (None) or reusing one (that id), in file order.
    """

    def __init__(self, source: LineSource | None, keep_messages: bool) -> None:
        self.lines = array("i")
        self.parents = array("i")
        self.changes = array("i")
        self.flags = bytearray()
        self.by_id = IdIndex()
        self.source = source  # the input, to read a line again (None: it cannot be)
        self.offsets = array("q")  # where each entry's line starts in it
        self.sums = array("I")  # and its CRC-32
        self.messages: list[Message | None] | None = [] if keep_messages else None
        self.change_values: list[Change] = []
        self._change_index: dict[tuple[tuple[str, str | None], ...], int] = {}
        self.notes: dict[int, Notes] = {}
        self.first_kept: dict[int, str | int] = {}
        self.id_problems: list[tuple[int, str | None]] = []
        self.earlier: dict[Key, list[int]] = {}  # an id used twice: positions it names no more
        self._forward: dict[int, Key] = {}  # position → a parent id not read yet
        self.remake: Callable[[dict[str, Any], int, int], Message | None] | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def add(self, lineno: int, own: Any, parent: Any, message: Message | None,
            change: Change | None, notes: Notes | None, first_kept: str | int | None) -> None:
        """Append one converted entry."""
        position = len(self.lines)
        self.lines.append(lineno)
        flags = 0
        if message is not None:
            flags = HAS_MESSAGE | CALLS if message.tool_calls or message.role == "tool" else (
                HAS_MESSAGE)
        if type(own) is str:
            flags |= HAS_ID | NAMED
            self._name(own, position, lineno)
        else:
            self.id_problems.append((lineno, None))
        self.flags.append(flags)
        self.parents.append(self._parent(parent, position))
        self.changes.append(-1 if change is None else self._change(change))
        if notes is not None:
            self.notes[position] = notes
        if first_kept is not None:
            self.first_kept[position] = first_kept
        kept = self.messages
        if kept is not None:
            kept.append(message)
        source = self.source
        if source is not None:
            self.offsets.append(source.start)
            self.sums.append(source.sum)
            if kept is not None and len(kept) > DEFER_AT and source.start < len(kept) * KEEP_BYTES:
                self.messages = None  # made again from the input when written

    def _name(self, own: str, position: int, lineno: int) -> None:
        key = id_key(own)
        before = self.by_id.put(key, position)
        if before is not None:
            self.id_problems.append((lineno, own))
            self.earlier.setdefault(key, []).append(before)
            self.flags[before] &= ~HAS_ID

    def _parent(self, parent: Any, position: int) -> int:
        if type(parent) is not str:
            return -1
        key = id_key(parent)
        found = self.by_id.get(key)
        if found is None:
            self._forward[position] = key
            return -1
        return found

    def _change(self, change: Change) -> int:
        key = tuple(change.items())
        index = self._change_index.get(key)
        if index is None:
            index = self._change_index[key] = len(self.change_values)
            self.change_values.append(change)
        return index

    def finish(self) -> None:
        """Resolve what reading in file order could not: parents read after their children,
        and children of an id that a later entry took over (pi: the later entry wins)."""
        by_id, parents = self.by_id, self.parents
        moved: dict[int, int] = {}
        for key, olds in self.earlier.items():
            final = by_id.get(key)
            assert final is not None  # the later entry that took the id over
            moved.update(dict.fromkeys(olds, final))
        if moved:
            for position, parent in enumerate(parents):
                if parent in moved:
                    parents[position] = moved[parent]
        for position, key in self._forward.items():
            found = by_id.get(key)
            parents[position] = -1 if found is None else found
        self._forward = {}

    def named(self, own: str) -> set[int]:
        """The positions of the entries whose id is `own`, earlier duplicates included."""
        key = id_key(own)
        found = self.by_id.get(key)
        return set() if found is None else {found, *self.earlier.get(key, ())}

    def release_index(self) -> None:
        """Let the id index go once every session is put together: writing needs none of it."""
        self.by_id = IdIndex()
        self.earlier = {}

    def message(self, position: int) -> Message | None:
        """The entry's message as converted when read: the kept one, or one made again from its
        line (a new object each time; its problems were reported when it was first read)."""
        if self.messages is not None:
            return self.messages[position]
        if not self.flags[position] & HAS_MESSAGE:
            return None
        assert self.source is not None and self.remake is not None
        lineno = self.lines[position]
        raw = self.source.line_at(self.offsets[position])
        if crc32(raw) != self.sums[position]:
            raise InputChanged(lineno)
        return self.remake(reparse(raw, lineno), lineno, position + 1)


class InputChanged(OSError):
    """A line read again from the input is not the one read first: the file was changed (or
    cut short) while it was converted."""

    def __init__(self, lineno: int) -> None:
        super().__init__(errno.ESTALE, f"the input changed while it was converted (line {lineno} "
                         "is not what was read first): convert it again")


class LineSource:
    """The lines of a seekable stream, for `iter_records`: notes where the line handed out last
    starts (`start`) and its CRC-32 (`sum`), and reads a line again from where it starts
    (`line_at`).

    Lines read again come from the file as it is now, never from what the stream buffered when
    it was first read (a small file is held whole there): with a file descriptor each block is
    read with ``os.pread``, into a window of its own that `forget` drops at the start of each
    pass, so that a file changed since it was read is seen changed."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.start = 0
        self.sum = 0
        self.window = b""  # bytes read again, from `window_start` on
        self.window_start = 0
        try:
            fd = stream.fileno()
        except (OSError, AttributeError, ValueError):  # in memory (io.UnsupportedOperation)
            fd = -1
        self.fd = fd

    def __iter__(self) -> Iterator[bytes]:
        position = self.stream.tell()
        for raw in self.stream:
            self.start = position
            self.sum = crc32(raw)
            position += len(raw)
            yield raw

    def forget(self) -> None:
        """Read everything again from the file from now on."""
        self.window = b""

    def line_at(self, offset: int) -> bytes:
        """The line that starts at `offset` (with its line end; shorter at the end of the file)."""
        at = offset - self.window_start
        if 0 <= at < len(self.window):
            end = self.window.find(b"\n", at)
            if end >= 0:
                return self.window[at:end + 1]
        size = WINDOW
        while True:
            data = self._read(offset, size)
            end = data.find(b"\n")
            if end >= 0 or len(data) < size:
                self.window, self.window_start = data, offset
                return data if end < 0 else data[:end + 1]
            size *= 2

    def _read(self, offset: int, size: int) -> bytes:
        if self.fd >= 0:
            return os.pread(self.fd, size, offset)
        self.stream.seek(offset)  # a stream in memory: it holds what is there now
        return self.stream.read(size)


#: Bytes read at a time when lines are read again (more when a line is longer)
WINDOW = 1 << 16
