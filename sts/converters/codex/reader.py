"""Reading a Codex rollout (any generation) into a Session; see the package docstring."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO

from sts.converters.base import ReadContext
from sts.converters.codex import is_legacy_header, is_typescript_document
from sts.converters.codex.builder import SessionBuilder
from sts.converters.input_head import NOT_JSON, read_head, read_unclear
from sts.lines import iter_records, loads_document
from sts.model import Session
from sts.timestamps import iso_to_ms, to_ms

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
    records = iter_records(lines, context.problems)  # type: ignore[arg-type]
    session = read_lines(records, context)
    if session is not None:
        yield session


def read_document(document: Any, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a TypeScript CLI document (nothing, reported, for other JSON)."""
    if not is_typescript_document(document):
        if document is not None:
            context.problems.error(None, "unknown-record", "JSON document is not a rollout")
        return
    builder = SessionBuilder(context)
    header = document.get("session")
    header = header if type(header) is dict else {}
    builder.system_prompt(header.get("instructions"), None)
    for item in document["items"]:
        if type(item) is dict:
            builder.item(item, None, None)
        else:
            builder.report_unknown(None, "non-object item")
    yield make_session(builder, header, context, "typescript")


def read_lines(records: Iterable[tuple[int, Any]], context: ReadContext) -> Session | None:
    """Build the session of a JSONL rollout (envelope or legacy) from its records."""
    builder = SessionBuilder(context)
    meta: dict[str, Any] | None = None
    generation = "envelope"
    for lineno, record in records:
        kind = record.get("type")
        payload = record.get("payload")
        if type(payload) is dict:
            if kind == "response_item":
                builder.item(payload, line_time(record.get("timestamp")), lineno)
            elif kind == "event_msg":
                builder.event(payload, lineno)
            elif kind == "turn_context":
                builder.turn_context(payload)
            elif kind == "session_meta":
                if meta is None:
                    meta = payload
                    start_session(builder, meta, to_ms(record.get("timestamp")))
            elif kind == "compacted":
                builder.compacted(payload, to_ms(record.get("timestamp")))
            elif kind == "world_state":
                builder.world_state(payload)
            elif type(kind) is not str or kind not in SILENT_RECORDS:
                builder.report_unknown(lineno, f"record type {kind!r}")
        elif "record_type" in record:
            continue  # legacy state snapshot
        elif meta is None and is_legacy_header(record):
            meta, generation = record, "legacy"
            builder.system_prompt(record.get("instructions"), None)
        elif type(kind) is str and "payload" not in record:
            builder.item(record, None, lineno)  # a bare legacy item
        else:
            builder.report_unknown(lineno, f"record type {kind!r}")
    if meta is None and not builder.messages:
        builder.finish()
        return None
    if generation == "legacy" and meta is not None:
        meta = {k: v for k, v in meta.items() if k != "instructions"}
    return make_session(builder, meta or {}, context, generation)


def line_time(value: Any) -> int | None:
    """Epoch ms of an envelope ``timestamp`` (an ISO string; anything else via `to_ms`)."""
    if type(value) is str:
        return iso_to_ms(value)
    return to_ms(value)


def start_session(builder: SessionBuilder, meta: dict[str, Any], ts: int | None) -> None:
    """Apply the first ``session_meta``: provider and the system prompt."""
    builder.set_provider(meta.get("model_provider"))
    base = meta.get("base_instructions")
    if type(base) is dict:
        builder.system_prompt(base.get("text"), ts)
    elif type(base) is str:
        builder.system_prompt(base, ts)


def make_session(
    builder: SessionBuilder, meta: dict[str, Any], context: ReadContext, generation: str
) -> Session:
    """The Session from a finished builder and the header record."""
    messages = builder.finish()
    session = Session(
        id=_str(meta.get("id")) or fallback_id(context),
        messages=messages,
        name=builder.title or builder.first_prompt(),
        source_format="codex",
        source_version=_str(meta.get("cli_version")),
        harness="codex",
        cwd=_str(meta.get("cwd")) or builder.cwd,
        git=meta.get("git") if type(meta.get("git")) is dict and meta["git"] else None,
        started_at=to_ms(meta.get("timestamp")),
    )
    metadata: dict[str, Any] = {"codexFormat": generation}
    for field, key in META_KEYS.items():
        value = meta.get(field)
        if value is not None and value != "":
            metadata[key] = value
    source = meta.get("source")
    if "parentThreadId" not in metadata and type(source) is dict:
        spawn = source.get("subagent")
        spawn = spawn.get("thread_spawn") if type(spawn) is dict else None
        if type(spawn) is dict and _str(spawn.get("parent_thread_id")):
            metadata["parentThreadId"] = spawn["parent_thread_id"]
    session.metadata = metadata
    return session


def fallback_id(context: ReadContext) -> str:
    """The session id when the file has none: the UUID in its name, else its stem."""
    if context.path is None:
        return "codex-session"
    found = _UUID.findall(context.path.name)
    if found:
        return found[-1].lower()
    return context.path.name.split(".", 1)[0] or "codex-session"


def _str(value: Any) -> str | None:
    return value if type(value) is str and value else None
