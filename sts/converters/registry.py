"""Format name → converter: the built-ins plus the ``sts.converters`` entry-point group.

A third-party package adds a source format by exposing a `Converter` subclass (or instance)
under the entry-point group ``sts.converters``; its entry-point name is ignored in favour of
the converter's own `name`.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points

from sts.converters.base import Converter, Peek

BUILTINS: tuple[str, ...] = (
    "sts.converters.sts:StsConverter",
    "sts.converters.pi:PiConverter",
    "sts.converters.claude_code:ClaudeCodeConverter",
    "sts.converters.codex:CodexConverter",
    "sts.converters.openai:OpenAIConverter",
    "sts.converters.sharegpt:ShareGPTConverter",
)
ENTRY_POINT_GROUP = "sts.converters"
MIN_CONFIDENCE = 0.2


def _load(target: str) -> Converter | None:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None  # a built-in not written yet
        raise
    obj = getattr(module, attr)
    return obj() if isinstance(obj, type) else obj


@cache
def converters() -> dict[str, Converter]:
    """Every available converter by format name, built-ins first."""
    found: dict[str, Converter] = {}
    for target in BUILTINS:
        converter = _load(target)
        if converter is not None:
            found[converter.name] = converter
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        obj = entry.load()
        converter = obj() if isinstance(obj, type) else obj
        found.setdefault(converter.name, converter)
    return found


def get_converter(name: str) -> Converter:
    """The converter for format `name`; KeyError with the known names when there is none."""
    try:
        return converters()[name]
    except KeyError:
        known = ", ".join(sorted(converters()))
        raise KeyError(f"unknown source format {name!r} (known: {known})") from None


def rank(peek: Peek) -> list[tuple[float, Converter]]:
    """Every converter's confidence for this input, best first."""
    scored = [(converter.sniff(peek), converter) for converter in converters().values()]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return scored


def detect(peek: Peek) -> Converter | None:
    """The converter most sure it can read the input, or None when none is sure enough."""
    scored = rank(peek)
    if scored and scored[0][0] >= MIN_CONFIDENCE:
        return scored[0][1]
    return None
