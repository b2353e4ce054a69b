"""Check STS and Pi session files against their specs (``shared/formats/STS.md``, ``pi.md``).

`validate_bytes` returns every problem found, each with its line number and a stable code. The
checks are those a reader of the file relies on: the header, roles, content types, tool-call
arguments that are one valid JSON string (STS) or an object (Pi), integer and plausible
timestamps, tool results that answer an earlier call, unique ids, and Pi's parentId chain.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import orjson

from sts import codes
from sts.formats.pi import STOP_REASONS as PI_STOP_REASONS
from sts.formats.sts import MESSAGE_FIELDS as STS_MESSAGE_FIELDS
from sts.model import ROLES
from sts.problems import Problem
from sts.timestamps import epoch_ms, iso_to_ms

# Plausible epoch-ms range: 2000-01-01 to 2100-01-01.
MIN_MS = 946_684_800_000
MAX_MS = 4_102_444_800_000
PI_ROLES = frozenset(
    ("user", "assistant", "toolResult", "bashExecution", "custom", "system", "branchSummary",
     "compactionSummary", "hookMessage")
)
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite")
# Each code's severity is in sts/codes.py: a few are warnings, legal but worth knowing (a result
# whose call is not in the file, a Pi header without the Hub's harness field, a time outside
# 2000-2100).
# How sure a converter must be before a file is called a source file rather than a bad target.
SURE_SOURCE = 0.5


def validate_bytes(data: bytes, fmt: str | None = None, name: str = "<input>") -> list[Problem]:
    """Validate the bytes of one STS or Pi file; `fmt` is detected from the header when None.

    Problems come in line order (file-level ones, with no line, first).
    """
    found: list[Problem] = []
    validate_stream(io.BytesIO(data), found.append, fmt, name)
    return sorted(found, key=lambda p: p.line or 0)


def validate_stream(stream: BinaryIO, sink: Callable[[Problem], None], fmt: str | None = None,
                    name: str = "<input>") -> None:
    """Validate one STS or Pi file read line by line from the seekable `stream`, each problem
    passed to `sink` as it is found (in line order; a missing final newline last): memory holds
    one line and the ids seen, whatever the file's size."""
    if fmt not in (None, "sts", "pi"):
        raise ValueError(f"unknown format {fmt!r}: expected 'sts' or 'pi'")
    checker = _Checker(name, sink)
    records = checker.parse(stream)
    first = next(records, None)
    if first is None:
        checker.add(None, "empty", "no JSON lines: not a session file")
        return
    if fmt is None:
        fmt = detect_target_format(first[1])
        if not is_target_header(first[1]):
            source = source_format_of(_head(stream))
            if source is not None:
                checker.add(None, "source-format", f"this is a {source} file, not STS or Pi: "
                            f"convert it first (sts convert {name})")
                return
    if fmt == "pi":
        checker.check_pi(first, records)
    else:
        checker.check_sts(first, records)
    for _ in records:  # lines after a header that ends the check are still parsed (and reported)
        pass


def _head(stream: BinaryIO) -> bytes:
    """The first bytes of `stream` (up to one past `sts.io.HEAD_SIZE`, to tell whether that is
    all), leaving its position where it was."""
    from sts.io import HEAD_SIZE

    position = stream.tell()
    stream.seek(0)
    head = stream.read(HEAD_SIZE + 1)
    stream.seek(position)
    return head


def is_target_header(header: Any) -> bool:
    """True for a first line that is an STS or Pi header (``"type": "session"``)."""
    return type(header) is dict and header.get("type") == "session"


def source_format_of(data: bytes) -> str | None:
    """The name of the source format `data` (a file, or its head) is in, when a converter other
    than STS and Pi is sure of it (a Codex rollout, a Claude Code transcript...); else None."""
    from sts.converters.registry import rank
    from sts.io import HEAD_SIZE
    from sts.peek import Peek

    head = data[:HEAD_SIZE]
    scored = rank(Peek(head, complete=len(head) == len(data)))
    if scored and scored[0][0] >= SURE_SOURCE and scored[0][1].name not in ("sts", "pi"):
        return scored[0][1].name
    return None


def detect_target_format(header: Any) -> str:
    """``pi`` for a header with a version, or a pi-like header without a harness; else ``sts``."""
    if type(header) is not dict:
        return "sts"
    if "version" in header:
        return "pi"
    return "pi" if "harness" not in header and ("cwd" in header or "timestamp" in header) else "sts"




class _Checker:
    def __init__(self, name: str, sink: Callable[[Problem], None]) -> None:
        self.name = name
        self.sink = sink

    def add(self, line: int | None, code: str, text: str) -> None:
        severity = codes.severity_when_validating(code)
        codes.check(code, severity, "validating")
        self.sink(Problem(self.name, line, code, text, severity))

    def parse(self, stream: BinaryIO) -> Iterator[tuple[int, Any]]:
        raw = b""
        for number, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                self.add(number, "malformed-json", f"not valid UTF-8 JSON: {exc}")
                continue
            if type(value) is not dict:
                self.add(number, "not-an-object", "line is not a JSON object")
                continue
            yield number, value
        if raw and not raw.endswith(b"\n"):
            self.add(None, "no-final-newline", "file does not end with a newline")

    # STS ---------------------------------------------------------------------------------

    def check_sts(self, first: tuple[int, dict[str, Any]],
                  records: Iterator[tuple[int, dict[str, Any]]]) -> None:
        line, header = first
        if header.get("type") != "session":
            self.add(line, "bad-header", 'first line must have "type": "session"')
        for key in ("harness", "id"):
            if type(header.get(key)) is not str or not header.get(key):
                self.add(line, "bad-header", f"header {key!r} must be a non-empty string")
        if "name" in header and type(header["name"]) is not str:
            self.add(line, "bad-header", "header 'name' must be a string")
        call_ids: set[str] = set()
        for line, record in records:
            if record.get("type") == "session":
                self.add(line, "second-header", "a second header: one file holds one session")
                continue
            message = record.get("message")
            if record.get("type") != "message" or type(message) is not dict:
                self.add(line, "bad-line", 'line must be {"type": "message", "message": {...}}')
                continue
            self.check_sts_message(line, message, call_ids)

    def check_sts_message(self, line: int, message: dict[str, Any], call_ids: set[str]) -> None:
        role = message.get("role")
        if type(role) is not str or role not in ROLES:
            self.add(line, "unknown-role", f"unknown role {role!r}")
        if type(message.get("content")) is not str:
            self.add(line, "content-not-string", "content must be a string")
        extra = message.keys() - STS_MESSAGE_FIELDS
        if extra:
            self.add(line, "extra-field", f"fields outside the spec: {sorted(extra)}")
        if "reasoningContent" in message and type(message["reasoningContent"]) is not str:
            self.add(line, "bad-reasoning", "reasoningContent must be a string")
        if "model" in message and type(message["model"]) is not str:
            self.add(line, "bad-model", "model must be a string")
        if "timestamp" in message:
            self.check_ms(line, message["timestamp"])
        calls = message.get("toolCalls")
        if "toolCalls" in message:
            if role != "assistant":
                self.add(line, "misplaced-tool-calls", "toolCalls on a non-assistant message")
            self.check_sts_calls(line, calls, call_ids)
        if "toolCallId" in message:
            call_id = message["toolCallId"]
            if role != "tool":
                self.add(line, "misplaced-tool-call-id", "toolCallId on a non-tool message")
            if type(call_id) is not str:
                self.add(line, "bad-tool-call-id", "toolCallId must be a string")
            elif call_id not in call_ids:
                self.add(line, "orphan-result", f"tool result answers no earlier call {call_id!r}")

    def check_sts_calls(self, line: int, calls: Any, call_ids: set[str]) -> None:
        if type(calls) is not list:
            self.add(line, "bad-tool-calls", "toolCalls must be a list")
            return
        for call in calls:
            function = call.get("function") if type(call) is dict else None
            if type(function) is not dict or type(call.get("id")) is not str:
                self.add(line, "bad-tool-call", 'a tool call needs "id" and "function"')
                continue
            if call["id"] in call_ids:
                self.add(line, "duplicate-id", f"tool call id {call['id']!r} used twice")
            call_ids.add(call["id"])
            if type(function.get("name")) is not str:
                self.add(line, "bad-tool-call", "function.name must be a string")
            arguments = function.get("arguments")
            if type(arguments) is not str:
                self.add(line, "bad-arguments", "function.arguments must be a JSON string")
                continue
            try:
                orjson.loads(arguments)
            except orjson.JSONDecodeError:
                self.add(line, "bad-arguments", "function.arguments is not valid JSON")

    # Pi ----------------------------------------------------------------------------------

    def check_pi(self, first: tuple[int, dict[str, Any]],
                 records: Iterator[tuple[int, dict[str, Any]]]) -> None:
        line, header = first
        if header.get("type") != "session" or type(header.get("id")) is not str:
            self.add(line, "bad-header", 'header needs "type": "session" and a string "id"')
        if header.get("version") != 3:
            version = header.get("version", 1)
            self.add(line, "bad-version", f"a Pi version-{version} session, not version 3: pi "
                     f"migrates it when it opens it; convert it first (sts convert {self.name} "
                     "--to pi)")
            return
        if "timestamp" not in header:
            self.add(line, "no-timestamp", "header has no timestamp (the session's start)")
        elif not self.iso(header["timestamp"]):
            self.add(line, "bad-timestamp", "header timestamp must be an ISO-8601 string")
        if type(header.get("cwd")) is not str:
            self.add(line, "bad-header", 'header needs a string "cwd" ("" when unknown)')
        if "harness" not in header:
            self.add(line, "no-harness", "no harness field: the Hub will not know the harness")
        elif type(header["harness"]) is not str:
            self.add(line, "bad-header", "harness must be a string")
        seen: set[str] = set()
        call_ids: set[str] = set()
        for line, entry in records:
            entry_id = entry.get("id")
            if type(entry.get("type")) is not str:
                self.add(line, "bad-entry", "entry has no type")
            if type(entry_id) is not str:
                self.add(line, "bad-entry", "entry has no string id")
            elif entry_id in seen:
                self.add(line, "duplicate-id", f"entry id {entry_id!r} used twice")
            parent = entry.get("parentId")
            if "parentId" not in entry:
                self.add(line, "broken-chain", "entry has no parentId (null for a root)")
            elif parent is not None and (type(parent) is not str or parent not in seen):
                self.add(line, "broken-chain", f"parentId {parent!r} is not an earlier entry")
            if "timestamp" not in entry:
                self.add(line, "no-timestamp", "entry has no timestamp")
            elif not self.iso(entry["timestamp"]):
                self.add(line, "bad-timestamp", "entry timestamp must be an ISO-8601 string")
            if type(entry_id) is str:
                seen.add(entry_id)
            kind = entry.get("type")
            if kind == "message":
                self.check_pi_message(line, entry.get("message"), call_ids)
            elif kind == "compaction":
                if type(entry.get("summary")) is not str:
                    self.add(line, "bad-compaction", "compaction summary must be a string")
                if type(entry.get("firstKeptEntryId")) is not str:
                    self.add(line, "bad-compaction", "compaction needs firstKeptEntryId")
            elif kind == "custom_message":
                content = entry.get("content")
                if type(content) is not str and type(content) is not list:
                    self.add(line, "bad-content", "custom_message content must be text or blocks")

    def check_ms(self, line: int, value: Any) -> None:
        """A message time must be integer epoch ms of the years 1-9999; one outside 2000-2100
        is only a warning, one that reads as 2000-2100 in seconds is an error (a viewer would
        show 1970)."""
        if type(value) is not int:
            self.add(line, "bad-timestamp", f"timestamp {value!r} is not integer epoch ms")
        elif MIN_MS // 1000 <= value <= MAX_MS // 1000:
            self.add(line, "timestamp-in-seconds",
                     f"timestamp {value} is in seconds, not milliseconds (it would show as 1970)")
        elif epoch_ms(value) is None:
            self.add(line, "bad-timestamp", f"timestamp {value} is no time of the years 1-9999")
        elif not MIN_MS <= value <= MAX_MS:
            self.add(line, "implausible-timestamp", f"timestamp {value} is not in 2000-2100")

    def iso(self, value: Any) -> bool:
        return type(value) is str and iso_to_ms(value) is not None

    def check_pi_message(self, line: int, message: Any, call_ids: set[str]) -> None:
        if type(message) is not dict:
            self.add(line, "bad-message", "message entry has no message object")
            return
        role = message.get("role")
        if type(role) is not str or role not in PI_ROLES:
            self.add(line, "unknown-role", f"unknown role {role!r}")
            return
        if "timestamp" not in message:
            self.add(line, "no-timestamp", "message has no timestamp")
        else:
            self.check_ms(line, message["timestamp"])
        content = message.get("content")
        if role == "assistant":
            self.check_pi_assistant(line, message, call_ids)
        elif role == "toolResult":
            call_id = message.get("toolCallId")
            if type(call_id) is not str:
                self.add(line, "bad-tool-result", "toolResult needs a string toolCallId")
            elif call_id not in call_ids:
                self.add(line, "orphan-result", f"tool result answers no earlier call {call_id!r}")
            if type(message.get("toolName")) is not str:
                self.add(line, "bad-tool-result", "toolResult needs a string toolName")
            if type(message.get("isError")) is not bool:
                self.add(line, "bad-tool-result", "toolResult needs a boolean isError")
            self.check_blocks(line, content, ("text", "image"))
        elif role == "user" and type(content) is not str:
            self.check_blocks(line, content, ("text", "image"))

    def check_pi_assistant(self, line: int, message: dict[str, Any], call_ids: set[str]) -> None:
        content = message.get("content")
        self.check_blocks(line, content, ("text", "thinking", "toolCall"))
        for block in content if type(content) is list else ():
            if type(block) is not dict or block.get("type") != "toolCall":
                continue
            if type(block.get("id")) is not str or type(block.get("name")) is not str:
                self.add(line, "bad-tool-call", "toolCall needs string id and name")
                continue
            if type(block.get("arguments")) is not dict:
                self.add(line, "bad-arguments", "toolCall arguments must be an object")
            if block["id"] in call_ids:
                self.add(line, "duplicate-id", f"tool call id {block['id']!r} used twice")
            call_ids.add(block["id"])
        usage = message.get("usage")
        usage = usage if type(usage) is dict else {}
        cost = usage.get("cost")
        if type(cost) is not dict or any(
            type(usage.get(k)) not in (int, float) for k in USAGE_KEYS
        ) or type(cost.get("total")) not in (int, float):
            self.add(line, "bad-usage", "assistant usage needs all four counts and cost.total")
        stop = message.get("stopReason")
        if type(stop) is not str or stop not in PI_STOP_REASONS:
            self.add(line, "bad-stop-reason", f"unknown stopReason {stop!r}")

    def check_blocks(self, line: int, content: Any, allowed: tuple[str, ...]) -> None:
        if type(content) is not list:
            self.add(line, "bad-content", "content must be an array of blocks")
            return
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind not in allowed:
                self.add(line, "bad-block", f"content block type {kind!r} not allowed here")
            elif kind == "text" and type(block.get("text")) is not str:
                self.add(line, "bad-block", "text block needs a string text")
            elif kind == "image" and (
                type(block.get("data")) is not str or type(block.get("mimeType")) is not str
            ):
                self.add(line, "bad-block", "image block needs string data and mimeType")
