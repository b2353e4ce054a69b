"""Session → Pi session JSONL (version 3) with the Hub's ``harness`` field in the header.

The file is what the real pi loads and can continue (see ``shared/formats/pi.md`` §4): a
version-3 header, then one entry per message chained by ``id``/``parentId`` so that the last line
is the leaf. Documented choices where the session does not say:

- assistant ``api``/``provider``/``model`` default to ``"unknown"``; ``usage`` (with ``cost``)
  is always complete, zeros when unknown; ``stopReason`` is the source's (mapped to pi's words),
  else ``toolUse`` when the message calls tools, else ``stop``;
- a tool result's ``toolName`` comes from its call when the result does not name it;
- system messages: a compaction becomes a ``compaction`` entry, a branch summary a
  ``branch_summary`` entry, anything else a displayed ``custom_message`` whose ``customType`` is
  ``system`` (pi before 1.x has no system role; on resume pi shows it to the model as user text);
- a user message of kind ``custom`` (pi's own extension messages) is written back as a
  ``custom_message`` entry with its ``customType``;
- images without inline data and other media become text placeholders;
- entry ids are the source's message ids when unique, else ``00000001``, ``00000002``, ...;
- the header always has ``cwd`` (the session's, else ``""``) and an ISO ``timestamp`` (the
  session's start, else its first message time);
- an entry's ISO ``timestamp`` and a message's numeric one (pi's types require both) are its
  message's time, else the latest earlier one (before the first, the header's), so a filled
  time never goes back from the entry before it;
- a session with no recorded time at all gets its `FallbackTime` (the input file's
  modification time, or the time of conversion; `sts.undated`) everywhere, and the header
  names its origin in ``timestampFallback`` so that nobody takes it for a recorded time; a
  session read back from such a file keeps it as its start, also when pi has added turns
  with times of their own since.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, BinaryIO

from sts.arguments import arguments_object
from sts.formats.pi import STOP_WORDS, UNKNOWN, Key, id_key, system_custom_type
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Session,
    StopReason,
    TextPart,
    ThinkingPart,
    Usage,
)
from sts.problems import Problems
from sts.timestamps import epoch_ms, iso_from_ms
from sts.undated import HEADER_FIELD, conversion_time
from sts.writers.common import (
    Constant,
    Dropped,
    Lost,
    dump_line,
    header_metadata,
    placeholder,
    session_start,
    write_session,
)

DEFAULT_HARNESS = "pi"
#: `id_key` of the entry ids the writer makes (``00000001``...): ``1`` and eight hex digits.
GENERATED_KEY = 16**8


def write_pi(
    session: Session, out: BinaryIO, harness: str | None = None, *,
    messages: Iterable[Message] | None = None, problems: Problems | None = None,
) -> None:
    """Write `session` to `out` as a Pi v3 session. `harness` overrides the session's own.

    `messages` are the messages to write, in order (default: `session.messages`; the CLI
    passes an iterator that lets each one go once written). With `problems`, what Pi
    cannot hold is reported there (`sts.writers.common.Dropped`).
    """
    entries = PiEntries(session, harness)
    write_session(out, session, lambda: dump_line(entries.header()), entries.info(),
                  entries.message_line, messages, problems, "Pi", LOST)


def pi_others(message: Message, dropped: Dropped) -> None:
    """Count what Pi has no place for in a message with more than one text or a kind: media
    other than inline images of user messages and tool results, and user kinds other than
    ``custom`` (system kinds are kept in ``customType``)."""
    if not dropped.nothing_in(message):
        if message.role == "assistant" or message.role == "system":  # text entries
            dropped.media_of(message, kept_images=False)
        else:
            dropped.media_of(message, kept_images=True)
            dropped.media += sum(1 for p in message.content if type(p) is ImagePart and not p.data)
    if message.role == "user" and message.kind not in (None, MessageKind.CUSTOM):
        dropped.kinds[message.kind] += 1


#: Pi has a place for every message field but the two no target has (`Lost`).
LOST = Lost((), pi_others)


class PiEntries:
    """Builds the entry lines of one session; keeps the id bookkeeping in one place."""

    __slots__ = ("call_names", "counter", "fallback", "harness", "last_time", "parent",
                 "session", "start", "used_ids", "written_iso", "written_ms")

    def __init__(self, session: Session, harness: str | None) -> None:
        self.session = session
        self.harness = harness or session.harness or DEFAULT_HARNESS
        self.used_ids: set[Key] = set()  # as keys (`id_key`): a Pi file may hold millions
        self.counter = 0
        self.parent: str | None = None
        self.fallback = session.fallback_time if session.started_at is None else None
        start = self.fallback.ms if self.fallback is not None else session_start(session)
        if start is None:  # a session built by hand, no driver set its input's time
            self.fallback = conversion_time()
            start = self.fallback.ms
        self.start: int = start
        self.last_time: int = start
        self.written_ms = start  # the time of the entry before, and its text: often shared
        self.written_iso = iso_from_ms(start)
        self.call_names: dict[str, str] = {}

    def info(self) -> tuple[bytes, ...]:
        """The ``session_info`` line (when the session has a name), which follows the header."""
        if not self.session.name:
            return ()
        entry = self.entry("session_info", None)
        entry["name"] = self.session.name
        return (dump_line(entry),)

    def header(self) -> dict[str, Any]:
        header: dict[str, Any] = {
            "type": "session", "version": 3, "id": self.session.id,
            "timestamp": iso_from_ms(self.start),
        }
        if self.fallback is not None:
            header[HEADER_FIELD] = self.fallback.origin
        header["cwd"] = self.session.cwd or ""
        header["harness"] = self.harness
        extra = header_metadata(self.session)
        extra.pop("cwd", None)
        header.update(extra)
        return header

    def new_id(self, wanted: str | None) -> str:
        used = self.used_ids
        if wanted and type(wanted) is str:
            key = id_key(wanted)
            if key not in used:
                used.add(key)
                return wanted
        while True:
            number = self.counter = self.counter + 1
            # the key of its id, `f"{number:08x}"`, without making the text (see `id_key`)
            key = GENERATED_KEY + number if number < GENERATED_KEY else id_key(f"{number:08x}")
            if key not in used:
                used.add(key)
                return f"{number:08x}"

    def entry(self, kind: str, message: Message | None) -> dict[str, Any]:
        """A new entry of `kind` (its id, parent and time), the child of the one before; the
        caller adds its fields."""
        entry_id = self.new_id(message.id if message is not None else None)
        if self.written_ms != self.last_time:
            self.written_ms = self.last_time
            self.written_iso = iso_from_ms(self.last_time)
        entry: dict[str, Any] = {
            "type": kind, "id": entry_id, "parentId": self.parent, "timestamp": self.written_iso,
        }
        self.parent = entry_id
        return entry

    def message_line(self, message: Message) -> bytes:
        """The entry line of one message. Its time (the entry's, and the numeric ``timestamp``
        pi's types require of a message body) is its own, else the latest earlier one."""
        if message.timestamp is not None:
            ms = epoch_ms(message.timestamp)  # None for a time no target can hold
            if ms is not None:
                self.last_time = ms
        role = message.role
        if role == "assistant":
            body = self.assistant(message)
        elif role == "tool":
            body = self.tool_result(message)
        elif role == "user" and message.kind != MessageKind.CUSTOM:
            body = {"role": "user", "content": user_blocks(message), "timestamp": self.last_time}
        elif role == "user":
            entry = self.entry("custom_message", message)
            entry["customType"] = message.custom_type or "custom"
            entry["content"] = user_blocks(message)
            entry["display"] = True
            return dump_line(entry)
        else:
            return dump_line(self.system_entry(message))
        entry = self.entry("message", message)
        entry["message"] = body
        return dump_line(entry)

    def assistant(self, message: Message) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        for part in message.content:
            if type(part) is TextPart:
                blocks.append({"type": "text", "text": part.value})
            elif type(part) is ThinkingPart:
                blocks.append(thinking_block(part))
            elif type(part) is ImagePart or type(part) is MediaPart:
                blocks.append({"type": "text", "text": placeholder(part)})
        for call in message.tool_calls:
            self.call_names[call.id] = call.name
            blocks.append(
                {"type": "toolCall", "id": call.id, "name": call.name,
                 "arguments": arguments_object(call)}
            )
        body: dict[str, Any] = {
            "role": "assistant",
            "content": blocks,
            "api": message.api or UNKNOWN,
            "provider": message.provider or UNKNOWN,
            "model": message.model or UNKNOWN,
            "usage": pi_usage(message.usage),
            "stopReason": pi_stop_reason(message),
        }
        if message.error_message:
            body["errorMessage"] = message.error_message
        body["timestamp"] = self.last_time
        return body

    def tool_result(self, message: Message) -> dict[str, Any]:
        call_id = message.tool_call_id or ""
        return {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": message.tool_name or self.call_names.get(call_id, UNKNOWN),
            "content": content_blocks(message, images=True),
            "isError": bool(message.is_error),
            "timestamp": self.last_time,
        }

    def system_entry(self, message: Message) -> dict[str, Any]:
        text = message.text
        if message.kind == MessageKind.COMPACTION:
            first_kept = message.first_kept_id
            entry = self.entry("compaction", message)
            entry["summary"] = text
            entry["firstKeptEntryId"] = (
                first_kept if first_kept and id_key(first_kept) in self.used_ids else entry["id"]
            )
            entry["tokensBefore"] = message.tokens_before or 0
            return entry
        if message.kind == MessageKind.BRANCH_SUMMARY:
            from_id = message.from_id or "root"
            entry = self.entry("branch_summary", message)
            entry["fromId"] = from_id
            entry["summary"] = text
            return entry
        entry = self.entry("custom_message", message)
        entry["customType"] = message.custom_type or system_custom_type(message.kind)
        entry["content"] = text
        entry["display"] = True
        return entry


def content_blocks(message: Message, images: bool) -> list[dict[str, Any]]:
    """Text and image blocks of a user message or tool result (other media as placeholders)."""
    content = message.content
    if len(content) == 1 and type(content[0]) is TextPart:  # most messages: one text
        return [{"type": "text", "text": content[0].value}]
    blocks: list[dict[str, Any]] = []
    for part in content:
        if type(part) is TextPart:
            blocks.append({"type": "text", "text": part.value})
        elif type(part) is ImagePart and images and part.data:
            blocks.append(
                {"type": "image", "data": part.data, "mimeType": part.media_type or "image/png"}
            )
        elif type(part) is ImagePart or type(part) is MediaPart:
            blocks.append({"type": "text", "text": placeholder(part)})
    return blocks


def user_blocks(message: Message) -> list[dict[str, Any]]:
    """A user message's content blocks; an empty message keeps one empty text block."""
    return content_blocks(message, images=True) or [{"type": "text", "text": ""}]


def thinking_block(part: ThinkingPart) -> dict[str, Any]:
    """A pi thinking block; the signature only when the source had one."""
    block: dict[str, Any] = {"type": "thinking", "thinking": part.text}
    if part.signature is not None:
        block["thinkingSignature"] = part.signature
    if part.redacted:
        block["redacted"] = True
    return block


#: The usage of a message without any, its JSON text made once.
ZERO_USAGE = Constant({
    "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
})


def pi_usage(usage: Usage | None) -> dict[str, Any] | Constant:
    """Pi's complete usage object (zeros where unknown)."""
    if usage is None:
        return ZERO_USAGE
    total = usage.total_tokens
    if total is None:
        total = usage.input + usage.output + usage.cache_read + usage.cache_write
    return {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": total,
        "cost": {
            "input": usage.cost_input or 0,
            "output": usage.cost_output or 0,
            "cacheRead": usage.cost_cache_read or 0,
            "cacheWrite": usage.cost_cache_write or 0,
            "total": usage.cost_total or 0,
        },
    }


#: The stop reasons of a message whose source gave none, looked up once (an enum member's hash
#: is a Python call).
TOOL_USE_WORD = STOP_WORDS[StopReason.TOOL_USE]
STOP_WORD = STOP_WORDS[StopReason.STOP]


def pi_stop_reason(message: Message) -> str:
    """The message's stop reason in pi's words, else derived from the message."""
    reason = message.stop_reason
    if reason is not None:
        return STOP_WORDS[reason]
    return TOOL_USE_WORD if message.tool_calls else STOP_WORD
