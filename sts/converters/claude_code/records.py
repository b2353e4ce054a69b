"""Line parsing: a Claude Code JSONL stream → a `Transcript` of light `Line` objects.

Each line is parsed once (`sts.lines.iter_records`, glued records split). Bulky fields that are
never converted are dropped as soon as the line is read: the `toolUseResult` side-car (only its
`agentId` is kept, for sub-agent linking), `progress` payloads (only the agent link of
`agent_progress` is kept) and `file-history-snapshot` lines. Line types the format defines and
the converter leaves out are silent; unknown types are reported and, when they carry a uuid,
kept in the uuid index so that threading can walk through them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from sts import spill
from sts.lines import iter_records
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
#: Line types that take part in the parentUuid chain.
THREAD_TYPES = frozenset(("user", "assistant", "system", "progress", "attachment"))
#: Metadata line types the converter reads for titles or leaves out on purpose.
SILENT_TYPES = frozenset((
    "file-history-snapshot", "agent-name", "tag", "last-prompt", "pr-link", "frame-link",
    "mode", "permission-mode", "worktree-state", "relocated", "bridge-session", "atis-latch",
))


@dataclass(slots=True)
class Line:
    """One uuid-bearing line: its place in the file, its links and its (slimmed) record."""

    index: int
    line: int
    type: str
    uuid: str | None
    parent: str | None
    record: dict[str, Any]
    sidechain: bool = False
    agent_id: str | None = None


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
    summaries: list[tuple[str, str]] = field(default_factory=list)
    custom_title: str | None = None
    ai_title: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    git_branch: str | None = None
    slug: str | None = None
    progress_agents: dict[str, str] = field(default_factory=dict)


def read_transcript(stream: BinaryIO, problems: Problems) -> Transcript:
    """Read a whole Claude Code JSONL stream into a `Transcript`."""
    transcript = Transcript()
    for index, (lineno, record) in enumerate(_records(stream, problems)):
        _add(transcript, index, lineno, record, problems)
    return transcript


def _records(stream: BinaryIO, problems: Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    return iter_records(stream, problems, split_glued=True)


def _add(t: Transcript, index: int, lineno: int, record: dict[str, Any], problems: Problems
         ) -> None:
    kind = record.get("type")
    if type(kind) is not str:  # a list or object would not even hash
        _add_unknown(t, index, lineno, kind, record, problems)
    elif kind in THREAD_TYPES:
        _add_entry(t, index, lineno, kind, record)
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
                                                 "parentUuid": record.get("parentUuid")})


def _add_entry(t: Transcript, index: int, lineno: int, kind: str, record: dict[str, Any]) -> None:
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
        _store_results(record)
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
    record = _slim(record)
    parent = record.get("parentUuid")
    entry = Line(index, lineno, kind, uuid, parent if type(parent) is str else None, record,
                  record.get("isSidechain") is True, agent_id if type(agent_id) is str else None)
    t.entries.append(entry)
    if uuid is not None:
        t.by_uuid[uuid] = entry


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
    """Hand the large texts of tool results to `sts.spill` as soon as the line is read (the
    records are kept until the thread is chosen at the end of the file)."""
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
