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
from collections.abc import Iterator
from typing import Any, BinaryIO

import orjson

from sts.problems import Problems

BOM = b"\xef\xbb\xbf"
_SURROGATE = re.compile("[\ud800-\udfff]")
_DECODER = json.JSONDecoder()


def iter_records(
    stream: BinaryIO,
    problems: Problems,
    *,
    split_glued: bool = False,
    objects_only: bool = True,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, record)`` for every readable line of a JSONL stream.

    With `split_glued`, a line holding several JSON values back to back yields each of them
    (with the same line number); otherwise such a line is an error, as it is for pi itself. With
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
            if not raw.strip():
                continue
            records = _parse_slowly(raw, lineno, problems, split_glued)
        else:
            if type(record) is dict or not objects_only:
                yield lineno, record
            else:
                problems.error(lineno, "not-an-object", "line is JSON but not an object", raw)
            continue
        for record in records:
            if type(record) is dict or not objects_only:
                yield lineno, record
            else:
                problems.error(lineno, "not-an-object", "line is JSON but not an object", raw)


def loads_document(data: bytes, problems: Problems) -> Any:
    """Parse a whole JSON document, repairing lone surrogates and invalid UTF-8 like lines.

    Returns None (after reporting an error) when the document is not valid JSON.
    """
    if data.startswith(BOM):
        data = data[3:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    text = _decode(data, None, problems)
    try:
        value = json.loads(text)
    except RecursionError:
        problems.error(None, "too-deep", "JSON nested too deeply to read")
        return None
    except ValueError as exc:
        problems.error(_line_of(exc), "malformed-json", f"not valid JSON: {_reason(exc)}")
        return None
    return _repair_surrogates(value, None, problems)


def clean_text(value: str) -> str:
    """Replace lone surrogates (which cannot be written as UTF-8) by U+FFFD."""
    return _SURROGATE.sub("\ufffd", value)


def _parse_slowly(raw: bytes, lineno: int, problems: Problems, split_glued: bool) -> list[Any]:
    text = _decode(raw, lineno, problems)
    stripped = text.strip()
    try:
        value = json.loads(stripped)
    except RecursionError:
        problems.error(lineno, "too-deep", "JSON nested too deeply to read", raw)
        return []
    except ValueError as exc:
        values = _split_glued(stripped) if split_glued else None
        if values is not None:
            problems.warning(
                lineno, "glued-records", f"{len(values)} records glued on one line, split apart"
            )
            return [_repair_surrogates(v, lineno, problems) for v in values]
        if not raw.endswith(b"\n") and _looks_cut_off(exc, stripped):
            problems.error(lineno, "truncated-line", "last line is cut off (no closing brace)", raw)
        else:
            problems.error(lineno, "malformed-json", f"not valid JSON: {_reason(exc)}", raw)
        return []
    return [_repair_surrogates(value, lineno, problems)]


def _decode(raw: bytes, lineno: int | None, problems: Problems) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.warning(
            lineno, "invalid-utf8", f"invalid UTF-8 at byte {exc.start} replaced by U+FFFD"
        )
        return raw.decode("utf-8", "replace")


def _split_glued(text: str) -> list[Any] | None:
    """Split ``{...}{...}`` into its values, or None when the text is not such a run."""
    values: list[Any] = []
    position = 0
    try:
        while position < len(text):
            value, position = _DECODER.raw_decode(text, position)
            values.append(value)
            while position < len(text) and text[position] in " \t\r\n":
                position += 1
    except (ValueError, RecursionError):
        return None
    return values if len(values) > 1 else None


def _looks_cut_off(exc: ValueError, text: str) -> bool:
    return isinstance(exc, json.JSONDecodeError) and exc.pos >= len(text) - 1


def _reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc)


def _line_of(exc: ValueError) -> int | None:
    return exc.lineno if isinstance(exc, json.JSONDecodeError) else None


def _repair_surrogates(value: Any, lineno: int | None, problems: Problems) -> Any:
    """Return `value` with lone surrogates replaced, warning once if any were found."""
    found = [False]

    def repair(item: Any) -> Any:
        kind = type(item)
        if kind is str:
            if _SURROGATE.search(item):
                found[0] = True
                return _SURROGATE.sub("\ufffd", item)
            return item
        if kind is dict:
            return {repair(k): repair(v) for k, v in item.items()}
        if kind is list:
            return [repair(v) for v in item]
        return item

    repaired = repair(value)
    if found[0]:
        problems.warning(lineno, "lone-surrogate", "lone surrogate escape replaced by U+FFFD")
    return repaired
