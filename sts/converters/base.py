"""What every source converter is: a name, a default harness id, a priority, its options, a
sniff and a read."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, ClassVar

from sts.building.context import Options, ReadContext
from sts.imports import load_target
from sts.model import Session
from sts.peek import HeadObjects, Peek

__all__ = ["Converter", "HeadObjects", "Options", "OptionsFrom", "Peek", "ReadContext", "gc_paused"]


class Converter:
    """Base class of a source format adapter.

    Subclasses set `name` (the format name users type after ``--from``), `harness` (the default
    harness id, as the Hub's registry spells it) and `description`, and implement `sniff` and
    `read`. `priority` says how specific the format is: when two converters are equally sure
    they can read an input, the higher priority wins (a generic chat-log reader stays at 0, a
    harness's own transcript format takes 10). A converter with options of its own names a frozen
    dataclass subclass of `Options` as its ``Options`` (the built-ins name it with `OptionsFrom`,
    so that detection, which loads every converter, does not build it); `options` gives the
    instance for a read.
    """

    name: ClassVar[str] = ""
    harness: ClassVar[str] = ""
    description: ClassVar[str] = ""
    priority: ClassVar[int] = 0
    Options: ClassVar[type[Options]] = Options

    def sniff(self, peek: Peek) -> float:
        """How sure (0 to 1) this converter is that it can read the input: a statement about
        this format alone, never about another. Must not do I/O."""
        return 0.0

    def options(self, context: ReadContext) -> Any:
        """This converter's typed options for one read (``context.options`` may be a mapping)."""
        return self.Options.of(context.options)

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        """Yield the sessions in `stream`, reporting problems to `context.problems`."""
        raise NotImplementedError

    def claims_folder(self, folder: Path) -> bool:
        """True when `folder` is one of this format's stores, read as one input (a harness's
        data folder holding its database, a tree of JSON files): directory walks hand the
        folder to `read` (as ``context.path``, with an empty stream) instead of entering it.
        Cheap checks only (names, a listing)."""
        return False

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """True when `path` is part of another input's session (a sub-agent file, say) that is
        converted in the same run: when `root` (the folder walked) is given, that session's
        file lies inside it.

        Directory walks skip such files; their main session's converter reads them itself.
        """
        return False


class OptionsFrom:
    """A converter's ``Options`` class named by ``"module:Class"``, imported when first used:
    detection loads every converter, and building a dataclass costs about half a millisecond
    of start-up."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __get__(self, instance: object, owner: type) -> type[Options]:
        options: type[Options] = load_target(self.target)
        return options


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a converter builds a session.

    Parsed records and messages hold no reference cycles, and the collector's passes over
    millions of fresh objects cost a quarter of the reading time of a large file.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
