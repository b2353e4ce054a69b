"""Assembling `Session` objects: the main session, its title, and its sub-agent children."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sts.converters.claude_code import FORMAT, HARNESS
from sts.converters.claude_code.messages import TASK_TOOLS, Builder, typed_texts
from sts.converters.claude_code.records import Entry, Transcript, read_transcript
from sts.converters.claude_code.subagents import (
    agent_files,
    agent_id_of,
    inline_sidechains,
    meta_tool_use_id,
)
from sts.converters.claude_code.thread import main_thread
from sts.model import Message, Session
from sts.problems import Problems

TITLE_LENGTH = 80


def build_main(
    transcript: Transcript, problems: Problems, path: Path | None, subagents: bool
) -> Session:
    """The main session of a transcript, with its sub-agents as children when asked."""
    main = [e for e in transcript.entries if not e.sidechain]
    builder = Builder(problems)
    typed = typed_texts(transcript.entries) if transcript.queued else set()
    messages = builder.build(main_thread(main, problems), transcript.queued, typed)
    fallback = path.name.removesuffix(".jsonl") if path is not None else "session"
    session = _session(transcript, transcript.session_id or fallback, messages)
    session.name = title(transcript, messages)
    if subagents:
        _add_children(session, transcript, builder, problems, path)
    return session


def _session(transcript: Transcript, session_id: str, messages: list[Message]) -> Session:
    session = Session(
        id=session_id,
        messages=messages,
        source_format=FORMAT,
        source_version=transcript.version,
        harness=HARNESS,
        cwd=transcript.cwd,
        git={"branch": transcript.git_branch} if transcript.git_branch else None,
    )
    if transcript.slug:
        session.metadata["slug"] = transcript.slug
    return session


def title(transcript: Transcript, messages: list[Message]) -> str | None:
    """custom-title, ai-title, a summary of this file's own leaf, else the first prompt."""
    if transcript.custom_title:
        return transcript.custom_title
    if transcript.ai_title:
        return transcript.ai_title
    for summary, leaf in reversed(transcript.summaries):
        if leaf in transcript.by_uuid and summary.strip():
            return summary
    for wanted in (None, "command"):
        for message in messages:
            if message.role == "user" and message.kind == wanted and message.text.strip():
                return shorten(message.text)
    return None


def shorten(text: str) -> str:
    """One line of at most `TITLE_LENGTH` characters."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"


def _add_children(
    session: Session, transcript: Transcript, builder: Builder, problems: Problems,
    path: Path | None,
) -> None:
    links: list[dict[str, Any]] = []
    prompts = list(builder.task_prompts)
    for number, group in enumerate(inline_sidechains(transcript.entries), 1):
        call_id = _claim_prompt(prompts, group[0])
        child = _child(transcript, group, problems, f"sidechain-{number}",
                       group[0].uuid or f"sidechain-{number}")
        _link(session, child, call_id, None, links)
    if path is not None:
        calls = {agent: call for call, agent in transcript.progress_agents.items()}
        calls.update(builder.agent_calls)
        for agent_file in agent_files(path, transcript.session_id):
            agent_id = agent_id_of(agent_file)
            child_problems = Problems(str(agent_file), problems.policy, problems.sink,
                                      problems.problems, problems.kept)
            with agent_file.open("rb") as stream:
                child_transcript = read_transcript(stream, child_problems)
            child = _child(child_transcript, child_transcript.entries, child_problems,
                           f"agent-{agent_id}", agent_id)
            call_id = calls.get(agent_id) or meta_tool_use_id(agent_file)
            _link(session, child, call_id, agent_id, links)
    if links:
        session.metadata["subagentLinks"] = links
    _describe(session, builder)


def _child(
    transcript: Transcript, entries: list[Entry], problems: Problems, key: str, child_id: str
) -> Session:
    messages = Builder(problems).build(main_thread(entries, problems), [], set())
    child = _session(transcript, child_id, messages)
    child.key = key
    child.name = title(Transcript(), messages)
    return child


def _link(
    session: Session, child: Session, call_id: str | None, agent_id: str | None,
    links: list[dict[str, Any]],
) -> None:
    child.metadata["parentSessionId"] = session.id
    link: dict[str, Any] = {"key": child.key, "sessionId": child.id}
    if agent_id is not None:
        child.metadata["agentId"] = agent_id
        link["agentId"] = agent_id
    if call_id is not None:
        child.metadata["parentToolCallId"] = call_id
        link["toolCallId"] = call_id
    links.append(link)
    session.children.append(child)


def _describe(session: Session, builder: Builder) -> None:
    """Copy the spawning call's description and agent type into each linked child."""
    calls = {c.id: c for m in session.messages for c in m.tool_calls if c.name in TASK_TOOLS}
    for child in session.children:
        call = calls.get(child.metadata.get("parentToolCallId", ""))
        if call is None or type(call.arguments) is not dict:
            continue
        for source, target in (("description", "description"), ("subagent_type", "agentType")):
            value = call.arguments.get(source)
            if type(value) is str:
                child.metadata[target] = value


def _claim_prompt(prompts: list[tuple[str, str]], root: Entry) -> str | None:
    body = root.record.get("message")
    content = body.get("content") if type(body) is dict else None
    if type(content) is list:
        texts = [b.get("text") for b in content if type(b) is dict and b.get("type") == "text"]
        content = "\n\n".join(t for t in texts if type(t) is str)
    if type(content) is not str:
        return None
    text = content.strip()
    for index, (prompt, call_id) in enumerate(prompts):
        if prompt == text:
            del prompts[index]
            return call_id
    return None
