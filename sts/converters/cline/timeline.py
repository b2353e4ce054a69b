"""Times, usage and models for a task's history from its companions (cline.md "ui_messages").

``api_conversation_history.json`` carries ``ts``, ``modelInfo`` and ``metrics`` on its messages
only since 2025-2026; older files have none. ``ui_messages.json`` (the UI timeline, one
`ClineMessage` per row) dates everything, and each ``say: api_req_started`` row holds the usage
of one request as a JSON string. A request is made when a user message is added to the history,
so the k-th request sent the k-th user message, and the assistant message after it is its reply:

- a row with ``conversationHistoryIndex`` j was written while the history ended at index j, so
  ``api_req_started`` at j sent user message j+1, and the first reply row (text, reasoning, a
  tool or command ask, ...) at j marks when assistant message j+1 began;
- rows without that index (older files) are paired by order: the k-th request with the k-th user
  message, but only when the counts agree; otherwise no time is taken from them (never guessed).

``partial: true`` rows are streaming leftovers and are ignored. ``task_metadata.json``'s
``model_usage`` (when each model was first used) gives the model in force at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sts.building.coerce import number_or_none, text_or_none
from sts.lines import loads_repaired
from sts.model import Usage
from sts.problems import Reporter
from sts.timestamps import checked_ms

REPLY_SAYS = frozenset((
    "text", "reasoning", "tool", "command", "completion_result", "browser_action",
    "browser_action_launch", "use_mcp_server", "new_task", "mcp_server_request_started",
))
REPLY_ASKS = frozenset((
    "tool", "command", "followup", "completion_result", "plan_mode_respond",
    "browser_action_launch", "use_mcp_server", "new_task", "condense", "report_bug",
    "summarize_task", "new_rule",
))


@dataclass(slots=True)
class Request:
    """One ``api_req_started`` row: when it was sent, its usage, the model it names."""

    ts: int | None
    usage: Usage | None
    model: str | None = None
    provider: str | None = None


@dataclass(slots=True)
class Timeline:
    """What the companions say about the history, by api-history index."""

    requests: dict[int, Request] = field(default_factory=dict)  # user message index → request
    replies: dict[int, int] = field(default_factory=dict)  # assistant index → first reply row ts
    task_ts: int | None = None  # the ``say: task`` row (the first prompt)
    models: list[tuple[int, str, str | None]] = field(default_factory=list)  # (ts, model, provider)

    def model_at(self, ts: int | None) -> tuple[str | None, str | None]:
        """The model in force at `ts` by ``model_usage``; with no time, the only one used."""
        if not self.models:
            return None, None
        if ts is None:
            names = {(m, p) for _, m, p in self.models}
            return names.pop() if len(names) == 1 else (None, None)
        found: tuple[str | None, str | None] = (None, None)
        for when, model, provider in self.models:
            if when <= ts:
                found = (model, provider)
        return found


def build_timeline(ui: list[Any], roles: list[str | None], problems: Reporter) -> Timeline:
    """The timeline of `ui` rows for a history whose messages have `roles` (a ``ts`` that is no
    time is reported and left out)."""
    timeline = Timeline()
    rows = [r for r in ui if type(r) is dict and r.get("partial") is not True]
    for row in rows:
        if row.get("say") == "task":
            timeline.task_ts = row_time(row, problems)
            break
    if any(type(r.get("conversationHistoryIndex")) is int for r in rows):
        _indexed(timeline, rows, roles, problems)
    else:
        _ordered(timeline, rows, roles, problems)
    return timeline


def row_time(row: dict[str, Any], problems: Reporter) -> int | None:
    """A ``ui_messages.json`` row's ``ts``."""
    return checked_ms(row.get("ts"), problems, None, "ui_messages.json ts")


def _indexed(
    timeline: Timeline, rows: list[dict[str, Any]], roles: list[str | None], problems: Reporter
) -> None:
    for row in rows:
        index = row.get("conversationHistoryIndex")
        if type(index) is not int:
            continue
        target = index + 1
        if not 0 <= target < len(roles):
            continue
        if row.get("say") == "api_req_started":
            if roles[target] == "user" and target not in timeline.requests:
                timeline.requests[target] = request(row, problems)
        elif roles[target] == "assistant" and is_reply(row) and target not in timeline.replies:
            ts = row_time(row, problems)
            if ts is not None:
                timeline.replies[target] = ts


def _ordered(
    timeline: Timeline, rows: list[dict[str, Any]], roles: list[str | None], problems: Reporter
) -> None:
    starts = [n for n, row in enumerate(rows) if row.get("say") == "api_req_started"]
    users = [n for n, role in enumerate(roles) if role == "user"]
    if len(starts) != len(users):
        return
    for k, (start, user) in enumerate(zip(starts, users, strict=True)):
        timeline.requests[user] = request(rows[start], problems)
        reply = user + 1
        if reply >= len(roles) or roles[reply] != "assistant":
            continue
        end = starts[k + 1] if k + 1 < len(starts) else len(rows)
        for row in rows[start + 1: end]:
            if is_reply(row):
                ts = row_time(row, problems)
                if ts is not None:
                    timeline.replies[reply] = ts
                    break


def is_reply(row: dict[str, Any]) -> bool:
    """True for a row the assistant's reply wrote (text, reasoning, a tool or command ask)."""
    if row.get("type") == "ask":
        ask = row.get("ask")
        return type(ask) is str and ask in REPLY_ASKS
    say = row.get("say")
    return type(say) is str and say in REPLY_SAYS


def request(row: dict[str, Any], problems: Reporter) -> Request:
    """The `Request` of one ``api_req_started`` row (its text is a JSON string)."""
    found = Request(row_time(row, problems), None)
    info = row.get("modelInfo")
    if type(info) is dict:
        found.model = text_or_none(info.get("modelId"))
        found.provider = text_or_none(info.get("providerId"))
    text = row.get("text")
    if type(text) is not str:
        return found
    try:
        data = loads_repaired(text.encode("utf-8", "replace"))
    except ValueError:
        return found
    if type(data) is not dict:
        return found
    tokens = [_int(data.get(k)) for k in ("tokensIn", "tokensOut", "cacheReads", "cacheWrites")]
    cost = number_or_none(data.get("cost"))
    if any(t is not None for t in tokens) or cost is not None:
        given, output, cache_read, cache_write = (t or 0 for t in tokens)
        found.usage = Usage(given, output, cache_read, cache_write, cost_total=cost)
    return found


def metrics_usage(metrics: Any) -> Usage | None:
    """Usage from a history message's ``metrics`` (``prompt`` includes the cached tokens)."""
    if type(metrics) is not dict:
        return None
    tokens = metrics.get("tokens")
    tokens = tokens if type(tokens) is dict else {}
    prompt, completion, cached = (_int(tokens.get(k)) for k in ("prompt", "completion", "cached"))
    cost = number_or_none(metrics.get("cost"))
    if prompt is None and completion is None and cached is None and cost is None:
        return None
    cached = cached or 0
    return Usage(max((prompt or 0) - cached, 0), completion or 0, cached, 0, cost_total=cost)


def model_usage(metadata: Any, problems: Reporter) -> list[tuple[int, str, str | None]]:
    """``task_metadata.json`` ``model_usage`` as (ts, model, provider), in time order."""
    rows = metadata.get("model_usage") if type(metadata) is dict else None
    found = []
    for row in rows if type(rows) is list else ():
        if type(row) is not dict:
            continue
        ts = checked_ms(row.get("ts"), problems, None, "task_metadata.json model_usage ts")
        model = text_or_none(row.get("model_id"))
        if ts is not None and model:
            found.append((ts, model, text_or_none(row.get("model_provider_id"))))
    found.sort(key=lambda item: item[0])
    return found


def _int(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


