"""Pi coding-agent sessions (versions 1, 2 and 3) → Session (``shared/formats/pi.md``).

What is read, and the choices made where pi leaves room:

- Lines pi's ``JSON.parse`` rejects are skipped, as pi does, and each is reported with its line
  number; two records glued on one line are NOT split (pi drops such a line whole).
- The session is pi's active branch: the last parsed entry (whatever its type) is the leaf, the
  path is its ``parentId`` chain (a missing parent is a root). A v1 file (no ``version``) is its
  entries in file order; its entries get ids ``%08x`` of their parsed index (header = 0).
- The whole path is kept. A ``compaction`` on it becomes one system message (kind
  ``compaction``, extras ``tokens_before`` and ``first_kept_id`` = the first message at or after
  ``firstKeptEntryId``/``firstKeptEntryIndex`` when that resolves before the compaction) at its
  place; nothing before it is dropped or repeated. A ``branch_summary`` becomes a system message
  of kind ``branch_summary`` (extras ``from_id``).
- Each assistant message carries its own ``model``/``provider``/``api``; one lacking them gets
  the model in force (v1 header ``provider``/``modelId``, ``model_change``, earlier assistants),
  and extras ``thinking_level`` from the header / ``thinking_level_change``.
- Name: the latest ``session_info`` in file order on any branch (an empty name clears it);
  ``parentSession``/``branchedFrom`` and other unknown header fields go to metadata.
- Option ``all_branches``: every other leaf whose branch holds messages not on the active path
  is yielded after the main session as its own session (key ``branch-<leaf id>``, metadata
  ``mainSession``/``leafId``), and the main session gets key ``main``. Without it, abandoned
  branches are left out with one ``other-branches`` warning.
- See `messages.py` for how each role maps (bash, custom, system, failed turns).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.model import Session

PI_ENTRY_TYPES = frozenset(
    ("message", "model_change", "thinking_level_change", "compaction", "branch_summary",
     "custom", "custom_message", "label", "session_info", "usage", "context_edit")
)


class PiConverter(Converter):
    """Reads pi session files (v1, v2, v3) along pi's own active branch."""

    name = "pi"
    harness = "pi"
    description = "Pi coding agent sessions (~/.pi/agent/sessions, versions 1-3)"
    priority = 10

    Options = OptionsFrom("sts.converters.pi.options:PiOptions")

    def sniff(self, peek: Peek) -> float:
        objects = peek.objects
        if not objects:
            return 0.0
        header = objects[0]
        if header.get("type") != "session" or type(header.get("id")) is not str:
            return 0.0
        if "version" in header:
            return 0.95
        rest = objects[1:]
        pi_like = any(_looks_like_pi(o) for o in rest)
        if "harness" not in header:
            return 0.9 if pi_like or not rest else 0.5
        # a header with a harness and no version is STS unless the lines are Pi entries
        return 0.6 if pi_like else 0.1

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.pi.reader import read  # loaded only when used: start-up

        return read(stream, context)


def _looks_like_pi(record: dict[str, Any]) -> bool:
    kind = record.get("type")
    if kind != "message":
        return type(kind) is str and kind in PI_ENTRY_TYPES
    message = record.get("message")
    if "id" in record or "parentId" in record:
        return True
    return type(message) is dict and (
        type(message.get("content")) is list or message.get("role") == "toolResult"
    )
