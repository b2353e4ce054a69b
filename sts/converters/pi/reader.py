"""Reading a Pi session file into sessions; the choices are listed in the package docstring."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from sts.converters.base import ReadContext
from sts.converters.pi import PiConverter
from sts.converters.pi.messages import SILENT_ENTRIES, EntryReader, ModelState, summary_message
from sts.converters.pi.tree import PiFile, Tree, entry_id
from sts.lines import iter_records
from sts.model import Message, Session
from sts.problems import Problems
from sts.timestamps import to_ms

# Header keys with a model field, or that our own writers add (not copied into metadata).
HEADER_KEYS = frozenset(
    ("type", "id", "version", "timestamp", "cwd", "harness", "provider", "modelId",
     "thinkingLevel", "source", "sourceVersion", "startedAt", "usage", "subagents", "metadata")
)


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session on pi's active branch (and, with ``all_branches``, the others)."""
    problems = context.problems
    pi_file = parse_file(stream, problems)
    if pi_file is None:
        problems.error(None, "no-header", "no Pi session header found: nothing to convert")
        return
    if not pi_file.header["id"]:
        stem = context.path.name.removesuffix(".jsonl") if context.path is not None else ""
        pi_file.header["id"] = stem or "pi-session"
        problems.warning(pi_file.header_line, "no-session-id",
                         "empty session id: the session is named after the file")
    builder = SessionBuilder(pi_file, problems)
    yield from builder.sessions(bool(context.options.get("all_branches")))


def parse_file(stream: BinaryIO, problems: Problems) -> PiFile | None:
    """Read every line once; the first ``session`` object is the header (pi needs it first)."""
    pi_file: PiFile | None = None
    for lineno, record in iter_records(stream, problems):
        if pi_file is None:
            if record.get("type") == "session" and type(record.get("id")) is str:
                pi_file = PiFile(record, lineno)
            else:
                problems.error(lineno, "no-header", "line before the Pi session header skipped")
            continue
        if record.get("type") == "session":
            problems.error(lineno, "second-header", "a second session header skipped (pi too)")
            continue
        pi_file.entries.append((lineno, record))
    return pi_file


class SessionBuilder:
    """Turns a parsed file into the main session and, on request, one per other branch.

    Each entry is converted once (its message depends only on its ancestors), so entries shared
    by several branches are reported once and shared by their sessions.
    """

    def __init__(self, pi_file: PiFile, problems: Problems) -> None:
        self.file = pi_file
        self.problems = problems
        self.reader = EntryReader(problems)
        self.tree = Tree(pi_file, problems) if pi_file.is_tree else None
        header = pi_file.header
        self.start_state = ModelState(
            provider=_str(header.get("provider")),
            model=_str(header.get("modelId")),
            thinking_level=_str(header.get("thinkingLevel")),
        )
        self.converted: dict[int, tuple[Message | None, ModelState]] = {}

    def sessions(self, all_branches: bool) -> Iterator[Session]:
        if self.tree is None:
            yield self.session(list(range(len(self.file.entries))))
            return
        active = self.tree.active_path()
        main = self.session(active)
        on_path = set(active)
        others = [
            (leaf, path)
            for leaf in self.tree.leaves()
            if leaf not in on_path
            for path in [self.tree.path_to(leaf)]
            if self.has_own_messages(path, on_path)
        ]
        if not all_branches:
            if others:
                self.problems.warning(
                    None, "other-branches",
                    f"{len(others)} abandoned branch(es) left out (--all-branches writes them)",
                )
            yield main
            return
        if others:
            main.key = "main"
        yield main
        for leaf, path in others:
            leaf_id = self.file.entries[leaf][1]["id"]
            branch = self.session(path)
            branch.key = f"branch-{leaf_id}"
            branch.id = f"{main.id}.branch-{leaf_id}"
            branch.metadata["mainSession"] = main.id
            branch.metadata["leafId"] = leaf_id
            yield branch

    def has_own_messages(self, path: list[int], on_path: set[int]) -> bool:
        own = [pos for pos in path if pos not in on_path]
        self.convert_path(path)
        return any(self.converted[pos][0] is not None for pos in own)

    def session(self, path: list[int]) -> Session:
        header = self.file.header
        session = Session(
            id=header["id"],
            name=self.name(),
            source_format="pi",
            source_version=str(header.get("version", 1)),
            harness=_str(header.get("harness")) or PiConverter.harness,
            cwd=_str(header.get("cwd")),
            started_at=to_ms(header.get("timestamp")),
            metadata=header_metadata(header),
        )
        self.convert_path(path)
        session.messages = [m for pos in path if (m := self.converted[pos][0]) is not None]
        return session

    def name(self) -> str | None:
        """pi's rule: the latest session_info in file order, trimmed; empty clears it."""
        for _, entry in reversed(self.file.entries):
            if entry.get("type") == "session_info":
                name = entry.get("name")
                return name.strip() or None if type(name) is str else None
        return None

    def convert_path(self, path: list[int]) -> None:
        """Convert the path's entries not converted yet, carrying the model state down."""
        state = self.start_state
        for step, pos in enumerate(path):
            if pos in self.converted:
                state = self.converted[pos][1]
                continue
            message, state = self.convert(pos, state, path, step)
            self.converted[pos] = (message, state)

    def convert(
        self, pos: int, state: ModelState, path: list[int], step: int
    ) -> tuple[Message | None, ModelState]:
        """Convert the entry at `pos`, which is ``path[step]``."""
        lineno, entry = self.file.entries[pos]
        kind = entry.get("type")
        own_id = entry_id(entry, pos + 1, self.tree is not None)
        if kind == "message":
            return self.reader.message(entry, lineno, state, own_id)
        if kind == "model_change":
            provider, model = _str(entry.get("provider")), _str(entry.get("modelId"))
            return None, state._replace(provider=provider, model=model, api=None)
        if kind == "thinking_level_change":
            return None, state._replace(thinking_level=_str(entry.get("thinkingLevel")))
        if kind == "custom_message":
            return self.reader.custom_entry(entry, lineno, own_id), state
        if kind == "compaction":
            return self.compaction(entry, own_id, path[:step]), state
        if kind == "branch_summary":
            message = summary_message("branch_summary", entry.get("summary"))
            if message is not None:
                message.id = own_id
                message.timestamp = to_ms(entry.get("timestamp"))
                if type(entry.get("fromId")) is str:
                    message.extras["from_id"] = entry["fromId"]
            return message, state
        if type(kind) is not str or kind not in SILENT_ENTRIES:
            self.problems.error(lineno, "unknown-record", f"unknown entry type {kind!r} skipped")
        return None, state

    def compaction(self, entry: dict[str, Any], own_id: str | None, ancestors: list[int]):
        message = summary_message("compaction", entry.get("summary"))
        if message is None:
            return None
        message.id = own_id
        message.timestamp = to_ms(entry.get("timestamp"))
        tokens = entry.get("tokensBefore")
        if type(tokens) is int:
            message.extras["tokens_before"] = tokens
        start = self.first_kept_step(entry, ancestors)
        if start is not None:
            for pos in ancestors[start:]:
                kept = self.converted[pos][0]
                if kept is not None and kept.id is not None:
                    message.extras["first_kept_id"] = kept.id
                    break
        return message

    def first_kept_step(self, entry: dict[str, Any], ancestors: list[int]) -> int | None:
        """Where on the path (an index into `ancestors`) the kept range starts, if it resolves."""
        if self.tree is None:
            index = entry.get("firstKeptEntryIndex")
            if type(index) is int and 1 <= index <= len(ancestors):
                return index - 1  # v1: the header is index 0 and the path is every entry
            return None
        target = entry.get("firstKeptEntryId")
        if type(target) is not str:
            return None
        for step, pos in enumerate(ancestors):
            if self.file.entries[pos][1].get("id") == target:
                return step
        return None


def header_metadata(header: dict[str, Any]) -> dict[str, Any]:
    """Header fields with no model field (parentSession, branchedFrom, custom ones)."""
    metadata = {k: v for k, v in header.items() if k not in HEADER_KEYS}
    nested = header.get("metadata")
    if type(nested) is dict:
        metadata.update(nested)
    return metadata


def _str(value: Any) -> str | None:
    return value if type(value) is str and value else None
