"""Reading JSON Lines and JSON documents the way every converter needs it.

- Lines are split on ``\\n`` only (JSON strings may hold raw U+2028, which `str.splitlines`
  would split on); a UTF-8 BOM and ``\\r\\n`` endings are tolerated; blank lines hold no data and
  are passed over.
- Each line is parsed once with orjson. Only a line orjson rejects takes the slow path, which
  repairs what can be repaired without changing meaning (lone surrogate escapes and invalid UTF-8
  become U+FFFD, reported as warnings), optionally splits two records glued on one line, and
  reports everything else as an error with its line number.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, NamedTuple
from zlib import crc32

import orjson

from sts.problems import Problems, shorten

BOM = b"\xef\xbb\xbf"
# Patterns of damaged input, compiled when first needed (re's cache): start-up.
_SURROGATE = "[\ud800-\udfff]"
# A JSON escape: a valid surrogate pair, a lone surrogate (group 1), or any other escape.
_ESCAPE = (
    rb"(?s)\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    rb"|(u[dD][89a-fA-F][0-9a-fA-F]{2})|.)"
)
_LONE_ESCAPE_HINT = rb"\\u[dD][89a-fA-F]"
_TRAILING = "unexpected content after document"
_EOF = "unexpected end of data"
_INFINITE = "number is infinity"
_INFINITY = float("inf")
MAX_DEPTH = 1024  # orjson's limit
RECOVERY_TRIES = 64
RECORD_KEYS = frozenset(("uuid", "sessionId", "timestamp"))


def iter_records(
    stream: Iterable[bytes],
    problems: Problems,
    *,
    split_glued: bool = False,
    objects_only: bool = True,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, record)`` for every readable line of a JSONL stream.

    With `split_glued`, a line holding several JSON values back to back yields each of them
    (with the same line number), and complete records glued after a cut-off one are recovered
    (the cut-off part is reported); otherwise such a line is an error, as it is for pi itself. With
    `objects_only`, a line that is valid JSON but not an object is reported and skipped.
    """
    loads = orjson.loads
    lineno = 0
    for raw in stream:
        lineno += 1
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[3:]
        try:
            record = loads(raw)
        except orjson.JSONDecodeError:
            if raw.strip():
                for record in _slow_records(raw, lineno, problems, split_glued, objects_only):
                    yield lineno, record
            continue
        if type(record) is dict or not objects_only:
            yield lineno, record
        else:
            problems.error(lineno, "not-an-object", "line is JSON but not an object", raw)


def iter_records_at(
    stream: Iterable[bytes], problems: Problems, *, split_glued: bool = False, start: int = 0,
    sums: array[int] | None = None,
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """`iter_records` (objects only) with where each record's line starts: ``(line_number,
    offset, record)``, `offset` counted from `start` (the stream's position), so that a seekable
    stream gives the record again (`reread`). A record its line's bytes alone do not give back (a
    repaired line, records glued on one line) has offset -1. `sums` gets each line's CRC-32
    (by line number - 1), which `reread` checks."""
    loads = orjson.loads
    lineno = 0
    offset = start
    for raw in stream:
        lineno += 1
        at = offset
        offset += len(raw)
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[3:]
            at += 3
        if sums is not None:
            sums.append(crc32(raw))
        try:
            record = loads(raw)
        except orjson.JSONDecodeError:
            if raw.strip():
                for record in _slow_records(raw, lineno, problems, split_glued, True):
                    yield lineno, -1, record
            continue
        if type(record) is dict:
            yield lineno, at, record
        else:
            problems.error(lineno, "not-an-object", "line is JSON but not an object", raw)


def reread(stream: BinaryIO, offset: int, crc: int | None = None) -> Any:
    """The record `iter_records_at` found on the line at `offset`, read and parsed again; None
    when that line is no longer one JSON value, or not the bytes whose CRC-32 was `crc` (the
    file changed since)."""
    stream.seek(offset)
    raw = stream.readline()
    if crc is not None and crc32(raw) != crc:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _slow_records(raw: bytes, lineno: int, problems: Problems, split_glued: bool,
                  objects_only: bool) -> Iterator[Any]:
    """The records of a line orjson rejected (`_parse_slowly`), non-objects reported when only
    objects are wanted."""
    for record in _parse_slowly(raw, lineno, problems, split_glued):
        if type(record) is dict or not objects_only:
            yield record
        else:
            problems.error(lineno, "not-an-object", "line is JSON but not an object", raw)


def reparse(raw: bytes, lineno: int) -> Any:
    """The record `iter_records` read from line `lineno` (not the first: no BOM), parsed again
    the same way when it is needed a second time; what the line's repair reports was reported
    when it was first read."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _parse_slowly(raw, lineno, Problems(sink=None), False)[0]


def loads_document(data: bytes, problems: Problems) -> Any:
    """Parse a whole JSON document, repairing lone surrogates and invalid UTF-8 like lines.

    Returns None (after reporting an error: ``empty``, ``malformed-json``, ``too-deep`` or
    ``truncated-document``) when the document is not valid JSON.
    """
    if data.startswith(BOM):
        data = data[3:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    if not data.strip():
        problems.error(None, "empty", "empty input: no JSON document")
        return None
    data = _repair(data, None, problems)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if exc.msg.startswith(_INFINITE):
            kept = _loads_huge_numbers(data, exc.lineno, problems)
            if kept is not None:
                return kept
        code, text = _diagnose(exc, data, cut_off=True)
        if code == "truncated-line":
            code = "truncated-document"
        problems.error(exc.lineno, code, text)
        return None


def loads_repaired(data: bytes) -> Any:
    """Parse JSON bytes, silently repairing lone surrogates and invalid UTF-8 (for sniffing).

    Raises `orjson.JSONDecodeError` when the bytes are not JSON even after repair.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if exc.msg.startswith(_TRAILING):  # a whole value, then more: no repair changes that
            raise
        return orjson.loads(_repair(data, None, Problems(sink=None)))


def clean_text(value: str) -> str:
    """Replace lone surrogates (which cannot be written as UTF-8) by U+FFFD."""
    return re.sub(_SURROGATE, "\ufffd", value)


def clean_value(value: Any) -> Any:
    """A copy of a JSON value with lone surrogates in its strings and keys replaced by U+FFFD.
    Raises RecursionError on values nested deeper than Python recurses."""
    kind = type(value)
    if kind is str:
        return clean_text(value)
    if kind is dict:
        return {clean_text(str(k)): clean_value(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [clean_value(v) for v in value]
    return value


_KEY_WORDS = {True: "true", False: "false", None: "null"}


def dumps_deep(value: Any, default: Callable[[Any], Any] | None = None) -> str:
    """Compact JSON text of `value` however deeply it nests (no recursion: orjson writes 255
    levels and the standard library about 1000, while orjson reads 1024), with lone surrogates
    replaced by U+FFFD. `default` turns a value JSON has no type for into one it has."""
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, value)]  # (True, text to copy) or (False, value)
    while stack:
        is_text, item = stack.pop()
        if is_text:
            out.append(item)
            continue
        kind = type(item)
        if kind is dict:
            pending: list[tuple[bool, Any]] = [(True, "}")]
            for index, (key, member) in enumerate(reversed(item.items())):
                pending.append((False, member))
                pending.append((True, _string(_key_text(key)) + ":"))
                if index < len(item) - 1:
                    pending.append((True, ","))
            pending.append((True, "{"))
            stack.extend(pending)
        elif kind is list or kind is tuple:
            pending = [(True, "]")]
            for index, member in enumerate(reversed(item)):
                pending.append((False, member))
                if index < len(item) - 1:
                    pending.append((True, ","))
            pending.append((True, "["))
            stack.extend(pending)
        elif kind is str:
            out.append(_string(item))
        else:
            try:
                out.append(orjson.dumps(item).decode())
            except orjson.JSONEncodeError:
                if isinstance(item, int):  # past 64 bits
                    out.append(str(int(item)))
                elif default is not None:
                    stack.append((False, default(item)))
                else:
                    raise
    return "".join(out)


def _key_text(key: Any) -> str:
    """An object key as JSON writes it: ``true``, ``false``, ``null`` or the key's text."""
    if type(key) is str:
        return key
    if key is None or type(key) is bool:
        return _KEY_WORDS[key]
    return str(key)


def _string(text: str) -> str:
    try:
        return orjson.dumps(text).decode()
    except orjson.JSONEncodeError:
        return orjson.dumps(clean_text(text)).decode()


def _parse_slowly(raw: bytes, lineno: int, problems: Problems, split_glued: bool) -> list[Any]:
    """Repair and parse a line orjson rejected; report what was repaired or lost.

    Everything here is iterative (orjson on repaired bytes), so no input, however deeply
    nested, can raise RecursionError.
    """
    data = _repair(raw.strip(), lineno, problems)
    try:
        return [orjson.loads(data)]
    except orjson.JSONDecodeError as exc:
        # the facts, not the exception: one kept would hold its traceback, and through it this
        # frame, in a reference cycle that only the (paused) garbage collector frees
        error = Failure(exc.msg, exc.pos, exc.colno)
    if error.msg.startswith(_INFINITE):
        kept = _loads_huge_numbers(data, lineno, problems)
        if kept is not None:
            return [kept]
    values = _split_glued(data) if error.msg == _TRAILING else None
    if values is not None and split_glued:
        problems.warning(
            lineno, "glued-records", f"{len(values)} records glued on one line, split apart"
        )
        return values
    if values is not None:
        text = f"{len(values)} JSON records glued on one line: line skipped"
        problems.error(lineno, "malformed-json", text, raw)
        return []
    recovered = _recover_tail(data) if split_glued and raw.endswith(b"\n") else None
    if recovered is not None:
        start, values = recovered
        text = (f"a cut-off record (columns 1-{start}) glued to the next one: the cut-off part "
                f"skipped, {len(values)} record(s) after it kept")
        problems.error(lineno, "truncated-record", text, raw[:start])
        return values
    code, text = _diagnose(error, data, cut_off=not raw.endswith(b"\n"))
    problems.error(lineno, code, text, raw)
    return []


def _loads_huge_numbers(data: bytes, lineno: int, problems: Problems) -> Any:
    """Parse a line holding a number too large for a double (``1e400``), each such number kept
    as its text and reported; None when the line is not JSON for another reason."""
    huge: list[str] = []

    def number(text: str) -> float | str:
        value = float(text)
        if value in (_INFINITY, -_INFINITY):
            huge.append(text)
            return text
        return value

    def constant(text: str) -> Any:  # NaN and Infinity are not JSON
        raise ValueError(text)

    try:
        value = json.loads(data, parse_float=number, parse_constant=constant)
    except (ValueError, RecursionError):
        return None
    for text in huge:
        problems.warning(lineno, "number-out-of-range",
                         f"number {shorten(text)} is too large for a double: kept as the text")
    return value


def _repair(data: bytes, lineno: int | None, problems: Problems) -> bytes:
    """`data` with invalid UTF-8 and lone surrogate escapes replaced by U+FFFD (warned)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.warning(
            lineno, "invalid-utf8", f"invalid UTF-8 at byte {exc.start} replaced by U+FFFD"
        )
        data = data.decode("utf-8", "replace").encode("utf-8")
    if re.search(_LONE_ESCAPE_HINT, data) is None:
        return data
    count = [0]

    def replace(match: re.Match[bytes]) -> bytes:
        if match.group(1) is None:
            return match.group(0)
        count[0] += 1
        return b"\\ufffd"

    data = re.sub(_ESCAPE, replace, data)
    if count[0]:
        problems.warning(
            lineno, "lone-surrogate", f"{count[0]} lone surrogate escape(s) replaced by U+FFFD"
        )
    return data


def _split_glued(data: bytes) -> list[Any] | None:
    """Split ``{...}{...}`` into its values, or None when the text is not such a run.

    Each value is decoded where it starts in the one decoded text (``raw_decode`` at an index),
    so that a line of n glued records takes time in proportion to its length, not n times it.
    """
    text = data.decode("utf-8")
    values: list[Any] = []
    index, end = 0, len(text)
    try:
        while index < end:
            value, index = _DECODER.raw_decode(text, index)
            values.append(value)
            while index < end and text[index] in _JSON_SPACE:
                index += 1
    except (ValueError, RecursionError):
        return None
    return values if len(values) > 1 else None


class Failure(NamedTuple):
    """What `_diagnose` needs of an orjson error."""

    msg: str
    pos: int
    colno: int


def _not_json(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_not_json)
_JSON_SPACE = " \t\r\n"


def _recover_tail(data: bytes) -> tuple[int, list[Any]] | None:
    """Find complete records after a cut-off one on the same line (``{"a":1,"b{"c":2}``).

    Tries each ``{"`` after the start, left to right (at most `RECOVERY_TRIES` of them); the
    first from which the rest of the line reads as one record or a glued run of records wins. A
    record must look like a line of its own (an object with ``type`` and one of `RECORD_KEYS`),
    so that a nested block that happens to end a cut line is never taken for one. Returns the
    byte offset and the records, or None.
    """
    position = 0
    for _ in range(RECOVERY_TRIES):
        position = data.find(b'{"', position + 1)
        if position < 0:
            return None
        rest = data[position:]
        values: list[Any] | None
        try:
            values = [orjson.loads(rest)]
        except orjson.JSONDecodeError as exc:
            values = _split_glued(rest) if exc.msg == _TRAILING else None
        if values is not None and all(_looks_like_record(v) for v in values):
            return position, values
    return None


def _looks_like_record(value: Any) -> bool:
    return type(value) is dict and "type" in value and not RECORD_KEYS.isdisjoint(value)


def _diagnose(
    exc: orjson.JSONDecodeError | Failure, data: bytes, cut_off: bool
) -> tuple[str, str]:
    """The problem code and text for JSON orjson rejects."""
    if "depth" in exc.msg or "recursion" in exc.msg.lower():
        return "too-deep", f"JSON nested deeper than {MAX_DEPTH} levels: cannot be read"
    length = len(data.decode("utf-8", "replace").rstrip())  # orjson counts characters
    if cut_off and (exc.msg == _EOF or exc.pos >= length - 1):
        return "truncated-line", "cut off: the JSON ends early (no closing brace)"
    return "malformed-json", f"not valid JSON: {exc.msg} at column {exc.colno}"
