"""Cline, Roo Code and Kilo Code tasks → Session (``shared/formats/cline.md``).

A task is a folder ``tasks/<taskId>/``; its ``api_conversation_history.json`` (a JSON array of
Anthropic messages with Cline's extras) is the input, and its companions are read with it, never
converted on their own: ``ui_messages.json`` (times, per-request usage, models),
``task_metadata.json`` (models in use over time) and ``context_history.json`` (context-window
bookkeeping, not read). The task indexes (``state/taskHistory.json``, Roo's
``tasks/_index.json``) are no sessions and are passed over too. See `reader.py` for the choices
made.

Harness id, from the extension folder on the task's path: ``saoudrizwan.claude-dev`` and
``~/.cline`` → ``cline``; ``kilocode.kilo-code`` → ``kilo-code``; ``rooveterinaryinc.roo-cline``
→ ``roo-code``. Roo Code has no id in the Hub's registry: ``roo-code`` names it honestly (the
Hub shows an unregistered id with its generic renderer) rather than passing it off as Cline;
``--harness`` overrides. Without a path (stdin), ``cline``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.model import Session

HISTORY = "api_conversation_history.json"
COMPANIONS = frozenset(("ui_messages.json", "task_metadata.json", "context_history.json"))
#: Cline writes these, with Anthropic-style content, only on its own history messages.
MARKS = (b"<environment_details>", b'"modelInfo"', b"<task>", b'"conversationHistoryIndex"')


class ClineConverter(Converter):
    """Reads a Cline / Roo Code / Kilo Code task's ``api_conversation_history.json``."""

    name = "cline"
    harness = "cline"
    description = (
        "Cline, Roo Code and Kilo Code tasks (<VS Code globalStorage>/<extension>/tasks/<id>/"
        "api_conversation_history.json, ~/.cline/data/tasks/<id>/)"
    )
    priority = 10

    Options = OptionsFrom("sts.converters.cline.options:ClineOptions")

    def sniff(self, peek: Peek) -> float:
        if peek.first_byte != b"[":
            return 0.0
        if peek.name == HISTORY:
            return 0.95
        document = peek.document
        if document is not None:
            return 0.92 if _is_history(document) else 0.0
        head = peek.data
        if b'"role"' in head and any(mark in head for mark in MARKS):
            return 0.9
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.cline.reader import read  # loaded only when used: start-up

        return read(stream, context, self.options(context).drop_injected)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        name = path.name
        if name in COMPANIONS:
            return (path.parent / HISTORY).is_file()
        # the task indexes (Cline's state/taskHistory.json, Roo's tasks/_index.json): no session
        if name == "taskHistory.json" and path.parent.name == "state":
            return (path.parent.parent / "tasks").is_dir()
        return name == "_index.json" and path.parent.name == "tasks"


def _is_history(document: Any) -> bool:
    """A list of ``{role, content}`` messages carrying a mark only Cline writes."""
    if type(document) is not list or not document:
        return False
    first = document[0]
    if type(first) is not dict or first.get("role") not in ("user", "assistant"):
        return False
    for message in document[:20]:
        if type(message) is not dict:
            continue
        if "modelInfo" in message or "conversationHistoryIndex" in message:
            return True
        content = message.get("content")
        blocks = content if type(content) is list else [{"text": content}]
        for block in blocks:
            text = block.get("text") if type(block) is dict else None
            if type(text) is str and ("<environment_details>" in text or
                                      text.startswith(("<task>", "<user_message>"))):
                return True
    return False
