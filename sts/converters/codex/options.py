"""Codex read options: imported when such an input is read, not at detection (start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sts.converters.base import Options


@dataclass(frozen=True)
class CodexOptions(Options):
    """`drop_injected`: leave injected context out instead of keeping it as system
    messages; `keep_rolled_back`: keep turns a rollback undid, marked."""

    drop_injected: bool = False
    keep_rolled_back: bool = False
