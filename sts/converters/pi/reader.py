"""Reading a Pi session file into sessions; the choices are listed in the package docstring.

Each entry is converted as soon as it is read, and only what the tree and the path walk need
is kept of it (`ConvertedEntry`): its raw object is dropped at once. What a converted message
takes from its ancestors (an assistant's model in force, the thinking level; a compaction's
first kept message) is filled in when the path is walked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from sts.building import ReadContext, SessionBuilder
from sts.building.coerce import text_or_none
from sts.converters.base import Converter, gc_paused
from sts.converters.pi import PiConverter
from sts.converters.pi.messages import (
    SILENT_ENTRIES,
    Change,
    EntryReader,
    ModelState,
    ProblemLog,
    fill_assistant,
    replay,
    summary_message,
)
from sts.converters.pi.options import PiOptions
from sts.converters.pi.tree import Node, PiFile, Tree, entry_id
from sts.lines import iter_records
from sts.model import Message, MessageKind, Session
from sts.problems import Problems
from sts.timestamps import checked_ms, stated_ms

# Header keys with a model field, or that our own writers add (not copied into metadata).
HEADER_KEYS = frozenset(
    ("type", "id", "version", "timestamp", "cwd", "harness", "provider", "modelId",
     "thinkingLevel", "source", "sourceVersion", "startedAt", "usage", "git",
     "timestampFallback")
)


@dataclass(slots=True)
class ConvertedEntry(Node):
    """One converted entry: its message (None when it has none), the model state it sets, the
    problems its conversion found, a compaction's kept-range start (``firstKeptEntryId`` or v1
    ``firstKeptEntryIndex``), and, once walked, the model state in force after it."""

    message: Message | None = None
    change: Change | None = None
    notes: list[tuple[str, tuple[Any, ...]]] | None = None
    first_kept: str | int | None = None
    state: ModelState | None = None


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session on pi's active branch (and, with ``all_branches``, the others)."""
    with gc_paused():  # the sessions are built before any is yielded: no pause while writing
        sessions = build_sessions(stream, context)
    yield from sessions


def build_sessions(
    stream: BinaryIO,
    context: ReadContext,
    source: type[Converter] = PiConverter,
    adjust: Callable[[PiFile], None] | None = None,
) -> list[Session]:
    """Every session `read` yields, in order. A format derived from Pi (OpenClaw) names itself
    as `source` (its name and default harness), and `adjust` may amend the parsed entries before
    the paths are walked."""
    problems = context.problems
    pi_file = parse_file(stream, problems)
    if pi_file is None:
        problems.error(None, "no-header", "no Pi session header found: nothing to convert")
        return []
    if not pi_file.header["id"]:
        problems.warning(pi_file.header_line, "no-session-id",
                         "empty session id: the session is named after the file")
    if adjust is not None:
        adjust(pi_file)
    branches = Branches(pi_file, context, source)
    return list(branches.sessions(PiOptions.of(context.options).all_branches))


def parse_file(stream: BinaryIO, problems: Problems) -> PiFile | None:
    """Read every line once; the first ``session`` object is the header (pi needs it first)."""
    pi_file: PiFile | None = None
    records = iter_records(stream, problems)
    for lineno, record in records:
        if record.get("type") == "session" and type(record.get("id")) is str:
            pi_file = PiFile(record, lineno)
            break
        problems.error(lineno, "no-header", "line before the Pi session header skipped")
    if pi_file is None:
        return None
    fallback = pi_file.fallback_time
    converter = EntryConverter(pi_file.is_tree, fallback.ms if fallback is not None else None)
    entries = pi_file.entries
    for lineno, record in records:
        kind = record.get("type")
        if kind == "session":
            problems.error(lineno, "second-header", "a second session header skipped (pi too)")
            continue
        if kind == "session_info":
            name = record.get("name")
            pi_file.name = name.strip() or None if type(name) is str else None
        entries.append(converter.convert(record, kind, lineno, len(entries) + 1))
    return pi_file


class EntryConverter:
    """Turns one raw entry into an `ConvertedEntry`, independently of the entries before it.

    In a file whose header names a fallback time (`sts.undated`), a time equal to it was not
    recorded: it is left out (a later time, of a turn pi added since, is kept)."""

    def __init__(self, tree: bool, fallback_ms: int | None = None) -> None:
        self.tree = tree
        self.fallback_ms = fallback_ms
        self.log = ProblemLog()
        self.reader = EntryReader(self.log)

    def convert(self, record: dict[str, Any], kind: Any, lineno: int, index: int) -> ConvertedEntry:
        """The `ConvertedEntry` of the raw entry `record` (of type `kind`), the `index`-th one."""
        own = record.get("id")
        own = own if type(own) is str else None
        parent = record.get("parentId")
        entry = ConvertedEntry(lineno, own, parent if type(parent) is str else None)
        message_id = entry_id(own, index, self.tree)
        if kind == "message":
            entry.message, entry.change = self.reader.message(record, lineno, message_id)
        elif kind == "model_change":
            entry.change = {
                "provider": text_or_none(record.get("provider")),
                "model": text_or_none(record.get("modelId")),
                "api": None,
            }
        elif kind == "thinking_level_change":
            entry.change = {"thinking_level": text_or_none(record.get("thinkingLevel"))}
        elif kind == "custom_message":
            entry.message = self.reader.custom_entry(record, lineno, message_id)
        elif kind == "compaction":
            entry.message = self.compaction(record, message_id, lineno)
            if entry.message is not None:
                first = record.get("firstKeptEntryId" if self.tree else "firstKeptEntryIndex")
                if type(first) is (str if self.tree else int):
                    entry.first_kept = first
        elif kind == "branch_summary":
            entry.message = self.branch_summary(record, message_id, lineno)
        elif type(kind) is not str:
            self.log.error(lineno, "unknown-record", f"entry of type {kind!r} skipped")
        elif kind not in SILENT_ENTRIES:
            self.log.unknown_type(lineno, f"entry type {kind!r}")
        entry.notes = self.log.take()
        message = entry.message
        if message is not None and self.fallback_ms is not None and (
            message.timestamp == self.fallback_ms
        ):
            message.timestamp = None
        return entry

    def compaction(self, record: dict[str, Any], own_id: str | None, lineno: int) -> Message | None:
        message = summary_message(MessageKind.COMPACTION, record.get("summary"))
        if message is None:
            return None
        message.id = own_id
        message.timestamp = checked_ms(record.get("timestamp"), self.log, lineno, "timestamp")
        tokens = record.get("tokensBefore")
        if type(tokens) is int:
            message.tokens_before = tokens
        return message

    def branch_summary(self, record: dict[str, Any], own_id: str | None,
                       lineno: int) -> Message | None:
        message = summary_message(MessageKind.BRANCH_SUMMARY, record.get("summary"))
        if message is not None:
            message.id = own_id
            message.timestamp = checked_ms(record.get("timestamp"), self.log, lineno, "timestamp")
            if type(record.get("fromId")) is str:
                message.from_id = record["fromId"]
        return message


class Branches:
    """Turns a parsed file into the main session and, on request, one per other branch.

    Each entry is walked once (its message depends only on its ancestors), so entries shared
    by several branches are reported once and shared by their sessions. Each session is put
    together by a `SessionBuilder`, whose tool-call ledger renames a call id used twice on the
    path (a message shared with another branch is copied, never changed).
    """

    def __init__(self, pi_file: PiFile, context: ReadContext, source: type[Converter]) -> None:
        self.file = pi_file
        self.source = source
        self.entries: list[ConvertedEntry] = pi_file.entries
        self.context = context
        problems = self.problems = context.problems
        self.tree = Tree(pi_file, problems) if pi_file.is_tree else None
        header = pi_file.header
        self.start_state = ModelState(
            provider=text_or_none(header.get("provider")),
            model=text_or_none(header.get("modelId")),
            thinking_level=text_or_none(header.get("thinkingLevel")),
        )

    def sessions(self, all_branches: bool) -> Iterator[Session]:
        if self.tree is None:
            yield self.session(list(range(len(self.entries))))
            return
        active = self.tree.active_path()
        main = self.session(active)
        on_path = set(active)
        if not all_branches:
            abandoned = self.count_abandoned(on_path)
            if abandoned:
                self.problems.warning(
                    None, "other-branches",
                    f"{abandoned} abandoned branch(es) left out (--all-branches writes them)",
                )
            yield main
            return
        others = [
            (leaf, path)
            for leaf in self.tree.leaves()
            if leaf not in on_path
            for path in [self.tree.path_to(leaf)]
            if self.has_own_messages(path, on_path)
        ]
        if others:
            main.key = "main"
        yield main
        for leaf, path in others:
            leaf_id = self.entries[leaf].id
            branch = self.session(path)
            branch.key = f"branch-{leaf_id}"
            branch.id = f"{main.id}.branch-{leaf_id}"
            branch.metadata["mainSession"] = main.id
            branch.metadata["leafId"] = leaf_id
            yield branch

    def count_abandoned(self, on_path: set[int]) -> int:
        """How many leaves off the active path have messages of their own (as `sessions` with
        all branches would write), each entry visited once: from every leaf only up to where
        it joins the active path or a branch already seen, however long the trunk below."""
        tree = self.tree
        assert tree is not None
        entries, by_id = self.entries, tree.by_id
        has_message: dict[int, bool] = {}  # an entry off the path: a message from the fork on
        count = 0
        for leaf in tree.leaves():
            if leaf in on_path:
                continue
            tail: list[int] = []
            seen: set[int] = set()
            position: int | None = leaf
            while position is not None and position not in on_path and (
                position not in has_message
            ):
                if position in seen:
                    self.problems.error(entries[position].lineno, "parent-cycle",
                                        "parentId chain loops: walk stopped")
                    position = None
                    break
                seen.add(position)
                tail.append(position)
                parent = entries[position].parent
                position = by_id.get(parent) if parent is not None else None
            found = position is not None and has_message.get(position, False)
            state = entries[position].state if position is not None else None
            tail.reverse()
            for step in tail:
                found = found or entries[step].message is not None
                has_message[step] = found
            self.walk(tail, state, lambda step: tree.path_to(step)[:-1])
            count += found
        return count

    def has_own_messages(self, path: list[int], on_path: set[int]) -> bool:
        self.walk(path)
        entries = self.entries
        return any(entries[pos].message is not None for pos in path if pos not in on_path)

    def session(self, path: list[int]) -> Session:
        header = self.file.header
        harness = text_or_none(header.get("harness")) or self.source.harness
        builder = SessionBuilder(self.context, self.source.name, harness)
        builder.offer_id(header["id"])
        builder.title(self.file.name)
        session = builder.session
        session.cwd = text_or_none(header.get("cwd"))
        session.fallback_time = self.file.fallback_time
        session.git = header["git"] if type(header.get("git")) is dict else None
        if "harness" in header:  # a converter wrote it: its own source facts, never pi's
            session.source_format = text_or_none(header.get("source"))
            session.source_version = text_or_none(header.get("sourceVersion"))
            session.started_at = stated_ms(header.get("startedAt"), self.problems,
                                           self.file.header_line, "startedAt")
        else:
            session.source_version = str(header.get("version", 1))
            if session.fallback_time is None:
                session.started_at = checked_ms(header.get("timestamp"), self.problems,
                                                self.file.header_line, "header timestamp")
        session.metadata = header_metadata(header)
        self.walk(path)
        entries = self.entries
        for pos in path:
            message = entries[pos].message
            if message is not None:
                builder.add(with_ids(builder, message, entries[pos].lineno))
        return builder.finish()

    def walk(
        self, path: list[int], state: ModelState | None = None,
        ancestors: Callable[[int], list[int]] | None = None,
    ) -> None:
        """Finish the path's entries not walked yet, carrying the model state down: report
        their problems, apply their model changes, fill what their messages take from it.

        `path` runs from the root, or from below an entry already walked whose `state` is
        given; `ancestors` then gives an entry's ancestors (a compaction looks back on them).
        """
        entries = self.entries
        problems = self.problems
        state = state or self.start_state
        for step, pos in enumerate(path):
            entry = entries[pos]
            if entry.state is not None:
                state = entry.state
                continue
            if entry.notes is not None:
                replay(entry.notes, problems)
                entry.notes = None
            if entry.change is not None:
                state = state._replace(**entry.change)
            message = entry.message
            if message is not None:
                if message.role == "assistant":
                    fill_assistant(message, state)
                elif entry.first_kept is not None:
                    before = path[:step] if ancestors is None else ancestors(pos)
                    self.mark_first_kept(message, entry.first_kept, before)
            entry.state = state

    def mark_first_kept(self, message: Message, first: str | int, ancestors: list[int]) -> None:
        """A compaction's extras ``first_kept_id``: the first message with an id at or after
        its kept-range start, when that resolves on the path before it."""
        start = self.first_kept_step(first, ancestors)
        if start is None:
            return
        entries = self.entries
        for pos in ancestors[start:]:
            kept = entries[pos].message
            if kept is not None and kept.id is not None:
                message.first_kept_id = kept.id
                return

    def first_kept_step(self, first: str | int, ancestors: list[int]) -> int | None:
        """Where on the path (an index into `ancestors`) the kept range starts, if it resolves."""
        if type(first) is int:
            if 1 <= first <= len(ancestors):
                return first - 1  # v1: the header is index 0 and the path is every entry
            return None
        entries = self.entries
        for step, pos in enumerate(ancestors):
            if entries[pos].id == first:
                return step
        return None


def with_ids(builder: SessionBuilder, message: Message, line: int) -> Message:
    """`message` with its tool-call ids as the builder writes them: a copy when one changes (a
    call id used again on the path, a call or result without an id), else itself."""
    if message.tool_calls:
        calls = message.tool_calls
        ids = [builder.register(call.id, call.name, line) for call in calls]
        if any(new != call.id for new, call in zip(ids, calls, strict=True)):
            calls = [replace(c, id=new) for c, new in zip(calls, ids, strict=True)]
            return replace(message, tool_calls=calls)
    elif message.role == "tool":
        call_id = builder.answer(message.tool_call_id, message.tool_name, line)
        if call_id != message.tool_call_id:
            return replace(message, tool_call_id=call_id)
    return message


def header_metadata(header: dict[str, Any]) -> dict[str, Any]:
    """Header fields with no model field (parentSession, branchedFrom, custom ones; a
    ``metadata`` object as it is: the writers merge it back, so a second pass adds nothing)."""
    return {k: v for k, v in header.items() if k not in HEADER_KEYS}


