"""Reading a Codex rollout (any generation) into a Session; see the package docstring."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO

from sts.building.coerce import text_or_none
from sts.converters.base import ReadContext
from sts.converters.codex import is_legacy_header, is_typescript_document
from sts.converters.codex.builder import Rollout
from sts.converters.input_head import NOT_JSON, read_head, read_unclear
from sts.lines import iter_records, loads_document
from sts.model import Session
from sts.problems import Reporter
from sts.timestamps import checked_ms

SILENT_RECORDS = frozenset(
    ("inter_agent_communication", "inter_agent_communication_metadata", "rollout_reference")
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# session_meta field → header metadata key (cwd, git, cli_version and timestamp have fields).
META_KEYS = {
    "originator": "originator",
    "model_provider": "modelProvider",
    "source": "codexSource",
    "forked_from_id": "forkedFromId",
    "parent_thread_id": "parentThreadId",
    "thread_source": "threadSource",
    "agent_nickname": "agentNickname",
    "agent_role": "agentRole",
    "history_mode": "historyMode",
    "subagent_history_start_ordinal": "subagentHistoryStartOrdinal",
    "instructions": "instructions",
}


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a rollout: a TypeScript JSON document or JSONL.

    A first line that is not JSON starts a pretty-printed document, unless the input is no
    document and the lines after it are records (JSONL with a damaged first line: only that line
    is lost; see `sts.converters.input_head`).
    """
    head = read_head(stream)
    if not head.lines:
        return
    value = head.value
    lines: Iterable[bytes] = chain(head.lines, stream)
    if value is NOT_JSON and head.first.lstrip()[:1] == b"{":
        document, rest = read_unclear(stream, head, context.problems)
        if rest is None:
            yield from read_document(document, context)
            return
        lines = rest
    if is_typescript_document(value):
        if head.repaired:  # parsed again to report the repair
            value = loads_document(b"".join(head.lines), context.problems)
        yield from read_document(value, context)
        return
    records = iter_records(lines, context.problems)
    session = read_lines(records, context)
    if session is not None:
        yield session


def read_document(document: Any, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a TypeScript CLI document (nothing, reported, for other JSON)."""
    if not is_typescript_document(document):
        if document is not None:
            context.problems.error(None, "unknown-record", "JSON document is not a rollout")
        return
    rollout = Rollout(context)
    header = document.get("session")
    header = header if type(header) is dict else {}
    rollout.system_prompt(header.get("instructions"), None)
    for item in document["items"]:
        if type(item) is dict:
            rollout.item(item, None, None)
        else:
            context.problems.error(None, "unknown-record", "an item that is not an object skipped")
    yield make_session(rollout, header, None, context, "typescript")


def read_lines(records: Iterable[tuple[int, Any]], context: ReadContext) -> Session | None:
    """Build the session of a JSONL rollout (envelope or legacy) from its records."""
    rollout = Rollout(context)
    problems = context.problems
    meta: dict[str, Any] | None = None
    meta_line: int | None = None
    generation = "envelope"
    for lineno, record in records:
        kind = record.get("type")
        payload = record.get("payload")
        if type(payload) is dict:
            if kind == "response_item":
                rollout.item(payload, line_time(record, problems, lineno), lineno)
            elif kind == "event_msg":
                rollout.event(payload, lineno)
            elif kind == "turn_context":
                rollout.turn_context(payload)
            elif kind == "session_meta":
                if meta is None:
                    meta, meta_line = payload, lineno
                    start_session(rollout, meta, line_time(record, problems, lineno))
            elif kind == "compacted":
                rollout.compacted(payload, line_time(record, problems, lineno))
            elif kind == "world_state":
                rollout.world_state(payload)
            elif type(kind) is not str or kind not in SILENT_RECORDS:
                rollout.report_unknown(lineno, f"record type {kind!r}", kind)
        elif "record_type" in record:
            continue  # legacy state snapshot
        elif meta is None and is_legacy_header(record):
            meta, meta_line, generation = record, lineno, "legacy"
            rollout.system_prompt(record.get("instructions"), None)
        elif type(kind) is str and "payload" not in record:
            rollout.item(record, None, lineno)  # a bare legacy item
        else:
            problems.error(lineno, "unknown-record", f"record type {kind!r} without an object "
                           "payload skipped")
    if meta is None and not rollout.messages:
        return None
    if generation == "legacy" and meta is not None:
        meta = {k: v for k, v in meta.items() if k != "instructions"}
    return make_session(rollout, meta or {}, meta_line, context, generation)


def line_time(record: dict[str, Any], problems: Reporter, lineno: int) -> int | None:
    """Epoch ms of an envelope's ``timestamp``; one that is no time is reported."""
    return checked_ms(record.get("timestamp"), problems, lineno, "timestamp")


def start_session(rollout: Rollout, meta: dict[str, Any], ts: int | None) -> None:
    """Apply the first ``session_meta``: provider and the system prompt."""
    rollout.set_provider(meta.get("model_provider"))
    base = meta.get("base_instructions")
    if type(base) is dict:
        rollout.system_prompt(base.get("text"), ts)
    elif type(base) is str:
        rollout.system_prompt(base, ts)


def make_session(
    rollout: Rollout, meta: dict[str, Any], meta_line: int | None, context: ReadContext,
    generation: str,
) -> Session:
    """The Session from a read rollout and its header record (read at `meta_line`)."""
    builder = rollout.builder
    builder.offer_id(meta.get("id") if type(meta.get("id")) is str else None)
    builder.offer_id(uuid_in_name(context))
    session = builder.finish()
    session.source_version = text_or_none(meta.get("cli_version"))
    # the cwd the header names, else the one the model was told, else its first tool's workdir
    session.cwd = text_or_none(meta.get("cwd")) or rollout.cwd or rollout.workdir
    session.git = meta.get("git") if type(meta.get("git")) is dict and meta["git"] else None
    session.started_at = checked_ms(meta.get("timestamp"), context.problems, meta_line,
                                    "session timestamp")
    metadata: dict[str, Any] = {"codexFormat": generation}
    for field, key in META_KEYS.items():
        value = meta.get(field)
        if value is not None and value != "":
            metadata[key] = value
    source = meta.get("source")
    if "parentThreadId" not in metadata and type(source) is dict:
        spawn = source.get("subagent")
        spawn = spawn.get("thread_spawn") if type(spawn) is dict else None
        if type(spawn) is dict and text_or_none(spawn.get("parent_thread_id")):
            metadata["parentThreadId"] = spawn["parent_thread_id"]
    session.metadata = metadata
    return session


def uuid_in_name(context: ReadContext) -> str | None:
    """The session id a rollout's file name carries (``rollout-<time>-<uuid>.jsonl``), if any."""
    found = _UUID.findall(context.path.name) if context.path is not None else []
    return found[-1].lower() if found else None
