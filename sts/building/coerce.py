"""Reading loosely typed source values: one helper per rule, so every converter reads a field
the same way. None of them raises; each says what it gives for anything else."""

from __future__ import annotations

from typing import Any


def text_or_none(value: Any) -> str | None:
    """`value` when it is a non-empty string, else None."""
    return value if type(value) is str and value else None


def text_or_empty(value: Any) -> str:
    """`value` when it is a string, else ``""``."""
    return value if type(value) is str else ""


def id_or_none(value: Any) -> str | None:
    """An id as text: a non-empty string as it is, an integer as its digits, else None."""
    if type(value) is str:
        return value or None
    if type(value) is int:
        return str(value)
    return None


def int_or_zero(value: Any) -> int:
    """`value` when it is an int, else 0."""
    return value if type(value) is int else 0


def positive_int(value: Any) -> int:
    """`value` when it is an int above zero, else 0."""
    return value if type(value) is int and value > 0 else 0


def whole_number(value: Any) -> int:
    """An int or a float that is a number (not NaN) as an int, else 0."""
    return int(value) if type(value) in (int, float) and value == value else 0


def number_or_none(value: Any) -> float | int | None:
    """`value` when it is an int or a float, else None."""
    return value if type(value) in (int, float) else None
