"""Where OpenCode sessions come from: its SQLite database (1.x and 2.x tables), the pre-1.2 JSON
file tree, and ``opencode export`` documents; and how sessions become sub-agent trees.

Each store lists its sessions (`Info`, small) and then reads one session's messages at a time
(one query per session, rows iterated), so that memory is bounded by the largest session (with
its sub-agents), not by the store.

2.x databases keep the frozen 1.x tables beside ``session_v2``/``session_message``, and migrated
rows keep their ids: a session is read from ``session_message`` when that table has rows for
it, else from ``message``/``part``; never from both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import orjson

from sts.building.context import ReadContext
from sts.converters.opencode.build import Info, SessionReader
from sts.converters.sqlite import DatabaseError, Reader, quote_name
from sts.lines import loads_document
from sts.model import Session

SESSION_TABLES = ("session", "session_v2")
#: Every table the reader may touch (the connection's authorizer refuses any other).
TABLES = (*SESSION_TABLES, "message", "part", "session_message")
SESSION_COLUMNS = ("id", "parent_id", "title", "directory", "version", "slug", "project_id",
                   "agent", "time_created", "time_archived")


class Store(Protocol):
    """A source of OpenCode sessions."""

    def sessions(self) -> list[Info]: ...

    def read(self, info: Info, reader: SessionReader) -> None: ...


def loads(data: Any) -> Any:
    """A JSON column or file's value (None when it is not JSON)."""
    if data is None:
        return None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


# -- the database ------------------------------------------------------------------------------


class Database:
    """An OpenCode ``opencode.db`` (or a fork's, or a channel's ``opencode-<channel>.db``)."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.tables = reader.tables()
        self.v1 = {"message", "part"} <= self.tables
        self.v2 = "session_message" in self.tables
        self.order = ("m.time_created, m.id, p.id"
                      if self.v1 and "time_created" in reader.columns("message") else "m.id, p.id")
        if not any(t in self.tables for t in SESSION_TABLES):
            raise DatabaseError("bad-database", "no session table: not an OpenCode database")

    def sessions(self) -> list[Info]:
        found: dict[str, Info] = {}
        for table in SESSION_TABLES:
            if table not in self.tables:
                continue
            columns = [c for c in SESSION_COLUMNS if c in self.reader.columns(table)]
            if "id" not in columns:
                continue
            order = "time_created, id" if "time_created" in columns else "id"
            sql = f"SELECT {', '.join(columns)} FROM {quote_name(table)} ORDER BY {order}"
            for row in self.reader.rows(sql):
                info = Info(dict(zip(columns, row, strict=True)))
                if info.id:
                    found[info.id] = info  # a session_v2 row stands for its 1.x row
        return sorted(found.values(), key=lambda i: i.order)

    def read(self, info: Info, reader: SessionReader) -> None:
        if self.v2 and self._has_v2(info.id):
            for row_id, kind, data in self.reader.rows(
                "SELECT id, type, data FROM session_message WHERE session_id = ? ORDER BY seq",
                (info.id,),
            ):
                reader.v2(kind, loads(data), row_id, f"session_message {row_id}")
            return
        if not self.v1:
            return
        rows = self.reader.rows(
            "SELECT m.id, m.data, p.id, p.data FROM message m "
            "LEFT JOIN part p ON p.message_id = m.id WHERE m.session_id = ? "
            f"ORDER BY {self.order}", (info.id,))
        current: str | None = None
        message: Any = None
        parts: list[Any] = []
        for message_id, message_data, part_id, part_data in rows:
            if message_id != current:
                if current is not None:
                    reader.v1(message, parts, f"message {current}")
                current, message, parts = message_id, _with_id(loads(message_data), message_id), []
            if part_id is not None:
                parts.append(_with_id(loads(part_data), part_id))
        if current is not None:
            reader.v1(message, parts, f"message {current}")

    def _has_v2(self, session_id: str) -> bool:
        return any(self.reader.rows(
            "SELECT 1 FROM session_message WHERE session_id = ? LIMIT 1", (session_id,)))


def _with_id(value: Any, row_id: Any) -> Any:
    if type(value) is dict and "id" not in value:
        value["id"] = row_id
    return value


# -- the pre-1.2 JSON tree ---------------------------------------------------------------------


class FileTree:
    """``storage/{session,message,part}``: one JSON file per session, message and part (ids from
    the file names, which OpenCode trusts over the files' own)."""

    def __init__(self, root: Path, context: ReadContext) -> None:
        self.root = root
        self.context = context

    def _load(self, path: Path) -> Any:
        try:
            return loads_document(path.read_bytes(), self.context.problems)
        except OSError as exc:
            self.context.problems.error(None, "io-error", f"{path}: {exc}")
            return None

    def sessions(self) -> list[Info]:
        found = []
        for path in sorted((self.root / "session").glob("*/*.json")):
            record = self._load(path)
            if type(record) is dict:
                record["id"] = path.stem
                found.append(Info(record))
        return sorted(found, key=lambda i: i.order)

    def read(self, info: Info, reader: SessionReader) -> None:
        messages = []
        for path in sorted((self.root / "message" / info.id).glob("*.json")):
            record = self._load(path)
            if type(record) is dict:
                record["id"] = path.stem
                time = record.get("time")
                created = time.get("created") if type(time) is dict else None
                messages.append((created if type(created) is int else 0, path.stem, record))
        messages.sort(key=lambda item: item[:2])
        for _, message_id, record in messages:
            parts = []
            for path in sorted((self.root / "part" / message_id).glob("*.json")):
                part = self._load(path)
                if type(part) is dict:
                    part["id"] = path.stem
                    parts.append(part)
            reader.v1(record, parts, f"message {message_id}")


# -- export documents --------------------------------------------------------------------------


class Export:
    """An ``opencode export`` document: ``{info, messages: [{info, parts}], todos?}``."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def sessions(self) -> list[Info]:
        info = self.document.get("info")
        return [Info(info if type(info) is dict else {})]

    def read(self, info: Info, reader: SessionReader) -> None:
        for index, entry in enumerate(self.document.get("messages") or ()):
            if type(entry) is not dict:
                reader.problems.error(None, "bad-message", f"messages[{index}] is not an object")
                continue
            parts = entry.get("parts")
            reader.v1(entry.get("info"), parts if type(parts) is list else [],
                      f"messages[{index}]")


# -- sessions and their sub-agents -------------------------------------------------------------


def assemble(store: Store, context: ReadContext, wanted: tuple[str, ...], subagents: bool,
             seen: set[str]) -> Iterator[Session]:
    """The store's sessions with their sub-agents as children: every top-level session, or the
    `wanted` ones (a sub-agent named there is converted on its own). Sessions whose ids are in
    `seen` already (read from another store) are left out; the store's ids are added to it."""
    infos = [i for i in store.sessions() if i.id not in seen]
    seen.update(info.id for info in infos)
    by_id = {info.id: info for info in infos}
    children: dict[str, list[str]] = {}
    for info in infos:
        if info.parent_id in by_id and info.parent_id != info.id:
            children.setdefault(info.parent_id, []).append(info.id)
    if wanted:
        roots = [by_id[i] for i in wanted if i in by_id]
    else:
        roots = [i for i in infos if i.parent_id not in by_id or i.parent_id == i.id]
    attached: set[str] = set()
    written: set[str] = set()
    for root in roots:
        if root.id in attached and not wanted:
            continue  # a sub-agent the task tool named (no parent_id), read with its parent
        session = _session(store, context, root, by_id, children, subagents, (root.id,),
                           attached, written)
        if session.messages or session.children:  # an unused session: nothing to convert
            if not wanted:
                written.add(root.id)
            yield session


def _session(store: Store, context: ReadContext, info: Info, by_id: dict[str, Info],
             children: dict[str, list[str]], subagents: bool, line: tuple[str, ...],
             attached: set[str], written: set[str]) -> Session:
    reader = SessionReader(context, info)
    try:
        store.read(info, reader)
    except DatabaseError as exc:
        context.problems.error(None, exc.code, f"session {info.id}: {exc}")
    session = reader.finish()
    if not subagents:
        return session
    kids = list(children.get(info.id, ()))
    links = []
    for child_id in reader.links:  # a task call names a child the parent_id does not
        known = by_id.get(child_id)
        if known is None or child_id in kids or known.parent_id is not None:
            continue
        if child_id in written:  # created before its parent, so already written on its own
            links.append({"sessionId": child_id, "toolCallId": reader.links[child_id]})
        else:
            kids.append(child_id)
    for child_id in kids:
        if child_id in line:  # a loop of parent ids
            continue
        attached.add(child_id)
        child = _session(store, context, by_id[child_id], by_id, children, subagents,
                         (*line, child_id), attached, written)
        if not child.messages and not child.children:
            continue  # unused, or its rows could not be read (reported)
        child.metadata["parentSessionId"] = session.id
        link: dict[str, Any] = {"key": child.key, "sessionId": child.id}
        call_id = reader.links.get(child_id)
        if call_id is not None:
            child.metadata["parentToolCallId"] = call_id
            link["toolCallId"] = call_id
        agent = by_id[child_id].extra.get("agent")
        if agent:
            child.metadata["agentType"] = agent
        links.append(link)
        session.children.append(child)
    if links:
        session.metadata["subagentLinks"] = links
    return session
