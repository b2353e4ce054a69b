"""Gemini CLI chat recordings (``~/.gemini/tmp/<project>/chats/``) → `Session`.

Modules: `shapes` (what each file looks like: detection), `records` (the three file shapes
replayed into one recording), `messages` (records → messages), `reader` (files → sessions,
sub-agents, the project folder's companions), `options`.

What is a session, and what is not (detected by content, wherever the file lives):

- ``chats/session-<time>-<id8>.jsonl`` (v0.39+) and ``.json`` (v0.3-v0.38): one session each.
  When Gemini CLI resumes a legacy ``X.json`` it rewrites it as ``X.jsonl`` and leaves the
  ``.json`` behind: a directory walk then reads only the ``.jsonl`` (the ``.json`` is a
  companion). ``session-*.meta.json`` list sidecars (newer versions) are companions too.
- ``chats/<parent session id>/<sub-agent session id>.jsonl``: a sub-agent's own recording
  (``kind: "subagent"``), read with its parent as a child session linked to the call whose
  ``agentId`` names it, never converted on its own in a walk.
- ``checkpoint-<tag>.json`` (``/chat save <tag>``): the model's whole history at that moment, as
  raw API turns: a conversation, so it is converted (id ``checkpoint-<tag>``, named after the
  tag; no times, ids or models exist in it, none are made up).
- ``logs.json``: every prompt the user typed in the project, across sessions, and nothing else
  (no replies, no tool calls). Not a session: each prompt is already in its session file. A walk
  passes over it as a companion of the project's ``chats/``; converting it by name reports
  ``not-a-session`` and writes nothing.
- ``checkpoints/*.json`` (``/restore`` points before a file edit) and ``tool-outputs/`` (large
  outputs spilled to disk) belong to the project's sessions: companions, never sessions.

The working directory is not recorded: it is taken from a sub-agent's ``directories``, else
from the project folder's ``.project_root`` marker (v0.29+), read with the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from sts.converters.base import Converter, OptionsFrom, Peek, ReadContext
from sts.converters.gemini_cli.shapes import (
    is_checkpoint,
    is_legacy_document,
    is_metadata,
    is_prompt_log,
)
from sts.lines import BOM
from sts.model import Session

FORMAT = "gemini-cli"
HARNESS = "gemini-cli"
SESSION_PREFIX = "session-"
PROJECT_COMPANION_DIRS = frozenset(("checkpoints", "tool-outputs"))


class GeminiCliConverter(Converter):
    """Reads Gemini CLI chat recordings (JSONL and legacy JSON) and ``/chat save`` checkpoints."""

    name = FORMAT
    harness = HARNESS
    description = ("Gemini CLI chat recordings (~/.gemini/tmp/<project>/chats/session-*.jsonl "
                   "and legacy .json, sub-agents, /chat save checkpoints)")
    priority = 10

    Options = OptionsFrom("sts.converters.gemini_cli.options:GeminiCliOptions")

    def sniff(self, peek: Peek) -> float:
        document = peek.document
        if document is not None:
            if is_legacy_document(document):
                return 0.95
            if is_checkpoint(document):  # no other format has role "model" with parts
                return 0.95
            if is_prompt_log(document):
                return 0.9
        objects = peek.objects
        if objects:
            if is_metadata(objects[0]):
                return 0.95
            head = objects[:20]
            if any(type(o.get("$rewindTo")) is str or type(o.get("$set")) is dict for o in head):
                return 0.8
            if any(o.get("type") == "gemini" and type(o.get("id")) is str for o in head):
                return 0.6
            return 0.0
        head = peek.data[:4096].removeprefix(BOM).lstrip()
        if head.startswith(b"{") and b'"sessionId"' in head and b'"projectHash"' in head:
            return 0.7  # a legacy document larger than the head
        if head.startswith(b"{") and b'"history"' in head[:200] and b'"parts"' in head:
            return 0.6  # a large checkpoint
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.gemini_cli.reader import read  # loaded only when used: start-up

        return read(stream, context)

    def is_companion(self, path: Path, root: Path | None = None) -> bool:
        name = path.name
        folder = path.parent
        if folder.name == "chats" and name.startswith(SESSION_PREFIX):
            if name.endswith(".meta.json"):
                return folder.joinpath(name.removesuffix(".meta.json") + ".jsonl").is_file()
            return name.endswith(".json") and path.with_suffix(".jsonl").is_file()
        if name == "logs.json":
            return folder.joinpath("chats").is_dir()
        if folder.parent.name == "chats" and name.endswith((".json", ".jsonl")):
            main = parent_session(folder)
            return main is not None and (
                root is None or main.resolve().is_relative_to(root.resolve()))
        for parent in path.parents:
            if parent.name in PROJECT_COMPANION_DIRS:
                return parent.parent.joinpath("chats").is_dir()
        return False


def parent_session(folder: Path) -> Path | None:
    """The session file that ``chats/<id>/`` belongs to: the main session file named after the
    id's first 8 characters, or the sub-agent file with that id (nested sub-agents)."""
    chats = folder.parent
    sid = folder.name
    found = next(chats.glob(f"{SESSION_PREFIX}*-{sid[:8]}.json*"), None)
    return found if found is not None else next(chats.glob(f"*/{sid}.json*"), None)


__all__ = ["GeminiCliConverter"]
