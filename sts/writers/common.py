"""Helpers shared by the writers: safe JSON lines, placeholders, times, totals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import compress, repeat
from operator import attrgetter, is_not
from typing import IO, Any, BinaryIO

import orjson

from sts.lines import clean_value
from sts.lines import dumps_deep as lines_dumps_deep
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Session,
    StreamedSession,
    TextPart,
    ThinkingPart,
    Usage,
    first_time,
)
from sts.problems import Problems
from sts.spill import as_fragment, as_text
from sts.timestamps import (
    epoch_ms,
    iso_from_ms,  # noqa: F401 (moved there; still importable here)
)
from sts.undated import HEADER_FIELD as FALLBACK_FIELD

_OPTIONS = orjson.OPT_APPEND_NEWLINE
RESERVED_HEADER_KEYS = frozenset(
    ("type", "harness", "id", "name", "version", "timestamp", "cwd", "parentSession", "metadata",
     FALLBACK_FIELD)
)


class Constant:
    """A JSON value that many lines hold (pi's zero usage), written as its JSON text made once
    (orjson copies it: `as_json`)."""

    __slots__ = ("fragment", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.fragment = orjson.Fragment(orjson.dumps(value))


def as_json(value: Any) -> orjson.Fragment:
    """`dump_line`'s orjson ``default``: a `Constant`'s JSON text, a `StoredText`'s stored JSON."""
    if type(value) is Constant:
        return value.fragment
    return as_fragment(value)


def as_value(value: Any) -> Any:
    """`dumps_deep`'s ``default``: a `Constant`'s value, a `StoredText` read back."""
    if type(value) is Constant:
        return value.value
    return as_text(value)


def dump_line(obj: Any) -> bytes:
    """One JSON line (with its newline). Lone surrogates, which orjson refuses, become U+FFFD.

    A `StoredText` (`TextPart.value`) is copied as the JSON it is stored as. Values nested deeper
    than orjson writes (255 levels) go through the standard library.
    """
    try:
        return orjson.dumps(obj, default=as_json, option=_OPTIONS)
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(clean_value(obj), default=as_json, option=_OPTIONS)
    except (orjson.JSONEncodeError, RecursionError):
        return (dumps_deep(obj) + "\n").encode("utf-8")


def dumps_deep(value: Any) -> str:
    """Compact JSON text of `value` at any depth (see `sts.lines.dumps_deep`), stored texts
    included, lone surrogates replaced by U+FFFD."""
    return lines_dumps_deep(value, as_value)


def write_session(
    out: BinaryIO, session: Session, header: Callable[[], bytes], head: Iterable[bytes],
    line: Callable[[Message], bytes], messages: Iterable[Message] | None,
    problems: Problems | None, target: str, lost: Lost,
) -> None:
    """The loop every writer shares: its `header` line and other `head` lines, then one `line`
    per message of `messages` (an iterator the caller gives, e.g. one that lets each message go
    once written; when None, the session's own list, or a `StreamedSession`'s stream), and,
    with `problems`, what the target could not hold (`lost`, counted by `Dropped`) reported
    there. The header is made before the first message is taken, so it may read the whole session; a
    `StreamedSession`'s only after the last (its lines wait in a temporary file, the output
    buffer, and `session.messages` holds their `HeaderFacts` by then)."""
    dropped = Dropped(lost) if problems is not None else None
    facts = HeaderFacts() if isinstance(session, StreamedSession) else None
    buffer: IO[bytes] = out
    if facts is None:
        out.write(header())
    else:
        import tempfile  # only streamed sessions get here

        buffer = tempfile.TemporaryFile(buffering=SPOOL_BLOCK)  # noqa: SIM115 (closed below)
    try:
        write = buffer.write
        for data in head:
            write(data)
        if messages is None:
            messages = session.stream if isinstance(session, StreamedSession) else (
                session.messages)
        for message in messages:
            write(line(message))
            if facts is not None:
                facts.add(message)
            if dropped is not None:
                dropped.count(message)
        if facts is not None:
            session.messages = facts.messages()
            out.write(header())
            buffer.seek(0)
            while block := buffer.read(SPOOL_BLOCK):
                out.write(block)
    finally:
        if buffer is not out:
            buffer.close()
    if dropped is not None and problems is not None:
        dropped.report(problems, target, session)


#: Bytes copied at a time from the output buffer of a streamed session.
SPOOL_BLOCK = 1 << 18


class HeaderFacts:
    """What a header reads from all of a session's messages (`usage_totals`, the tool errors of
    an STS header), gathered from them one by one: `messages` stands for them afterwards."""

    __slots__ = ("cost", "errors", "usage")

    def __init__(self) -> None:
        self.usage: Usage | None = None
        self.cost = 0.0
        self.errors: list[Message] = []

    def add(self, message: Message) -> None:
        if message.usage is not None:
            self.add_usage(message.usage)
        if message.is_error and message.tool_call_id:
            self.errors.append(Message("tool", [], tool_call_id=message.tool_call_id,
                                       is_error=True))

    def add_usage(self, usage: Usage) -> None:
        """Add one message's usage to the totals (`usage_totals` sums with this too)."""
        totals = self.usage
        if totals is None:
            totals = self.usage = Usage()
        totals.input += usage.input
        totals.output += usage.output
        totals.cache_read += usage.cache_read
        totals.cache_write += usage.cache_write
        self.cost += usage.cost_total or 0.0

    def messages(self) -> list[Message]:
        """Messages that add up to the same usage totals and tool errors."""
        if self.usage is None:
            return self.errors
        self.usage.cost_total = self.cost
        return [Message("assistant", [], usage=self.usage), *self.errors]


def human_size(size: int) -> str:
    """``512 B``, ``34 KB``, ``1.2 MB`` (powers of 1024)."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def placeholder(part: ImagePart | MediaPart) -> str:
    """A short text stand-in for media a target cannot hold, e.g. ``[image: image/png, 34 KB]``."""
    if isinstance(part, ImagePart):
        details = [part.media_type or "image"]
        if part.data:
            details.append(human_size(part.size or 0))
        elif part.url:
            details.append(part.url if not part.url.startswith("data:") else "inline")
        return f"[image: {', '.join(details)}]"
    details = [d for d in (part.name, part.media_type) if d]
    if part.size is not None:
        details.append(human_size(part.size))
    if part.url and not part.url.startswith("data:"):
        details.append(part.url)
    return f"[{part.kind}: {', '.join(details)}]" if details else f"[{part.kind}]"


def session_start(session: Session) -> int | None:
    """The session's start time: its own, else its first message time."""
    if session.started_at is not None and (start := epoch_ms(session.started_at)) is not None:
        return start
    if isinstance(session, StreamedSession):
        return session.first_time
    return first_time(session.messages, held=epoch_ms)


def usage_totals(session: Session) -> dict[str, Any] | None:
    """Summed usage over the session's messages, or None when no message has usage or it all
    adds up to nothing (the zero usage pi's types make every assistant carry is no figure)."""
    facts = HeaderFacts()
    for message in session.messages:
        if message.usage is not None:
            facts.add_usage(message.usage)
    totals, cost = facts.usage, facts.cost
    if totals is None:
        return None
    if not (totals.input or totals.output or totals.cache_read or totals.cache_write or cost):
        return None
    result: dict[str, Any] = {
        "input": totals.input,
        "output": totals.output,
        "cacheRead": totals.cache_read,
        "cacheWrite": totals.cache_write,
    }
    if cost:
        result["cost"] = round(cost, 6)
    return result


def header_metadata(session: Session) -> dict[str, Any]:
    """The session facts that go into any output header besides type/id/harness/name.

    Keys (each only when known): ``source``, ``sourceVersion``, ``cwd``, ``git``, ``startedAt``
    (epoch ms), ``usage`` (totals), ``subagents`` (child session ids and keys), then the
    converter's free `Session.metadata` keys; a metadata key that would clash with one of these
    or with a header field of either target is written inside a ``metadata`` object instead,
    together with the keys of a ``metadata`` object the source header had (so converting a
    converted file nests nothing deeper).
    """
    header: dict[str, Any] = {}
    if session.source_format:
        header["source"] = session.source_format
    if session.source_version:
        header["sourceVersion"] = session.source_version
    if session.cwd:
        header["cwd"] = session.cwd
    if session.git:
        header["git"] = session.git
    start = None if session.started_at is None else epoch_ms(session.started_at)
    if start is not None:
        header["startedAt"] = start
    totals = usage_totals(session)
    if totals:
        header["usage"] = totals
    if session.children:
        header["subagents"] = [
            {"id": child.id, "key": child.key} if child.key else {"id": child.id}
            for child in session.children
        ]
    clashing: dict[str, Any] = {}
    for key, value in session.metadata.items():
        if key == "metadata" and type(value) is dict:
            clashing.update(value)  # a header's own metadata object (ours read back): not nested
        elif key in header or key in RESERVED_HEADER_KEYS:
            clashing[key] = value
        else:
            header[key] = value
    if clashing:
        header["metadata"] = clashing
    return header


#: The codes a writer reports what the target cannot hold with (warnings; the CLI counts them in
#: its summary and lists them with ``-v``).
DROP_CODES = frozenset(("media-placeholder", "kind-flattened", "field-dropped"))


class Lost:
    """What a target has no place for in a message: the `fields` it drops (each counted when
    set), besides ``refusal`` and ``rolled_back``, which neither target has; `other` counts
    the media and kind of a message that has more than one text or a kind (`Dropped.count`)."""

    __slots__ = ("fields", "other", "plain", "read")

    def __init__(self, fields: tuple[str, ...], other: Callable[[Message, Dropped], None]
                 ) -> None:
        self.fields = fields
        self.other = other
        #: a message's kind, refusal, rolled_back and `fields` in one call, and their values
        #: in a message that has none of them
        self.read = attrgetter("kind", "refusal", "rolled_back", *fields)
        self.plain = (None, False, False, *(None,) * len(fields))


class Dropped:
    """What writing one session could not put in the target, counted (sqlglot's
    ``Generator.unsupported``): media written as placeholders, message kinds the target has no
    place for, and message fields with no place (`Lost`). `report` sends one warning per
    code."""

    __slots__ = ("fields", "kinds", "lost", "media")

    def __init__(self, lost: Lost) -> None:
        self.lost = lost
        self.media = 0
        self.kinds: defaultdict[str, int] = defaultdict(int)  # cheaper to make than a Counter
        self.fields: defaultdict[str, int] = defaultdict(int)

    def count(self, message: Message) -> None:
        """Count what the target has no place for in `message`. A plain message (no kind, one
        text part or none, none of the lost fields), most of any session, costs a comparison
        and a look at its content; the target's `Lost.other` looks at the others part by
        part."""
        lost = self.lost
        values = lost.read(message)
        if values != lost.plain:
            fields = self.fields
            if message.refusal:
                fields["refusal"] += 1
            if message.rolled_back:
                fields["rolled_back"] += 1
            for name in compress(lost.fields, map(is_not, values[3:], repeat(None))):
                fields[name] += 1
        content = message.content
        if values[0] is not None or len(content) > 1 or (
            content and type(content[0]) is not TextPart
        ):
            lost.other(message, self)
        # a time outside the years 1-9999, which only a session built by hand can have
        if message.timestamp is not None and epoch_ms(message.timestamp) is None:
            self.fields["timestamp that is no time"] += 1

    @staticmethod
    def nothing_in(message: Message) -> bool:
        """Whether `message`'s content is empty or one text part, so that there is nothing in it
        to count (the cheap test most messages pass; the others are looked at part by part)."""
        content = message.content
        return not content or (len(content) == 1 and type(content[0]) is TextPart)

    def media_of(self, message: Message, kept_images: bool) -> None:
        """Count the media parts of `message` (images too unless the target keeps them)."""
        for part in message.content:
            kind = type(part)
            if kind is MediaPart or (kind is ImagePart and not kept_images):
                self.media += 1

    def report(self, problems: Problems, target: str, session: Session) -> None:
        """One warning per kind of loss, naming the session."""
        where = f"session {session.id}: {target}"
        if self.media:
            problems.warning(None, "media-placeholder",
                             f"{where} cannot hold {self.media} image(s) or media: "
                             "written as text placeholders")
        if self.kinds:
            kinds = ", ".join([f"{kind} ({n})" for kind, n in sorted(self.kinds.items())])
            problems.warning(None, "kind-flattened",
                             f"{where} has no place for the message kinds {kinds}: "
                             "written as their roles")
        if self.fields:
            fields = ", ".join([f"{name} ({n})" for name, n in sorted(self.fields.items())])
            problems.warning(None, "field-dropped",
                             f"{where} has no place for {fields}: left out")


def is_signed(message: Message) -> bool:
    """True when a message carries a thinking signature or redacted thinking."""
    for part in message.content:
        if type(part) is ThinkingPart and (part.signature or part.redacted):
            return True
    return False


PLAIN_KINDS = (None, MessageKind.SYSTEM)
