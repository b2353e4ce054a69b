"""Pi read options: imported when such an input is read, not at detection (start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sts.converters.base import Options


@dataclass(frozen=True)
class PiOptions(Options):
    """`all_branches`: also yield every abandoned branch as its own session."""

    all_branches: bool = False
