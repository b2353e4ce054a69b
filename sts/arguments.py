"""Tool-call arguments: one deliberate policy for every shape sources give.

Sources give arguments as objects, as JSON text, as double-encoded JSON text (a JSON string whose
value is JSON text), or as text that is not JSON at all. Converters call `parse_arguments`;
writers call `arguments_json` (STS: exactly one JSON string) or `arguments_object` (Pi: an
object).

- an object or other JSON value is kept as it is;
- JSON text is parsed; a double-encoded string is decoded once more, and the original text is
  kept in `raw_arguments`;
- text that is not JSON is kept verbatim in `raw_arguments` (never dropped, never a crash); STS
  gets it as a JSON string literal, Pi as ``{"_raw": text}``;
- a non-object value for Pi (a list, a number) becomes ``{"_value": value}``.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.lines import clean_value, dumps_deep
from sts.model import ToolCall
from sts.spill import as_fragment, as_text

RAW_KEY = "_raw"
VALUE_KEY = "_value"


def parse_arguments(value: Any) -> tuple[Any, str | None]:
    """Return ``(arguments, raw_arguments)`` for a `ToolCall` from what the source gave."""
    if type(value) is not str:
        return value, None
    if not value.strip():
        return {}, None if value == "" else value
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None, value
    if type(parsed) is str:
        try:
            inner = orjson.loads(parsed)
        except orjson.JSONDecodeError:
            return parsed, None
        if type(inner) is dict or type(inner) is list:
            return inner, value
    return parsed, None


def depth_past(value: Any, limit: int) -> bool:
    """Whether `value` nests more than `limit` levels of objects and arrays (no recursion)."""
    if type(value) is not dict and type(value) is not list:
        return False
    stack = [(value, 1)]  # objects and arrays only, with their depth
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for member in item.values() if type(item) is dict else item:
            if type(member) is dict or type(member) is list:
                stack.append((member, depth + 1))
    return False


def arguments_json(call: ToolCall) -> str:
    """The arguments as one JSON text, for STS (lone surrogates written as U+FFFD; texts held in
    the temporary file, `sts.spill.keep_strings`, copied from it)."""
    value = call.arguments
    if value is None:
        if call.raw_arguments is None:
            return "{}"
        value = call.raw_arguments
    try:
        return orjson.dumps(value, default=as_fragment).decode()
    except orjson.JSONEncodeError:  # lone surrogates, or nested deeper than orjson writes
        pass
    try:  # the same text as a clean value would give when read back
        return orjson.dumps(clean_value(value), default=as_fragment).decode()
    except (orjson.JSONEncodeError, RecursionError):
        return dumps_deep(value, as_text)


#: How deep Pi arguments may nest: a Pi line holds them 5 levels down (entry, message, content,
#: the call, arguments), and readers (orjson, our validator) stop at 1024 levels.
PI_ARGUMENTS_DEPTH = 1024 - 5


def arguments_object(call: ToolCall) -> dict[str, Any]:
    """The arguments as an object, for Pi. An object nested deeper than a Pi line can hold
    (`PI_ARGUMENTS_DEPTH`) is kept whole as its JSON text under ``_raw``."""
    value = call.arguments
    if value is None:
        return {RAW_KEY: call.raw_arguments} if call.raw_arguments is not None else {}
    if depth_past(value, PI_ARGUMENTS_DEPTH - (type(value) is not dict)):
        return {RAW_KEY: arguments_json(call)}
    return value if type(value) is dict else {VALUE_KEY: value}
