"""Sub-agent sessions: how a converter attaches a child session to its parent.

The child gets header metadata ``parentSessionId``, ``agentId`` and, when the spawning call is
known, ``parentToolCallId``; the parent lists each child in ``subagentLinks`` (``key``,
``sessionId``, ``agentId``, ``toolCallId``), and holds it in `Session.children`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sts.model import Session

LINKS = "subagentLinks"


def link_child(parent: Session, child: Session, agent_id: str | None,
               call_id: str | None, source: Path | None = None) -> None:
    """Attach `child` (its `key` set) to `parent`, linked to the call `call_id` that ran it;
    `source`: the file it was read from, when not the parent's (its fallback time is that
    file's, `Session.source_file`)."""
    child.source_file = source
    child.metadata["parentSessionId"] = parent.id
    link: dict[str, Any] = {"key": child.key, "sessionId": child.id}
    if agent_id is not None:
        child.metadata["agentId"] = agent_id
        link["agentId"] = agent_id
    if call_id is not None:
        child.metadata["parentToolCallId"] = call_id
        link["toolCallId"] = call_id
    parent.metadata.setdefault(LINKS, []).append(link)
    parent.children.append(child)
