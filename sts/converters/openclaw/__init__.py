"""OpenClaw sessions → Session (``shared/formats/openclaw.md``).

OpenClaw embeds pi's SessionManager: ``~/.openclaw/agents/<agentId>/sessions/<id>.jsonl`` (legacy
``~/.clawdbot``) is a Pi session file, header versions 3 to 7. It is read by the Pi reader
(`sts.converters.pi`: the active branch by pi's rule, compactions and branch summaries once,
each assistant's own model), with what OpenClaw adds (`reader.py`):

- ``custom`` entries (``model-snapshot``, ``openclaw.cache-ttl``, ...) are bookkeeping, left out
  as pi leaves every ``custom`` entry out of the conversation;
- assistant rows mirrored from external CLI backends carry the placeholder model
  ``delivery-mirror`` (provider ``openclaw``): their text is kept, but they name no model and
  change nothing of the model in force;
- user text may carry a chat channel's envelope (``[Telegram Ana id:42 …]``): kept as written;
- harness id ``openclaw`` (the Hub's registry id), ``source`` ``openclaw``; the agent's
  ``sessions.json`` index beside the transcripts is passed over in directory walks.

Detection: a Pi header (``type: session`` with a ``version``) plus one OpenClaw mark: a header
version above pi's own 3, a ``cwd`` under ``.openclaw``/``.clawdbot``, an ``openclaw.*`` custom
entry or a ``delivery-mirror`` row in the head. It scores above the Pi converter's certainty, so
the Pi sniffer needs no knowledge of OpenClaw; a Pi file without a mark stays Pi (``--from
openclaw`` reads it as OpenClaw).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.model import Session

#: pi's own ``CURRENT_SESSION_VERSION``: OpenClaw numbers its headers past it.
PI_VERSION = 3
MIRROR_MODEL = "delivery-mirror"
STATE_DIRS = ("/.openclaw/", "/.clawdbot/")


class OpenClawConverter(Converter):
    """Reads OpenClaw session files (pi's format with OpenClaw's entries)."""

    name = "openclaw"
    harness = "openclaw"
    description = "OpenClaw sessions (~/.openclaw/agents/<agent>/sessions/<id>.jsonl, v3-v7)"
    priority = 10
    Options = OptionsFrom("sts.converters.pi.options:PiOptions")  # all_branches, as for Pi

    def sniff(self, peek: Peek) -> float:
        objects = peek.objects
        if not objects:
            return 0.0
        header = objects[0]
        version = header.get("version")
        if header.get("type") != "session" or type(version) is not int:
            return 0.0
        cwd = header.get("cwd")
        if version > PI_VERSION or (type(cwd) is str and any(d in cwd + "/" for d in STATE_DIRS)):
            return 0.97
        return 0.97 if any(_openclaw_entry(o) for o in objects[1:]) else 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.openclaw.reader import read  # loaded only when used: start-up

        return read(stream, context)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        """The agent's session index (``agents/<id>/sessions/sessions.json``): no session."""
        parent = path.parent
        return (path.name == "sessions.json" and parent.name == "sessions"
                and parent.parent.parent.name == "agents")


def _openclaw_entry(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    if kind == "custom":
        custom = record.get("customType")
        return type(custom) is str and custom.startswith("openclaw.")
    if kind == "message":
        body = record.get("message")
        return type(body) is dict and body.get("model") == MIRROR_MODEL
    return False
