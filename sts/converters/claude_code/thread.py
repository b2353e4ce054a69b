"""Threading: which uuid-bearing lines form the main thread, in which order.

The doc's recipe (claude-code.md §5): drop sidechains, choose the leaf (the last non-synthetic
user/assistant line), walk `parentUuid` back from it, jumping a `compact_boundary` root through
its `logicalParentUuid`, keep the lines written below the leaf (a trailing synthetic reply or
API error stays, flagged, but never becomes the leaf), then add back what such a walk loses (the
other lines of a split reply, and tool results of parallel calls, whose lines sit on sibling
branches) until nothing changes. The result keeps file order.

A parent that is not in the file (a line lost to a bug, or a resume from another file) is
bridged to the previous line of the file, reported as a warning. A cycle ends the walk. When no
user or assistant line names a parent at all (tools that write Claude-Code-shaped lines without
``parentUuid``), there is no thread to walk: every line is kept in file order, with a warning.
"""

from __future__ import annotations

from sts.converters.claude_code.records import Line
from sts.problems import Problems

CONVERSATION = frozenset(("user", "assistant"))


def main_thread(entries: list[Line], problems: Problems | None) -> list[Line]:
    """The main thread's lines, in file order. `entries` must be one thread family (no
    sidechains of another family); `problems` gets dangling-parent warnings (None: silent)."""
    if not entries:
        return []
    turns = [e for e in entries if e.type in CONVERSATION]
    if len(turns) > 1 and all(is_root(e) for e in turns):
        if problems is not None:
            problems.warning(turns[0].line, "unchained-lines", f"none of the {len(turns)} "
                             "user/assistant lines names a parent: kept in file order")
        return list(entries)
    by_uuid = {e.uuid: e for e in entries if e.uuid is not None}
    leaf = _leaf(entries)
    chain: set[int] = set()
    positions: dict[int, int] = {}  # id(entry) -> its index, filled at the first missing parent
    current: Line | None = leaf
    while current is not None and id(current) not in chain:
        chain.add(id(current))
        current = _step(current, entries, by_uuid, problems, positions)
    _add_descendants(entries, leaf, chain)
    _add_back(entries, chain)
    return [e for e in entries if id(e) in chain]


def is_root(entry: Line) -> bool:
    """True for a line that names no parent, not even a logical one (a compaction's)."""
    return entry.parent is None and entry.logical is None


def _leaf(entries: list[Line]) -> Line:
    for entry in reversed(entries):
        if entry.type in CONVERSATION and not entry.synthetic:
            return entry
    for entry in reversed(entries):
        if entry.type in CONVERSATION:
            return entry
    return entries[-1]


def _step(
    entry: Line,
    entries: list[Line],
    by_uuid: dict[str, Line],
    problems: Problems | None,
    positions: dict[int, int],
) -> Line | None:
    parent = entry.parent if entry.parent is not None else entry.logical
    if parent is None:
        return None
    found = by_uuid.get(parent)
    if found is not None:
        return found
    if not positions:  # only for a parent missing from the file; once, however many are
        positions.update((id(e), i) for i, e in enumerate(entries))
    at = positions[id(entry)]
    if problems is not None:
        problems.warning(entry.line, "dangling-parent",
                         f"parent {parent} is not in the file: linked to the previous line")
    return entries[at - 1] if at > 0 else None


def _add_descendants(entries: list[Line], leaf: Line, chain: set[int]) -> None:
    """Keep the lines written below the leaf (synthetic replies, API errors, markers)."""
    below = {leaf.uuid} if leaf.uuid is not None else set()
    for entry in entries[_position(entries, leaf) + 1:]:
        if entry.parent in below:
            chain.add(id(entry))
            if entry.uuid is not None:
                below.add(entry.uuid)


def _position(entries: list[Line], entry: Line) -> int:
    return next(i for i, e in enumerate(entries) if e is entry)


def _add_back(entries: list[Line], chain: set[int]) -> None:
    """Add the split-reply lines and tool results the walk missed, until nothing changes."""
    message_ids: set[str] = set()
    call_ids: set[str] = set()
    for entry in entries:
        if id(entry) in chain:
            _note(entry, message_ids, call_ids)
    changed = True
    while changed:
        changed = False
        for entry in entries:
            if id(entry) in chain or entry.type not in CONVERSATION:
                continue
            if _belongs(entry, message_ids, call_ids):
                chain.add(id(entry))
                _note(entry, message_ids, call_ids)
                changed = True


def _note(entry: Line, message_ids: set[str], call_ids: set[str]) -> None:
    if entry.type != "assistant":
        return
    if entry.message_id is not None:
        message_ids.add(entry.message_id)
    call_ids.update(entry.links)


def _belongs(entry: Line, message_ids: set[str], call_ids: set[str]) -> bool:
    if entry.type == "assistant":
        return entry.message_id is not None and entry.message_id in message_ids
    return any(link in call_ids for link in entry.links)
