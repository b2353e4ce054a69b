"""Assembling `Session` objects: the main session, its title, and its sub-agent children."""

from __future__ import annotations

from pathlib import Path

from sts.building import ReadContext, SessionBuilder, TitleRank
from sts.converters.children import link_child
from sts.converters.claude_code import FORMAT, HARNESS
from sts.converters.claude_code.messages import TASK_TOOLS, ThreadReader, typed_texts
from sts.converters.claude_code.records import Line, Transcript, read_transcript
from sts.converters.claude_code.subagents import (
    agent_files,
    agent_id_of,
    inline_sidechains,
    is_agent_file,
    meta_tool_use_id,
)
from sts.converters.claude_code.thread import main_thread
from sts.model import Session
from sts.problems import Problems


def build_main(transcript: Transcript, context: ReadContext, subagents: bool) -> Session:
    """The main session of a transcript, with its sub-agents as children when asked.

    A sub-agent's own file read as the input (``agent-<id>.jsonl``, or a file of sidechain lines
    only) is a session of its own: its sidechain is the thread, its id the agent's.
    """
    problems = context.problems
    path = context.path
    main = [e for e in transcript.entries if not e.sidechain]
    agent = agent_id_of(path) if path is not None and is_agent_file(path) else None
    alone = agent is not None or not main
    if alone:
        main = transcript.entries
    builder = _builder(transcript, context)
    builder.offer_id(agent)
    builder.offer_id(transcript.session_id)
    if agent is not None and transcript.session_id:
        builder.session.metadata["parentSessionId"] = transcript.session_id
        builder.session.metadata["agentId"] = agent
    reader = ThreadReader(builder)
    typed = typed_texts(transcript.entries) if transcript.queued else set()
    reader.build(main_thread(main, problems), transcript.queued, typed)
    offer_titles(builder, transcript)
    session = builder.finish()
    if subagents and not alone:
        _add_children(session, transcript, reader, problems, path)
    return session


def _builder(transcript: Transcript, context: ReadContext, key: str | None = None
             ) -> SessionBuilder:
    builder = SessionBuilder(context, FORMAT, HARNESS, key=key, title_from_prompt=True)
    session = builder.session
    session.source_version = transcript.version
    session.cwd = transcript.cwd
    session.git = {"branch": transcript.git_branch} if transcript.git_branch else None
    if transcript.slug:
        session.metadata["slug"] = transcript.slug
    return builder


def offer_titles(builder: SessionBuilder, transcript: Transcript) -> None:
    """custom-title, ai-title, the latest summary of this file's own leaf (the builder falls
    back to the first prompt)."""
    for summary, leaf in transcript.summaries:
        if leaf in transcript.by_uuid and summary.strip():
            builder.title(summary, TitleRank.SUMMARY)
    builder.title(transcript.ai_title, TitleRank.GENERATED)
    builder.title(transcript.custom_title, TitleRank.GIVEN)


def _add_children(
    session: Session, transcript: Transcript, reader: ThreadReader, problems: Problems,
    path: Path | None,
) -> None:
    prompts = list(reader.task_prompts)
    for number, group in enumerate(inline_sidechains(transcript.entries), 1):
        call_id = _claim_prompt(prompts, group[0])
        child = _child(transcript, group, ReadContext(problems, path), f"sidechain-{number}",
                       group[0].uuid or f"sidechain-{number}")
        link_child(session, child, None, call_id)
    if path is not None:
        calls = {agent: call for call, agent in transcript.progress_agents.items()}
        calls.update(reader.agent_calls)
        for agent_file in agent_files(path, transcript.session_id):
            agent_id = agent_id_of(agent_file)
            child_problems = problems.for_file(agent_file)
            try:
                with agent_file.open("rb") as stream:
                    child_transcript = read_transcript(stream, child_problems)
            except OSError as exc:  # the rest of the session is still converted
                child_problems.error(None, "io-error",
                                     f"sub-agent file not read: {exc.strerror or exc}")
                continue
            child = _child(child_transcript, child_transcript.entries,
                           ReadContext(child_problems, agent_file), f"agent-{agent_id}", agent_id)
            call_id = calls.get(agent_id) or meta_tool_use_id(agent_file)
            link_child(session, child, agent_id, call_id)
    _describe(session)


def _child(
    transcript: Transcript, entries: list[Line], context: ReadContext, key: str, child_id: str
) -> Session:
    builder = _builder(transcript, context, key)
    builder.offer_id(child_id)
    ThreadReader(builder).build(main_thread(entries, context.problems), [], set())
    return builder.finish()


def _describe(session: Session) -> None:
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


def _claim_prompt(prompts: list[tuple[str, str]], root: Line) -> str | None:
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
