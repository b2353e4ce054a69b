"""The one time a session with no recorded time gets where a target needs one (`FallbackTime`).

Pi's types want a time on the header, on every entry and on every message. A source that
records none (a fine-tune JSONL, ShareGPT, a hand-built session) gets ONE documented choice:
the input file's modification time (a sub-agent's own file's, when it has one), or the time
of conversion when there is no file (stdin, a stream, bytes). The drivers
(`sts.pipeline.one_behind`: the command, `sts.read`, `sts.convert`, publish, a cluster's
workers) set it on each such session from its input; `sts.write` of a session built by hand
falls back to the time of writing. The Pi writer names the origin in the header
(``timestampFallback``), and the Pi reader takes it back from there, so converting the output
again keeps the same time and never reads it as a recorded one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sts.model import (
    CONVERSION_TIME,
    INPUT_MTIME,
    SUBAGENT_MTIME,
    FallbackTime,
    Session,
    StreamedSession,
)
from sts.timestamps import epoch_ms, to_ms

#: The Pi header field naming where a fallback time came from (`FallbackTime.origin`).
HEADER_FIELD = "timestampFallback"


def conversion_time() -> FallbackTime:
    """Now, as the fallback of an input that is no file."""
    return FallbackTime(time.time_ns() // 1_000_000, CONVERSION_TIME)


def modified_time(ms: int, origin: str = INPUT_MTIME) -> FallbackTime:
    """An input's modification time (epoch ms) as its fallback; now when it is no time the
    targets can hold (`sts.timestamps.epoch_ms`: 1970-01-11..02-17, past 9999)."""
    return FallbackTime(ms, origin) if epoch_ms(ms) is not None else conversion_time()


def file_time(path: Path, origin: str = INPUT_MTIME) -> FallbackTime:
    """The modification time of the file (or store folder) `path` (`modified_time`); now when
    it cannot be had."""
    try:
        return modified_time(os.stat(path).st_mtime_ns // 1_000_000, origin)
    except (OSError, ValueError):
        return conversion_time()


def header_fallback(header: dict[str, Any]) -> FallbackTime | None:
    """The fallback time a Pi header names (our own output): its ``timestamp``, when its
    ``timestampFallback`` says where that came from; else None (a recorded time, or none)."""
    origin = header.get(HEADER_FIELD)
    stamp = header.get("timestamp")
    if type(origin) is not str or not origin or type(stamp) is not str:
        return None
    ms = to_ms(stamp)
    return FallbackTime(ms, origin) if ms is not None else None


def has_time(session: Session) -> bool:
    """Whether the session recorded any time (a start or a message time)."""
    if isinstance(session, StreamedSession):  # its messages are still to come
        return session.started_at is not None or session.first_time is not None
    if session.started_at is not None:
        return True
    for message in session.messages:  # noqa: SIM110 (any() would make a generator a session)
        if message.timestamp is not None:
            return True
    return False


class InputTime:
    """The fallback of one input, found once (one ``stat`` at most) and only when a session of
    it turns out to have no time."""

    __slots__ = ("_find", "_found")

    def __init__(self, find: Callable[[], FallbackTime] = conversion_time) -> None:
        self._find = find
        self._found: FallbackTime | None = None

    @classmethod
    def of(cls, path: Path | None) -> InputTime:
        """The fallback of the file at `path`, or of a stream (None)."""
        return cls(conversion_time) if path is None else cls(lambda: file_time(path))

    def date(self, session: Session) -> None:
        """Set the fallback on `session` and on each sub-agent that has neither a recorded
        time nor a fallback of its own (read from a Pi header). A sub-agent read from a file of
        its own (`Session.source_file`) gets that file's modification time instead, and so do
        its sub-agents."""
        own = session.source_file
        (self if own is None else InputTime(lambda: file_time(own, SUBAGENT_MTIME)))._date(session)

    def _date(self, session: Session) -> None:
        if session.fallback_time is None and not has_time(session):
            if self._found is None:
                self._found = self._find()
            session.fallback_time = self._found
        for child in session.children:
            self.date(child)
