"""An OpenClaw session file → Session(s), through the Pi reader (choices in `__init__.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from sts.converters.base import ReadContext, gc_paused
from sts.converters.openclaw import MIRROR_MODEL, OpenClawConverter
from sts.converters.pi.reader import ConvertedEntry, PiFile, build_sessions
from sts.model import Session

MIRRORED = "delivery_mirror"  #: extras marker of a mirrored row (kept: source detail)


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session on the active branch (and, with ``all_branches``, the others)."""
    with gc_paused():  # the sessions are built before any is yielded: no pause while writing
        sessions = build_sessions(stream, context, OpenClawConverter, unmirror)
    for session in sessions:
        for message in session.messages:
            if message.extras.get(MIRRORED):
                message.model = message.provider = message.api = None
    yield from sessions


def unmirror(pi_file: PiFile) -> None:
    """Take ``delivery-mirror`` rows out of the model bookkeeping, before the path is walked:
    they set no model in force, and are marked so that none is filled in for them."""
    for entry in pi_file.entries:
        message = entry.message if type(entry) is ConvertedEntry else None
        if message is not None and message.role == "assistant" and message.model == MIRROR_MODEL:
            entry.change = None
            message.model = MIRROR_MODEL  # kept until the walk: fill_assistant leaves it alone
            message.extras[MIRRORED] = True
