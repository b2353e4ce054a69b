"""A task's ``api_conversation_history.json`` (with its companions) → one Session.

The choices, per cline.md:

- Both tool protocols. Native ``tool_use``/``tool_result`` blocks keep their ids. The older XML
  protocol (calls as ``<read_file>…</read_file>`` in the assistant's text, results as user text
  ``[read_file for 'x'] Result:`` + output) becomes real tool calls with stable ids
  (``call_<message>_<n>``) and tool messages answering them: each result takes the oldest
  unanswered call of its name. ``<thinking>`` in such text is reasoning. Cline's
  ``The tool execution failed …`` result text marks an error.
- User turns are split: ``<environment_details>`` (repeated in every turn) and harness notices
  (``[TASK RESUMPTION]``, ``[ERROR] You did not use a tool``) become system messages of kind
  ``injected_context`` (dropped with the ``drop_injected`` option); the human's words, taken out
  of their ``<task>``, ``<feedback>``, ``<user_message>`` or ``<answer>`` tags, are the user
  message; tool results become tool messages; source order is kept.
- ``attempt_completion`` (``result``), ``plan_mode_respond`` (``response``) and
  ``ask_followup_question`` (``question``) are the assistant speaking to the user: that text is
  the message's text. The call itself is kept when a result answers it (the user replied) or it
  has other parameters (a demo ``command``, answer ``options``), else left out.
- ``new_task`` and ``use_subagents`` start other tasks; nothing on disk links a task to the one
  that started it, so they stay tool calls.
- Times: a message's own ``ts``, else the companion timeline (`timeline.py`): a user message the
  time its request was sent, an assistant message the time its reply began; else none. Usage:
  the message's ``metrics``, else its request's ``api_req_started`` counts. Model: its own
  ``modelInfo``, else the one its request names, else ``task_metadata.json``'s model in force.
- Session: id = the task folder name (Cline: creation time in ms), started at the ``say: task``
  row (else the first time known), ``cwd`` from the first environment details' working
  directory, the extension folder (``extension``) and the last ``conversationHistoryDeletedRange``
  (the span the model no longer saw; the history on disk is whole) in metadata.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.building import SessionBuilder
from sts.building.content import anthropic_media, anthropic_result
from sts.converters.base import ReadContext, gc_paused
from sts.converters.cline import COMPANIONS, HISTORY, ClineConverter
from sts.converters.cline.records import (
    XmlCall,
    is_error_result,
    is_xml_reply,
    parse_xml_reply,
    result_header,
    split_context,
)
from sts.converters.cline.timeline import (
    Timeline,
    build_timeline,
    metrics_usage,
    model_usage,
)
from sts.lines import loads_document
from sts.model import Message, MessageKind, Part, Session, TextPart, ThinkingPart
from sts.problems import Problems
from sts.timestamps import checked_ms

#: Extension folder → harness id (see the package docstring for Roo Code).
PRODUCTS = {
    "saoudrizwan.claude-dev": "cline",
    "kilocode.kilo-code": "kilo-code",
    "rooveterinaryinc.roo-cline": "roo-code",
}
#: Tools whose parameter is the assistant's own answer to the user.
SPEECH = {"attempt_completion": "result", "plan_mode_respond": "response",
          "ask_followup_question": "question"}
_CWD = re.compile(r"# Current Working Directory \((.+?)\) Files")


def read(stream: BinaryIO, context: ReadContext, drop_injected: bool) -> Iterator[Session]:
    """Yield the task's session (none when the history is unreadable)."""
    problems = context.problems
    history = loads_document(stream.read(), problems)
    if history is None:
        return
    if type(history) is not list:
        problems.error(None, "not-a-history", "not a JSON array of messages: nothing to convert")
        return
    with gc_paused():  # built whole before it is yielded: no pause while writing
        session = TaskReader(history, context, drop_injected).build()
    if session.messages:
        yield session


class TaskReader:
    """Builds one task's session from its history and companions."""

    def __init__(self, history: list[Any], context: ReadContext, drop_injected: bool) -> None:
        self.history = history
        self.problems: Problems = context.problems
        self.drop_injected = drop_injected
        self.path = context.path
        self.roles = [m.get("role") if type(m) is dict else None for m in history]
        companions = load_companions(context.path, self.problems)
        self.ui: list[Any] = companions.get("ui_messages.json") or []
        self.timeline: Timeline = build_timeline(self.ui, self.roles, self.problems)
        self.timeline.models = model_usage(companions.get("task_metadata.json"), self.problems)
        self.builder = SessionBuilder(context, ClineConverter.name, product(context.path),
                                      title_from_prompt=True)
        self.session = self.builder.session
        self.cwd: str | None = None

    # -- the session -----------------------------------------------------------------------

    def build(self) -> Session:
        session = self.session
        path = self.path
        for index, message in enumerate(self.history):
            if type(message) is not dict:
                self.problems.error(None, "bad-message", f"message {index} is not an object")
                continue
            role = message.get("role")
            if role == "user":
                self.user(index, message)
            elif role == "assistant":
                self.assistant(index, message)
            else:
                self.problems.error(None, "unknown-role",
                                    f"message {index}: unknown role {role!r} skipped")
        times = [m.timestamp for m in session.messages if m.timestamp is not None]
        if path is not None and path.name == HISTORY:
            self.builder.offer_id(path.parent.name)  # the task id
        elif times:
            self.builder.offer_id(str(times[0]))  # Cline's task id is its first message's time
        session.cwd = self.cwd
        session.started_at = self.timeline.task_ts or (min(times) if times else None)
        extension = extension_folder(path)
        if extension is not None:
            session.metadata["extension"] = extension
        deleted = last_deleted_range(self.ui)
        if deleted is not None:
            session.metadata["conversationHistoryDeletedRange"] = deleted
        return self.builder.finish()

    # -- user turns ------------------------------------------------------------------------

    def user(self, index: int, data: dict[str, Any]) -> None:
        ts = checked_ms(data.get("ts"), self.problems, None, f"message {index} ts")
        if ts is None and index == 0:
            ts = self.timeline.task_ts
        if ts is None:
            request = self.timeline.requests.get(index)
            ts = request.ts if request is not None else None
        content = data.get("content")
        blocks = [{"type": "text", "text": content}] if type(content) is str else content
        if type(blocks) is not list:
            self.problems.error(None, "bad-content", f"message {index}: no content: skipped")
            return
        turn = UserTurn(self, index, ts)
        for block in blocks:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                text = block.get("text")
                if type(text) is str:
                    turn.text(text)
            elif kind == "tool_result":
                turn.native_result(block)
            elif (media := anthropic_media(block)) is not None:
                turn.media(media)
            else:
                self.problems.error(None, "unknown-block",
                                    f"message {index}: unknown user block {kind!r} skipped")
        turn.close()

    def add(self, message: Message, ts: int | None) -> None:
        message.timestamp = ts
        self.builder.add(message)

    # -- assistant turns -------------------------------------------------------------------

    def assistant(self, index: int, data: dict[str, Any]) -> None:
        message = Message("assistant")
        content = data.get("content")
        blocks = [{"type": "text", "text": content}] if type(content) is str else content
        if type(blocks) is not list:
            self.problems.error(None, "bad-content", f"message {index}: no content: skipped")
            return
        builder = self.builder
        for block in blocks:
            kind = block.get("type") if type(block) is dict else None
            text = block.get("text") if kind == "text" else None
            if type(text) is str and is_xml_reply(text):
                self.xml_reply(message, text, index)
            elif kind == "tool_use" and type(name := block.get("name")) is str and name in SPEECH:
                self.tool_call(message, block.get("id"), name, block.get("input"), index)
            else:
                builder.anthropic_blocks(message, [block])
        self.assistant_fields(index, data, message)
        self.add(message, message.timestamp)

    def xml_reply(self, message: Message, text: str, index: int) -> None:
        """A text in the XML tool protocol: its text, thinking and calls, in order."""
        for segment in parse_xml_reply(text):
            if isinstance(segment, XmlCall):
                self.tool_call(message, None, segment.name, segment.params, index)
            elif segment[0] == "thinking":
                message.content.append(ThinkingPart(segment[1]))
            else:
                message.content.append(TextPart(segment[1]))

    def tool_call(self, message: Message, source_id: Any, name: Any, arguments: Any,
                  index: int) -> None:
        speech = SPEECH.get(name) if type(name) is str else None
        if speech is not None and type(arguments) is dict:
            said = arguments.get(speech)
            if type(said) is str and said.strip():
                message.content.append(TextPart(said.strip()))
                others = [k for k in arguments if k != speech]
                if not others and not self.answered_by_next(index).answers(source_id, name):
                    return
        message.tool_calls.append(self.builder.call(source_id, name, arguments))

    def assistant_fields(self, index: int, data: dict[str, Any], message: Message) -> None:
        timeline = self.timeline
        request = timeline.requests.get(index - 1) if index and self.roles[index - 1] == "user" \
            else None
        ts = checked_ms(data.get("ts"), self.problems, None, f"message {index} ts")
        message.timestamp = ts if ts is not None else timeline.replies.get(index)
        info = data.get("modelInfo")
        if type(info) is dict and type(info.get("modelId")) is str and info["modelId"]:
            message.model = info["modelId"]
            provider = info.get("providerId")
            message.provider = provider if type(provider) is str and provider else None
            if type(info.get("mode")) is str:
                message.extras["mode"] = info["mode"]
        elif request is not None and request.model:
            message.model, message.provider = request.model, request.provider
        else:
            message.model, message.provider = timeline.model_at(message.timestamp)
        message.usage = metrics_usage(data.get("metrics"))
        if message.usage is None and request is not None:
            message.usage = request.usage
        response = data.get("id")
        if type(response) is str and response:
            message.extras["response_id"] = response

    def answered_by_next(self, index: int) -> Answered:
        """The calls of assistant message `index` that the next user message answers."""
        following = self.history[index + 1] if index + 1 < len(self.history) else None
        found = Answered()
        if type(following) is not dict or following.get("role") != "user":
            return found
        content = following.get("content")
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        for block in content if type(content) is list else ():
            if type(block) is not dict:
                continue
            if block.get("type") == "tool_result" and block.get("tool_use_id"):
                found.ids.add(str(block["tool_use_id"]))
            elif block.get("type") == "text" and type(block.get("text")) is str:
                header = result_header(block["text"])
                if header is not None:
                    found.names.add(header.name)
        return found


class Answered:
    """Call ids (native) and tool names (XML) that a user message answers."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.names: set[str] = set()

    def answers(self, source_id: Any, name: Any) -> bool:
        if source_id is not None:
            return str(source_id) in self.ids
        return name in self.names


class UserTurn:
    """One user message split into tool results, the human's words and injected context."""

    def __init__(self, reader: TaskReader, index: int, ts: int | None) -> None:
        self.reader = reader
        self.index = index
        self.ts = ts
        self.human: list[Part] = []
        self.result: Message | None = None  # an XML-protocol result still taking output

    def text(self, text: str) -> None:
        header = result_header(text)
        if header is not None:
            self.close()
            call_id = self.reader.builder.answer(None, header.name)
            self.result = Message("tool", tool_call_id=call_id, tool_name=header.name,
                                  is_error=False)
            text = header.rest
            if not text:
                return
        for injected, part in split_context(text).segments:
            if injected:
                self.close()
                self.injected(part)
            elif self.result is not None:
                self.result.content.append(TextPart(part))
                if is_error_result(part):
                    self.result.is_error = True
            else:
                self.human.append(TextPart(part))

    def injected(self, text: str) -> None:
        reader = self.reader
        if reader.cwd is None:
            match = _CWD.search(text)
            if match:
                reader.cwd = match.group(1)
        if reader.drop_injected:
            return
        reader.add(Message("system", [TextPart(text)], kind=MessageKind.INJECTED_CONTEXT), self.ts)

    def native_result(self, block: dict[str, Any]) -> None:
        self.close()
        self.reader.builder.result(block.get("tool_use_id"), anthropic_result(block.get("content")),
                                   is_error=block.get("is_error") is True, timestamp=self.ts)

    def media(self, part: Part) -> None:
        (self.result.content if self.result is not None else self.human).append(part)

    def close(self) -> None:
        """Write what is pending: the human's words so far, then an open XML result."""
        if self.human:
            self.reader.add(Message("user", self.human), self.ts)
            self.human = []
        if self.result is not None:
            self.reader.add(self.result, self.ts)
            self.result = None


def load_companions(path: Path | None, problems: Problems) -> dict[str, Any]:
    """The parsed companions beside a history file (missing ones left out; bad ones reported)."""
    found: dict[str, Any] = {}
    if path is None or path.name != HISTORY:
        return found
    for name in sorted(COMPANIONS - {"context_history.json"}):
        companion = path.parent / name
        try:
            data = companion.read_bytes()
        except OSError:
            continue
        quiet = Problems(str(companion), "skip", lambda _: None)
        value = loads_document(data, quiet)
        if value is None:
            problems.warning(None, "bad-companion",
                             f"{name} is not readable JSON: its times and usage left out")
            continue
        found[name] = value
    return found


def product(path: Path | None) -> str:
    """The harness id the extension folder on `path` names (default ``cline``)."""
    extension = extension_folder(path)
    return PRODUCTS[extension] if extension is not None else "cline"


def extension_folder(path: Path | None) -> str | None:
    """The extension id of the folder on `path` named after one (``…/globalStorage/<id>/``)."""
    for part in reversed(path.parts if path is not None else ()):
        for extension in PRODUCTS:
            if part.endswith(extension):
                return extension
    return None


def last_deleted_range(ui: list[Any]) -> list[int] | None:
    """The last ``conversationHistoryDeletedRange`` the UI timeline records."""
    for row in reversed(ui):
        span = row.get("conversationHistoryDeletedRange") if type(row) is dict else None
        if type(span) is list and len(span) == 2 and all(type(v) is int for v in span):
            return span
    return None
