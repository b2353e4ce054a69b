"""Kimi CLI sessions (``~/.kimi/sessions/<md5 of the work dir>/<session id>/``) → `Session`.

Modules: `records` (``context.jsonl`` lines and ``wire.jsonl`` events), `reader` (the session:
messages joined with the wire's times and usage, companions, sub-agents).

A session folder holds ``context.jsonl`` (the model's context: the transcript, without times),
``wire.jsonl`` (the UI event log: float epoch seconds, per-step token usage, tool outcomes) and
``state.json`` (title, archive flag, ...). The converter reads ``context.jsonl`` and takes the
other two with it; in a directory walk they are companions, as are the rotated
``context_<n>.jsonl`` (the history before a ``/undo``-style revert or a ``/clear``), the
``subagents/<agent id>/`` folders (read as child sessions) and ``kimi.json``. The older flat
``sessions/<md5>/<session id>.jsonl`` (a context file from before the folders) is read the same
way, without a wire. ``wire.jsonl`` converted by name is recognised and refused
(``not-a-session``): its session is the ``context.jsonl`` beside it.

The Hub's harness registry has no Kimi CLI entry: sessions get the harness id ``kimi-cli``
(the package's own name; ``--harness`` overrides it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.model import Session

FORMAT = "kimi-cli"
HARNESS = "kimi-cli"
CONTEXT = "context.jsonl"
WIRE = "wire.jsonl"
STATE = "state.json"
SPECIAL_ROLES = frozenset(("_system_prompt", "_checkpoint", "_usage"))
ROTATED = r"context_\d+\.jsonl"  # compiled when first needed (re's cache): start-up


class KimiCliConverter(Converter):
    """Reads Kimi CLI ``context.jsonl`` files with their ``wire.jsonl`` and ``state.json``."""

    name = FORMAT
    harness = HARNESS
    description = ("Kimi CLI sessions (~/.kimi/sessions/<md5>/<id>/context.jsonl, with wire.jsonl "
                   "and state.json)")
    priority = 10

    def sniff(self, peek: Peek) -> float:
        head = peek.objects[:20]
        if not head:
            return 0.0
        if any(type(r.get("role")) is str and r["role"] in SPECIAL_ROLES for r in head):
            return 0.95
        first = head[0]
        if first.get("type") == "metadata" and "protocol_version" in first:
            return 0.9  # wire.jsonl: recognised, to say which file to convert
        if first.get("type") == "hello" and "protocol_version" in first:
            return 0.9
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.kimi_cli.reader import read  # loaded only when used: start-up

        return read(stream, context)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        name = path.name
        folder = path.parent
        if name in (WIRE, STATE) or re.fullmatch(ROTATED, name):
            return folder.joinpath(CONTEXT).is_file()
        if name == "kimi.json":
            return folder.joinpath("sessions").is_dir()
        for parent in path.parents:
            if parent.name == "subagents":
                if name != CONTEXT and folder.joinpath(CONTEXT).is_file():
                    return True  # meta.json, prompt.txt, output: read with that context
                main = parent.parent / CONTEXT  # the session that reads this sub-agent
                return main.is_file() and (
                    root is None or main.resolve().is_relative_to(root.resolve()))
        return False


__all__ = ["KimiCliConverter"]
