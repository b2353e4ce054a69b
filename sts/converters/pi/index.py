"""The id index of a Pi file's entries: entry id → the position of the entry it names.

A file of millions of tiny entries is mostly ids, so the index is kept lean: an id as pi makes
it (a few lowercase hex digits) is a number (`id_key`), held with its position in two flat
arrays (an open-addressing table, at most half full: 24 bytes an id at most, where a dict of
strings to ints takes ~110); any other id goes to a plain dict. Slots are found by multiplying
the key by a random odd number per table, so no input can make its ids pile up on one slot.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterator

from sts.formats.pi import Key

_BITS = 64
_MASK = (1 << _BITS) - 1
_EMPTY = 0  # no key is 0: a numeric key has a leading 1 digit


class IdIndex:
    """Index key → position (see the module docstring)."""

    def __init__(self) -> None:
        self.others: dict[str, int] = {}
        self._multiplier = int.from_bytes(os.urandom(8), "little") | 1
        self._size(1 << 10)
        self._count = 0

    def _size(self, slots: int) -> None:
        self._keys = array("q", [_EMPTY]) * slots
        self._positions = array("i", [0]) * slots
        self._shift = _BITS - (slots.bit_length() - 1)
        self._last = slots - 1

    def _slot(self, key: int) -> int:
        """The slot that holds `key`, or the empty one where it would go."""
        keys, last = self._keys, self._last
        slot = ((key * self._multiplier) & _MASK) >> self._shift
        while True:
            found = keys[slot]
            if found in (key, _EMPTY):
                return slot
            slot = (slot + 1) & last

    def get(self, key: Key) -> int | None:
        if isinstance(key, str):
            return self.others.get(key)
        slot = self._slot(key)
        return self._positions[slot] if self._keys[slot] != _EMPTY else None

    def put(self, key: Key, position: int) -> int | None:
        """Map `key` to `position`; return the position it mapped to before, if any."""
        if isinstance(key, str):
            before = self.others.get(key)
            self.others[key] = position
            return before
        slot = self._slot(key)
        before = self._positions[slot] if self._keys[slot] != _EMPTY else None
        if before is None:
            self._keys[slot] = key
            self._count += 1
        self._positions[slot] = position
        if 2 * self._count > len(self._keys):
            self._grow()
        return before

    def _grow(self) -> None:
        keys, positions = self._keys, self._positions
        self._size(2 * len(keys))
        new_keys, new_positions, slot_of = self._keys, self._positions, self._slot
        for key, position in zip(keys, positions, strict=True):
            if key != _EMPTY:
                slot = slot_of(key)
                new_keys[slot] = key
                new_positions[slot] = position

    def items(self) -> Iterator[tuple[Key, int]]:
        """Every key with its position (in no particular order)."""
        yield from self.others.items()
        for key, position in zip(self._keys, self._positions, strict=True):
            if key != _EMPTY:
                yield key, position
