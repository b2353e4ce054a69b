"""What a converter gets besides its stream: the problems channel, the input's path, and its
typed options."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Self

from sts.problems import Problems
from sts.records import FrozenRecord, Record, field_names, record

_TYPES = {"bool": bool, "int": int, "str": str, "float": float}


class UnknownOption(TypeError):
    """An option name no converter takes, or a value of the wrong type."""


@record(frozen=True)
class Options(FrozenRecord):
    """The options every converter takes; a converter with its own subclasses this (a frozen
    dataclass with defaults) and names it as its ``Options``.

    `subagents`: read sub-agent sessions as children (converters that have them).
    """

    subagents: bool = True

    @classmethod
    def names(cls) -> frozenset[str]:
        """The option names this class takes."""
        return frozenset(field_names(cls))

    @classmethod
    def of(cls, values: Options | Mapping[str, Any] | None) -> Self:
        """These options from `values`; names this class does not take are left out (they
        belong to other converters: `sts.converters.registry.check_options` rejects the rest)."""
        if isinstance(values, cls):
            return values
        if isinstance(values, Options):
            values = dataclasses.asdict(values)
        if not values:
            return cls()
        known = cls.names()
        return cls(**{k: v for k, v in values.items() if k in known})

    @classmethod
    def check(cls, name: str, value: Any) -> None:
        """Raise `UnknownOption` when `value` is not of the type option `name` declares."""
        for item in dataclasses.fields(cls):
            if item.name != name:
                continue
            wanted = _TYPES.get(str(item.type))
            if wanted is not None and type(value) is not wanted and not (
                wanted is float and type(value) is int
            ):
                raise UnknownOption(
                    f"option {name!r} takes a {item.type}, not {type(value).__name__}"
                )

    def get(self, name: str, default: Any = None) -> Any:
        """The option `name` (`default` when this converter does not take it)."""
        return getattr(self, name, default)


@record
class ReadContext(Record):
    """What a converter gets besides the stream.

    `path` is the input file (None for stdin): converters that look for companion files, such as
    Claude Code sub-agents, use it. `options` are the user's source options: the converter's own
    `Options` (a plain mapping is accepted and read with ``Converter.Options.of``).
    `deferred`: the caller only writes the sessions (each one's messages once, in order,
    changing none, through `sts.pipeline.released`), so a converter may give a long session as
    a `sts.model.StreamedSession` whose messages are made as they are written (Claude Code and
    Pi readers do); library callers get lists.
    """

    problems: Problems
    path: Path | None = None
    options: Options | Mapping[str, Any] = field(default_factory=Options)
    deferred: bool = False
