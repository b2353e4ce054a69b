"""The legacy Copilot CLI session JSON (``history-session-state/<id>.json``, 2025 builds).

``{sessionId, startTime, chatMessages, timeline}``: ``chatMessages`` are OpenAI chat messages
(mapped by `sts.converters.chat.messages`, tool results linked by ``tool_call_id``);
``timeline`` is the UI's event list, used only for times: a ``user`` or ``copilot`` entry gives
its time to the next message of that role with the same text, a ``tool_call_completed`` entry
to the result of its ``callId``. Messages with no such entry have no time (never invented).
There is no token accounting and no model in this shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sts.building import ReadContext
from sts.converters.chat.messages import ChatBuilder
from sts.model import Session
from sts.problems import Reporter
from sts.timestamps import checked_ms

FORMAT = "github-copilot"
TIMELINE_ROLES = {"user": "user", "copilot": "assistant"}


def read_legacy(document: Any, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a legacy document (nothing, reported, for other JSON)."""
    from sts.converters.copilot import is_legacy_document

    if not is_legacy_document(document):
        if document is not None:
            context.problems.error(None, "unknown-record", "JSON document is not a Copilot session")
        return
    builder = ChatBuilder(context, FORMAT, FORMAT)
    builder.title_from_prompt = True
    builder.offer_id(document.get("sessionId"))
    session = builder.session
    session.started_at = checked_ms(document.get("startTime"), context.problems, None, "startTime")
    for message in document["chatMessages"]:
        builder.add_openai_message(message, None)
    texts, results = timeline_times(document.get("timeline"), context.problems)
    for message in session.messages:
        if message.role == "tool":
            message.timestamp = results.get(message.tool_call_id or "")
        elif message.role in ("user", "assistant"):
            waiting = texts.get((message.role, message.text.strip()))
            if waiting:
                message.timestamp = waiting.pop(0)
    session.metadata["copilotFormat"] = "history-session-state"
    if session.messages:
        yield builder.finish()


def timeline_times(
    timeline: Any, problems: Reporter
) -> tuple[dict[tuple[str, str], list[int]], dict[str, int]]:
    """Times of the timeline's prompts and replies by (role, text), and of results by call id."""
    texts: dict[tuple[str, str], list[int]] = {}
    results: dict[str, int] = {}
    for entry in timeline if type(timeline) is list else ():
        if type(entry) is not dict:
            continue
        ts = checked_ms(entry.get("timestamp"), problems, None, "timeline timestamp")
        if ts is None:
            continue
        kind = entry.get("type")
        text = entry.get("text")
        if type(kind) is str and kind in TIMELINE_ROLES and type(text) is str:
            texts.setdefault((TIMELINE_ROLES[kind], text.strip()), []).append(ts)
        elif kind == "tool_call_completed" and type(entry.get("callId")) is str:
            results.setdefault(entry["callId"], ts)
    return texts, results
