"""The shape of a Pi file: its header, its entries, and the branches pi itself would walk.

pi's loader (``shared/formats/pi.md`` §2.1) keeps every parsed entry, takes the LAST parsed
entry as the leaf whatever its type, and walks ``parentId`` back to a root (a missing parent is
a root). A version-1 file (no ``version`` in the header) has no tree: its entries are the path in
file order. This module only finds paths; turning entries into messages is `messages.py`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sts.model import FallbackTime
from sts.problems import Problems
from sts.undated import header_fallback


@dataclass(slots=True)
class Node:
    """What the tree needs of one entry: its line, and its ``id``/``parentId`` when strings."""

    lineno: int
    id: str | None
    parent: str | None


@dataclass(slots=True)
class PiFile:
    """A parsed Pi file: the header, its entries in file order, and the session name.

    `name` follows pi's rule: the latest ``session_info`` in file order, trimmed (empty → None).
    """

    header: dict[str, Any]
    header_line: int
    entries: list[Any] = field(default_factory=list)  # Node (or a subclass), file order
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
    """Index of a v2+ file's entries by id, with pi's leaf and path rules."""

    def __init__(self, pi_file: PiFile, problems: Problems) -> None:
        self.entries: list[Node] = pi_file.entries
        self.by_id: dict[str, int] = {}
        self.problems = problems
        by_id = self.by_id
        for position, node in enumerate(self.entries):
            key = node.id
            if key is None:
                problems.error(
                    node.lineno, "no-entry-id", "entry without a string id: not in the tree"
                )
                continue
            if key in by_id:
                text = f"entry id {key!r} used twice: the later entry wins"
                problems.warning(node.lineno, "duplicate-id", text)
            by_id[key] = position

    def path_to(self, position: int) -> list[int]:
        """Entry positions from the root down to the entry at `position` (pi's getBranch)."""
        entries = self.entries
        by_id = self.by_id
        path: list[int] = []
        seen: set[int] = set()
        current: int | None = position
        while current is not None:
            if current in seen:
                lineno = entries[current].lineno
                self.problems.error(lineno, "parent-cycle", "parentId chain loops: walk stopped")
                break
            seen.add(current)
            path.append(current)
            parent = entries[current].parent
            current = by_id.get(parent) if parent is not None else None
        path.reverse()
        return path

    def active_path(self) -> list[int]:
        """The branch pi opens: from the last parsed entry back to its root."""
        if not self.entries:
            return []
        last = len(self.entries) - 1
        if self.entries[last].id is None:
            return [last]  # pi's context falls back to that entry alone
        return self.path_to(last)

    def leaves(self) -> list[int]:
        """Positions of entries that no entry names as parent, in file order."""
        by_id = self.by_id
        parents = {by_id.get(node.parent) for node in self.entries if node.parent is not None}
        return sorted(pos for pos in by_id.values() if pos not in parents)
