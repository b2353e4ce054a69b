"""Cline read options: imported when such an input is read, not at detection (start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sts.converters.base import Options


@dataclass(frozen=True)
class ClineOptions(Options):
    """`drop_injected`: leave environment details and harness notices out instead of
    keeping them as system messages."""

    drop_injected: bool = False
