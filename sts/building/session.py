"""`SessionBuilder`: what a reader saw, made into a well-formed `Session`.

pandoc's readers emit through the builder functions of pandoc-types and never assemble the
document themselves; here a reader says what the source holds (a message, a call with this id, a
result for that id, a title, an id for the session) and the builder keeps the rules that hold
for every session:

- tool-call ids: one renaming scheme, results paired with calls in order, id-less calls,
  orphans reported once (`sts.building.calls`);
- the session id: the first id the reader offers (`offer_id`), else the input's file stem
  (with the session's `key` when an input holds several: ``chats-L3``), else ``stdin``;
- the title: the strongest title the reader offers (`title`, ranked by `TitleRank`; on equal
  rank the later one), else, for formats whose sessions have no title of their own
  (``title_from_prompt``), the first user prompt (else the first slash command) on one line of
  at most `TITLE_LENGTH` characters;
- content in the dialects several sources share: `anthropic_blocks` here (it makes tool calls),
  the rest in `sts.building.content`.

The reader still fills what only it knows (cwd, git, metadata, start time) on `session`.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import IntEnum
from typing import Any

from sts.building.calls import CallLedger
from sts.building.content import anthropic_document, anthropic_image
from sts.building.context import ReadContext
from sts.model import Message, MessageKind, Part, Session, TextPart, ThinkingPart, ToolCall
from sts.names import file_stem

TITLE_LENGTH = 80
#: The session id base of an input read from stdin that names no id.
STDIN_ID = "stdin"


class TitleRank(IntEnum):
    """How much a title says about its session: a stronger one replaces a weaker one."""

    PROMPT = 0  #: derived from the first prompt (`SessionBuilder.finish` does it)
    SUMMARY = 1  #: a summary the source wrote of the conversation
    GENERATED = 2  #: a title the harness generated (Claude Code ``ai-title``, Codex thread name)
    GIVEN = 3  #: a name the user or the record gave (``custom-title``, pi ``session_info``)


class SessionBuilder:
    """Builds one session from what a reader reports; `finish` hands it over."""

    def __init__(
        self,
        context: ReadContext,
        source_format: str,
        harness: str | None,
        *,
        key: str | None = None,
        title_from_prompt: bool = False,
    ) -> None:
        self.context = context
        self.problems = context.problems
        self.session = Session(id="", source_format=source_format, harness=harness, key=key)
        self.calls = CallLedger(context.problems)
        self.title_from_prompt = title_from_prompt
        self._title_rank = -1

    @property
    def messages(self) -> list[Message]:
        """The messages so far (the reader may look back at them, and amend the last)."""
        return self.session.messages

    # -- messages ------------------------------------------------------------------------------

    def add(self, message: Message) -> Message:
        """Append `message` to the session; return it."""
        self.session.messages.append(message)
        return message

    # -- tool calls and results ----------------------------------------------------------------

    def call(self, source_id: Any, name: Any, arguments: Any, line: int | None = None
             ) -> ToolCall:
        """A tool call with its id registered (renamed when the session used it already; a
        positional ``call_<message>_<n>`` when `source_id` is empty). Arguments as the source
        gives them (`sts.arguments.parse_arguments`). The caller puts it on its message."""
        return self.calls.call(source_id, name, arguments, line, self._positional)

    def register(self, source_id: Any, name: str, line: int | None = None) -> str:
        """Register a call the reader built itself (shared between sessions, say) and return
        the id to write it with: `call`'s rules, without making a `ToolCall`."""
        return self.calls.register(source_id, name, line, self._positional)

    def _positional(self) -> str:
        """The positional id of the next id-less call (made only for a call without an id)."""
        return f"call_{len(self.session.messages)}_{len(self.calls.pending)}"

    def answer(self, source_id: Any, name: Any = None, line: int | None = None) -> str | None:
        """The id of the call a result naming `source_id` (and tool `name`) answers."""
        return self.calls.answer(source_id, name, line)

    def take_waiting(self, name: Any = None) -> str | None:
        """The id of the oldest id-less call still waiting (of tool `name` first), now answered:
        for a result the source gives without any id; None when no call waits."""
        return self.calls.take_pending(name)

    def forget_waiting(self) -> None:
        """Id-less calls waiting so far get no result by position any more (a new user turn)."""
        self.calls.pending.clear()

    def tool_name(self, call_id: str | None) -> str | None:
        """The tool name of the call `call_id` (None for an unknown id)."""
        return self.calls.names.get(call_id or "")

    def result(
        self,
        source_id: Any,
        content: list[Part],
        *,
        name: Any = None,
        line: int | None = None,
        is_error: bool | None = None,
        timestamp: int | None = None,
        message_id: str | None = None,
    ) -> Message:
        """Append a tool result answering `source_id` (see `answer`); its tool name is its own
        `name`, else its call's."""
        call_id = self.answer(source_id, name, line)
        own = name if type(name) is str and name else None
        return self.add(Message(
            "tool", content, tool_call_id=call_id, tool_name=own or self.tool_name(call_id),
            is_error=is_error, timestamp=timestamp, id=message_id,
        ))

    # -- Anthropic-style content ---------------------------------------------------------------

    def anthropic_blocks(
        self, message: Message, content: Any, line: int | None = None,
        silent: Collection[str] = (),
    ) -> None:
        """Add an Anthropic assistant ``content`` (a string or blocks) to `message`: ``text``
        (whitespace-only left out), ``thinking`` (with text; the signature kept),
        ``redacted_thinking``, ``tool_use`` (a call through `call`), ``image``, ``document``.
        Other block types are reported (``unknown-block``) unless named in `silent`."""
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        if type(content) is not list:
            return
        parts = message.content
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                text = block.get("text")
                if type(text) is str and text.strip():
                    parts.append(TextPart(text))
            elif kind == "thinking":
                text, signature = block.get("thinking"), block.get("signature")
                if type(text) is str and text.strip():
                    parts.append(ThinkingPart(text, signature if type(signature) is str else None))
            elif kind == "redacted_thinking":
                data = block.get("data")
                parts.append(ThinkingPart("", data if type(data) is str else None, redacted=True))
            elif kind == "tool_use":
                message.tool_calls.append(
                    self.call(block.get("id"), str(block.get("name") or ""), block.get("input"),
                              line)
                )
            elif kind == "image":
                parts.append(anthropic_image(block))
            elif kind == "document":
                parts.append(anthropic_document(block))
            elif type(kind) is not str or kind not in silent:
                self.problems.error(line, "unknown-block",
                                    f"unknown assistant block type {kind!r} skipped")

    # -- session facts -------------------------------------------------------------------------

    def offer_id(self, candidate: Any) -> None:
        """An id for the session: the first non-empty string (or integer) offered is kept."""
        if self.session.id:
            return
        if type(candidate) is int:
            candidate = str(candidate)
        if type(candidate) is str and candidate:
            self.session.id = candidate

    def title(self, text: Any, rank: TitleRank = TitleRank.GIVEN) -> None:
        """A title for the session, kept as given when it is a non-empty string at least as
        strong as the one so far (`TitleRank`). Whether a blank title counts is the source's
        rule: leave it out before calling when it does not."""
        if type(text) is str and text and rank >= self._title_rank:
            self.session.name = text
            self._title_rank = rank

    def finish(self) -> Session:
        """The session, with its id and title fallbacks applied."""
        session = self.session
        if not session.id:
            path = self.context.path
            base = (file_stem(path.name) if path is not None else "") or STDIN_ID
            session.id = f"{base}-{session.key}" if session.key else base
        if session.name is None and self.title_from_prompt:
            session.name = prompt_title(session.messages)
        return session


def prompt_title(messages: list[Message]) -> str | None:
    """The first user prompt (else the first slash command) that was not rolled back, on one
    line of at most `TITLE_LENGTH` characters."""
    for wanted in (None, MessageKind.COMMAND):
        for message in messages:
            text = titled(message, wanted)
            if text:
                return shorten(text)
    return None


def titled(message: Message, wanted: MessageKind | None = None) -> str | None:
    """The text `prompt_title` takes from `message` when it is a user message of kind `wanted`
    (None: a prompt) that was not rolled back, on one line; else None."""
    if message.role == "user" and message.kind == wanted and not message.rolled_back:
        return " ".join(message.text.split())
    return None


def shorten(line: str) -> str:
    """`line` cut to `TITLE_LENGTH` characters, with an ellipsis when cut."""
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"
