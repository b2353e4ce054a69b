"""Session → STS-Format (Session Trace Simple Format) JSONL.

One header line, then one line per message, with exactly the fields the spec defines:
``role``, ``content`` (always a string), ``reasoningContent``, ``toolCalls`` (``arguments``
always one JSON string), ``toolCallId``, ``timestamp`` (integer ms) and ``model``. What STS
cannot hold per message goes to the header: usage totals (``usage``), the ids of tool calls whose
result was an error (``toolErrors``), and the session facts listed in `header_metadata`. Media
become short placeholders in the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, BinaryIO

from sts.arguments import arguments_json
from sts.model import ImagePart, MediaPart, Message, Session, StopReason, StoredText, TextPart
from sts.problems import Problems
from sts.timestamps import epoch_ms
from sts.writers.common import (
    PLAIN_KINDS,
    Dropped,
    Lost,
    dump_line,
    header_metadata,
    is_signed,
    placeholder,
    write_session,
)

DEFAULT_HARNESS = "unknown"


def write_sts(
    session: Session, out: BinaryIO, harness: str | None = None, *,
    messages: Iterable[Message] | None = None, problems: Problems | None = None,
) -> None:
    """Write `session` to `out` as STS. `harness` overrides the session's own harness id.

    `messages` are the messages to write, in order (default: `session.messages`; the CLI
    passes an iterator that lets each one go once written). With `problems`, what STS
    cannot hold is reported there (`sts.writers.common.Dropped`).
    """
    write_session(out, session, lambda: dump_line(sts_header(session, harness)), (), sts_line,
                  messages, problems, "STS", LOST)


def sts_line(message: Message) -> bytes:
    """The STS line of one message."""
    return dump_line({"type": "message", "message": sts_message(message)})


def sts_others(message: Message, dropped: Dropped) -> None:
    """Count the media (placeholders), thinking signatures and kind STS has no place for in a
    message with more than one text or a kind."""
    if not dropped.nothing_in(message):
        dropped.media_of(message, kept_images=False)
        if is_signed(message):
            dropped.fields["thinking signature"] += 1
    if message.kind not in PLAIN_KINDS:
        dropped.kinds[message.kind] += 1


#: Message fields STS has no place for beyond its seven (usage and tool errors go to the
#: header: not lost), and the parts and kinds it has none for (`sts_others`).
LOST = Lost(("stop_reason", "error_message", "provider", "api", "tool_name", "custom_type",
             "tokens_before", "first_kept_id", "from_id"), sts_others)


def sts_header(session: Session, harness: str | None = None) -> dict[str, Any]:
    """The STS header object of `session`."""
    header: dict[str, Any] = {
        "type": "session",
        "harness": harness or session.harness or DEFAULT_HARNESS,
        "id": session.id,
    }
    if session.name:
        header["name"] = session.name
    header.update(header_metadata(session))
    errors = [m.tool_call_id for m in session.messages if m.is_error and m.tool_call_id]
    if errors:
        header["toolErrors"] = errors
    return header


def sts_content(message: Message) -> str | StoredText:
    """The message's text and media placeholders, in order, as one string (a single text held in
    a temporary file stays a `StoredText`, for `dump_line` to copy)."""
    content = message.content
    note = failure_note(message)
    if note is None and len(content) == 1 and type(content[0]) is TextPart:
        return content[0].value
    pieces = []
    for part in content:
        if type(part) is TextPart:
            pieces.append(part.text)
        elif type(part) is ImagePart or type(part) is MediaPart:
            pieces.append(placeholder(part))
    if note is not None:
        pieces.append(note)
    return "\n\n".join(pieces)


def failure_note(message: Message) -> str | None:
    """``[error: ...]`` / ``[aborted: ...]`` for a turn that failed with an error text its content
    does not already show: STS has no field for it, and a failed turn should read as one."""
    error = message.error_message
    if not error or error in message.text:
        return None
    label = "aborted" if message.stop_reason == StopReason.ABORTED else "error"
    return f"[{label}: {error}]"


def sts_message(message: Message) -> dict[str, Any]:
    """The STS ``message`` object of one message."""
    result: dict[str, Any] = {"role": message.role}
    if message.tool_call_id is not None:
        result["toolCallId"] = message.tool_call_id
    content = message.content
    if not content and not message.error_message:
        result["content"] = ""  # no part and no failure (a message of tool calls): no reasoning
    elif len(content) == 1 and type(content[0]) is TextPart and not message.error_message:
        result["content"] = content[0].value  # one text and no failure: nothing else to join
    else:
        result["content"] = sts_content(message)
        reasoning = message.reasoning
        if reasoning:
            result["reasoningContent"] = reasoning
    if message.tool_calls:
        result["toolCalls"] = [
            {"id": call.id, "function": {"name": call.name, "arguments": arguments_json(call)}}
            for call in message.tool_calls
        ]
    if message.timestamp is not None:
        ms = epoch_ms(message.timestamp)  # None for a time no target can hold (built by hand)
        if ms is not None:
            result["timestamp"] = ms
    if message.model:
        result["model"] = message.model
    return result
