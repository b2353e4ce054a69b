"""Cursor IDE composers and their bubbles → sessions.

A composer (``composerData:<id>``) is one conversation; its bubbles are read in the order of
``fullConversationHeadersOnly`` from the ``bubbleId:<composer>:<bubble>`` rows (one range query
per composer), or, in older builds, from the composer's inline ``conversation``. Composers with
no bubble (drafts) are left out. Choices:

- A user bubble (``type`` 1) is a prompt: its text, its images (data URLs).
- Assistant bubbles (``type`` 2) in a row form one assistant message: thinking
  (``thinking.text`` with its signature, or the text of an ``isThought`` bubble), text, and tool
  calls. A bubble with ``toolFormerData`` is one call with its result in the same bubble: the
  call's arguments are ``rawArgs`` (the model's own; ``params``, Cursor's normalised copy, when
  there is none), JSON strings parsed (twice when double-encoded); its ``result`` (a JSON string)
  becomes the result message (an object of one text field: that text), an error when the status
  is ``error``/``cancelled`` or the user rejected it. A call with no result yet keeps none.
- ``createdAt`` as ISO text or epoch ms; ``modelInfo.modelName`` as the model;
  ``tokenCount`` as usage. The composer's folder: ``workspaceIdentifier.uri.fsPath``, the first
  bubble's ``workspaceUris``, or the workspace's ``workspace.json``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlparse

import orjson

from sts.building import SessionBuilder, TitleRank
from sts.building.coerce import positive_int, text_or_none
from sts.building.content import image_from_url, json_text
from sts.building.context import ReadContext
from sts.converters.sqlite import (
    HEADER,
    DatabaseError,
    Reader,
    needs_path,
    open_database,
    report_missing,
    wanted_sessions,
)
from sts.model import Message, Part, Session, TextPart, ThinkingPart, Usage
from sts.timestamps import checked_ms

FORMAT = "cursor"
HARNESS = "cursor"
TABLES = ("cursorDiskKV",)
ERROR_STATUSES = frozenset(("error", "cancelled", "canceled", "rejected", "aborted"))


def read(stream: BinaryIO, context: ReadContext, options: Any) -> Iterator[Session]:
    """The composers of a ``state.vscdb`` (or of a Cursor ``User`` folder)."""
    wanted = wanted_sessions(options.sessions)
    seen: set[str] = set()
    path = context.path
    workspaces: dict[str, str] = {}
    if path is not None and path.is_dir():
        user = path.parent if path.name == "globalStorage" else path
        database: Path | None = user / "globalStorage" / "state.vscdb"
        workspaces = workspace_folders(user / "workspaceStorage")
    elif stream.read(len(HEADER)) == HEADER:
        database = needs_path(path, context.problems, "a Cursor state.vscdb")
        if database is not None:
            workspaces = workspace_folders(database.parent.parent / "workspaceStorage")
    else:
        context.problems.error(None, "bad-database", "not a SQLite database")
        database = None
    if database is None:
        return
    try:
        with open_database(database, TABLES) as reader:
            yield from composers(reader, context, wanted, seen, workspaces)
    except DatabaseError as exc:
        context.problems.error(None, exc.code, f"{database.name}: {exc}")
    report_missing(context.problems, wanted, seen)


def workspace_folders(folder: Path) -> dict[str, str]:
    """Workspace hash → its folder, from each ``workspaceStorage/<hash>/workspace.json``."""
    found: dict[str, str] = {}
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        try:
            data = orjson.loads((entry / "workspace.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        uri = data.get("folder") if type(data) is dict else None
        if type(uri) is str:
            found[entry.name] = file_path(uri)
    return found


def file_path(uri: str) -> str:
    """A ``file://`` URI's path (other text as it is)."""
    if uri.startswith("file://"):
        return unquote(urlparse(uri).path)
    return uri


def loads(value: Any) -> Any:
    """A row value's JSON (text or bytes); None when it is not JSON."""
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except (orjson.JSONDecodeError, TypeError):
        return None


def composers(reader: Reader, context: ReadContext, wanted: tuple[str, ...], seen: set[str],
              workspaces: dict[str, str]) -> Iterator[Session]:
    keys = [row[0] for row in reader.rows(
        "SELECT key FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' "
        "ORDER BY key")]
    for key in keys:
        composer_id = key.removeprefix("composerData:")
        seen.add(composer_id)
        if wanted and composer_id not in wanted:
            continue
        rows = list(reader.rows("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)))
        data = loads(rows[0][0]) if rows else None
        if type(data) is not dict:
            context.problems.error(None, "bad-message", f"{key}: not a JSON object")
            continue
        session = composer(reader, context, composer_id, data, workspaces)
        if session.messages:
            yield session


def composer(reader: Reader, context: ReadContext, composer_id: str, data: dict[str, Any],
             workspaces: dict[str, str]) -> Session:
    b = SessionBuilder(context, FORMAT, HARNESS, key=composer_id, title_from_prompt=True)
    b.offer_id(composer_id)
    b.title(text_or_none(data.get("name")), TitleRank.GIVEN)
    session = b.session
    session.started_at = checked_ms(data.get("createdAt"), context.problems, None,
                                    f"composerData:{composer_id} createdAt")
    workspace = data.get("workspaceIdentifier")
    if type(workspace) is dict:
        uri = workspace.get("uri")
        if type(uri) is dict and text_or_none(uri.get("fsPath")):
            session.cwd = uri["fsPath"]
        elif type(workspace.get("id")) is str:
            session.cwd = workspaces.get(workspace["id"])
    for name, target in (("unifiedMode", "mode"), ("status", "status")):
        if text_or_none(data.get(name)):
            session.metadata[target] = data[name]
    if data.get("isArchived") is True:
        session.metadata["archived"] = True
    config = data.get("modelConfig")
    if type(config) is dict and text_or_none(config.get("modelName")):
        session.metadata["model"] = config["modelName"]
    builder = Bubbles(b)
    for where, bubble in bubbles(reader, composer_id, data):
        if type(bubble) is not dict:
            context.problems.error(None, "bad-message", f"{where}: not a JSON object")
            continue
        builder.add(bubble, where)
    builder.flush()
    if session.cwd is None:
        session.cwd = builder.cwd
    return b.finish()


def bubbles(reader: Reader, composer_id: str, data: dict[str, Any]
            ) -> Iterator[tuple[str, Any]]:
    """The composer's bubbles in conversation order."""
    headers = data.get("fullConversationHeadersOnly")
    if type(headers) is list and headers:
        prefix = f"bubbleId:{composer_id}:"
        stored = {
            key.removeprefix(prefix): value for key, value in reader.rows(
                "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?",
                (prefix, prefix[:-1] + ";"))
        }
        for header in headers:
            bubble_id = header.get("bubbleId") if type(header) is dict else None
            if type(bubble_id) is str and bubble_id in stored:
                yield f"bubble {bubble_id}", loads(stored.pop(bubble_id))
        return
    for index, bubble in enumerate(data.get("conversation") or ()):
        yield f"conversation[{index}]", bubble


class Bubbles:
    """Turns bubbles into messages: assistant bubbles in a row make one assistant message."""

    def __init__(self, b: SessionBuilder) -> None:
        self.b = b
        self.reply: Message | None = None
        self.cwd: str | None = None

    def add(self, bubble: dict[str, Any], where: str) -> None:
        kind = bubble.get("type")
        created = checked_ms(bubble.get("createdAt"), self.b.problems, None, f"{where} createdAt")
        if self.cwd is None and type(bubble.get("workspaceUris")) is list:
            first = bubble["workspaceUris"][0] if bubble["workspaceUris"] else None
            self.cwd = file_path(first) if type(first) is str else None
        if kind == 1:
            self.flush()
            content: list[Part] = []
            text = bubble.get("text")
            if type(text) is str and text.strip():
                content.append(TextPart(text))
            for image in bubble.get("images") or ():
                url = image if type(image) is str else (
                    image.get("url") if type(image) is dict else None)
                if type(url) is str and url:
                    content.append(image_from_url(url))
            if content:
                self.b.add(Message("user", content, timestamp=created,
                                   id=text_or_none(bubble.get("bubbleId"))))
        elif kind == 2:
            self._assistant(bubble, created)
        else:
            self.b.problems.error(None, "unknown-role", f"{where}: bubble type {kind!r} skipped")

    def _assistant(self, bubble: dict[str, Any], created: int | None) -> None:
        reply = self.reply
        if reply is None:
            reply = self.reply = Message("assistant", timestamp=created,
                                         id=text_or_none(bubble.get("bubbleId")))
        model = bubble.get("modelInfo")
        if type(model) is dict and text_or_none(model.get("modelName")):
            reply.model = model["modelName"]
        thinking = bubble.get("thinking")
        text = bubble.get("text")
        if type(thinking) is dict and text_or_none(thinking.get("text")):
            reply.content.append(ThinkingPart(thinking["text"],
                                              text_or_none(thinking.get("signature"))))
        elif bubble.get("isThought") is True and type(text) is str and text.strip():
            reply.content.append(ThinkingPart(text))
            text = None
        if type(text) is str and text.strip():
            reply.content.append(TextPart(text))
        tokens = bubble.get("tokenCount")
        if type(tokens) is dict and (tokens.get("inputTokens") or tokens.get("outputTokens")):
            reply.usage = Usage(input=positive_int(tokens.get("inputTokens")),
                                output=positive_int(tokens.get("outputTokens")))
        tool = bubble.get("toolFormerData")
        if type(tool) is dict:
            self._tool(reply, tool, created)

    def _tool(self, reply: Message, tool: dict[str, Any], created: int | None) -> None:
        arguments = tool.get("rawArgs")
        if not text_or_none(arguments):
            arguments = tool.get("params")
        call = self.b.call(tool.get("toolCallId"), tool.get("name") or "", arguments)
        params = tool.get("params")
        if text_or_none(params) and tool.get("rawArgs"):
            call.extras["params"] = loads(params) if loads(params) is not None else params
        status = tool.get("status")
        if type(status) is str:
            call.extras["status"] = status
        reply.tool_calls.append(call)
        result = tool.get("result")
        self.flush()
        if result is None:
            return
        parsed = loads(result) if type(result) is str else result
        if parsed is None:
            parsed = result
        decision = tool.get("userDecision")
        failed = status in ERROR_STATUSES or decision == "rejected" or (
            type(parsed) is dict and parsed.get("rejected") is True)
        if type(parsed) is dict and len(parsed) == 1 and type(next(iter(parsed.values()))) is str:
            parsed = next(iter(parsed.values()))  # {"contents": "..."}: the text itself
        message = self.b.result(tool.get("toolCallId"), [TextPart(json_text(parsed))],
                                name=tool.get("name"), is_error=failed, timestamp=created)
        if type(decision) is str:
            message.extras["userDecision"] = decision

    def flush(self) -> None:
        """End the assistant message being built."""
        reply, self.reply = self.reply, None
        if reply is not None and (reply.content or reply.tool_calls):
            self.b.add(reply)
