"""The shape of a Pi file: its header, its entries, and the branches pi itself would walk.

pi's loader (``shared/formats/pi.md`` §2.1) keeps every parsed entry, takes the LAST parsed
entry as the leaf whatever its type, and walks ``parentId`` back to a root (a missing parent is
a root). A version-1 file (no ``version`` in the header) has no tree: its entries are the path in
file order. This module only finds paths; turning entries into messages is `messages.py`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sts.problems import Problems

Entry = dict[str, Any]


@dataclass(slots=True)
class PiFile:
    """A parsed Pi file: the header, the entries after it (with line numbers), the version."""

    header: Entry
    header_line: int
    entries: list[tuple[int, Entry]] = field(default_factory=list)

    @property
    def version(self) -> int:
        """``header.version`` as pi reads it (missing → 1)."""
        version = self.header.get("version")
        return version if type(version) is int else 1

    @property
    def is_tree(self) -> bool:
        """True for v2+ files, whose entries form a tree by ``id``/``parentId``."""
        return self.version >= 2


def entry_id(entry: Entry, index: int, tree: bool) -> str | None:
    """The id an entry is known by: its own in a tree; in a v1 file a stable made-up one.

    pi gives v1 entries new random ids when it migrates them; we use the parsed-entry index
    (the header counting as 0) as 8 hex digits so output is deterministic.
    """
    if tree:
        value = entry.get("id")
        return value if type(value) is str else None
    return f"{index:08x}"


class Tree:
    """Index of a v2+ file's entries by id, with pi's leaf and path rules."""

    def __init__(self, pi_file: PiFile, problems: Problems) -> None:
        self.entries = pi_file.entries
        self.by_id: dict[str, int] = {}
        self.problems = problems
        for position, (lineno, entry) in enumerate(self.entries):
            key = entry.get("id")
            if type(key) is not str:
                problems.error(lineno, "no-entry-id", "entry without a string id: not in the tree")
                continue
            if key in self.by_id:
                problems.warning(
                    lineno, "duplicate-id", f"entry id {key!r} used twice: the later entry wins"
                )
            self.by_id[key] = position

    def path_to(self, position: int) -> list[int]:
        """Entry positions from the root down to the entry at `position` (pi's getBranch)."""
        path: list[int] = []
        seen: set[int] = set()
        current: int | None = position
        while current is not None:
            if current in seen:
                lineno = self.entries[current][0]
                self.problems.error(lineno, "parent-cycle", "parentId chain loops: walk stopped")
                break
            seen.add(current)
            path.append(current)
            parent = self.entries[current][1].get("parentId")
            current = self.by_id.get(parent) if type(parent) is str else None
        path.reverse()
        return path

    def active_path(self) -> list[int]:
        """The branch pi opens: from the last parsed entry back to its root."""
        if not self.entries:
            return []
        last = len(self.entries) - 1
        if type(self.entries[last][1].get("id")) is not str:
            return [last]  # pi's context falls back to that entry alone
        return self.path_to(last)

    def leaves(self) -> list[int]:
        """Positions of entries that no entry names as parent, in file order."""
        parents = {
            self.by_id.get(entry.get("parentId"))
            for _, entry in self.entries
            if type(entry.get("parentId")) is str
        }
        return sorted(pos for pos in self.by_id.values() if pos not in parents)
