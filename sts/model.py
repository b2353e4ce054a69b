"""The common intermediate model: plain values owned by neither sources nor targets.

A converter turns a source format into `Session` objects; a writer turns a `Session` into STS or
Pi lines. Nothing here knows a format. The classes are slotted dataclasses with no validation,
so building millions of them stays cheap; the one exception is `TextPart`, whose large texts
may be held in a temporary file (`sts.spill`) to keep big sessions out of memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sts import spill
from sts.spill import StoredText

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset(("user", "assistant", "system", "tool"))


class TextPart:
    """Plain text.

    A large text of a large session may be held in a temporary file (`sts.spill`): `text` reads
    it back, and `value` is then its handle, which writers copy without decoding.
    """

    __slots__ = ("_text",)
    __match_args__ = ("text",)

    def __init__(self, text: str | StoredText) -> None:
        self._text = spill.keep(text) if type(text) is str else text

    @property
    def text(self) -> str:
        """The text."""
        text = self._text
        return text if type(text) is str else text.load()

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

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclasses

    def __repr__(self) -> str:
        return f"TextPart(text={self.text!r})"

    def __reduce__(self) -> tuple[type[TextPart], tuple[str]]:
        return TextPart, (self.text,)


@dataclass(slots=True)
class ImagePart:
    """An image, inline (base64 `data`, no `data:` prefix) or by `url`."""

    media_type: str | None = None
    data: str | None = None
    url: str | None = None


@dataclass(slots=True)
class MediaPart:
    """Any other media (audio, file, video, ...) kept as a typed placeholder.

    `kind` says what it is; `size` is the payload size in bytes when known. The payload itself is
    not kept: neither target can hold it.
    """

    kind: str
    media_type: str | None = None
    name: str | None = None
    size: int | None = None
    url: str | None = None


@dataclass(slots=True)
class ThinkingPart:
    """Model reasoning as the source wrote it.

    `signature` is the provider's opaque token (Anthropic signature, OpenAI encrypted reasoning);
    it is kept only so that Pi output can replay it, never shown as text. A `redacted` block has
    no readable text.
    """

    text: str
    signature: str | None = None
    redacted: bool = False


Part = TextPart | ImagePart | MediaPart | ThinkingPart


@dataclass(slots=True)
class ToolCall:
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


@dataclass(slots=True)
class Usage:
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


@dataclass(slots=True)
class Message:
    """One message of a session.

    `content` holds text, media and (for assistants) thinking parts in source order. Tool results
    are `role="tool"` messages with `tool_call_id`, `tool_name` and `is_error`. `timestamp` is
    epoch milliseconds. `kind` refines a role where the source says more (for system messages:
    "compaction", "branch_summary", "system_prompt", "injected_context", ...); `extras` keeps any
    other source detail a writer may want, keyed by name.
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
    stop_reason: str | None = None
    error_message: str | None = None
    kind: str | None = None
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


@dataclass(slots=True)
class Session:
    """One conversation.

    `harness` is the harness id the source implies (the STS file's own, or the converter's
    default); writers use it unless the caller overrides it. `key` is a short name unique within
    the input (set when one input yields several sessions, and on sub-agents), used to name output
    files. `children` are sub-agent sessions; `metadata` is free source metadata that goes to the
    output header.
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
