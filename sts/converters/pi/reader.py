"""Reading a Pi session file into sessions; the choices are listed in the package docstring.

Each entry is converted as soon as it is read, and only what the tree and the path walk need
is kept of it, in the flat arrays of an `EntryTable`: its raw object is dropped at once. What a
converted message takes from its ancestors (an assistant's model in force, the thinking level;
a compaction's first kept message) is worked out when the path is walked and given to the
message when its session is put together. A long session read for writing only
(`ReadContext.deferred`) is a `StreamedSession` whose messages are made again from the input,
once, as the writer takes them, so that its memory does not grow with a `Message` per entry.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, BinaryIO

from sts import spill
from sts.building import ReadContext, SessionBuilder
from sts.building.coerce import text_or_none
from sts.converters.base import Converter, gc_paused
from sts.converters.pi import PiConverter
from sts.converters.pi.entries import (
    CALLS,
    HAS_MESSAGE,
    Adjust,
    EntryTable,
    LineSource,
)
from sts.converters.pi.messages import (
    SILENT_ENTRIES,
    Change,
    EntryReader,
    ModelState,
    Notes,
    ProblemLog,
    fill_assistant,
    replay,
    summary_message,
)
from sts.converters.pi.options import PiOptions
from sts.converters.pi.tree import PiFile, Tree, entry_id
from sts.formats.pi import key_id
from sts.lines import iter_records
from sts.model import Message, MessageKind, Session, StreamedSession, first_time
from sts.problems import Problems
from sts.timestamps import checked_ms, stated_ms

# Header keys with a model field, or that our own writers add (not copied into metadata).
HEADER_KEYS = frozenset(
    ("type", "id", "version", "timestamp", "cwd", "harness", "provider", "modelId",
     "thinkingLevel", "source", "sourceVersion", "startedAt", "usage", "git",
     "timestampFallback")
)


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session on pi's active branch (and, with ``all_branches``, the others)."""
    with gc_paused():  # the sessions are built before any is yielded: no pause while writing
        sessions = build_sessions(stream, context)
    yield from sessions


def build_sessions(
    stream: BinaryIO,
    context: ReadContext,
    source: type[Converter] = PiConverter,
    adjust: Adjust | None = None,
) -> list[Session]:
    """Every session `read` yields, in order. A format derived from Pi (OpenClaw) names itself
    as `source` (its name and default harness), and `adjust` may amend each converted message
    and the model change it makes (it is given every message, also one made again)."""
    problems = context.problems
    pi_file = parse_file(stream, problems, adjust, context.deferred)
    if pi_file is None:
        problems.error(None, "no-header", "no Pi session header found: nothing to convert")
        return []
    if not pi_file.header["id"]:
        problems.warning(pi_file.header_line, "no-session-id",
                         "empty session id: the session is named after the file")
    branches = Branches(pi_file, context, source)
    sessions = list(branches.sessions(PiOptions.of(context.options).all_branches))
    pi_file.entries.release_index()
    return sessions


def parse_file(
    stream: BinaryIO, problems: Problems, adjust: Adjust | None = None, deferred: bool = False
) -> PiFile | None:
    """Read every line once; the first ``session`` object is the header (pi needs it first).

    With `deferred` and a seekable `stream`, each entry's offset is noted so that a long file's
    messages can be dropped and made again from it (`EntryTable`)."""
    source = LineSource(stream) if deferred and stream.seekable() else None
    records = iter_records(stream if source is None else source, problems)
    pi_file: PiFile | None = None
    for lineno, record in records:
        if record.get("type") == "session" and type(record.get("id")) is str:
            pi_file = PiFile(record, lineno, EntryTable(source, keep_messages=True))
            break
        problems.error(lineno, "no-header", "line before the Pi session header skipped")
    if pi_file is None:
        return None
    fallback = pi_file.fallback_time
    converter = EntryConverter(pi_file.is_tree, fallback.ms if fallback is not None else None,
                               adjust)
    entries = pi_file.entries
    entries.remake = converter.remake
    add = entries.add
    for lineno, record in records:
        kind = record.get("type")
        if kind == "session":
            problems.error(lineno, "second-header", "a second session header skipped (pi too)")
            continue
        if kind == "session_info":
            name = record.get("name")
            pi_file.name = name.strip() or None if type(name) is str else None
        message, change, first_kept = converter.convert(record, kind, lineno, len(entries) + 1)
        add(lineno, record.get("id"), record.get("parentId"), message, change,
            converter.log.take(), first_kept)
    entries.finish()
    return pi_file


class EntryConverter:
    """Turns one raw entry into its message, the model change it makes and a compaction's
    kept-range start (``firstKeptEntryId`` or v1 ``firstKeptEntryIndex``), independently of the
    entries before it; its problems wait in `log`.

    In a file whose header names a fallback time (`sts.undated`), a time equal to it was not
    recorded: it is left out (a later time, of a turn pi added since, is kept)."""

    def __init__(
        self, tree: bool, fallback_ms: int | None = None, adjust: Adjust | None = None
    ) -> None:
        self.tree = tree
        self.fallback_ms = fallback_ms
        self.adjust = adjust
        self.log = ProblemLog()
        self.reader = EntryReader(self.log)

    def convert(
        self, record: dict[str, Any], kind: Any, lineno: int, index: int
    ) -> tuple[Message | None, Change | None, str | int | None]:
        """What the raw entry `record` (of type `kind`, the `index`-th one) converts to."""
        own = record.get("id")
        message_id = entry_id(own if type(own) is str else None, index, self.tree)
        message: Message | None = None
        change: Change | None = None
        first_kept: str | int | None = None
        if kind == "message":
            message, change = self.reader.message(record, lineno, message_id)
        elif kind == "model_change":
            change = {
                "provider": text_or_none(record.get("provider")),
                "model": text_or_none(record.get("modelId")),
                "api": None,
            }
        elif kind == "thinking_level_change":
            change = {"thinking_level": text_or_none(record.get("thinkingLevel"))}
        elif kind == "custom_message":
            message = self.reader.custom_entry(record, lineno, message_id)
        elif kind == "compaction":
            message = self.compaction(record, message_id, lineno)
            if message is not None:
                first = record.get("firstKeptEntryId" if self.tree else "firstKeptEntryIndex")
                if type(first) is (str if self.tree else int):
                    first_kept = first
        elif kind == "branch_summary":
            message = self.branch_summary(record, message_id, lineno)
        elif type(kind) is not str:
            self.log.error(lineno, "unknown-record", f"entry of type {kind!r} skipped")
        elif kind not in SILENT_ENTRIES:
            self.log.unknown_type(lineno, f"entry type {kind!r}")
        if message is not None and self.fallback_ms is not None and (
            message.timestamp == self.fallback_ms
        ):
            message.timestamp = None
        if message is not None and self.adjust is not None:
            change = self.adjust(message, change)
        return message, change, first_kept

    def remake(self, record: dict[str, Any], lineno: int, index: int) -> Message | None:
        """The message of an entry read again (its problems were reported the first time)."""
        message = self.convert(record, record.get("type"), lineno, index)[0]
        self.log.take()
        return message

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

    Each entry is walked once (what its message takes from the path depends only on its
    ancestors), so entries shared by several branches are reported once. Each session is put
    together by a `SessionBuilder`, whose tool-call ledger renames a call id used twice on the
    path (a message shared with another branch is copied, never changed).
    """

    def __init__(self, pi_file: PiFile, context: ReadContext, source: type[Converter]) -> None:
        self.file = pi_file
        self.source = source
        self.entries = pi_file.entries
        self.context = context
        problems = self.problems = context.problems
        self.tree = Tree(pi_file, problems) if pi_file.is_tree else None
        header = pi_file.header
        start = ModelState(
            provider=text_or_none(header.get("provider")),
            model=text_or_none(header.get("modelId")),
            thinking_level=text_or_none(header.get("thinkingLevel")),
        )
        # the model state in force after each entry once walked (-1: not yet), as an index
        # into the few distinct states
        self.states: list[ModelState] = [start]
        self.state_index: dict[ModelState, int] = {start: 0}
        self.state_after = array("i", [-1]) * len(self.entries)
        self.first_kept_ids: dict[int, str] = {}

    def sessions(self, all_branches: bool) -> Iterator[Session]:
        if self.tree is None:
            yield self.session(array("i", range(len(self.entries))))
            return
        active = self.tree.active_path()
        main = self.session(active)
        on_path = bytearray(len(self.entries))
        for pos in active:
            on_path[pos] = 1
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
            if not on_path[leaf]
            for path in [self.tree.path_to(leaf)]
            if self.has_own_messages(path, on_path)
        ]
        if others:
            main.key = "main"
        yield main
        wanted = {leaf for leaf, _ in others}
        leaf_ids = {pos: key_id(key) for key, pos in self.entries.by_id.items() if pos in wanted}
        for leaf, path in others:
            leaf_id = leaf_ids[leaf]
            branch = self.session(path)
            branch.key = f"branch-{leaf_id}"
            branch.id = f"{main.id}.branch-{leaf_id}"
            branch.metadata["mainSession"] = main.id
            branch.metadata["leafId"] = leaf_id
            yield branch

    def count_abandoned(self, on_path: bytearray) -> int:
        """How many leaves off the active path have messages of their own (as `sessions` with
        all branches would write), each entry visited once: from every leaf only up to where
        it joins the active path or a branch already seen, however long the trunk below."""
        tree = self.tree
        assert tree is not None
        entries = self.entries
        parents, flags = entries.parents, entries.flags
        has_message: dict[int, bool] = {}  # an entry off the path: a message from the fork on
        count = 0
        for leaf in tree.leaves():
            if on_path[leaf]:
                continue
            tail = array("i")
            seen: set[int] = set()
            position = leaf
            while position >= 0 and not on_path[position] and position not in has_message:
                if position in seen:
                    self.problems.error(entries.lines[position], "parent-cycle",
                                        "parentId chain loops: walk stopped")
                    position = -1
                    break
                seen.add(position)
                tail.append(position)
                position = parents[position]
            found = position >= 0 and has_message.get(position, False)
            state = self.state_after[position] if position >= 0 else -1
            tail.reverse()
            for step in tail:
                found = found or bool(flags[step] & HAS_MESSAGE)
                has_message[step] = found
            self.walk(tail, state, lambda step: tree.path_to(step)[:-1])
            count += found
        return count

    def has_own_messages(self, path: array[int], on_path: bytearray) -> bool:
        self.walk(path)
        flags = self.entries.flags
        return any(flags[pos] & HAS_MESSAGE for pos in path if not on_path[pos])

    def session(self, path: array[int]) -> Session:
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
        if self.entries.messages is not None:
            for _ in self.messages(builder, path):
                pass
            return builder.finish()
        for _ in self.messages(builder, path, counting=True):
            pass  # the ledger's problems reported now; the messages made again when written
        session = builder.finish()
        session.messages = []
        return StreamedSession.of(session, self.stream(path), first_time(self.made(path)))

    def messages(
        self, builder: SessionBuilder, path: array[int], counting: bool = False
    ) -> Iterator[Message]:
        """The messages of `path`, each with what it takes from its ancestors and its tool-call
        ids as `builder` writes them, added to `builder`. When they are made again (the kept
        messages dropped), a stand-in is added (only the count matters to the ledger); when
        only `counting`, only the messages with tool calls or results are made, for the ledger."""
        entries = self.entries
        lines, flags = entries.lines, entries.flags
        added = builder.session.messages
        deferred = entries.messages is None
        for pos in path:
            flag = flags[pos]
            if not flag & HAS_MESSAGE:
                continue
            if counting and not flag & CALLS:
                added.append(_COUNTED)
                continue
            message = self.message(pos)
            assert message is not None
            message = with_ids(builder, message, lines[pos])
            added.append(_COUNTED if deferred else message)
            yield message

    def stream(self, path: array[int]) -> Iterator[Message]:
        """The messages of a long `path` (its session a `StreamedSession`), made again from the
        input once, in order, as the writer takes them; their problems were reported when read."""
        source = self.entries.source
        assert source is not None
        source.forget()  # from the file as it is now
        quiet = replace(self.context, problems=Problems(sink=None))
        builder = SessionBuilder(quiet, self.source.name, None)
        # each message is written before the next is made (the collector is left running: the
        # Pi writer's garbage grew the peak by 3.5 MB over 400k entries when it was paused)
        with spill.paused():
            yield from self.messages(builder, path)

    def made(self, path: array[int]) -> Iterator[Message]:
        """The messages of `path` as the input gives them, without what they take from their
        ancestors or the ledger (enough for their times)."""
        entries = self.entries
        flags = entries.flags
        for pos in path:
            if flags[pos] & HAS_MESSAGE:
                message = entries.message(pos)
                if message is not None:
                    yield message

    def message(self, pos: int) -> Message | None:
        """The message of the entry at `pos` (walked), with what it takes from its ancestors."""
        message = self.entries.message(pos)
        if message is None:
            return None
        if message.role == "assistant":
            fill_assistant(message, self.states[self.state_after[pos]])
        elif pos in self.first_kept_ids:
            message.first_kept_id = self.first_kept_ids[pos]
        return message

    def walk(
        self, path: array[int], state: int = -1,
        ancestors: Callable[[int], array[int]] | None = None,
    ) -> None:
        """Finish the path's entries not walked yet, carrying the model state down: report
        their problems, note the model state in force after each, and where a compaction's
        kept range starts.

        `path` runs from the root, or from below an entry already walked whose `state` is
        given; `ancestors` then gives an entry's ancestors (a compaction looks back on them).
        """
        entries = self.entries
        notes, changes, first_kept = entries.notes, entries.changes, entries.first_kept
        problems = self.problems
        after = self.state_after
        current = max(state, 0)
        for step, pos in enumerate(path):
            if after[pos] >= 0:
                current = after[pos]
                continue
            entry_notes: Notes | None = notes.pop(pos, None)
            if entry_notes is not None:
                replay(entry_notes, problems)
            change = changes[pos]
            if change >= 0:
                current = self._state(self.states[current]._replace(
                    **entries.change_values[change]))
            first = first_kept.get(pos)
            if first is not None:
                before = path[:step] if ancestors is None else ancestors(pos)
                self.mark_first_kept(pos, first, before)
            after[pos] = current

    def _state(self, state: ModelState) -> int:
        index = self.state_index.get(state)
        if index is None:
            index = self.state_index[state] = len(self.states)
            self.states.append(state)
        return index

    def mark_first_kept(self, pos: int, first: str | int, ancestors: array[int]) -> None:
        """A compaction's extras ``first_kept_id``: the first message with an id at or after
        its kept-range start, when that resolves on the path before it."""
        start = self.first_kept_step(first, ancestors)
        if start is None:
            return
        entries = self.entries
        for kept in ancestors[start:]:
            if entries.flags[kept] & HAS_MESSAGE:
                message = entries.message(kept)
                if message is not None and message.id is not None:
                    self.first_kept_ids[pos] = message.id
                    return

    def first_kept_step(self, first: str | int, ancestors: array[int]) -> int | None:
        """Where on the path (an index into `ancestors`) the kept range starts, if it resolves."""
        if isinstance(first, int):
            if 1 <= first <= len(ancestors):
                return first - 1  # v1: the header is index 0 and the path is every entry
            return None
        named = self.entries.named(first)
        for step, pos in enumerate(ancestors):
            if pos in named:
                return step
        return None


_COUNTED = Message("user")  # what a builder holds in place of a message made again later


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


