"""One OpenCode session's messages → `Session`, whatever store they came from.

1.x messages (the ``message``/``part`` tables, the pre-1.2 JSON tree, export documents) arrive as
a message's info with its parts; 2.x ``session_message`` rows as a type and its data. Choices:

- User text parts are the prompt; ``synthetic`` text parts (file contents of an ``@`` mention,
  "Called the Read tool ...") become one injected-context system message after it; ``ignored``
  parts (never sent to the model) and empty streaming placeholders are left out. ``file`` parts:
  images (data URLs) as images, other files as typed placeholders with their name and URL.
- An assistant message is one model step: reasoning (the provider signature kept), text and
  tool calls in part order, then one result per finished call (``completed``; ``error``, with
  the interrupted output first when there is one). A pending or running call keeps no result.
  Usage is the message's own ``tokens`` (the sum of its ``step-finish`` parts, which are read
  only when it has none), cost included; reasoning tokens go to extras (no usage field).
- ``error`` on an assistant message: ``MessageAbortedError`` → stop reason aborted, others →
  error, with the error's message; kept even when the turn has no parts.
- ``retry`` parts become api-error system messages before their step; ``patch`` parts are
  kept in the message's extras; ``step-start``/``snapshot`` carry nothing to convert.
- Compaction: the summary message (``summary: true``, agent ``compaction``) becomes a compaction
  system message holding the summary; the ``compaction`` part of the user message that asked
  for it says whether it was automatic. 2.x ``compaction`` rows hold the summary themselves.
- Sub-agents: a tool part whose ``metadata.sessionId`` names a session (the ``task`` tool) is
  remembered with its call id (also the ``task_id: ses_...`` / ``<task id="ses_...">`` in its
  output), so that the child can be linked to the call.
"""

from __future__ import annotations

import re
from typing import Any

from sts.building import SessionBuilder, TitleRank
from sts.building.coerce import id_or_none, number_or_none, positive_int, text_or_none
from sts.building.content import image_from_url, json_text, split_data_uri
from sts.building.context import ReadContext
from sts.building.vocabulary import stop_reason
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Part,
    Session,
    StopReason,
    TextPart,
    ThinkingPart,
    Usage,
    base64_size,
)
from sts.timestamps import epoch_ms, stated_ms

FORMAT = "opencode"
HARNESS = "opencode"
TASK_ID = re.compile(r"(?:task_id: |<task id=\")(ses_[A-Za-z0-9]+)")
#: Part types that carry nothing a target holds.
QUIET_PARTS = frozenset(("step-start", "snapshot", "agent"))
#: 2.x row types that record a switch, not a message.
QUIET_ROWS = frozenset(("model-switched", "agent-switched", "location-switched", "idle"))


class Info:
    """One session's row (or file): id, parent, title, folder, times, version, extras."""

    __slots__ = ("archived", "created", "directory", "extra", "id", "parent_id", "title",
                 "version")

    def __init__(self, record: dict[str, Any]) -> None:
        self.id: str = str(record.get("id") or "")
        self.parent_id = id_or_none(record.get("parent_id", record.get("parentID")))
        self.title = text_or_none(record.get("title"))
        self.directory = text_or_none(record.get("directory"))
        self.version = text_or_none(record.get("version"))
        time = record.get("time")
        created = record.get("time_created")
        if created is None and type(time) is dict:
            created = time.get("created")
        self.created: Any = created  # times as stored: `SessionReader` reads and checks them
        self.extra: dict[str, Any] = {}
        for source, target in (("slug", "slug"), ("project_id", "projectId"),
                               ("projectID", "projectId"), ("agent", "agent")):
            value = text_or_none(record.get(source))
            if value:
                self.extra[target] = value
        archived = record.get("time_archived")
        if archived is None and type(time) is dict:
            archived = time.get("archived")
        self.archived: Any = archived

    @property
    def order(self) -> tuple[int, str]:
        """Sessions are listed by creation time (none or no time: first), then id."""
        created = positive_int(self.created)
        return (created if epoch_ms(created) is not None else 0), self.id


class SessionReader:
    """Builds one session from its messages (`v1`) or 2.x rows (`v2`)."""

    def __init__(self, context: ReadContext, info: Info, source_version: str | None = None
                 ) -> None:
        self.b = SessionBuilder(context, FORMAT, HARNESS, key=info.id, title_from_prompt=True)
        self.b.offer_id(info.id)
        session = self.b.session
        session.cwd = info.directory
        where = f"session {info.id}"
        session.started_at = self.time(info.created, where, "time created")
        session.source_version = info.version or source_version
        session.metadata.update(info.extra)
        archived = self.time(info.archived, where, "time archived")
        if archived is not None:
            session.metadata["archivedAt"] = archived
        if info.title:
            self.b.title(info.title, TitleRank.GENERATED)
        #: child session id → the call that started it
        self.links: dict[str, str] = {}
        self._compaction: dict[str, Any] | None = None

    @property
    def problems(self):
        return self.b.problems

    def time(self, value: Any, where: str, what: str) -> int | None:
        """An OpenCode time: epoch ms (0 or none: unset); one that is no time is reported."""
        if value is None or value == 0:
            return None
        return stated_ms(value, self.problems, None, f"{where}: {what}")

    # -- 1.x ------------------------------------------------------------------------------------

    def v1(self, message: Any, parts: list[Any], where: str) -> None:
        """One 1.x message: its info (without or with ids) and its parts, in id order."""
        if type(message) is not dict:
            self.problems.error(None, "bad-message", f"{where}: message data is not an object")
            return
        parts = [p for p in parts if type(p) is dict]
        role = message.get("role")
        if role == "user":
            self._user(message, parts, where)
        elif role == "assistant":
            self._assistant(message, parts, where)
        else:
            self.problems.error(None, "unknown-role", f"{where}: message role {role!r} skipped")

    def _user(self, message: dict[str, Any], parts: list[dict[str, Any]], where: str) -> None:
        content: list[Part] = []
        injected: list[Part] = []
        kind = None
        for part in parts:
            kind_of = part.get("type")
            if kind_of == "text":
                text = part.get("text")
                if type(text) is not str or not text.strip() or part.get("ignored") is True:
                    continue
                (injected if part.get("synthetic") is True else content).append(TextPart(text))
            elif kind_of == "file":
                content.append(file_part(part))
            elif kind_of == "compaction":
                self._compaction = {"auto": part.get("auto") is True}
                if part.get("overflow") is True:
                    self._compaction["overflow"] = True
            elif kind_of == "subtask":
                prompt = text_or_none(part.get("prompt"))
                if prompt:
                    content.append(TextPart(prompt))
                    kind = MessageKind.COMMAND
            elif kind_of not in QUIET_PARTS and kind_of not in ("step-finish", "patch"):
                self._unknown_part(kind_of, where)
        created = self._created(message, where)
        model = message.get("model")
        if content:
            self.b.add(Message(
                "user", content, timestamp=created, id=id_or_none(message.get("id")),
                model=text_or_none(model.get("modelID")) if type(model) is dict else None,
                kind=kind))
        if injected:
            self.b.add(Message("system", injected, kind=MessageKind.INJECTED_CONTEXT,
                               timestamp=created))

    def _assistant(self, message: dict[str, Any], parts: list[dict[str, Any]], where: str
                   ) -> None:
        created = self._created(message, where)
        if message.get("summary") is True:
            self._summary(message, parts, created)
            return
        reply = Message(
            "assistant", timestamp=created, id=id_or_none(message.get("id")),
            model=text_or_none(message.get("modelID")),
            provider=text_or_none(message.get("providerID")),
        )
        results: list[dict[str, Any]] = []
        finishes: list[dict[str, Any]] = []
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                if type(text) is str and text.strip() and part.get("ignored") is not True:
                    reply.content.append(TextPart(text))
            elif kind == "reasoning":
                text = part.get("text")
                if type(text) is str and text.strip():
                    reply.content.append(ThinkingPart(text, _signature(part.get("metadata"))))
            elif kind == "tool":
                if self._tool(reply, part, where):
                    results.append(part)
            elif kind == "file":
                reply.content.append(file_part(part))
            elif kind == "retry":
                self._retry(part, where)
            elif kind == "patch":
                reply.extras.setdefault("patches", []).append(
                    {k: part[k] for k in ("hash", "files") if k in part})
            elif kind == "step-finish":
                finishes.append(part)
            elif kind not in QUIET_PARTS and kind != "subtask" and kind != "compaction":
                self._unknown_part(kind, where)
        tokens = message.get("tokens")
        reply.usage = usage(tokens, message.get("cost")) if type(tokens) is dict else (
            summed_usage(finishes))
        reasoning = _reasoning_tokens(tokens) if type(tokens) is dict else None
        if reasoning:
            reply.extras["reasoningTokens"] = reasoning
        self._ending(reply, message.get("error"), message.get("finish"))
        for name in ("agent", "mode"):
            if text_or_none(message.get(name)):
                reply.extras.setdefault("agent", message[name])
        if not reply.content and not reply.tool_calls and reply.error_message is None:
            return
        self.b.add(reply)
        for part in results:
            self._result(part, where)

    def _summary(self, message: dict[str, Any], parts: list[dict[str, Any]], created: int | None
                 ) -> None:
        texts: list[Part] = [TextPart(p["text"]) for p in parts
                             if p.get("type") == "text" and type(p.get("text")) is str
                             and p["text"].strip()]
        if not texts:
            self.problems.error(None, "bad-compaction", "a compaction summary without its text")
            return
        summary = Message("system", texts, kind=MessageKind.COMPACTION, timestamp=created,
                          id=id_or_none(message.get("id")))
        if self._compaction:
            summary.extras.update(self._compaction)
        self._compaction = None
        self.b.add(summary)

    def _tool(self, reply: Message, part: dict[str, Any], where: str) -> bool:
        """Add the call; True when it has a result to add after the message."""
        state = obj(part.get("state"))
        name = part.get("tool")
        call = self.b.call(part.get("callID"), name if type(name) is str else "",
                           state.get("input"))
        title = text_or_none(state.get("title"))
        if title:
            call.extras["title"] = title
        status = state.get("status")
        if status not in ("completed", "error"):
            call.extras["status"] = status if type(status) is str else None
        reply.tool_calls.append(call)
        self._link(call.id, state)
        return status in ("completed", "error")

    def _link(self, call_id: str, state: dict[str, Any]) -> None:
        metadata = state.get("metadata")
        child = metadata.get("sessionId") if type(metadata) is dict else None
        if type(child) is not str:
            output = state.get("output")
            found = TASK_ID.search(output[:2000]) if type(output) is str else None
            child = found.group(1) if found else None
        if child:
            self.links.setdefault(child, call_id)

    def _result(self, part: dict[str, Any], where: str) -> None:
        state = obj(part.get("state"))
        time = obj(state.get("time"))
        content: list[Part] = []
        failed = state.get("status") == "error"
        metadata = obj(state.get("metadata"))
        if failed:
            partial = metadata.get("output") if metadata.get("interrupted") is True else None
            if type(partial) is str and partial:
                content.append(TextPart(partial))
            content.append(TextPart(json_text(state.get("error") or "error")))
        else:
            output = state.get("output")
            content.append(TextPart(output if type(output) is str else json_text(output or "")))
        for attachment in state.get("attachments") or ():
            if type(attachment) is dict:
                content.append(file_part(attachment))
        result = self.b.result(part.get("callID"), content, name=part.get("tool"),
                               is_error=failed,
                               timestamp=self.time(time.get("end"), where, "tool time end"))
        if metadata.get("interrupted") is True:
            result.extras["interrupted"] = True
        if ms(time.get("compacted")):
            result.extras["compactedAt"] = time["compacted"]

    def _retry(self, part: dict[str, Any], where: str) -> None:
        error = part.get("error")
        text = error_text(error) or "the request failed"
        attempt = positive_int(part.get("attempt"))
        message = Message("system", [TextPart(f"retry {attempt}: {text}" if attempt else text)],
                          kind=MessageKind.API_ERROR)
        time = part.get("time")
        if type(time) is dict:
            message.timestamp = self.time(time.get("created"), where, "retry time created")
        self.b.add(message)

    def _ending(self, reply: Message, error: Any, finish: Any) -> None:
        if type(error) is dict:
            name = error.get("name")
            reply.stop_reason = (StopReason.ABORTED if name == "MessageAbortedError"
                                 else StopReason.ERROR)
            reply.error_message = error_text(error) or (name if type(name) is str else "error")
            if type(name) is str:
                reply.extras["errorName"] = name
        else:
            reply.stop_reason = stop_reason(finish)

    def _created(self, record: dict[str, Any], where: str) -> int | None:
        time = record.get("time")
        return self.time(time.get("created"), where, "time created") if type(time) is dict \
            else None

    def _unknown_part(self, kind: Any, where: str) -> None:
        self.problems.warning(None, "unknown-part", f"{where}: part type {kind!r} skipped")

    # -- 2.x ------------------------------------------------------------------------------------

    def v2(self, kind: Any, data: Any, row_id: str | None, where: str) -> None:
        """One 2.x ``session_message`` row (its data without id and type)."""
        if type(data) is not dict:
            self.problems.error(None, "bad-message", f"{where}: message data is not an object")
            return
        created = self._created(data, where)
        if kind == "user":
            content: list[Part] = []
            text = data.get("text")
            if type(text) is str and text.strip():
                content.append(TextPart(text))
            for item in data.get("files") or ():
                if type(item) is dict:
                    content.append(file_part(item))
            if content:
                self.b.add(Message("user", content, timestamp=created, id=row_id))
        elif kind == "assistant":
            self._assistant_v2(data, row_id, created, where)
        elif kind in ("system", "synthetic"):
            text = text_or_none(data.get("text"))
            if text:
                self.b.add(Message("system", [TextPart(text)], timestamp=created, id=row_id,
                                   kind=MessageKind.SYNTHETIC if kind == "synthetic" else None))
        elif kind == "compaction":
            summary = text_or_none(data.get("summary"))
            if not summary:
                self.problems.error(None, "bad-compaction", f"{where}: compaction without summary")
                return
            message = Message("system", [TextPart(summary)], kind=MessageKind.COMPACTION,
                              timestamp=created, id=row_id)
            if text_or_none(data.get("reason")):
                message.extras["reason"] = data["reason"]
            self.b.add(message)
        elif kind == "shell":
            command = text_or_none(data.get("command")) or ""
            parts: list[Part] = [TextPart(command)]
            output = data.get("output")
            if type(output) is str and output:
                parts.append(TextPart(output))
            self.b.add(Message("user", parts, kind=MessageKind.BASH, timestamp=created,
                               id=row_id))
        elif kind not in QUIET_ROWS:
            self.problems.unknown_type(None, f"session_message type {kind!r}")

    def _assistant_v2(self, data: dict[str, Any], row_id: str | None, created: int | None,
                      where: str) -> None:
        model = obj(data.get("model"))
        reply = Message("assistant", timestamp=created, id=row_id,
                        model=text_or_none(model.get("id")),
                        provider=text_or_none(model.get("providerID")))
        tools: list[dict[str, Any]] = []
        for block in data.get("content") or ():
            kind = block.get("type") if type(block) is dict else None
            if kind == "text" and type(block.get("text")) is str and block["text"].strip():
                reply.content.append(TextPart(block["text"]))
            elif kind == "reasoning" and type(block.get("text")) is str and block["text"].strip():
                reply.content.append(ThinkingPart(block["text"],
                                                  _signature(block.get("providerMetadata"))))
            elif kind == "tool":
                assert type(block) is dict
                state = obj(block.get("state"))
                call = self.b.call(block.get("id"), str(block.get("name") or ""),
                                   state.get("input"))
                reply.tool_calls.append(call)
                self._link(call.id, state)
                if state.get("status") in ("completed", "error"):
                    tools.append(block)
            elif kind is not None or block is not None:
                self._unknown_part(kind, where)
        tokens = data.get("tokens")
        if type(tokens) is dict:
            reply.usage = usage(tokens, data.get("cost"))
            if _reasoning_tokens(tokens):
                reply.extras["reasoningTokens"] = _reasoning_tokens(tokens)
        self._ending(reply, data.get("error"), data.get("finish"))
        if not reply.content and not reply.tool_calls and reply.error_message is None:
            return
        self.b.add(reply)
        for block in tools:
            state = block["state"]
            failed = state.get("status") == "error"
            content: list[Part] = []
            for item in state.get("content") or ():
                if type(item) is dict and type(item.get("text")) is str:
                    content.append(TextPart(item["text"]))
                elif type(item) is dict and item.get("type") == "file":
                    content.append(file_part(item))
            if failed and state.get("error") is not None:
                content.append(TextPart(error_text(state["error"]) or json_text(state["error"])))
            if not content:
                content.append(TextPart(""))
            time = obj(block.get("time"))
            result = self.b.result(block.get("id"), content, name=block.get("name"),
                                   is_error=failed, timestamp=self.time(
                                       time.get("completed"), where, "tool time completed"))
            if state.get("result") is not None:
                result.extras["result"] = state["result"]

    def finish(self) -> Session:
        return self.b.finish()


def file_part(part: dict[str, Any]) -> Part:
    """A ``file`` part: an image as an image, any other file as a typed placeholder."""
    mime = text_or_none(part.get("mime"))
    url = text_or_none(part.get("url")) or ""
    name = text_or_none(part.get("filename"))
    if mime and mime.startswith("image/") and url:
        image = image_from_url(url)
        if image.media_type is None:
            image = ImagePart(media_type=mime, data=image.data, url=image.url)
        return image
    _, data = split_data_uri(url)
    return MediaPart("file", media_type=mime, name=name,
                     size=base64_size(data) if data else None,
                     url=None if url.startswith("data:") or not url else url)


def usage(tokens: dict[str, Any], cost: Any) -> Usage:
    """OpenCode ``tokens`` (input excludes cache reads) and ``cost`` as `Usage`."""
    cache = obj(tokens.get("cache"))
    total = ms(tokens.get("total"))
    return Usage(
        input=positive_int(tokens.get("input")),
        output=positive_int(tokens.get("output")),
        cache_read=positive_int(cache.get("read")),
        cache_write=positive_int(cache.get("write")),
        total_tokens=total,
        cost_total=number_or_none(cost),
    )


def summed_usage(finishes: list[dict[str, Any]]) -> Usage | None:
    """The usage of a message without ``tokens``: the sum of its ``step-finish`` parts."""
    found = [usage(f["tokens"], f.get("cost")) for f in finishes if type(f.get("tokens")) is dict]
    if not found:
        return None
    total = Usage()
    for item in found:
        total.input += item.input
        total.output += item.output
        total.cache_read += item.cache_read
        total.cache_write += item.cache_write
        if item.cost_total is not None:
            total.cost_total = (total.cost_total or 0.0) + item.cost_total
    return total


def error_text(error: Any) -> str | None:
    """The readable message of an OpenCode error object (or a plain string)."""
    if type(error) is str:
        return error or None
    if type(error) is not dict:
        return None
    data = error.get("data")
    if type(data) is dict and type(data.get("message")) is str and data["message"]:
        return data["message"]
    message = error.get("message")
    return message if type(message) is str and message else None


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is an object, else an empty one."""
    return value if type(value) is dict else {}


def ms(value: Any) -> int | None:
    """A positive int (a count, a time as stored), else None."""
    return positive_int(value) or None


def _signature(metadata: Any) -> str | None:
    if type(metadata) is not dict:
        return None
    for provider in metadata.values():
        if type(provider) is dict and type(provider.get("signature")) is str:
            return provider["signature"]
    return None


def _reasoning_tokens(tokens: dict[str, Any]) -> int | None:
    return ms(tokens.get("reasoning"))
