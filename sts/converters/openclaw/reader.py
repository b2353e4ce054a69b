"""An OpenClaw session file → Session(s), through the Pi reader (choices in `__init__.py`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from sts.converters.base import ReadContext, gc_paused
from sts.converters.openclaw import MIRROR_MODEL, OpenClawConverter
from sts.converters.pi.messages import Change
from sts.converters.pi.reader import build_sessions
from sts.model import Message, Session

MIRRORED = "delivery_mirror"  #: extras marker of a mirrored row (kept: source detail)


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session on the active branch (and, with ``all_branches``, the others)."""
    context = replace(context, deferred=False)  # its messages are amended below: all kept
    with gc_paused():  # the sessions are built before any is yielded: no pause while writing
        sessions = build_sessions(stream, context, OpenClawConverter, unmirror)
    for session in sessions:
        for message in session.messages:
            if message.extras.get(MIRRORED):
                message.model = message.provider = message.api = None
    yield from sessions


def unmirror(message: Message, change: Change | None) -> Change | None:
    """Take a ``delivery-mirror`` row out of the model bookkeeping as it is read: it sets no
    model in force, and is marked so that none is filled in for it (its own model is kept until
    the walk, so fill_assistant leaves it alone)."""
    if message.role == "assistant" and message.model == MIRROR_MODEL:
        message.extras[MIRRORED] = True
        return None
    return change
