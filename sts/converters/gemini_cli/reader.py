"""Reading a Gemini CLI file into sessions; see the package docstring."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

from sts.building import SessionBuilder, TitleRank
from sts.converters.base import ReadContext, gc_paused
from sts.converters.children import link_child
from sts.converters.gemini_cli import FORMAT, HARNESS
from sts.converters.gemini_cli import records as R
from sts.converters.gemini_cli.messages import MessageBuilder
from sts.converters.gemini_cli.options import GeminiCliOptions
from sts.converters.gemini_cli.shapes import (
    is_checkpoint,
    is_legacy_document,
    is_metadata,
    is_prompt_log,
)
from sts.converters.input_head import NOT_JSON, read_head, read_unclear
from sts.lines import loads_document
from sts.model import Session
from sts.names import file_stem
from sts.problems import Problems, Reporter
from sts.timestamps import checked_ms

MAX_DEPTH = 8  # sub-agents of sub-agents, at most this deep
CHECKPOINT_PREFIX = "checkpoint-"
PROJECT_ROOT_FILE = ".project_root"


def read(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Yield the session of a Gemini CLI file (JSONL, legacy document or checkpoint)."""
    with gc_paused():
        recording = read_recording(stream, context.problems)
        if recording is None:
            return
        session = build(recording, context, context.path, 0, set())
    if session is not None:
        yield session


def read_recording(stream: BinaryIO, problems: Problems) -> R.Recording | None:
    """The recording of any Gemini CLI file shape; None (reported) when it holds none.

    A first line that is not JSON starts a pretty-printed document (legacy session,
    checkpoint, ``logs.json``), unless the lines after it are records (JSONL with a damaged
    first line: only that line is lost, see `sts.converters.input_head`).
    """
    head = read_head(stream)
    if not head.lines:
        return None
    value = head.value
    lines: Iterable[bytes] = chain(head.lines, stream)
    if value is NOT_JSON and head.first.lstrip()[:1] in (b"{", b"["):
        document, rest = read_unclear(stream, head, problems)
        if rest is None:
            return from_document(document, problems)
        lines = rest
    elif type(value) is list or (type(value) is dict and is_checkpoint(value)):
        data = b"".join(head.lines) + stream.read()  # a one-line document, or JSONL after all
        if not data[len(b"".join(head.lines)):].strip():
            return from_document(loads_document(data, problems), problems)
        lines = io.BytesIO(data)
    return R.replay(lines, problems)


def from_document(document: Any, problems: Problems) -> R.Recording | None:
    """The recording of a whole JSON document (None when it is none, reported)."""
    if document is None:
        return None  # reported by loads_document
    if is_legacy_document(document):
        return R.legacy_recording(document, problems)
    if is_checkpoint(document):
        return R.checkpoint_recording(document)
    if is_prompt_log(document):
        problems.error(None, "not-a-session", "Gemini CLI logs.json is prompt history (the "
                       "prompts typed in a project, nothing else): not a session; the sessions "
                       "are in chats/")
        return None
    if type(document) is dict and is_metadata(document):
        return R.Recording("json", {k: v for k, v in document.items() if k != "messages"})
    problems.error(None, "unknown-record", "JSON document is not a Gemini CLI session")
    return None


def build(recording: R.Recording, context: ReadContext, path: Path | None, depth: int,
          seen: set[str]) -> Session | None:
    """The session of a recording, with its sub-agents as children when asked."""
    options = GeminiCliOptions.of(context.options)
    meta = recording.meta
    b = SessionBuilder(context, FORMAT, HARNESS, title_from_prompt=True)
    b.offer_id(meta.get("sessionId"))
    messages = MessageBuilder(b, options.drop_injected)
    for entry in recording.entries:
        messages.record(entry.take(), entry.line)
    for index, turn in enumerate(recording.turns):
        messages.turn(turn, index)
    b.title(meta.get("summary"), TitleRank.SUMMARY)
    if recording.shape == "checkpoint" and path is not None:
        stem = file_stem(path.name)
        if stem.startswith(CHECKPOINT_PREFIX):  # named by the user: /chat save <tag>
            b.title(unquote(stem.removeprefix(CHECKPOINT_PREFIX)), TitleRank.GIVEN)
    session = b.finish()
    session.started_at = checked_ms(meta.get("startTime"), context.problems,
                                    recording.meta_lines.get("startTime"), "startTime")
    session.cwd = working_directory(meta, path)
    session.metadata = header_metadata(meta, recording, context.problems)
    seen.add(session.id)
    if path is not None and options.subagents and depth < MAX_DEPTH:
        add_children(session, messages, context, path, depth, seen)
    if not session.messages and not session.children:
        return None
    return session


def working_directory(meta: dict[str, Any], path: Path | None) -> str | None:
    """A sub-agent's first workspace directory, else the project's ``.project_root``."""
    directories = meta.get("directories")
    if type(directories) is list and directories and type(directories[0]) is str:
        return directories[0]
    if path is None:
        return None
    for folder in (path.parent.parent, path.parent.parent.parent, path.parent):
        marker = folder / PROJECT_ROOT_FILE
        if folder.name != "chats" and marker.is_file():
            try:
                text = marker.read_text("utf-8", "replace").strip()
            except OSError:
                return None
            return text or None
    return None


def header_metadata(
    meta: dict[str, Any], recording: R.Recording, problems: Reporter
) -> dict[str, Any]:
    """Header facts: the recording's shape, project hash, kind, last update, directories."""
    found: dict[str, Any] = {"geminiFormat": recording.shape}
    for source, key in (("projectHash", "projectHash"), ("kind", "sessionKind"),
                        ("authType", "authType")):
        value = meta.get(source)
        if type(value) is str and value:
            found[key] = value
    updated = checked_ms(meta.get("lastUpdated"), problems, recording.meta_lines.get("lastUpdated"),
                         "lastUpdated")
    if updated is not None:
        found["lastUpdated"] = updated
    directories = meta.get("directories")
    if type(directories) is list and directories:
        found["directories"] = [d for d in directories if type(d) is str]
    return found


# -- sub-agents ------------------------------------------------------------------------------


def agent_folder(path: Path, sid: str) -> Path | None:
    """``chats/<sid>/``: beside a main session file, or beside a sub-agent's own folder."""
    for base in (path.parent, path.parent.parent):
        folder = base / sid
        if base.name == "chats" and folder != path.parent and folder.is_dir():
            return folder
    return None


def agent_files(folder: Path) -> list[Path]:
    """The recordings in a sub-agent folder: ``*.jsonl``, and ``*.json`` without a twin."""
    files = []
    for child in sorted(folder.iterdir()):
        name = child.name
        if not child.is_file() or name.startswith(".") or name.endswith(".meta.json"):
            continue
        if name.endswith(".jsonl") or (
            name.endswith(".json") and not child.with_suffix(".jsonl").is_file()
        ):
            files.append(child)
    return files


def add_children(session: Session, builder: MessageBuilder, context: ReadContext, path: Path,
                 depth: int, seen: set[str]) -> None:
    folder = agent_folder(path, session.id)
    if folder is None:
        return
    for agent_file in agent_files(folder):
        child_problems = context.problems.for_file(agent_file)
        child_context = ReadContext(child_problems, agent_file, context.options)
        with agent_file.open("rb") as stream:
            recording = read_recording(stream, child_problems)
        if recording is None:
            continue
        sid = recording.meta.get("sessionId")
        if type(sid) is str and sid in seen:
            continue  # a folder that loops back: each session once
        child = build(recording, child_context, agent_file, depth + 1, seen)
        if child is None:
            continue
        stem = file_stem(agent_file.name)
        child.key = f"agent-{child.id}"
        call_id = builder.agent_calls.get(child.id) or builder.agent_calls.get(stem)
        link_child(session, child, child.id, call_id, agent_file)


__all__ = ["read"]
