"""Cursor IDE read options: imported when such an input is read, not at detection (start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sts.converters.base import Options


@dataclass(frozen=True)
class CursorIdeOptions(Options):
    """`sessions`: only these composer ids (``--session``, repeatable); all when empty."""

    sessions: tuple[str, ...] = ()
