"""The shape of a Pi file: its header, its entries, and the branches pi itself would walk.

pi's loader (``shared/formats/pi.md`` §2.1) keeps every parsed entry, takes the LAST parsed
entry as the leaf whatever its type, and walks ``parentId`` back to a root (a missing parent is
a root). A version-1 file (no ``version`` in the header) has no tree: its entries are the path in
file order. This module only finds paths; turning entries into messages is `messages.py`'s job.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

from sts.converters.pi.entries import HAS_ID, NAMED, EntryTable
from sts.model import FallbackTime
from sts.problems import Problems
from sts.undated import header_fallback


@dataclass(slots=True)
class PiFile:
    """A parsed Pi file: the header, its entries in file order, and the session name.

    `name` follows pi's rule: the latest ``session_info`` in file order, trimmed (empty → None).
    """

    header: dict[str, Any]
    header_line: int
    entries: EntryTable
    name: str | None = None

    @property
    def version(self) -> int:
        """``header.version`` as pi reads it (missing → 1)."""
        version = self.header.get("version")
        return version if type(version) is int else 1

    @property
    def fallback_time(self) -> FallbackTime | None:
        """The fallback time the header names (`sts.undated`): a time nothing recorded."""
        return header_fallback(self.header)

    @property
    def is_tree(self) -> bool:
        """True for v2+ files, whose entries form a tree by ``id``/``parentId``."""
        return self.version >= 2


def entry_id(own_id: str | None, index: int, tree: bool) -> str | None:
    """The id an entry is known by: its own in a tree; in a v1 file a stable made-up one.

    pi gives v1 entries new random ids when it migrates them; we use the parsed-entry index
    (the header counting as 0) as 8 hex digits so output is deterministic.
    """
    return own_id if tree else f"{index:08x}"


class Tree:
    """A v2+ file's entries as a tree (parents resolved by `EntryTable`), with pi's leaf and
    path rules. Paths are arrays of positions, root first."""

    def __init__(self, pi_file: PiFile, problems: Problems) -> None:
        self.entries = pi_file.entries
        self.problems = problems
        for lineno, own in self.entries.id_problems:
            if own is None:
                problems.error(lineno, "no-entry-id", "entry without a string id: not in the tree")
            else:
                text = f"entry id {own!r} used twice: the later entry wins"
                problems.warning(lineno, "duplicate-id", text)

    def path_to(self, position: int) -> array[int]:
        """Entry positions from the root down to the entry at `position` (pi's getBranch)."""
        parents = self.entries.parents
        path = array("i")
        current = position
        limit = len(parents)
        while current >= 0:
            path.append(current)
            if len(path) > limit:  # longer than the file: a loop, walked again to report it
                return self._looping_path(position)
            current = parents[current]
        path.reverse()
        return path

    def _looping_path(self, position: int) -> array[int]:
        entries = self.entries
        path = array("i")
        seen: set[int] = set()
        current = position
        while current >= 0:
            if current in seen:
                lineno = entries.lines[current]
                self.problems.error(lineno, "parent-cycle", "parentId chain loops: walk stopped")
                break
            seen.add(current)
            path.append(current)
            current = entries.parents[current]
        path.reverse()
        return path

    def active_path(self) -> array[int]:
        """The branch pi opens: from the last parsed entry back to its root."""
        entries = self.entries
        if not len(entries):
            return array("i")
        last = len(entries) - 1
        if not entries.flags[last] & NAMED:
            return array("i", [last])  # pi's context falls back to that entry alone
        return self.path_to(last)

    def leaves(self) -> list[int]:
        """Positions of entries that no entry names as parent, in file order."""
        entries = self.entries
        named = bytearray(len(entries))
        for parent in entries.parents:
            if parent >= 0:
                named[parent] = 1
        flags = entries.flags
        return [pos for pos in range(len(flags)) if flags[pos] & HAS_ID and not named[pos]]
