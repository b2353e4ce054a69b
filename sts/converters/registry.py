"""Format name → converter, and the one detection routine behind ``convert``, ``detect`` and
the Python API.

Every converter is registered the same way, by a target ``"module:attribute"`` naming a
`Converter` subclass (or instance): the built-ins from `BUILTINS`, third-party packages from the
entry-point group ``sts.converters`` (the entry point's own name is ignored in favour of the
converter's `name`). A new built-in format is one line in `BUILTINS`. A plug-in is loaded with its
options class (`OptionsFrom` delays only the built-ins'): one that cannot be loaded is reported
and left out, never a traceback in ``--option`` checks or a failure of every input.

Detection: every converter's `sniff` says how sure it is that it can read the input; the most
sure wins, and on equal scores the higher `Converter.priority`. Entry points are looked up only
when no built-in is sure (`SURE`) or a name is not a built-in's: importing `importlib.metadata`
costs more start-up time than converting a small file. A plug-in therefore claims inputs that no
built-in is sure of (and any input through ``--from``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from typing import Any

from sts.building.context import UnknownOption
from sts.converters.base import Converter, Peek
from sts.imports import load_target
from sts.records import Record, record

BUILTINS: tuple[str, ...] = (
    "sts.converters.sts:StsConverter",
    "sts.converters.pi:PiConverter",
    "sts.converters.claude_code:ClaudeCodeConverter",
    "sts.converters.codex:CodexConverter",
    "sts.converters.openai:OpenAIConverter",
    "sts.converters.sharegpt:ShareGPTConverter",
    "sts.converters.copilot:CopilotConverter",
    "sts.converters.cursor_cli:CursorCliConverter",
    "sts.converters.cline:ClineConverter",
    "sts.converters.droid:DroidConverter",
    "sts.converters.openclaw:OpenClawConverter",
    "sts.converters.gemini_cli:GeminiCliConverter",
    "sts.converters.kimi_cli:KimiCliConverter",
    "sts.converters.opencode:OpenCodeConverter",
    "sts.converters.cursor_ide:CursorIdeConverter",
)
ENTRY_POINT_GROUP = "sts.converters"
#: Below this, a score means "not mine".
MIN_CONFIDENCE = 0.2
#: From this on, a built-in's score settles detection without looking at plug-ins.
SURE = 0.9


def load(target: str) -> Converter:
    """The converter a ``"module:attribute"`` target names (a class is instantiated)."""
    obj = load_target(target)
    converter = obj() if isinstance(obj, type) else obj
    if not isinstance(converter, Converter) or not converter.name:
        raise TypeError(f"{target} is not a named sts Converter")
    return converter


def _register(found: dict[str, Converter], target: str, plugin: bool = False) -> None:
    try:
        converter = load(target)
        if plugin:
            converter.Options.names()  # named by OptionsFrom: a broken one fails with its plug-in
    except Exception as exc:  # a broken plug-in must not take the others down with it
        print(f"sts: plug-in {target} not loaded: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    found.setdefault(converter.name, converter)


@cache
def builtin_converters() -> dict[str, Converter]:
    """The converters that ship with sts-convert, by format name."""
    found: dict[str, Converter] = {}
    for target in BUILTINS:
        _register(found, target)
    return found


@cache
def converters() -> dict[str, Converter]:
    """Every available converter by format name: built-ins, then third-party entry points (a
    plug-in cannot replace a built-in of the same name)."""
    from importlib.metadata import entry_points

    found = dict(builtin_converters())
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        _register(found, entry.value, plugin=True)
    return found


def get_converter(name: str) -> Converter:
    """The converter for format `name`; KeyError with the known names when there is none."""
    converter = builtin_converters().get(name) or converters().get(name)
    if converter is None:
        known = ", ".join(sorted(converters()))
        raise KeyError(f"unknown source format {name!r} (known: {known})")
    return converter


@record(slots=True)
class Detection(Record):
    """What detection found: the chosen converter (None when none is sure enough) and every
    score looked at, best first."""

    converter: Converter | None
    scores: list[tuple[float, Converter]]


def _ranked(pool: Mapping[str, Converter], peek: Peek) -> list[tuple[float, Converter]]:
    scored = [(converter.sniff(peek), converter) for converter in pool.values()]
    scored.sort(key=lambda pair: (pair[0], pair[1].priority), reverse=True)
    return scored


def examine(peek: Peek, everything: bool = False) -> Detection:
    """The one detection routine: the converter most sure it can read the input (then the most
    specific), looking at plug-ins only when no built-in is `SURE`. `everything` scores every
    converter for display (``sts detect -v``) without changing the choice."""
    scores = _ranked(builtin_converters(), peek)
    if not scores or scores[0][0] < SURE:
        scores = _ranked(converters(), peek)
    elif everything:
        chosen = scores[0][1]
        scores = _ranked(converters(), peek)
        return Detection(chosen, scores)
    if scores and scores[0][0] >= MIN_CONFIDENCE:
        return Detection(scores[0][1], scores)
    return Detection(None, scores)


def detect(peek: Peek) -> Converter | None:
    """The converter `examine` chooses, or None when none is sure enough."""
    return examine(peek).converter


def rank(peek: Peek, everything: bool = True) -> list[tuple[float, Converter]]:
    """Converters' confidence for this input, best first (built-ins only unless `everything`)."""
    return _ranked(converters() if everything else builtin_converters(), peek)


def pick(peek: Peek, name: str | None) -> Converter | None:
    """The converter named `name` (``--from``, ``format=``), else the one detection chooses."""
    return get_converter(name) if name else detect(peek)


def check_options(options: Mapping[str, Any], converter: Converter | None = None) -> None:
    """Raise `UnknownOption` for an option name no converter takes (a typo such as
    ``all_branchs``), or a value of the wrong type for the converters that take it. A name
    that another converter takes is allowed: a batch mixes formats."""
    pool = converters() if converter is None else {converter.name: converter, **converters()}
    for name, value in options.items():
        takers = [c for c in pool.values() if name in c.Options.names()]
        if not takers:
            known = sorted(set().union(*(c.Options.names() for c in pool.values())))
            raise UnknownOption(f"unknown option {name!r} (known: {', '.join(known)})")
        for taker in takers:
            taker.Options.check(name, value)
