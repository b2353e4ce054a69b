"""A Droid session-store file (with its settings sidecar) → one Session; stream-json is handed
to `stream.py`.

The choices, per factory-droid.md:

- Messages in file order (the ``parentId`` chain of the store is linear; the first injected
  message has none). Each line's ``id`` is the message id, ISO ``timestamp`` → ms.
- Injected context is not the human's: a user message with ``visibility: llm_only`` (system
  reminders, "Request interrupted by user") or a ``context-`` id becomes a system message of kind
  ``injected_context``, and ``<system-reminder>`` blocks leading a user's text are split off the
  same way. ``user_only`` messages (shown in the UI, never sent) are kept, marked in extras.
  Tool results in any user message are tool messages linked by ``tool_use_id``.
- Thinking keeps its signature only when Anthropic made it (``signatureProvider`` anthropic or
  absent): other providers write placeholders such as ``reasoning_content``, which Pi output
  must not replay. ``chatCompletionReasoningContent`` is reasoning when no thinking block
  already holds it; ``openaiMessageId`` goes to extras.
- The model is only in the sidecar ``<id>.settings.json`` (``model``, else
  ``sessionDefaultSettings.model``): every assistant message gets it, with ``providerLock`` as
  its provider; without a sidecar there is no model. Its ``tokenUsage`` (session totals, no
  per-message counts exist), ``reasoningEffort`` and ``autonomyLevel`` go to metadata.
- ``compaction_state`` → a system message of kind ``compaction`` (its summary); the last
  ``todo_state`` list → metadata ``todos``; ``session_end`` marks nothing.
- Session: ``session_start`` id (else the file stem), title = ``sessionTitle`` (generated, or set
  by the user) else ``title`` (the first prompt), ``cwd``, ``version`` as the source version,
  started at the first message time; other scalar header fields to metadata.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.building import SessionBuilder, TitleRank
from sts.building.coerce import text_or_none
from sts.building.content import anthropic_media, anthropic_result
from sts.converters.base import ReadContext, gc_paused
from sts.converters.chat.messages import side_fields
from sts.converters.droid import SETTINGS_SUFFIX, DroidConverter
from sts.lines import iter_records, loads_document
from sts.model import Message, MessageKind, Part, Session, TextPart, ThinkingPart
from sts.problems import Problems
from sts.timestamps import checked_ms

REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = "</system-reminder>"
HEADER_USED = frozenset(("type", "id", "title", "sessionTitle", "cwd", "version"))
SILENT = frozenset(("session_end",))
ANTHROPIC_SIGNATURES = (None, "anthropic")


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a store file or of ``droid exec`` stream-json output."""
    problems = context.problems
    records = iter_records(stream, problems)
    first = next(records, None)
    if first is None:
        return
    records = itertools.chain([first], records)
    if first[1].get("type") != "session_start" and first[1].get("type") in ("system", "message") \
            and "message" not in first[1]:
        from sts.converters.droid.stream import read_stream

        yield from read_stream(records, context)
        return
    with gc_paused():  # built whole before it is yielded: no pause while writing
        session = StoreReader(context).read(records)
    if session.messages:
        yield session


class StoreReader:
    """Builds the session of one session-store file."""

    def __init__(self, context: ReadContext) -> None:
        self.context = context
        self.problems: Problems = context.problems
        self.builder = SessionBuilder(context, DroidConverter.name, DroidConverter.harness,
                                      title_from_prompt=True)
        self.session = self.builder.session
        self.started = False
        self.ids: set[str] = set()
        self.model: str | None = None
        self.provider: str | None = None

    def read(self, records: Iterator[tuple[int, dict[str, Any]]]) -> Session:
        session = self.session
        for lineno, record in records:
            kind = record.get("type")
            if kind == "message":
                self.message(lineno, record)
            elif kind == "session_start":
                self.header(lineno, record)
            elif kind == "compaction_state":
                self.compaction(lineno, record)
            elif kind == "todo_state":
                todos = record.get("todos")
                todos = todos.get("todos") if type(todos) is dict else todos
                if todos is not None:
                    session.metadata["todos"] = todos
            elif type(kind) is not str:
                self.problems.error(lineno, "unknown-record", f"line of type {kind!r} skipped")
            elif kind not in SILENT:
                self.problems.unknown_type(lineno, f"line type {kind!r}")
        times = [m.timestamp for m in session.messages if m.timestamp is not None]
        session.started_at = times[0] if times else None
        return self.builder.finish()

    # -- header and sidecar --------------------------------------------------------------------

    def header(self, lineno: int, record: dict[str, Any]) -> None:
        session = self.session
        if self.started:
            self.problems.error(lineno, "second-header", "a second session_start skipped")
            return
        self.started = True
        own = record.get("id")
        builder = self.builder
        builder.offer_id(own)
        builder.title(record.get("title"), TitleRank.PROMPT)  # the first prompt, as typed
        given = record.get("isSessionTitleManuallySet") is True
        builder.title(record.get("sessionTitle"), TitleRank.GIVEN if given else
                      TitleRank.GENERATED)
        session.cwd = text_or_none(record.get("cwd"))
        version = record.get("version")
        if type(version) in (int, str) and version != "":
            session.source_version = str(version)
        session.metadata.update(side_fields(record, HEADER_USED))
        self.settings(own if type(own) is str else None)

    def settings(self, session_id: str | None) -> None:
        """Read the sidecar ``<stem>.settings.json`` (else ``<session id>.settings.json``)."""
        path = self.context.path
        if path is None:
            return
        names = [path.name.removesuffix(".jsonl") + SETTINGS_SUFFIX]
        if session_id:
            names.append(Path(session_id).name + SETTINGS_SUFFIX)
        for name in names:
            try:
                data = (path.parent / name).read_bytes()
            except OSError:
                continue
            quiet = Problems(name, "skip", lambda _: None)
            settings = loads_document(data, quiet)
            if type(settings) is not dict:
                self.problems.warning(None, "bad-companion",
                                      f"{name} is not a JSON object: the model left out")
                return
            self.apply_settings(settings)
            return

    def apply_settings(self, settings: dict[str, Any]) -> None:
        nested = settings.get("sessionDefaultSettings")
        nested = nested if type(nested) is dict else {}
        self.model = text_or_none(settings.get("model", nested.get("model")))
        self.provider = text_or_none(settings.get("providerLock", nested.get("providerLock")))
        metadata = self.session.metadata
        for key in ("reasoningEffort", "autonomyLevel", "tokenUsage"):
            value = settings.get(key, nested.get(key))
            if value is not None:
                metadata[key] = value

    # -- messages ------------------------------------------------------------------------------

    def message(self, lineno: int, record: dict[str, Any]) -> None:
        body = record.get("message")
        if type(body) is not dict:
            self.problems.error(lineno, "bad-message", "message line without a message")
            return
        role = body.get("role")
        ts = checked_ms(record["timestamp"], self.problems, lineno, "timestamp") \
            if "timestamp" in record else None
        own = record.get("id")
        message_id = own if type(own) is str and own and own not in self.ids else None
        if message_id is not None:
            self.ids.add(message_id)
        content = body.get("content")
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        if type(content) is not list:
            self.problems.error(lineno, "bad-content", "message without content: skipped")
            return
        if role == "assistant":
            self.assistant(lineno, body, content, ts, message_id)
        elif role == "user":
            injected = body.get("visibility") == "llm_only" or (
                message_id is not None and message_id.startswith("context-"))
            self.user(lineno, content, ts, message_id, injected, body.get("visibility"))
        else:
            self.problems.error(lineno, "unknown-role", f"unknown role {role!r}: skipped")

    def user(self, lineno: int, content: list[Any], ts: int | None, message_id: str | None,
             injected: bool, visibility: Any) -> None:
        parts: list[Part] = []
        context: list[Part] = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                text = block.get("text")
                if type(text) is not str:
                    continue
                if injected:
                    context.append(TextPart(text))
                    continue
                reminders, rest = split_reminders(text)
                context.extend(TextPart(r) for r in reminders)
                if rest.strip():
                    parts.append(TextPart(rest))
            elif kind == "tool_result":
                self.tool_result(lineno, block, ts)
            elif (media := anthropic_media(block)) is not None:
                parts.append(media)
            else:
                self.problems.error(lineno, "unknown-block", f"unknown user block {kind!r} skipped")
        if context:
            self.builder.add(Message("system", context, kind=MessageKind.INJECTED_CONTEXT,
                                     timestamp=ts,
                                     id=message_id if not parts else None))
        if parts:
            message = Message("user", parts, timestamp=ts, id=message_id)
            if visibility == "user_only":
                message.extras["visibility"] = "user_only"
            self.builder.add(message)

    def tool_result(self, lineno: int, block: dict[str, Any], ts: int | None) -> None:
        self.builder.result(block.get("tool_use_id"), anthropic_result(block.get("content")),
                            line=lineno, is_error=block.get("is_error") is True, timestamp=ts)

    def assistant(self, lineno: int, body: dict[str, Any], content: list[Any], ts: int | None,
                  message_id: str | None) -> None:
        message = Message("assistant", timestamp=ts, id=message_id, model=self.model,
                          provider=self.provider)
        self.builder.anthropic_blocks(message, [unsigned(b) for b in content], lineno)
        reasoning = body.get("chatCompletionReasoningContent")
        if type(reasoning) is str and reasoning.strip() and reasoning.strip() not in (
            p.text.strip() for p in message.content if type(p) is ThinkingPart
        ):
            message.content.insert(0, ThinkingPart(reasoning))
        response = body.get("openaiMessageId")
        if type(response) is str and response:
            message.extras["openai_message_id"] = response
        self.builder.add(message)

    def compaction(self, lineno: int, record: dict[str, Any]) -> None:
        summary = next((record[k] for k in ("summary", "summaryText", "content")
                        if type(record.get(k)) is str and record[k].strip()), None)
        if summary is None:
            self.problems.error(lineno, "bad-compaction", "compaction_state without a summary")
            return
        self.builder.add(Message("system", [TextPart(summary)], kind=MessageKind.COMPACTION,
                                 timestamp=checked_ms(record.get("timestamp"), self.problems,
                                                      lineno, "timestamp")))


def unsigned(block: Any) -> Any:
    """A thinking block without the signature of a provider other than Anthropic."""
    if type(block) is dict and block.get("type") == "thinking" and block.get(
            "signatureProvider") not in ANTHROPIC_SIGNATURES:
        return {**block, "signature": None}
    return block


def split_reminders(text: str) -> tuple[list[str], str]:
    """The ``<system-reminder>`` blocks leading `text`, and the rest of it."""
    reminders: list[str] = []
    rest = text
    while rest.lstrip().startswith(REMINDER_OPEN):
        rest = rest.lstrip()
        end = rest.find(REMINDER_CLOSE)
        if end < 0:
            break
        end += len(REMINDER_CLOSE)
        reminders.append(rest[:end])
        rest = rest[end:]
    return reminders, rest.lstrip("\n") if reminders else text
