"""The common intermediate model: plain values owned by neither sources nor targets.

A converter turns a source format into `Session` objects; a writer turns a `Session` into STS or
Pi lines. Nothing here knows a format. The classes are slotted records (`sts.records.record`:
declared and used as dataclasses, built at a fraction of the start-up cost) with no validation,
so building millions of them stays cheap; the one exception is `TextPart`, whose large texts
may be held in a temporary file (`sts.spill`) to keep big sessions out of memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, Protocol

from sts.records import FrozenRecord, Record, field_names, record

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset(("user", "assistant", "system", "tool"))


class MessageKind(StrEnum):
    """What a message is, where its role alone does not say. String-valued: ``kind ==
    "compaction"`` holds for `MessageKind.COMPACTION`.

    A new source that needs a kind none of these names adds a member here (the model is the
    contract every writer reads); writers map each kind to the target or flatten it, reported.
    """

    # system messages
    SYSTEM = "system"  #: a plain system message (the same as no kind)
    SYSTEM_PROMPT = "system_prompt"
    DEVELOPER = "developer"
    INJECTED_CONTEXT = "injected_context"
    COMPACTION = "compaction"  #: `tokens_before`, `first_kept_id`
    BRANCH_SUMMARY = "branch_summary"  #: `from_id`
    INTER_AGENT = "inter_agent"
    ROLLBACK = "rollback"
    META = "meta"
    CAVEAT = "caveat"
    COMMAND_OUTPUT = "command_output"
    BASH_OUTPUT = "bash_output"
    INTERRUPT = "interrupt"
    TASK_NOTIFICATION = "task_notification"
    SYNTHETIC = "synthetic"
    API_ERROR = "api_error"
    CONTEXT_CLEARED = "context_cleared"  #: the user cleared the context (``/clear``)
    NOTICE = "notice"  #: a harness's UI notice, never model context (`extras["level"]`)
    # user messages
    COMMAND = "command"
    COMMAND_PROMPT = "command_prompt"
    BASH_INPUT = "bash_input"
    BASH = "bash"
    QUEUED = "queued"
    CUSTOM = "custom"  #: an extension's message: `custom_type` names it


class StopReason(StrEnum):
    """Why an assistant turn ended, in one canonical vocabulary.

    Converters map their source's words into it (`sts.building.vocabulary.stop_reason`);
    writers map it to the target's words. None on a message means the source did not say.
    """

    STOP = "stop"
    LENGTH = "length"
    TOOL_USE = "tool_use"
    ERROR = "error"
    ABORTED = "aborted"


class StoredText(Protocol):
    """A text kept outside memory (`sts.spill.StoredText` is one): its JSON and its value."""

    def json(self) -> bytes:
        """The text's JSON string literal, quotes included."""
        ...

    def load(self) -> str:
        """The text itself."""
        ...


class TextPart:
    """Plain text.

    A large text of a large session may be held in a temporary file (`sts.spill`): `text` reads
    it back, and `value` is then its handle, which writers copy without decoding.
    """

    __slots__ = ("_text",)
    __match_args__ = ("text",)

    def __init__(self, text: str | StoredText) -> None:
        self._text = _keep(text) if type(text) is str else text

    @property
    def text(self) -> str:
        """The text."""
        text = self._text
        return text if isinstance(text, str) else text.load()

    @text.setter
    def text(self, text: str) -> None:
        self._text = text

    @property
    def value(self) -> str | StoredText:
        """The text, or the handle of a text held in a temporary file (writers copy it as is)."""
        return self._text

    def __eq__(self, other: object) -> bool:
        if type(other) is not TextPart:
            return NotImplemented
        return self.text == other.text

    __hash__ = None  # type: ignore[assignment]  # mutable, like the records

    def __repr__(self) -> str:
        return f"TextPart(text={self.text!r})"

    def __reduce__(self) -> tuple[type[TextPart], tuple[str]]:
        return TextPart, (self.text,)

    def store(self, keep: TextKeeper) -> None:
        """Hand the text to `keep` (a read's text store), which may hold it in a file."""
        text = self._text
        if type(text) is str:
            self._text = keep(text)


class TextKeeper(Protocol):
    """Where a read keeps large texts: returns the text itself or a `StoredText` handle."""

    def __call__(self, text: str) -> str | StoredText: ...


def _no_store(text: str) -> str | StoredText:
    return text


#: The text store `TextPart` hands new texts to: a transition while converters move to the
#: read context's store (`sts.building`); `sts.spill` installs its own.
_keep: TextKeeper = _no_store


def install_text_store(keep: TextKeeper) -> None:
    """Set the store new `TextPart` texts go to (transitional; see `_keep`)."""
    global _keep
    _keep = keep


def base64_size(data: str) -> int:
    """Decoded size in bytes of a base64 string."""
    return len(data) * 3 // 4 - data[-2:].count("=") if data else 0


@record(slots=True)
class ImagePart(Record):
    """An image, inline (base64 `data`, no `data:` prefix) or by `url`."""

    media_type: str | None = None
    data: str | None = None
    url: str | None = None

    @property
    def size(self) -> int | None:
        """Decoded size in bytes of the inline data; None without data."""
        return base64_size(self.data) if self.data else None


@record(slots=True)
class MediaPart(Record):
    """Any other media (audio, file, video, ...) kept as a typed placeholder.

    `kind` says what it is; `size` is the payload size in bytes when known. The payload itself is
    not kept: neither target can hold it.
    """

    kind: str
    media_type: str | None = None
    name: str | None = None
    size: int | None = None
    url: str | None = None


@record(slots=True)
class ThinkingPart(Record):
    """Model reasoning as the source wrote it.

    `signature` is the provider's opaque token (Anthropic signature, OpenAI encrypted reasoning);
    it is kept only so that Pi output can replay it, never shown as text. A `redacted` block has
    no readable text.
    """

    text: str
    signature: str | None = None
    redacted: bool = False


Part = TextPart | ImagePart | MediaPart | ThinkingPart


@record(slots=True)
class ToolCall(Record):
    """A tool call made by an assistant message.

    `arguments` is the parsed JSON value (normally an object). `raw_arguments` holds the source's
    own text where it differs from `arguments`: text that is not valid JSON (then `arguments` is
    None) or a double-encoded string. Use `sts.arguments.parse_arguments` to fill both.
    """

    id: str
    name: str
    arguments: Any = None
    raw_arguments: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@record(slots=True)
class Usage(Record):
    """Token counts and cost (USD) of one model call. None means the source did not say."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int | None = None
    cost_input: float | None = None
    cost_output: float | None = None
    cost_cache_read: float | None = None
    cost_cache_write: float | None = None
    cost_total: float | None = None


@record(slots=True)
class Message(Record):
    """One message of a session.

    `content` holds text, media and (for assistants) thinking parts in source order. Tool results
    are `role="tool"` messages with `tool_call_id`, `tool_name` and `is_error`. `timestamp` is
    epoch milliseconds. `kind` refines a role where the source says more (`MessageKind`);
    `stop_reason` is canonical (`StopReason`).

    Typed facts writers rely on: `refusal` (the text is the model's refusal),
    `tokens_before` (a compaction's context size before it), `first_kept_id` (the id of the
    first message a compaction kept), `from_id` (where a branch summary's branch left),
    `custom_type` (the source's own name for an extension message, pi's ``customType``),
    `rolled_back` (a turn the source undid, kept for the record). `extras` keeps any other
    source detail; no writer reads it.
    """

    role: Role
    content: list[Part] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool | None = None
    timestamp: int | None = None
    id: str | None = None
    model: str | None = None
    provider: str | None = None
    api: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    error_message: str | None = None
    kind: MessageKind | None = None
    refusal: bool = False
    tokens_before: int | None = None
    first_kept_id: str | None = None
    from_id: str | None = None
    custom_type: str | None = None
    rolled_back: bool = False
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text parts joined by blank lines (media and thinking left out)."""
        texts = [p.text for p in self.content if type(p) is TextPart]
        if len(texts) == 1:
            return texts[0]
        return "\n\n".join(texts)

    @property
    def reasoning(self) -> str | None:
        """Readable reasoning: the non-redacted, non-empty thinking texts joined, or None."""
        texts = [
            p.text for p in self.content if type(p) is ThinkingPart and not p.redacted and p.text
        ]
        if not texts:
            return None
        return texts[0] if len(texts) == 1 else "\n\n".join(texts)


@record(slots=True, frozen=True)
class FallbackTime(FrozenRecord):
    """The time a session with no recorded time at all is given where a target needs one (pi's
    types want a time on the header, every entry and every message): never a recorded time.

    `ms` is epoch milliseconds; `origin` says where it came from: `INPUT_MTIME` (the input
    file's modification time), `SUBAGENT_MTIME` (a sub-agent's own file's, see
    `Session.source_file`) or `CONVERSION_TIME` (the time of conversion: stdin, a stream,
    bytes). Pi output names the origin in its header so that nobody takes it for a record.
    """

    ms: int
    origin: str


#: `FallbackTime.origin` values.
INPUT_MTIME = "input-file-mtime"
SUBAGENT_MTIME = "subagent-file-mtime"
CONVERSION_TIME = "conversion-time"


@record(slots=True)
class Session(Record):
    """One conversation.

    `harness` is the harness id the source implies (the STS file's own, or the converter's
    default); writers use it unless the caller overrides it. `key` is a short name unique within
    the input (set when one input yields several sessions, and on sub-agents), used to name output
    files. `children` are sub-agent sessions; `metadata` is free source metadata that goes to the
    output header. `fallback_time` is set (by the driver, or read from a Pi header that names
    one) only on a session none of whose times was recorded. `source_file` is the file a
    sub-agent was read from when it is not its input (Claude Code's ``agent-*.jsonl``, a Gemini
    CLI or Kimi CLI sub-agent's own file): its fallback time is that file's, not the input's.
    """

    id: str
    messages: list[Message] = field(default_factory=list)
    name: str | None = None
    source_format: str | None = None
    source_version: str | None = None
    harness: str | None = None
    cwd: str | None = None
    git: dict[str, Any] | None = None
    started_at: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    children: list[Session] = field(default_factory=list)
    key: str | None = None
    fallback_time: FallbackTime | None = None
    source_file: Path | None = None


class StreamedSession(Session):
    """A session whose messages are made while it is written, so that none is kept (a large
    Claude Code transcript, read again line by line once its thread is known): `stream` yields
    them once, in order, and `messages` stays empty. Its `name` and `first_time` (the first
    message's time) are known before the stream is taken; what a header says of all the
    messages (usage totals, tool errors) and its sub-agents only once the stream is exhausted,
    so writers write its header last (`sts.writers.common.write_session`). Converters yield one
    only when `ReadContext.deferred` allows it."""

    __slots__ = ("first_time", "stream")
    stream: Iterator[Message]
    first_time: int | None

    @classmethod
    def of(cls, session: Session, stream: Iterator[Message], first_time: int | None
           ) -> StreamedSession:
        """`session` (its metadata and children the same objects) with its messages to come."""
        streamed = cls(**{name: getattr(session, name) for name in field_names(Session)})
        streamed.stream = stream
        streamed.first_time = first_time
        return streamed


def first_time(messages: Iterable[Message],
               held: Callable[[int], int | None] | None = None) -> int | None:
    """The time of the first message that has one (a `StreamedSession`'s `first_time`); with
    `held` (`sts.timestamps.epoch_ms`), the first one it does not turn into None, as it
    returns it (a writer's session start skips the times no target can hold)."""
    times = (m.timestamp for m in messages if m.timestamp is not None)
    if held is not None:
        times = (ms for ms in map(held, times) if ms is not None)
    return next(times, None)
