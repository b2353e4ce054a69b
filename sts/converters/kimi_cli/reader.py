"""Reading a Kimi CLI session: ``context.jsonl`` for the messages, joined with ``wire.jsonl``.

Choices, documented once here:

- ``_system_prompt`` → a leading system message of kind ``system_prompt``; ``_checkpoint``
  markers are left out (they only number undo points).
- ``_usage.token_count`` is the size of the context after a model call, not what the call
  cost: it is never written as usage. The last one goes to the header as ``contextTokens``.
  Usage comes from the wire's ``StatusUpdate.token_usage`` of the step that wrote the reply
  (``input_other`` as input, ``input_cache_read`` and ``input_cache_creation`` as cache
  reads and writes, ``output``).
- Times (the context has none): a prompt takes the time of the wire's ``TurnBegin`` with the
  same text (in order); an assistant reply the time its step finished streaming (the step that
  made its tool calls, else the turn's next step); a tool result the time of its
  ``ToolResult``, whose ``is_error`` also marks it an error (else a ``<system>ERROR:`` prefix
  does). Float seconds become ms; nothing without a wire event gets a time.
- Harness text in user messages: a compaction summary (its first text ``<system>Previous
  context has been compacted…``) becomes a system message of kind ``compaction``; a message
  made only of ``<system>…</system>`` texts (``CHECKPOINT n`` markers) one of kind
  ``injected_context``.
- ``think`` parts → reasoning (``encrypted`` kept as its signature); ``image_url`` keeps the
  image, ``audio_url`` and ``video_url`` become placeholders.
- The model is not recorded for the main agent (no file holds it): none is made up. A
  sub-agent's ``meta.json`` names its ``effective_model``, which its replies get.
- The title is ``state.json``'s ``custom_title``, else the first prompt; the working directory
  is the ``kimi.json`` work dir whose md5 names the session's folder (or whose
  ``last_session_id`` is this session).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from sts.building import SessionBuilder, TitleRank
from sts.building.coerce import id_or_none, positive_int, text_or_none
from sts.building.content import image_from_url
from sts.converters.base import Options, ReadContext, gc_paused
from sts.converters.children import link_child
from sts.converters.kimi_cli import CONTEXT, FORMAT, HARNESS, SPECIAL_ROLES, STATE, WIRE
from sts.converters.kimi_cli.records import Step, Wire, read_wire
from sts.lines import iter_records
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Part,
    Session,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from sts.problems import Problems

SYSTEM_OPEN = "<system>"
COMPACTED = "<system>Previous context has been compacted"
ERROR_PREFIX = "<system>ERROR:"
ROLES = frozenset(("user", "assistant", "tool", "system"))
MEDIA_PARTS = {"audio_url": "audio", "video_url": "video"}


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a ``context.jsonl`` (nothing, reported, for a ``wire.jsonl``)."""
    with gc_paused():
        session = read_session(stream, context, context.path)
    if session is not None:
        yield session


def read_session(stream: BinaryIO, context: ReadContext, path: Path | None) -> Session | None:
    problems = context.problems
    records = iter_records(stream, problems)
    first = next(records, None)
    if first is None:
        return None
    if "role" not in first[1] and ("message" in first[1] or first[1].get("type") in (
            "metadata", "hello")):
        read_wire(_chain(first, records), problems)  # every line checked, then refused
        problems.error(None, "not-a-session", "Kimi CLI wire.jsonl is the event log of the "
                       "session in the context.jsonl beside it: convert that file")
        return None
    folder = session_folder(path)
    wire = companion_wire(folder, problems) if folder is not None else Wire()
    b = SessionBuilder(context, FORMAT, HARNESS, title_from_prompt=True)
    if folder is not None:
        b.offer_id(folder.name)  # the session uuid (a flat legacy file: its stem)
    builder = KimiBuilder(b, wire)
    for lineno, record in _chain(first, records):
        builder.record(record, lineno)
    state = read_json(folder / STATE) if folder is not None else None
    if type(state) is dict:
        b.title(state.get("custom_title"), TitleRank.GIVEN)
    session = b.finish()
    session.started_at = wire.first
    session.cwd = working_directory(path, session.id)
    metadata: dict[str, Any] = {}
    if wire.version:
        metadata["wireProtocol"] = wire.version
    if builder.context_tokens is not None:
        metadata["contextTokens"] = builder.context_tokens
    if type(state) is dict:
        for key, name in (("archived", "archived"), ("plan_mode", "planMode")):
            if state.get(key) is True:
                metadata[name] = True
        dirs = state.get("additional_dirs")
        if type(dirs) is list and dirs:
            metadata["additionalDirs"] = [d for d in dirs if type(d) is str]
    session.metadata = metadata
    if folder is not None and Options.of(context.options).subagents:
        add_children(session, context, folder)
    if not session.messages and not session.children:
        return None
    return session


def _chain(first: tuple[int, Any], rest: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    yield first
    yield from rest


class KimiBuilder:
    """The messages of one context file, with the wire's times and usage joined in."""

    def __init__(self, builder: SessionBuilder, wire: Wire, model: str | None = None) -> None:
        self.b = builder
        self.problems = builder.problems
        self.wire = wire
        self.model = model
        self.context_tokens: int | None = None
        self.turn = -1  # the wire turn of the latest prompt
        self.step = 0  # the next step of that turn
        self.used: set[int] = set()  # ids of steps already given to a reply

    def record(self, record: dict[str, Any], line: int) -> None:
        role = record.get("role")
        if role == "_system_prompt":
            content = record.get("content")
            if type(content) is str and content:
                self.b.add(Message("system", [TextPart(content)],
                                   kind=MessageKind.SYSTEM_PROMPT))
        elif role == "_usage":
            count = record.get("token_count")
            if type(count) is int:
                self.context_tokens = count
            else:
                self.problems.warning(line, "bad-token-count",
                                      f"_usage token_count {count!r:.40} is not a number: "
                                      "left out")
        elif type(role) is str and role in SPECIAL_ROLES:
            return  # _checkpoint
        elif type(role) is str and role in ROLES:
            self.message(role, record, line)
        else:
            self.problems.error(line, "unknown-role", f"unknown role {role!r:.40}: skipped")

    def message(self, role: str, record: dict[str, Any], line: int) -> None:
        content = self.parts(record.get("content"), line)
        if role == "user":
            self.user(content)
        elif role == "assistant":
            self.assistant(content, record, line)
        elif role == "tool":
            self.tool(content, record, line)
        else:
            self.b.add(Message("system", [p for p in content if type(p) is not ThinkingPart]))

    def user(self, content: list[Part]) -> None:
        content = [p for p in content if type(p) is not ThinkingPart]
        texts = [p.text for p in content if type(p) is TextPart]
        if texts and texts[0].lstrip().startswith(COMPACTED):
            self.b.add(Message("system", content, kind=MessageKind.COMPACTION))
            return
        if texts and len(texts) == len(content) and all(
                t.lstrip().startswith(SYSTEM_OPEN) for t in texts):
            self.b.add(Message("system", content, kind=MessageKind.INJECTED_CONTEXT))
            return
        message = self.b.add(Message("user", content))
        message.timestamp = self.prompt_time("".join(texts))

    def prompt_time(self, text: str) -> int | None:
        """The time of the next wire turn whose prompt is `text` (that turn becomes current)."""
        turns = self.wire.turns
        for index in range(self.turn + 1, len(turns)):
            prompt = turns[index].prompt
            if prompt is None or prompt.strip() == text.strip():
                self.turn, self.step = index, 0
                return turns[index].begin
        return None

    def assistant(self, content: list[Part], record: dict[str, Any], line: int) -> None:
        thinking = [p for p in content if type(p) is ThinkingPart]
        message = Message("assistant", [*thinking, *(p for p in content
                                                     if type(p) is not ThinkingPart)])
        calls = record.get("tool_calls")
        if type(calls) is list:
            for item in calls:
                call = self.tool_call(item, line)
                if call is not None:
                    message.tool_calls.append(call)
        elif calls is not None:
            self.problems.error(line, "bad-tool-calls", "tool_calls is not a list: skipped")
        message.model = self.model
        step = self.reply_step(message)
        if step is not None:
            message.timestamp = step.time
            message.usage = usage(step.usage)
            if step.message_id:
                message.extras["response_id"] = step.message_id
        self.b.add(message)

    def tool_call(self, item: Any, line: int) -> ToolCall | None:
        if type(item) is not dict or type(item.get("function")) is not dict:
            self.problems.error(line, "bad-tool-call", "tool call without a function: skipped")
            return None
        function = item["function"]
        return self.b.call(item.get("id"), function.get("name"),
                           function.get("arguments", "{}"), line)

    def reply_step(self, message: Message) -> Step | None:
        """The wire step that wrote `message`: the one that made its calls, else the next one of
        the current turn."""
        wire = self.wire
        for call in message.tool_calls:
            found = wire.calls.get(call.id)
            if found is None:
                continue
            turn, index = found
            step = wire.turns[turn].steps[index]
            if id(step) not in self.used:
                if turn == self.turn:
                    self.step = index + 1
                self.used.add(id(step))
                return step
        if not 0 <= self.turn < len(wire.turns):
            return None
        steps = wire.turns[self.turn].steps
        while self.step < len(steps):
            step = steps[self.step]
            self.step += 1
            if id(step) in self.used or (step.calls and not message.tool_calls):
                continue  # a step that made calls wrote a reply with those calls
            self.used.add(id(step))
            return step
        return None

    def tool(self, content: list[Part], record: dict[str, Any], line: int) -> None:
        content = [p for p in content if type(p) is not ThinkingPart]
        source_id = id_or_none(record.get("tool_call_id"))
        time, failed = self.wire.results.get(source_id or "", (None, None))
        if failed is None:  # no wire: the harness's own error marker
            first = next((p for p in content if type(p) is TextPart), None)
            failed = first is not None and first.text.lstrip().startswith(ERROR_PREFIX)
        self.b.result(source_id, content, name=record.get("name"), line=line, is_error=failed,
                      timestamp=time)

    def parts(self, content: Any, line: int) -> list[Part]:
        """kosong content: a string or parts (text, think, image_url, audio_url, video_url)."""
        if content is None:
            return []
        if type(content) is str:
            return [TextPart(content)] if content else []
        if type(content) is not list:
            self.problems.warning(line, "content-not-string", "content is not text or parts: "
                                  "kept as text")
            return [TextPart(str(content))]
        found: list[Part] = []
        for item in content:
            part = self.part(item, line)
            if part is not None:
                found.append(part)
        return found

    def part(self, item: Any, line: int) -> Part | None:
        if type(item) is str:
            return TextPart(item) if item else None
        if type(item) is not dict:
            self.problems.error(line, "unknown-block", f"part is not an object: {item!r:.40}")
            return None
        kind = item.get("type")
        if kind == "text":
            text = item.get("text")
            return TextPart(text) if type(text) is str and text else None
        if kind == "think":
            text = item.get("think")
            encrypted = item.get("encrypted")
            signature = encrypted if type(encrypted) is str and encrypted else None
            if type(text) is str and (text or signature):
                return ThinkingPart(text, signature, redacted=not text)
            return None
        if kind == "image_url":
            url = media_url(item, "image_url")
            return image_from_url(url) if url is not None else ImagePart()
        if type(kind) is str and kind in MEDIA_PARTS:
            return MediaPart(MEDIA_PARTS[kind], url=media_url(item, kind))
        self.problems.error(line, "unknown-block", f"content part type {kind!r:.40} skipped")
        return None


def media_url(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    return text_or_none(value.get("url") if type(value) is dict else value)


def usage(token_usage: dict[str, Any] | None) -> Usage | None:
    """A wire step's ``token_usage``; None when absent or all zero."""
    if token_usage is None:
        return None

    found = Usage(input=positive_int(token_usage.get("input_other")),
                  output=positive_int(token_usage.get("output")),
                  cache_read=positive_int(token_usage.get("input_cache_read")),
                  cache_write=positive_int(token_usage.get("input_cache_creation")))
    if not (found.input or found.output or found.cache_read or found.cache_write):
        return None
    return found


# -- the session folder ------------------------------------------------------------------------


def session_folder(path: Path | None) -> Path | None:
    """The session's folder (``<uuid>/`` holding ``context.jsonl``); None for a flat file."""
    if path is None or path.name != CONTEXT:
        return None
    return path.parent


def companion_wire(folder: Path, problems: Problems) -> Wire:
    """The session's ``wire.jsonl``, its problems reported under its own name."""
    wire_path = folder / WIRE
    if not wire_path.is_file():
        return Wire()
    wire_problems = problems.for_file(wire_path)
    with wire_path.open("rb") as stream:
        return read_wire(iter_records(stream, wire_problems), wire_problems)


def read_json(path: Path) -> Any:
    """A small companion JSON file, or None when it is missing or unreadable."""
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def working_directory(path: Path | None, sid: str) -> str | None:
    """The ``kimi.json`` work dir of this session: by the md5 naming its folder, else by its
    ``last_session_id``."""
    if path is None:
        return None
    bucket = path.parent.parent if path.name == CONTEXT else path.parent
    share = bucket.parent.parent
    meta = read_json(share / "kimi.json")
    dirs = meta.get("work_dirs") if type(meta) is dict else None
    if type(dirs) is not list:
        return None
    entries = [d for d in dirs if type(d) is dict and type(d.get("path")) is str]
    for entry in entries:
        digest = hashlib.md5(entry["path"].encode("utf-8"), usedforsecurity=False).hexdigest()
        kaos = entry.get("kaos")
        names = {digest} if kaos in (None, "local") else {f"{kaos}_{digest}"}
        if bucket.name in names:
            return entry["path"]
    for entry in entries:
        if entry.get("last_session_id") == sid:
            return entry["path"]
    return None


# -- sub-agents --------------------------------------------------------------------------------


def add_children(session: Session, context: ReadContext, folder: Path) -> None:
    """``subagents/<agent id>/context.jsonl`` (with its wire and ``meta.json``) as children,
    linked to the parent's call whose arguments or result name the agent id."""
    root = folder / "subagents"
    if not root.is_dir():
        return
    for agent_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        context_path = agent_dir / CONTEXT
        if not context_path.is_file():
            continue
        found = read_json(agent_dir / "meta.json")
        meta: dict[str, Any] = found if type(found) is dict else {}
        spec: dict[str, Any] = meta["launch_spec"] if type(meta.get("launch_spec")) is dict else {}
        model = spec.get("effective_model")
        child = read_child(context_path, context, model if type(model) is str else None)
        if child is None:
            continue
        agent_id = agent_dir.name
        child.id = agent_id
        child.key = agent_id if agent_id.startswith("agent-") else f"agent-{agent_id}"
        for source, key in (("subagent_type", "agentType"), ("description", "description")):
            if type(meta.get(source)) is str and meta[source]:
                child.metadata[key] = meta[source]
        work_dir = spec.get("work_dir")
        child.cwd = work_dir if type(work_dir) is str and work_dir else session.cwd
        link_child(session, child, agent_id, spawning_call(session, agent_id), context_path)


def read_child(path: Path, context: ReadContext, model: str | None) -> Session | None:
    child_problems = context.problems.for_file(path)
    wire = companion_wire(path.parent, child_problems)
    b = SessionBuilder(ReadContext(child_problems, path, context.options), FORMAT, HARNESS,
                       title_from_prompt=True)
    b.offer_id(path.parent.name)
    builder = KimiBuilder(b, wire, model)
    with path.open("rb") as stream:
        for lineno, record in iter_records(stream, child_problems):
            builder.record(record, lineno)
    if not b.messages:
        return None
    child = b.finish()
    child.started_at = wire.first
    return child


def spawning_call(session: Session, agent_id: str) -> str | None:
    """The call whose arguments or result mention `agent_id`."""
    for message in session.messages:
        for call in message.tool_calls:
            if agent_id in orjson.dumps(call.arguments).decode() or agent_id in (
                    call.raw_arguments or ""):
                return call.id
        if message.role == "tool" and message.tool_call_id and agent_id in message.text:
            return message.tool_call_id
    return None
