"""One Cursor Agent CLI transcript → one `Session`. Choices, documented once here:

- Each turn line is one message, in file order. Content is a list of parts or a plain string.
- User text: the ``<user_query>…</user_query>`` wrapper is the prompt; what the CLI put around it
  (``<context>`` blobs: open files, rules) becomes a system message of kind
  ``injected_context`` after the prompt. ``"[REDACTED]"`` texts and ``redacted`` parts are left
  out, and a message holding nothing else is left out whole.
- Assistant parts: ``text``; ``thinking`` (``thinking`` or ``text``) as reasoning; ``tool_use``
  as a tool call. The CLI writes no call ids: a call without one gets the id
  ``call_<m>_<n>`` (`sts.converters.chat.messages.ChatBuilder`: ``m`` the number of messages
  before it in the session, ``n`` its place among the calls of this turn still waiting for a
  result), so the same file always gives the same ids, and lines appended later never change
  earlier ones. A call without a name is named ``unknown`` (warning ``tool-call-without-name``).
- The texts inside a call's arguments are handed to `sts.spill` like message texts when the
  caller only writes the session (`ReadContext.deferred`): a transcript's bulk is the contents
  of edits, and the CLI records no results.
- Tool results, where a capture has them: ``tool_result`` parts (in a user turn, as Anthropic
  writes them) become tool messages linked by ``tool_use_id``, else to the oldest call of the
  turn still waiting (a prompt or ``turn_ended`` ends the wait); ``is_error`` is kept.
  ``command_output`` answers the oldest waiting call, else it is a system message of kind
  ``command_output``. Calls never answered stay without a result: none is invented.
- Images are kept as images (a path or URL, or inline base64 data); any other part type is kept
  as a placeholder (``[<type>]``, warning ``unknown-part``), never dropped silently. A
  ``tool_use`` in a user turn is reported (``misplaced-block``) and left out.
- ``{"type": "turn_ended"}``: a turn boundary. With ``status: "error"`` the turn's last assistant
  message gets ``stop_reason="error"`` and the ``error`` text; a turn with no assistant message
  gets a system message of kind ``error`` instead.
- No timestamps and no model in the format: none are invented (a ``message.model`` that a
  capture wrote is kept). The session id is the file stem (``stdin`` on stdin); the
  title is the ``meta.json`` title of the session (``~/.cursor/chats/*/<id>/meta.json``), else
  the first prompt; a ``%2F``-encoded project folder gives the cwd, any other project folder
  name goes to ``cursorProject`` in the header (it cannot be decoded safely).
- TeichAI/teich exports prepend ``cursor_session_meta`` (its session id is used when present; the
  rest goes to the header as ``cursorSessionMeta``) and ``cursor_available_tools`` (header
  ``tools``) lines; other typed lines are reported (``unknown-record``) and skipped.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

import orjson

from sts import spill
from sts.building import ReadContext, SessionBuilder, TitleRank
from sts.building.content import image_from_url, openai_parts
from sts.converters.base import gc_paused
from sts.converters.cursor_cli import FORMAT, TRANSCRIPTS_DIR, TURN_ROLES
from sts.lines import iter_records
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
)
from sts.names import file_stem
from sts.problems import Problems
from sts.timestamps import stated_ms

REDACTED = "[REDACTED]"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session of one transcript (nothing when it holds no message)."""
    with gc_paused():
        transcript = Transcript(context)
        for lineno, record in iter_records(stream, context.problems):
            transcript.line(lineno, record)
        session = transcript.finish()
    if session is not None:
        yield session


class Transcript:
    """The messages of one transcript, built line by line."""

    def __init__(self, context: ReadContext) -> None:
        self.problems: Problems = context.problems
        self.path = context.path
        self.deferred = context.deferred
        self.builder = SessionBuilder(context, FORMAT, FORMAT, title_from_prompt=True)
        self.session = self.builder.session
        self.turn_start = 0  # index of the first message of the current turn

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    def line(self, lineno: int, record: dict[str, Any]) -> None:
        """One line of the transcript."""
        if "type" in record:
            self.control(lineno, record)
            return
        role = record.get("role")
        body = record.get("message")
        if type(role) is not str or role not in TURN_ROLES:
            self.problems.error(lineno, "unknown-role", f"unknown role {role!r}: skipped")
            return
        if type(body) is not dict:
            self.problems.error(lineno, "bad-message", "message is not an object: skipped")
            return
        parts = body.get("content")
        if type(parts) is str:
            parts = [{"type": "text", "text": parts}]
        elif type(parts) is dict:
            parts = [parts]
        elif parts is None:
            parts = []
        elif type(parts) is not list:
            self.problems.error(lineno, "bad-message", "content is not text or parts: skipped")
            return
        if role == "assistant":
            self.assistant(lineno, record, body, parts)
        else:
            self.user_or_system(lineno, role, parts)

    # -- turns ------------------------------------------------------------------------------

    def user_or_system(self, lineno: int, role: str, parts: list[Any]) -> None:
        content: list[Part] = []
        injected: list[str] = []
        for part in parts:
            kind = part.get("type") if type(part) is dict else None
            if kind == "text" or type(part) is str:
                text = part if type(part) is str else part.get("text")
                if type(text) is not str or blank(text):
                    continue
                if role == "user":
                    text, rest = split_query(text)
                    if rest:
                        injected.append(rest)
                if text:
                    content.append(TextPart(text))
            elif kind == "tool_result":
                self.result(lineno, part)
            elif kind == "command_output":
                self.command_output(lineno, part)
            elif kind in ("tool_use", "thinking"):
                self.problems.error(lineno, "misplaced-block", f"{kind} in a {role} turn: skipped")
            else:
                self.media(lineno, part, content)
        if content:
            if role == "user":  # a new prompt: earlier calls get no result by position
                self.builder.forget_waiting()
            self.builder.add(Message(role, content))  # type: ignore[arg-type]
        for text in injected:
            self.builder.add(Message("system", [TextPart(text)],
                                     kind=MessageKind.INJECTED_CONTEXT))

    def assistant(self, lineno: int, record: dict[str, Any], body: dict[str, Any],
                  parts: list[Any]) -> None:
        message = Message("assistant")
        outputs: list[Any] = []
        for part in parts:
            kind = part.get("type") if type(part) is dict else None
            if kind == "text" or type(part) is str:
                text = part if type(part) is str else part.get("text")
                if type(text) is str and text and not redacted(text):
                    message.content.append(TextPart(text))
            elif kind == "thinking":
                text = part.get("thinking", part.get("text"))
                if type(text) is str and not blank(text):
                    message.content.append(ThinkingPart(text))
            elif kind == "redacted":
                continue
            elif kind == "tool_use":
                self.call(lineno, part, message)
            elif kind in ("tool_result", "command_output"):
                outputs.append(part)
            else:
                self.media(lineno, part, message.content)
        if message.content or message.tool_calls:
            if type(record.get("id")) is str and record["id"]:
                message.id = record["id"]
            model = body.get("model")
            if type(model) is str and model:
                message.model = model
            self.builder.add(message)
        for part in outputs:
            if part.get("type") == "tool_result":
                self.result(lineno, part)
            else:
                self.command_output(lineno, part)

    def call(self, lineno: int, part: dict[str, Any], message: Message) -> None:
        name = part.get("name")
        if type(name) is not str or not name:
            self.problems.warning(lineno, "tool-call-without-name", "tool call named 'unknown'")
            name = "unknown"
        source_id = part.get("id")
        source_id = source_id if type(source_id) is str and source_id else None
        arguments = part.get("input", part.get("arguments"))
        call = self.builder.call(source_id, name, arguments, lineno)
        if self.deferred:  # the bulk of a transcript: the contents of edits
            spill.keep_strings(call.arguments)
        message.tool_calls.append(call)

    def result(self, lineno: int, part: dict[str, Any]) -> None:
        source_id = part.get("tool_use_id")
        content = openai_parts(part.get("content"), lineno, self.problems)
        self.builder.result(source_id if type(source_id) is str else None, content, line=lineno,
                            is_error=part.get("is_error") is True)

    def command_output(self, lineno: int, part: dict[str, Any]) -> None:
        output = part.get("output")
        text = output if type(output) is str else orjson.dumps(output).decode()
        content: list[Part] = [TextPart(text)] if text else []
        call_id = self.builder.take_waiting()
        if call_id is None:
            self.builder.add(Message("system", content or [TextPart("")],
                                     kind=MessageKind.COMMAND_OUTPUT))
            return
        self.builder.add(Message("tool", content, tool_call_id=call_id,
                                 tool_name=self.builder.tool_name(call_id), is_error=False))

    def media(self, lineno: int, part: Any, content: list[Part]) -> None:
        """An image, or a placeholder for any other part (reported)."""
        if type(part) is not dict:
            self.problems.error(lineno, "unknown-block", f"content part is not an object: "
                                f"{part!r:.40}")
            return
        kind = part.get("type")
        if kind == "image":
            content.append(image(part))
            return
        label = kind if type(kind) is str and kind else "unknown"
        self.problems.warning(lineno, "unknown-part", f"part type {label!r} kept as a placeholder")
        content.append(MediaPart(label))

    # -- control lines ----------------------------------------------------------------------

    def control(self, lineno: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "turn_ended":
            self.turn_ended(record)
        elif kind == "cursor_session_meta":
            meta = {k: v for k, v in record.items() if k != "type"}
            self.session.metadata["cursorSessionMeta"] = meta
        elif kind == "cursor_available_tools" and type(record.get("tools")) is list:
            self.session.metadata["tools"] = record["tools"]
        elif type(kind) is str:
            self.problems.unknown_type(lineno, f"record type {kind[:60]!r}")
        else:
            self.problems.error(lineno, "unknown-record", f"record type {kind!r:.60} skipped")

    def turn_ended(self, record: dict[str, Any]) -> None:
        if record.get("status") == "error":
            error = record.get("error")
            error = error if type(error) is str and error else None
            last = next((m for m in reversed(self.messages[self.turn_start:])
                         if m.role == "assistant"), None)
            if last is not None:
                last.stop_reason = StopReason.ERROR
                last.error_message = error
            else:
                text = error or "turn ended with an error"
                self.builder.add(Message("system", [TextPart(text)], kind=MessageKind.API_ERROR,
                                         error_message=error))
        self.turn_start = len(self.messages)
        self.builder.forget_waiting()

    # -- the end ----------------------------------------------------------------------------

    def finish(self) -> Session | None:
        session = self.session
        if not session.messages:
            return None
        meta = session.metadata.get("cursorSessionMeta")
        self.builder.offer_id(meta.get("session_id") if type(meta) is dict else None)
        project = project_folder(self.path)
        if project is not None:
            if project.startswith("%2F"):
                session.cwd = unquote(project)
            else:
                session.metadata["cursorProject"] = project
        stem = file_stem(self.path.name) if self.path is not None else ""
        chat = chat_meta(self.path, stem)
        self.builder.title(chat.get("title"), TitleRank.GENERATED)
        updated = stated_ms(chat.get("updatedAtMs"), self.problems, None, "meta.json updatedAtMs")
        if updated is not None:
            session.metadata["updatedAt"] = updated
        return self.builder.finish()


def redacted(text: str) -> bool:
    """The CLI's ``[REDACTED]`` stand-in (checked without copying a long text)."""
    return len(text) <= 64 and text.strip() == REDACTED


def blank(text: str) -> bool:
    """Empty, whitespace or redacted."""
    return not text or text.isspace() or redacted(text)


def split_query(text: str) -> tuple[str, str]:
    """``(prompt, what surrounds it)`` of a user text with a ``<user_query>`` wrapper."""
    found = _QUERY.search(text)
    if found is None:
        return text, ""
    rest = (text[: found.start()] + text[found.end():]).strip()
    return found.group(1), rest


def image(part: dict[str, Any]) -> ImagePart:
    """An image part: a path or URL, a data URL, or an Anthropic-style base64 source."""
    source = part.get("source")
    if type(source) is dict and type(source.get("data")) is str:
        media_type = source.get("media_type")
        return ImagePart(media_type=media_type if type(media_type) is str else None,
                         data=source["data"])
    for key in ("url", "image_url", "path", "data"):
        value = part.get(key)
        if type(value) is dict:
            value = value.get("url")
        if type(value) is str and value:
            if key == "data" and not value.startswith("data:"):
                media_type = part.get("mimeType", part.get("media_type"))
                return ImagePart(media_type=media_type if type(media_type) is str else None,
                                 data=value)
            return image_from_url(value)
    return ImagePart()


def project_folder(path: Path | None) -> str | None:
    """The ``projects/<encoded-cwd>`` folder name above ``agent-transcripts``, if any."""
    if path is None:
        return None
    parts = path.parts
    for index in range(len(parts) - 1, 0, -1):
        if parts[index] == TRANSCRIPTS_DIR:
            return parts[index - 1] if index >= 1 else None
    return None


def chat_meta(path: Path | None, session_id: str) -> dict[str, Any]:
    """``~/.cursor/chats/*/<session id>/meta.json`` for a transcript under ``~/.cursor``."""
    if path is None or not session_id:
        return {}
    parts = path.parts
    for index in range(len(parts) - 1, 0, -1):
        if parts[index] == "projects":
            home = Path(*parts[:index])
            break
    else:
        return {}
    for candidate in sorted((home / "chats").glob(f"*/{glob.escape(session_id)}/meta.json")):
        try:
            value = orjson.loads(candidate.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        if type(value) is dict:
            return value
    return {}
