"""Assembling `Session` objects: the main session, its title, and its sub-agent children."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sts import spill
from sts.building import ReadContext, SessionBuilder, TitleRank, prompt_title
from sts.building.session import titled
from sts.converters.base import gc_paused
from sts.converters.children import link_child
from sts.converters.claude_code import FORMAT, HARNESS
from sts.converters.claude_code.messages import ThreadReader
from sts.converters.claude_code.records import Line, Transcript, read_transcript
from sts.converters.claude_code.subagents import (
    agent_files,
    agent_id_of,
    inline_sidechains,
    is_agent_file,
    meta_tool_use_id,
)
from sts.converters.claude_code.thread import main_thread
from sts.model import Message, Session, StreamedSession, ToolCall, first_time
from sts.problems import Problems

#: Bytes from which a transcript is read in two passes and its messages streamed to the writer,
#: when the caller allows it (`ReadContext.deferred`): a smaller session is read once, its lines
#: kept until the thread is chosen (the second pass parses every line again: 10-15% more CPU).
STREAMED_FROM = 16 << 20


def build_main(transcript: Transcript, context: ReadContext, subagents: bool) -> Session:
    """The main session of a transcript, with its sub-agents as children when asked; a
    `StreamedSession` when the transcript was read to be read again (`read_transcript`).

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
    offer_titles(builder, transcript)
    thread = main_thread(main, problems)
    del main
    transcript.by_uuid = {}  # threading and titles were its last readers
    reader = ThreadReader(builder)
    waiting = [q for q in transcript.queued if not transcript.is_typed(q.text.strip())]
    streamed = transcript.stream is not None  # read again line by line: stream the messages
    messages = reader.messages(thread, waiting, transcript.load, runs=streamed)

    def add_children(session: Session) -> None:
        if subagents and not alone:
            _add_children(session, transcript, reader, problems, path)

    if streamed:
        session = builder.finish()  # the id; the title falls back to the first prompt below
        head = _head(session, messages)
        if head:  # else there is no message: the sub-agents, if any, are all there is
            whole = StreamedSession.of(session, iter(()), first_time(head))
            whole.stream = _rest(whole, head, messages, add_children)
            builder.session = whole
            return whole
    else:
        builder.session.messages = list(messages)
        session = builder.finish()
    add_children(session)
    return session


def _head(session: Session, messages: Iterator[Message]) -> deque[Message]:
    """The messages up to the first with a time and (when no other title is known) the first
    prompt, which gives `session` its title."""
    head: deque[Message] = deque()
    timed = False
    for message in messages:
        head.append(message)
        timed = timed or message.timestamp is not None
        if timed and (session.name is not None or titled(message)):
            break
    if session.name is None:
        session.name = prompt_title(list(head))
    return head


def _rest(session: Session, head: deque[Message], messages: Iterator[Message],
          last: Callable[[Session], None]) -> Iterator[Message]:
    """All the messages of a streamed session, then `last` (its sub-agents)."""
    with gc_paused(), spill.paused():  # each message is written before the next is made
        while head:
            yield head.popleft()
        yield from messages
        last(session)


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
        call_id = _claim_prompt(prompts, transcript.load(group[0]))
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
                with agent_file.open("rb") as stream:  # open while its lines are read again
                    child_transcript = read_transcript(stream, child_problems)
                    child = _child(child_transcript, child_transcript.entries,
                                   ReadContext(child_problems, agent_file), f"agent-{agent_id}",
                                   agent_id)
            except OSError as exc:  # the rest of the session is still converted
                child_problems.error(None, "io-error",
                                     f"sub-agent file not read: {exc.strerror or exc}")
                continue
            call_id = calls.get(agent_id) or meta_tool_use_id(agent_file)
            link_child(session, child, agent_id, call_id, agent_file)
    _describe(session, reader.task_calls)


def _child(
    transcript: Transcript, entries: list[Line], context: ReadContext, key: str, child_id: str
) -> Session:
    builder = _builder(transcript, context, key)
    builder.offer_id(child_id)
    reader = ThreadReader(builder)
    builder.session.messages = list(reader.messages(main_thread(entries, context.problems), [],
                                                    transcript.load, runs=False))
    return builder.finish()


def _describe(session: Session, task_calls: list[ToolCall]) -> None:
    """Copy the spawning call's description and agent type into each linked child."""
    calls = {c.id: c for c in task_calls}
    for child in session.children:
        call = calls.get(child.metadata.get("parentToolCallId", ""))
        if call is None or type(call.arguments) is not dict:
            continue
        for source, target in (("description", "description"), ("subagent_type", "agentType")):
            value = call.arguments.get(source)
            if type(value) is str:
                child.metadata[target] = value


def _claim_prompt(prompts: list[tuple[str, str]], root: dict[str, Any] | None) -> str | None:
    if root is None:
        return None
    body = root.get("message")
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
