"""Format name → converter: the built-ins plus the ``sts.converters`` entry-point group.

A third-party package adds a source format by exposing a `Converter` subclass (or instance)
under the entry-point group ``sts.converters``; its entry-point name is ignored in favour of
the converter's own `name`. Entry points are looked up only when a built-in cannot settle the
question (an unknown ``--from`` name, or no built-in sure of the input): importing
`importlib.metadata` costs more start-up time than converting a small file.
"""

from __future__ import annotations

import importlib
import sys
from functools import cache

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
SURE = 0.9


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
def builtin_converters() -> dict[str, Converter]:
    """The converters that ship with sts-convert, by format name."""
    found: dict[str, Converter] = {}
    for target in BUILTINS:
        converter = _load(target)
        if converter is not None:
            found[converter.name] = converter
    return found


@cache
def converters() -> dict[str, Converter]:
    """Every available converter by format name: built-ins, then third-party entry points."""
    from importlib.metadata import entry_points

    found = dict(builtin_converters())
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = entry.load()
            converter = obj() if isinstance(obj, type) else obj
            name = converter.name
        except Exception as exc:  # a broken plug-in must not take the built-ins down with it
            print(f"sts: plug-in {entry.value} not loaded: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
            continue
        found.setdefault(name, converter)
    return found


def get_converter(name: str) -> Converter:
    """The converter for format `name`; KeyError with the known names when there is none."""
    converter = builtin_converters().get(name) or converters().get(name)
    if converter is None:
        known = ", ".join(sorted(converters()))
        raise KeyError(f"unknown source format {name!r} (known: {known})")
    return converter


def rank(peek: Peek, everything: bool = True) -> list[tuple[float, Converter]]:
    """Converters' confidence for this input, best first (built-ins only unless `everything`)."""
    pool = converters() if everything else builtin_converters()
    scored = [(converter.sniff(peek), converter) for converter in pool.values()]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return scored


def detect(peek: Peek) -> Converter | None:
    """The converter most sure it can read the input, or None when none is sure enough."""
    scored = rank(peek, everything=False)
    if not scored or scored[0][0] < SURE:
        scored = rank(peek)
    if scored and scored[0][0] >= MIN_CONFIDENCE:
        return scored[0][1]
    return None
