"""Equality, repr and hashing for the dataclasses a conversion imports, written once here.

``@dataclass`` writes the source of ``__eq__`` and ``__repr__`` (and ``__hash__`` for a frozen
class) for each class and compiles it with ``exec`` when the class's module is imported: about
1.2 M instructions a class, a tenth of what ``sts convert`` of a small file costs beyond a plain
orjson script for the twenty classes it imports. A class declared
``@dataclass(eq=False, repr=False)`` that derives from `Record` (or, frozen, `FrozenRecord`)
gets the same methods from here instead: it compares, prints and hashes exactly as the generated
ones do (its fields in order, ``NotImplemented`` against any other class). Only ``__init__`` (and a
frozen class's ``__setattr__``) is still generated: it is the one on every object's path.
"""

from __future__ import annotations

import reprlib
from dataclasses import fields
from typing import Any

_COMPARED: dict[type, tuple[str, ...]] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}


def _compared(cls: type) -> tuple[str, ...]:
    """The names of the fields `cls` compares (and hashes), in order."""
    names = _COMPARED.get(cls)
    if names is None:
        names = _COMPARED[cls] = tuple(f.name for f in fields(cls) if f.compare)
    return names


def _shown(cls: type) -> tuple[str, ...]:
    """The names of the fields `cls` shows in its repr, in order."""
    names = _SHOWN.get(cls)
    if names is None:
        names = _SHOWN[cls] = tuple(f.name for f in fields(cls) if f.repr)
    return names


class _Fields:
    """A dataclass's ``__eq__`` and ``__repr__``, from its fields."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _compared(self.__class__))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(self.__class__))
        return f"{self.__class__.__qualname__}({shown})"


class Record(_Fields):
    """For ``@dataclass(eq=False, repr=False)`` classes: unhashable, as a generated ``__eq__``
    leaves a class that is not frozen."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]


class FrozenRecord(_Fields):
    """For ``@dataclass(frozen=True, eq=False, repr=False)`` classes: hashed by their fields, as
    a frozen dataclass is."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())
