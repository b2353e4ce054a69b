"""Gemini CLI read options: imported when such an input is read, not at detection (start-up)."""

from __future__ import annotations

from dataclasses import dataclass

from sts.converters.base import Options


@dataclass(frozen=True)
class GeminiCliOptions(Options):
    """`drop_injected`: leave the ``<session_context>`` and ``<hook_context>`` turns out
    instead of keeping them as system messages."""

    drop_injected: bool = False
