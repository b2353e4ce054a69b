"""The `Session` model as stable, readable JSON, and back: what reader snapshots hold and what
writer fixtures are written in.

`render` walks the model's dataclass fields in declaration order and leaves out every field that
holds its default (and `NOT_RENDERED`), so a snapshot shows what the reader set and nothing
else. Parts carry a ``type`` (``text``, ``image``, ``media``, ``thinking``); enums are their
values; a text kept in the spill file is read back. `load` is the inverse: ``load(render(s))``
writes the same STS and Pi bytes as ``s`` (tested for every reader case), so a rendering leaves
out nothing a writer reads.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from enum import Enum
from typing import Any

from sts import model
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    Session,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)

PART_TYPES: dict[str, type] = {
    "text": TextPart, "image": ImagePart, "media": MediaPart, "thinking": ThinkingPart,
}
PART_NAMES = {cls: name for name, cls in PART_TYPES.items()}
#: Fields no writer reads that name a place on this machine (`Session.source_file`).
NOT_RENDERED = frozenset(("source_file",))


def render(sessions: list[Session]) -> bytes:
    """The sessions (sub-agents nested under ``children``) as indented JSON, newline-ended."""
    return json.dumps([_plain(s) for s in sessions], ensure_ascii=False, indent=1).encode() + b"\n"


def load(data: bytes) -> list[Session]:
    """The sessions `render` wrote."""
    return [_build(Session, item) for item in json.loads(data)]


def _plain(value: Any) -> Any:
    if type(value) is TextPart:
        return {"type": "text", "text": value.text}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        if type(value) in PART_NAMES:
            out["type"] = PART_NAMES[type(value)]
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.name not in NOT_RENDERED and not _is_default(f, item):
                out[f.name] = _plain(item)
        return out
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"no JSON rendering for {type(value).__name__}: add one to tests/model_json")


def _is_default(f: dataclasses.Field[Any], value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return value == f.default and type(value) is type(f.default)
    if f.default_factory is not dataclasses.MISSING:
        return value == f.default_factory()
    return False


def _build(cls: type, data: dict[str, Any]) -> Any:
    """An instance of model class `cls` from its rendering, nested values typed by the hints."""
    if cls is TextPart:
        return TextPart(data["text"])
    hints = typing.get_type_hints(cls, vars(model))
    kwargs = {
        key: _typed(hints[key], value) for key, value in data.items() if key != "type"
    }
    return cls(**kwargs)


def _typed(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        return [_typed(item, v) for v in value]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args and origin is not dict and origin is not typing.Literal:  # a union
        if any(a in PART_NAMES for a in args):
            return _build(PART_TYPES[value["type"]], value)
        for arg in args:
            if isinstance(arg, type) and (dataclasses.is_dataclass(arg) or issubclass(arg, Enum)):
                return _typed(arg, value)
        return value
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if hint in (Session, Message, ToolCall, Usage) or (
        isinstance(hint, type) and dataclasses.is_dataclass(hint)
    ):
        return _build(hint, value)
    return value
