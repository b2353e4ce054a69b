"""Tool-call ids of one session: the one place that renames, pairs and reports them.

- A call keeps its source id. A source id used again in the session (a replayed line, a dataset
  that writes ``"call_id"`` for every call) gets a suffix, ``id~2``, ``id~3``, ... (`RENAME`),
  reported once per rename (warning ``duplicate-call-id``).
- Results are paired with calls in order: the first result naming a source id answers the first
  call with that id still unanswered, the second the second, and so on. A further result for a
  source id whose calls are all answered answers the latest of them (a repeated result line).
- A call without a source id gets a positional id from the builder and waits; the next result
  without an id (or whose id is unknown) takes the oldest waiting call of the same tool name,
  else the oldest waiting call.
- A result that answers no call keeps its own id (or none, or the empty one it had) and is
  reported (warning ``orphan-result``), once per id.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from sts.arguments import parse_arguments
from sts.model import ToolCall
from sts.problems import Problems

#: The separator of a renamed id: ``call_1`` used again becomes ``call_1~2``.
RENAME = "~"


class CallLedger:
    """The tool calls of one session by id, and which of them still wait for a result."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.names: dict[str, str] = {}  # id written -> tool name
        self.by_source: dict[str, list[str]] = {}  # source id -> ids written, in call order
        self.unanswered: dict[str, deque[str]] = {}  # source id -> ids written awaiting a result
        self.pending: list[tuple[str, str]] = []  # (id, name) of id-less calls awaiting a result
        self.orphans: set[str] = set()
        self.next_suffix: dict[str, int] = {}  # id -> the suffix its next rename tries first

    def call(
        self, source_id: Any, name: Any, arguments: Any, line: int | None,
        positional: Callable[[], str],
    ) -> ToolCall:
        """A registered `ToolCall`; `positional()` makes its id when `source_id` is empty."""
        name = name if type(name) is str else ""
        args, raw = parse_arguments(arguments)
        return ToolCall(self.register(source_id, name, line, positional), name, args, raw)

    def register(self, source_id: Any, name: str, line: int | None,
                 positional: Callable[[], str]) -> str:
        """Register a call and return the id it is written with (for calls already built, such
        as those a reader shares between sessions: `call` is the usual way)."""
        if source_id is None or source_id == "":
            call_id = self.unique(positional())
            source = call_id
            self.pending.append((call_id, name))
        else:
            source = str(source_id)
            call_id = source
            if source in self.by_source or source in self.names:
                call_id = self.unique(source)
                self.problems.warning(
                    line, "duplicate-call-id", f"call id {source!r} reused: renamed {call_id!r}"
                )
        self.names[call_id] = name
        self.by_source.setdefault(source, []).append(call_id)
        self.unanswered.setdefault(source, deque()).append(call_id)
        return call_id

    def unique(self, wanted: str) -> str:
        """`wanted`, or `wanted~2`, `wanted~3`, ... when it is taken."""
        if wanted not in self.names:
            return wanted
        n = self.next_suffix.get(wanted, 2)  # n calls sharing one id: n renames, not n²/2 tries
        while f"{wanted}{RENAME}{n}" in self.names:
            n += 1
        self.next_suffix[wanted] = n + 1
        return f"{wanted}{RENAME}{n}"

    def answer(self, source_id: Any, name: Any, line: int | None) -> str | None:
        """The id of the call a result answers (see the module docstring); None when the result
        has no id and no call waits."""
        source = None if source_id is None else str(source_id)
        if source:
            waiting = self.unanswered.get(source)
            if waiting:
                call_id = waiting.popleft()
                if not waiting:  # a session of many calls keeps no empty queue per call
                    del self.unanswered[source]
                if self.pending:
                    self.pending = [c for c in self.pending if c[0] != call_id]
                return call_id
            answered = self.by_source.get(source)
            if answered:
                return answered[-1]
        pending = self.take_pending(name)
        if pending is not None:
            return pending
        if not source:  # None, or the empty id it came with
            self.problems.warning(line, "orphan-result", "tool result without a call to answer")
        elif source not in self.orphans:
            self.orphans.add(source)
            self.problems.warning(line, "orphan-result", f"result answers no call {source!r}")
        return source

    def next_answer(self, source_id: str) -> str | None:
        """The id the next result for `source_id` would answer (None for an unknown id), without
        pairing: for facts about a result that come before it (exit codes)."""
        waiting = self.unanswered.get(source_id)
        if waiting:
            return waiting[0]
        answered = self.by_source.get(source_id)
        return answered[-1] if answered else None

    def take_pending(self, name: Any) -> str | None:
        """The id of the oldest waiting id-less call named `name`, else of the oldest one."""
        if not self.pending:
            return None
        chosen = next((c for c in self.pending if c[1] == name), self.pending[0])
        self.pending.remove(chosen)
        waiting = self.unanswered.get(chosen[0])
        if waiting:
            waiting.remove(chosen[0])
            if not waiting:
                del self.unanswered[chosen[0]]
        return chosen[0]
