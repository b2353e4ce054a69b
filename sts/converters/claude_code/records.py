"""Line parsing: a Claude Code JSONL stream → a `Transcript` of light `Line` objects.

Each uuid-bearing line becomes a `Line` (glued records split): its links and the few facts
threading reads, and its record, slimmed. The thread is known only at the end of the file, so a
big file whose messages are streamed to the writer (`sts.model.StreamedSession`) is read in two
passes instead: the first (`read_transcript(..., again=True)`) keeps only that index and where
each line starts; once the thread is chosen, `Transcript.load` reads each of its lines again,
one at a time, as it is converted: memory is bounded by the index, not by the records. A line
whose bytes alone do not give its record back (a repaired line, records glued on one line)
keeps its record from the first pass.

Bulky fields that are never converted are dropped as soon as a record is read: the
`toolUseResult` side-car (only its `agentId` is kept, for sub-agent linking), `progress` payloads
(only the agent link of `agent_progress` is kept) and `file-history-snapshot` lines. Line types
the format defines and the converter leaves out are silent; unknown types are reported and, when
they carry a uuid, kept in the uuid index so that threading can walk through them.
"""

from __future__ import annotations

import io
import os
from array import array
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from sts import spill
from sts.lines import iter_records_at, reread
from sts.problems import Problems

#: How a Task tool result names its sub-agent (a text block of its own).
AGENT_TAIL = "agentId: "
#: The keys of a thread line that conversion reads (`_slim`).
ENTRY_KEYS = (
    "type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "timestamp", "message",
    "isMeta", "isCompactSummary", "isApiErrorMessage", "subtype", "content", "compactMetadata",
    "attachment",
)
#: The usage counters conversion reads.
USAGE_KEYS = (
    "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
)
#: Line types that take part in the parentUuid chain (each its own one string, which the index
#: of every line of that type shares).
THREAD_TYPES = {kind: kind for kind in ("user", "assistant", "system", "progress", "attachment")}
#: Line types whose record conversion reads (the others only link the thread).
CONVERTED_TYPES = frozenset(("user", "assistant", "system", "attachment"))
#: Metadata line types the converter reads for titles or leaves out on purpose.
SILENT_TYPES = frozenset((
    "file-history-snapshot", "agent-name", "tag", "last-prompt", "pr-link", "frame-link",
    "mode", "permission-mode", "worktree-state", "relocated", "bridge-session", "atis-latch",
))
#: The record of a line not held in memory (read again by `Transcript.load`) or converted.
NOT_HELD: dict[str, Any] = {}
NO_LINKS: tuple[str, ...] = ()


@dataclass(slots=True)
class Line:
    """One uuid-bearing line: its place in the file, its links, the facts threading reads, and
    its (slimmed) record, or where its line starts in the stream, to read it again (`offset` -1:
    `record` is held)."""

    index: int
    line: int
    type: str
    uuid: str | None
    parent: str | None
    record: dict[str, Any]
    sidechain: bool = False
    agent_id: str | None = None
    offset: int = -1
    #: ``logicalParentUuid``: the line a compaction boundary continues
    logical: str | None = None
    #: an assistant line the harness wrote itself (`<synthetic>` model, an API error marker)
    synthetic: bool = False
    #: an assistant line's ``message.id`` (the lines of one reply share it)
    message_id: str | None = None
    #: an assistant line's tool_use ids, a user line's tool_result ``tool_use_id`` values
    links: tuple[str, ...] = NO_LINKS


@dataclass(slots=True)
class Queued:
    """A `queue-operation` enqueue (or a 2.1.205+ remove carrying text no enqueue had): text
    typed while the model was busy."""

    index: int
    line: int
    text: str
    timestamp: Any


@dataclass
class Transcript:
    """Everything one file says, in file order, before any threading."""

    entries: list[Line] = field(default_factory=list)
    by_uuid: dict[str, Line] = field(default_factory=dict)
    queued: list[Queued] = field(default_factory=list)
    #: the lines that carry each text of a user line or queued-command attachment, by the text's
    #: hash (`is_typed`: queued steering a line also carries is not added again)
    typed: dict[int, list[Line]] = field(default_factory=dict)
    summaries: list[tuple[str, str]] = field(default_factory=list)
    custom_title: str | None = None
    ai_title: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    git_branch: str | None = None
    slug: str | None = None
    progress_agents: dict[str, str] = field(default_factory=dict)
    #: the stream lines are read again from (None: every record is held), and each line's
    #: CRC-32 (by line number - 1): a line read again must be the one read first
    stream: BinaryIO | None = None
    sums: array[int] = field(default_factory=lambda: array("I"))
    problems: Problems | None = None
    #: while indexing: the message id of the last assistant line, the ids of unanswered calls
    reply: str | None = None
    calls: dict[str, str] = field(default_factory=dict)

    def load(self, entry: Line) -> dict[str, Any] | None:
        """The record of `entry`: its slimmed record when held, else read again from the stream
        (converted at once and let go: neither slimmed nor its results stored, which `TextPart`
        does); None (reported) when the line no longer holds the record the first pass read
        there."""
        if entry.offset < 0 or self.stream is None:
            return entry.record
        record = reread(self.stream, entry.offset, self.sums[entry.line - 1])
        if type(record) is not dict or record.get("uuid") != entry.uuid:
            if self.problems is not None:
                self.problems.error(entry.line, "input-changed",
                                    "the line changed while the file was read: skipped")
            return None
        return record

    def is_typed(self, text: str) -> bool:
        """Whether a user line or a queued-command attachment carries `text` (stripped)."""
        for entry in self.typed.get(hash(text), ()):
            record = self.load(entry)
            if record is not None and text in texts_of(entry.type, record):
                return True
        return False


def read_transcript(stream: BinaryIO, problems: Problems, again: bool = False) -> Transcript:
    """Read a whole Claude Code JSONL stream into a `Transcript`; with `again`, keep only the
    index (the first pass: the stream must be one `bytes_left` measures, read again later)."""
    transcript = Transcript(problems=problems)
    start = 0
    if again:
        transcript.stream = stream
        start = stream.tell()
    records = iter_records_at(stream, problems, split_glued=True, start=start,
                              sums=transcript.sums if again else None)
    for index, (lineno, offset, record) in enumerate(records):
        _add(transcript, index, lineno, record, offset, problems)
    transcript.calls.clear()
    return transcript


def bytes_left(stream: BinaryIO) -> int | None:
    """The bytes left in a stream a line can be read again from at the cost of a seek (a local
    file, bytes in memory); None for others (standard input from a pipe, a remote file, which
    would be fetched again)."""
    try:
        if isinstance(stream, io.BytesIO):
            return len(stream.getbuffer()) - stream.tell()
        if stream.seekable():
            return os.fstat(stream.fileno()).st_size - stream.tell()
    except (OSError, AttributeError, ValueError):
        pass
    return None


def _add(t: Transcript, index: int, lineno: int, record: dict[str, Any], offset: int,
         problems: Problems) -> None:
    kind = record.get("type")
    if type(kind) is not str:  # a list or object would not even hash
        _add_unknown(t, index, lineno, kind, record, problems)
    elif kind in THREAD_TYPES:
        _add_entry(t, index, lineno, THREAD_TYPES[kind], record,
                   offset if t.stream is not None else -1)
    elif kind in SILENT_TYPES:
        return
    elif kind == "queue-operation":
        text = record.get("content")
        operation = record.get("operation")
        if type(text) is not str or not text.strip():
            return
        if operation == "enqueue" or (  # from 2.1.205 a remove carries the text too: once
            operation == "remove" and all(q.text != text for q in t.queued)
        ):
            t.queued.append(Queued(index, lineno, text, record.get("timestamp")))
    elif kind == "summary":
        summary, leaf = record.get("summary"), record.get("leafUuid")
        if type(summary) is str and type(leaf) is str:
            t.summaries.append((summary, leaf))
    elif kind == "custom-title":
        title = record.get("customTitle")
        if type(title) is str and title.strip():
            t.custom_title = title
    elif kind == "ai-title":
        title = record.get("aiTitle")
        if type(title) is str and title.strip():
            t.ai_title = title
    else:
        _add_unknown(t, index, lineno, kind, record, problems)


def _add_unknown(t: Transcript, index: int, lineno: int, kind: Any, record: dict[str, Any],
                 problems: Problems) -> None:
    """Report a line of unknown type; keep its uuid link so threading walks through it."""
    if type(kind) is str:
        problems.unknown_type(lineno, f"line type {kind!r}")
    else:
        problems.error(lineno, "unknown-record", f"line of type {kind!r} skipped")
    if type(record.get("uuid")) is str:
        _add_entry(t, index, lineno, str(kind), {"uuid": record["uuid"],
                                                 "parentUuid": record.get("parentUuid")}, -1)


def _add_entry(t: Transcript, index: int, lineno: int, kind: str, record: dict[str, Any],
               offset: int) -> None:
    uuid = record.get("uuid")
    if type(uuid) is not str:
        uuid = None
    elif uuid in t.by_uuid:
        return  # a replayed copy (resume, compaction replay): the first one wins
    agent_id = None
    if kind == "user":
        side = record.pop("toolUseResult", None)
        if type(side) is dict:
            agent_id = side.get("agentId")
    elif kind == "progress":
        data = record.get("data")
        if type(data) is dict and data.get("type") == "agent_progress":
            tool_id, agent = record.get("parentToolUseID"), data.get("agentId")
            if type(tool_id) is str and type(agent) is str:
                t.progress_agents.setdefault(tool_id, agent)
        record = {"parentUuid": record.get("parentUuid"), "uuid": uuid, "type": kind,
                  "isSidechain": record.get("isSidechain")}
    if t.session_id is None or t.cwd is None or t.version is None:
        _note_session(t, record)
    parent = record.get("parentUuid")
    if type(parent) is str:
        known = t.by_uuid.get(parent)
        parent = known.uuid if known is not None else parent  # one string for both ends
    else:
        parent = None
    entry = Line(index, lineno, kind, uuid, parent, NOT_HELD, record.get("isSidechain") is True,
                 agent_id if type(agent_id) is str else None)
    _index(t, entry, record)
    if kind not in CONVERTED_TYPES:
        pass  # nothing reads the record of a progress or unknown line
    elif offset >= 0:
        entry.offset = offset
    else:
        entry.record = _prepared(kind, record)
    t.entries.append(entry)
    if uuid is not None:
        t.by_uuid[uuid] = entry


def _index(t: Transcript, entry: Line, record: dict[str, Any]) -> None:
    """Note on `entry` what threading reads from its record, and in `t.typed` the texts of a user
    line or a queued-command attachment. The lines of one reply share one message-id
    string, and a result shares its call's id string."""
    logical = record.get("logicalParentUuid")
    entry.logical = logical if type(logical) is str else None
    kind = entry.type
    if kind == "attachment" or kind == "user":
        for text in texts_of(kind, record):
            lines = t.typed.setdefault(hash(text), [])
            if not lines or lines[-1] is not entry:
                lines.append(entry)
    if kind != "user" and kind != "assistant":
        return
    message = record.get("message")
    if type(message) is not dict:
        entry.synthetic = kind == "assistant" and record.get("isApiErrorMessage") is True
        return
    content = message.get("content")
    calls = t.calls
    if kind == "user":
        if type(content) is list:
            links = [str(block.get("tool_use_id")) for block in content
                     if type(block) is dict and block.get("type") == "tool_result"]
            if links:
                entry.links = tuple(calls.pop(link, link) for link in links)
        return
    entry.synthetic = (message.get("model") == "<synthetic>"
                       or record.get("isApiErrorMessage") is True)
    message_id = message.get("id")
    if type(message_id) is str:
        entry.message_id = t.reply = message_id if message_id != t.reply else t.reply
    if type(content) is list:
        links = [str(block.get("id")) for block in content
                 if type(block) is dict and block.get("type") == "tool_use"]
        if links:
            entry.links = tuple(links)
            calls.update((link, link) for link in links)


def texts_of(kind: str, record: dict[str, Any]) -> list[str]:
    """The texts, stripped, of a user line's content or a queued-command attachment's prompt (a
    string, or the text blocks of a list)."""
    if kind == "user":
        body = record.get("message")
        content = body.get("content") if type(body) is dict else None
    else:
        attachment = record.get("attachment")
        content = attachment.get("prompt") if type(attachment) is dict else None
    if type(content) is str:
        return [content.strip()]
    if type(content) is not list:
        return []
    return [block["text"].strip() for block in content
            if type(block) is dict and block.get("type") == "text"
            and type(block.get("text")) is str]


def _prepared(kind: str, record: dict[str, Any]) -> dict[str, Any]:
    """A record as conversion reads it: tool results stored (`_store_results`), slimmed."""
    if kind == "user":
        _store_results(record)
    return _slim(record)


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    """The keys of a line that conversion reads (the rest repeat session facts already noted,
    or are never converted); an assistant's usage cut down to the counters read."""
    slim = {key: record[key] for key in ENTRY_KEYS if key in record}
    body = slim.get("message")
    if type(body) is dict:
        usage = body.get("usage")
        if type(usage) is dict:
            body["usage"] = {key: usage[key] for key in USAGE_KEYS if key in usage}
    return slim


def _store_results(record: dict[str, Any]) -> None:
    """Hand the large texts of tool results to `sts.spill` (the messages of a session are kept
    until it is written)."""
    body = record.get("message")
    content = body.get("content") if type(body) is dict else None
    if type(content) is not list:
        return
    for block in content:
        if type(block) is not dict or block.get("type") != "tool_result":
            continue
        result = block.get("content")
        if type(result) is str:
            block["content"] = spill.keep(result)
            continue
        if type(result) is not list:
            continue
        for item in result:
            text = item.get("text") if type(item) is dict else None
            if type(text) is str and item.get("type") == "text" and not text.startswith(AGENT_TAIL):
                item["text"] = spill.keep(text)


def _note_session(t: Transcript, record: dict[str, Any]) -> None:
    for attr, key in (("session_id", "sessionId"), ("cwd", "cwd"), ("version", "version"),
                      ("git_branch", "gitBranch"), ("slug", "slug")):
        value = record.get(key)
        if getattr(t, attr) is None and type(value) is str and value:
            setattr(t, attr, value)
