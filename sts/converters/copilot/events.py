"""A Copilot CLI ``events.jsonl`` log → one `Session` (sub-agents as its children).

Every line is an envelope ``{type, data, id, timestamp, parentId, agentId?}``; the envelope
``timestamp`` (ISO, ms) is each message's time. Choices, documented once here:

- Threads: events with an envelope ``agentId`` (or, in older builds, only a
  ``data.parentToolCallId``) belong to that sub-agent, whose events are inline in the parent's
  file. Each sub-agent becomes a child `Session` (id = its ``agentId``, key ``agent-<id>``)
  linked to the ``task`` call that spawned it (``subagent.started.toolCallId``): child metadata
  ``parentSessionId``/``parentToolCallId``/``agentId``/``agentName``, parent ``subagentLinks``.
  A sub-agent spawned by a sub-agent is a child of that sub-agent. Older builds without
  ``agentId``: the sub-agent is known by its task call only (key ``task-<call id>``, id
  ``<session id>-task-<call id>``, no ``agentId``). A sub-agent's title is its display name,
  else the task call's ``description`` or ``prompt`` argument, else its own first prompt.
- ``user.message``: ``content`` (as typed, never ``transformedContent``) is the prompt. One with
  a ``source`` other than ``user`` (skill and instruction injections, autopilot nudges) or a
  ``<system_notification>`` text is harness machinery: a system message of kind
  ``injected_context`` (``notification``), never a prompt; a sub-agent's own prompt (source
  ``agent-<id>``) is that sub-agent's user message. Attachments become file placeholders
  (images with inline data as images).
- ``system.message`` (the full system prompt, re-sent by some builds on every turn): kept once
  per thread, as the thread's first message (kind ``system_prompt``; ``developer`` role: kind
  ``developer``); a later one with a different text is kept where it comes.
- ``assistant.message``: one message per model call, id ``messageId``, text ``content``,
  ``reasoningText`` (and separate ``assistant.reasoning`` events, each text once) as thinking,
  ``toolRequests`` as tool calls (arguments an object or a string, see `sts.arguments`). Chunks
  of one ``messageId`` are merged; a chunk with nothing in it is passed over. Encrypted
  reasoning (``reasoningOpaque``, ``encryptedContent``) is session-bound and dropped.
- Tool results come only from ``tool.execution_complete`` and are linked by ``toolCallId``,
  never by position (parallel calls and sub-agents finish late): the model-facing
  ``result.content``, else the ``contents`` blocks, else ``detailedContent``; a failure
  (``success: false``) is an error result with ``error.message``; the shell exit code goes to
  ``extras["exit_code"]``.
- Usage: per model call from ``session.usage_record`` (``usage.apiCallId`` matched to the
  message's ``apiCallId``, else the thread's next model call). ``inputTokens`` counts cached
  tokens too, so ``input`` is ``inputTokens - cacheReadTokens - cacheWriteTokens``, as pi counts.
  Copilot's ``cost`` is premium requests, not dollars: never a cost. ``session.shutdown``
  totals are cumulative for the session so far (one per process exit): never summed; the last
  one's ``totalPremiumRequests`` and ``modelMetrics`` go to the header metadata.
- Resumed sessions (``session.resume``, ``turnId`` restarting at ``"0"``) append to the same
  file: nothing is keyed by ``turnId``, so the turns simply follow; the resume times go to
  ``resumedAt`` in the header.
- Model: ``assistant.message.model``, else the thread's latest ``session.model_change``,
  ``usage_record`` or ``session.start``/``resume`` ``selectedModel``; never invented.
- ``session.compaction_complete`` → system ``compaction`` (the summary; ``tokens_before``);
  ``session.context_cleared`` → system ``context_cleared``; ``session.error`` → system
  ``error``; ``abort`` → ``stop_reason="aborted"`` on the thread's last assistant message.
- Older builds logged the prompt only in ``hook.start`` (``userPromptSubmitted``): that prompt is
  used when no ``user.message`` follows it.
- Id: ``session.start.sessionId``, else the log's folder name, else the file stem. Title: a
  ``workspace.yaml`` ``name`` the user gave (``user_named: true``), else the last
  ``session.title_changed``, else the first prompt (``workspace.yaml``'s own default). cwd and
  git from ``session.start.context`` (else ``workspace.yaml``).
- Left out on purpose (silent): the ``hook.``, ``permission.``, ``model.``, ``skill.``,
  ``external_tool.``, ``session.`` and ``subagent.`` families not named above, turn boundaries,
  ``tool.execution_start``/progress, ``system.notification``. Any other type is reported
  (``unknown-record``) and skipped: new releases add types.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from sts.building import ReadContext, SessionBuilder, TitleRank, shorten
from sts.building.coerce import text_or_none as _str
from sts.building.content import image_from_url
from sts.building.vocabulary import stop_reason
from sts.converters.base import gc_paused
from sts.converters.chat.messages import same_reasoning
from sts.converters.copilot.legacy import read_legacy
from sts.converters.input_head import NOT_JSON, read_head, read_unclear
from sts.lines import iter_records, loads_document
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Part,
    Session,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
    base64_size,
)
from sts.problems import Problems
from sts.timestamps import checked_ms

FORMAT = "github-copilot"
SILENT_PREFIXES = (
    "hook.", "permission.", "model.", "skill.", "external_tool.", "session.", "subagent.",
    "assistant.turn_", "tool.execution_",
)
SILENT_TYPES = frozenset(("system.notification", "assistant.intent", "assistant.idle",
                          "assistant.usage", "assistant.message_delta",
                          "assistant.reasoning_delta"))
NOTIFICATION = "<system_notification>"
CONTEXT_CLEARED = "[context cleared]"


@dataclass
class Thread:
    """The main conversation or one sub-agent: its messages and what is pending in it."""

    builder: SessionBuilder
    agent_id: str | None = None
    model: str | None = None
    prompts: set[str] = field(default_factory=set)  # system prompt texts kept
    prompt_placed: bool = False  # the first system prompt went to the top
    thinking: list[ThinkingPart] = field(default_factory=list)  # assistant.reasoning waiting
    usages: list[tuple[str | None, Usage, str | None, str | None]] = field(default_factory=list)
    awaiting: dict[str, Message] = field(default_factory=dict)  # apiCallId → message, no usage
    last: Message | None = None  # the newest assistant message
    hook_prompt: tuple[str, int | None] | None = None
    parent_call: str | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def session(self) -> Session:
        return self.builder.session


def read(stream: BinaryIO, context: ReadContext, subagents: bool = True) -> Iterator[Session]:
    """Yield the session of an events log, or of a legacy ``history-session-state`` JSON."""
    head = read_head(stream)
    if not head.lines:
        return
    value = head.value
    if value is NOT_JSON and head.first.lstrip()[:1] == b"{":
        document, rest = read_unclear(stream, head, context.problems)
        if rest is None:
            yield from read_legacy(document, context)
            return
        records = iter_records(rest, context.problems)
    elif type(value) is dict and "chatMessages" in value and "data" not in value:
        if head.repaired:  # parsed again to report the repair
            value = loads_document(b"".join(head.lines), context.problems)
        rest_data = stream.read()
        if rest_data.strip():
            value = loads_document(b"".join(head.lines) + rest_data, context.problems)
        yield from read_legacy(value, context)
        return
    else:
        from itertools import chain

        records = iter_records(chain(head.lines, stream), context.problems)
    with gc_paused():
        log = EventLog(context, subagents)
        for lineno, record in records:
            log.event(lineno, record)
        session = log.finish()
    if session is not None:
        yield session


class EventLog:
    """Reads the events of one log, in file order, into threads."""

    def __init__(self, context: ReadContext, subagents: bool = True) -> None:
        self.context = context
        self.problems: Problems = context.problems
        self.path = context.path
        self.subagents = subagents
        self.main = self._thread(None)
        self.threads: dict[str, Thread] = {}
        self.agent_of_call: dict[str, str] = {}  # task call id → sub-agent id
        self.owner: dict[str, Thread] = {}  # source tool call id → thread that made it
        self.tasks: dict[str, ToolCall] = {}  # source tool call id → the call
        self.start: dict[str, Any] | None = None
        self.start_ms: int | None = None
        self.shutdown: dict[str, Any] | None = None
        self.shutdowns = 0
        self.resumed: list[int] = []
        self.seen_event = False

    def _thread(self, agent_id: str | None, key: str | None = None) -> Thread:
        """A thread: the main one, a sub-agent with its `agent_id`, or (older builds, no
        ``agentId``) one known only by its `key` ``task-<call id>``."""
        if agent_id is not None:
            key = f"agent-{agent_id}"
        builder = SessionBuilder(self.context, FORMAT, FORMAT, key=key, title_from_prompt=True)
        builder.offer_id(agent_id)
        return Thread(builder, agent_id)

    # -- dispatch ---------------------------------------------------------------------------

    def event(self, lineno: int, record: dict[str, Any]) -> None:
        """One envelope."""
        kind = record.get("type")
        data = record.get("data")
        if type(kind) is not str or type(data) is not dict:
            what = f"record type {kind!r}" if type(kind) is not str else f"{kind} without data"
            self.problems.error(lineno, "unknown-record", f"{what}: skipped")
            return
        self.seen_event = True
        handler = HANDLERS.get(kind)
        if handler is not None:
            # only the events that become messages (or start the session) need their time
            ts = checked_ms(record.get("timestamp"), self.problems, lineno, "timestamp") \
                if kind in TIMED else None
            handler(self, self._route(record, data), data, ts, lineno)
        elif kind not in SILENT_TYPES and not kind.startswith(SILENT_PREFIXES):
            self.problems.unknown_type(lineno, f"event type {kind!r}")

    def _route(self, record: dict[str, Any], data: dict[str, Any]) -> Thread:
        agent = _str(record.get("agentId"))
        real = agent is not None
        if agent is None:
            parent_call = _str(data.get("parentToolCallId"))
            if parent_call is None:
                return self.main
            agent = self.agent_of_call.get(parent_call)
            real = agent is not None
            agent = agent or f"task-{parent_call}"
        thread = self.threads.get(agent)
        if thread is None:
            thread = self._thread(agent) if real else self._thread(None, agent)
            self.threads[agent] = thread
            thread.model = self.main.model
            parent_call = _str(data.get("parentToolCallId"))
            if parent_call is not None:
                thread.parent_call = parent_call
        return thread

    # -- session facts ----------------------------------------------------------------------

    def session_start(self, thread: Thread, data: dict[str, Any], ts: int | None,
                      line: int) -> None:
        if self.start is None:
            self.start = data
            self.start_ms = checked_ms(data.get("startTime"), self.problems, line,
                                       "startTime") or ts
        thread.model = _str(data.get("selectedModel")) or thread.model

    def session_resume(self, thread: Thread, data: dict[str, Any], ts: int | None,
                       line: int) -> None:
        resumed = checked_ms(data.get("resumeTime"), self.problems, line, "resumeTime") or ts
        if resumed is not None:
            self.resumed.append(resumed)
        thread.model = _str(data.get("selectedModel")) or thread.model

    def model_change(self, thread: Thread, data: dict[str, Any], ts: int | None,
                     line: int) -> None:
        thread.model = _str(data.get("newModel")) or thread.model

    def title_changed(self, thread: Thread, data: dict[str, Any], ts: int | None,
                      line: int) -> None:
        if thread is self.main:
            thread.builder.title(data.get("title"), TitleRank.GENERATED)

    def shutdown_event(self, thread: Thread, data: dict[str, Any], ts: int | None,
                       line: int) -> None:
        self.shutdown = data  # cumulative: only the last one counts
        self.shutdowns += 1

    def subagent_started(self, thread: Thread, data: dict[str, Any], ts: int | None,
                         line: int) -> None:
        call = _str(data.get("toolCallId"))
        if thread is self.main:
            return  # no agentId: nothing to link
        if call is not None:
            self.agent_of_call[call] = thread.agent_id or ""
            thread.parent_call = call
        for key in ("agentName", "agentDisplayName", "agentDescription"):
            if _str(data.get(key)):
                thread.info[key] = data[key]

    def subagent_ended(self, thread: Thread, data: dict[str, Any], ts: int | None,
                       line: int) -> None:
        if thread is self.main:
            return
        thread.info["agentStatus"] = "failed" if "error" in data else "completed"
        error = data.get("error")
        if _str(error):
            thread.info["agentError"] = error

    # -- conversation -----------------------------------------------------------------------

    def user_message(self, thread: Thread, data: dict[str, Any], ts: int | None,
                     line: int) -> None:
        thread.hook_prompt = None
        text = data.get("content")
        text = text if type(text) is str else ""
        content: list[Part] = [TextPart(text)] if text else []
        content.extend(attachments(data.get("attachments")))
        source = data.get("source")
        message = Message("user", content, timestamp=ts, id=_str(data.get("messageId")))
        if text.lstrip().startswith(NOTIFICATION):
            message.role, message.kind = "system", MessageKind.TASK_NOTIFICATION
        elif type(source) is str and source and source != "user" and not (
            source.startswith("agent-") and thread is not self.main
        ):
            message.role, message.kind = "system", MessageKind.INJECTED_CONTEXT
            message.extras["source"] = source
        elif data.get("isAutopilotContinuation") is True:
            message.role, message.kind = "system", MessageKind.INJECTED_CONTEXT
        if not content:
            return
        thread.builder.add(message)

    def system_message(self, thread: Thread, data: dict[str, Any], ts: int | None,
                       line: int) -> None:
        text = data.get("content")
        if type(text) is not str or not text or text in thread.prompts:
            return
        kind = (MessageKind.DEVELOPER if data.get("role") == "developer"
                else MessageKind.SYSTEM_PROMPT)
        message = Message("system", [TextPart(text)], timestamp=ts, kind=kind)
        if _str(data.get("name")):
            message.extras["name"] = data["name"]
        messages = thread.session.messages
        if thread.prompt_placed:
            messages.append(message)
        else:
            messages.insert(0, message)
            thread.prompt_placed = True
        thread.prompts.add(text)

    def hook_start(self, thread: Thread, data: dict[str, Any], ts: int | None,
                   line: int) -> None:
        hook_input = data.get("input")
        if data.get("hookType") != "userPromptSubmitted" or type(hook_input) is not dict:
            return
        prompt = hook_input.get("prompt")
        if type(prompt) is str and prompt:
            self._flush_hook(thread)
            thread.hook_prompt = (prompt, ts)

    def _flush_hook(self, thread: Thread) -> None:
        if thread.hook_prompt is not None:
            prompt, ts = thread.hook_prompt
            thread.hook_prompt = None
            thread.builder.add(Message("user", [TextPart(prompt)], timestamp=ts))

    def reasoning(self, thread: Thread, data: dict[str, Any], ts: int | None,
                  line: int) -> None:
        text = data.get("content")
        if type(text) is str and text.strip():
            part = ThinkingPart(text)
            if same_reasoning(part, thread.thinking) is None:
                thread.thinking.append(part)

    def assistant_message(self, thread: Thread, data: dict[str, Any], ts: int | None,
                          line: int) -> None:
        self._flush_hook(thread)
        message_id = _str(data.get("messageId"))
        message = thread.last
        merged = message is not None and message_id is not None and message.id == message_id
        if not merged:
            message = Message("assistant", timestamp=ts, id=message_id)
        assert message is not None
        thinking = list(thread.thinking)
        thread.thinking = []
        reasoning = data.get("reasoningText")
        if type(reasoning) is str and reasoning.strip():
            thinking.append(ThinkingPart(reasoning))
        existing = [p for p in message.content if type(p) is ThinkingPart]
        for part in thinking:
            if same_reasoning(part, existing) is None:
                existing.append(part)
                message.content.insert(len(existing) - 1, part)
        text = data.get("content")
        if type(text) is str and text:
            last = message.content[-1] if message.content else None
            if merged and type(last) is TextPart:
                last.text = last.text + text
            else:
                message.content.append(TextPart(text))
        requests = data.get("toolRequests")
        if type(requests) is list:
            for request in requests:
                self._call(thread, message, request, line)
        elif requests is not None:
            self.problems.error(line, "bad-tool-calls", "toolRequests is not a list: skipped")
        model = _str(data.get("model"))
        if model is not None:
            message.model = model
        elif message.model is None:
            message.model = thread.model
        if merged:
            return
        if not message.content and not message.tool_calls:
            return  # a chunk placeholder with nothing of its own
        thread.builder.add(message)
        thread.last = message
        api_call = _str(data.get("apiCallId"))
        self._claim_usage(thread, message, api_call)

    def _call(self, thread: Thread, message: Message, request: Any, line: int) -> None:
        if type(request) is not dict:
            self.problems.error(line, "bad-tool-call", "tool request is not an object: skipped")
            return
        call = thread.builder.call(request.get("toolCallId"), request.get("name"),
                                   request.get("arguments"), line)
        if request.get("type") == "custom":
            call.extras["type"] = "custom"
        message.tool_calls.append(call)
        source_id = request.get("toolCallId")
        source = str(source_id) if source_id is not None else call.id
        self.owner[source] = thread
        self.tasks[source] = call

    def tool_complete(self, thread: Thread, data: dict[str, Any], ts: int | None,
                      line: int) -> None:
        self._flush_hook(thread)
        source_id = data.get("toolCallId")
        thread = self.owner.get(str(source_id) if source_id is not None else "", thread)
        call_id = thread.builder.answer(source_id, None, line)
        failed = data.get("success") is False
        content = result_parts(data.get("result"))
        error = data.get("error")
        error_text = error.get("message") if type(error) is dict else error
        message = Message("tool", content, tool_call_id=call_id, timestamp=ts, is_error=failed)
        message.tool_name = thread.builder.tool_name(call_id) or None
        if type(error_text) is str and error_text:
            if failed and not content:
                message.content = [TextPart(error_text)]
            message.error_message = error_text
        shell = data.get("shellExecution")
        if type(shell) is dict and type(shell.get("exitCode")) is int:
            message.extras["exit_code"] = shell["exitCode"]
        thread.builder.add(message)

    def usage_record(self, thread: Thread, data: dict[str, Any], ts: int | None,
                     line: int) -> None:
        raw = data.get("usage")
        if type(raw) is not dict:
            return
        usage = make_usage(raw)
        api_call = _str(raw.get("apiCallId"))
        model = _str(raw.get("model"))
        reason = _str(raw.get("finishReason"))
        waiting = thread.awaiting.pop(api_call, None) if api_call is not None else None
        if waiting is not None:
            apply_usage(waiting, usage, model, reason)
        else:
            thread.usages.append((api_call, usage, model, reason))
        if model is not None:
            thread.model = thread.model or model

    def _claim_usage(self, thread: Thread, message: Message, api_call: str | None) -> None:
        for index, (usage_call, usage, model, reason) in enumerate(thread.usages):
            if api_call is None or usage_call is None or usage_call == api_call:
                del thread.usages[index]
                apply_usage(message, usage, model, reason)
                return
        if api_call is not None:
            thread.awaiting[api_call] = message

    def compaction(self, thread: Thread, data: dict[str, Any], ts: int | None,
                   line: int) -> None:
        summary = data.get("summaryContent")
        if data.get("success") is False or type(summary) is not str or not summary:
            return
        message = Message("system", [TextPart(summary)], timestamp=ts,
                          kind=MessageKind.COMPACTION)
        before = data.get("preCompactionTokens")
        if type(before) is int:
            message.tokens_before = before
        thread.builder.add(message)

    def context_cleared(self, thread: Thread, data: dict[str, Any], ts: int | None,
                        line: int) -> None:
        thread.builder.add(Message("system", [TextPart(CONTEXT_CLEARED)], timestamp=ts,
                                   kind=MessageKind.CONTEXT_CLEARED))
        thread.prompts.clear()

    def session_error(self, thread: Thread, data: dict[str, Any], ts: int | None,
                      line: int) -> None:
        text = data.get("message")
        if type(text) is not str or not text:
            return
        message = Message("system", [TextPart(text)], timestamp=ts, kind=MessageKind.API_ERROR,
                          error_message=text)
        if _str(data.get("errorType")):
            message.extras["error_type"] = data["errorType"]
        thread.builder.add(message)

    def abort(self, thread: Thread, data: dict[str, Any], ts: int | None, line: int) -> None:
        if thread.last is not None:
            thread.last.stop_reason = StopReason.ABORTED
            reason = data.get("reason")
            if type(reason) is str and reason:
                thread.last.error_message = reason

    # -- the end ----------------------------------------------------------------------------

    def finish(self) -> Session | None:
        """The main session with its sub-agents, or None when the log held no event."""
        for thread in (self.main, *self.threads.values()):
            self._flush_hook(thread)
        if not self.seen_event:
            return None
        builder = self.main.builder
        session = builder.session
        start = self.start or {}
        builder.offer_id(start.get("sessionId"))
        builder.offer_id(log_folder(self.path))
        session.source_version = _str(start.get("copilotVersion"))
        session.started_at = self.start_ms
        workspace = read_workspace(self.path)
        context = start.get("context")
        context = context if type(context) is dict else {}
        session.cwd = _str(context.get("cwd")) or workspace.get("cwd")
        git = {key: context[key] for key in ("gitRoot", "branch", "repository", "headCommit",
                                             "baseCommit") if _str(context.get(key))}
        if not git and workspace.get("branch"):
            git = {"branch": workspace["branch"]}
        session.git = git or None
        if workspace.get("user_named") == "true":  # else its name is the first prompt
            builder.title(workspace.get("name"), TitleRank.GIVEN)
        metadata = session.metadata
        for key, target in (("producer", "producer"), ("hostType", "hostType")):
            value = start.get(key, context.get(key))
            if _str(value):
                metadata[target] = value
        if workspace.get("client_name"):
            metadata["clientName"] = workspace["client_name"]
        if self.resumed:
            metadata["resumedAt"] = self.resumed
        if self.shutdown is not None:
            premium = self.shutdown.get("totalPremiumRequests")
            if type(premium) in (int, float):
                metadata["premiumRequests"] = premium
            if type(self.shutdown.get("modelMetrics")) is dict:
                metadata["modelMetrics"] = self.shutdown["modelMetrics"]
        if self.subagents:
            self._attach_children(session)
        return builder.finish()

    def _attach_children(self, session: Session) -> None:
        links: dict[int, list[dict[str, Any]]] = {}
        parents: dict[str, Session] = {}
        for thread in self.threads.values():
            if thread.agent_id is None:  # an older build's sub-agent, known by its task call
                thread.builder.offer_id(f"{session.id}-{thread.session.key}")
            thread.builder.title(thread.info.get("agentDisplayName"), TitleRank.GIVEN)
            task = self.tasks.get(thread.parent_call or "")
            if task is not None and type(task.arguments) is dict:
                for key in ("prompt", "description"):  # the later, stronger
                    text = _str(task.arguments.get(key))
                    if text is not None:
                        thread.builder.title(shorten(" ".join(text.split())), TitleRank.SUMMARY)
            child = thread.builder.finish()
            child.cwd = session.cwd
            child.source_version = session.source_version
            parents[thread.agent_id or ""] = child
        for thread in self.threads.values():
            child = thread.session
            parent_thread = self.owner.get(thread.parent_call or "", self.main)
            parent = parent_thread.session if parent_thread is not thread else session
            child.metadata["parentSessionId"] = parent.id
            link: dict[str, Any] = {"key": child.key, "sessionId": child.id}
            if thread.agent_id is not None:
                link["agentId"] = child.metadata["agentId"] = thread.agent_id
            if thread.parent_call is not None:
                child.metadata["parentToolCallId"] = thread.parent_call
                link["toolCallId"] = thread.parent_call
            child.metadata.update(thread.info)
            links.setdefault(id(parent), []).append(link)
            parent.children.append(child)
        for target in (session, *parents.values()):
            if id(target) in links:
                target.metadata["subagentLinks"] = links[id(target)]


#: The events whose envelope time is used (the others are never parsed for it).
TIMED = frozenset((
    "session.start", "session.resume", "user.message", "system.message", "hook.start",
    "assistant.message", "tool.execution_complete", "session.compaction_complete",
    "session.context_cleared", "session.error",
))
HANDLERS = {
    "session.start": EventLog.session_start,
    "session.resume": EventLog.session_resume,
    "session.model_change": EventLog.model_change,
    "session.title_changed": EventLog.title_changed,
    "session.shutdown": EventLog.shutdown_event,
    "session.usage_record": EventLog.usage_record,
    "session.compaction_complete": EventLog.compaction,
    "session.context_cleared": EventLog.context_cleared,
    "session.error": EventLog.session_error,
    "subagent.started": EventLog.subagent_started,
    "subagent.completed": EventLog.subagent_ended,
    "subagent.failed": EventLog.subagent_ended,
    "user.message": EventLog.user_message,
    "system.message": EventLog.system_message,
    "hook.start": EventLog.hook_start,
    "assistant.reasoning": EventLog.reasoning,
    "assistant.message": EventLog.assistant_message,
    "tool.execution_complete": EventLog.tool_complete,
    "abort": EventLog.abort,
}


# -- parts ------------------------------------------------------------------------------------


def attachments(value: Any) -> list[Part]:
    """``user.message.attachments``: images with inline data, else placeholders naming the file,
    directory or selection (``path``/``filePath``) or the GitHub item (``url``)."""
    if type(value) is not list:
        return []
    parts: list[Part] = []
    for item in value:
        if type(item) is not dict:
            continue
        kind = _str(item.get("type")) or "file"
        media_type = _str(item.get("mimeType"))
        data = item.get("data")
        path = _str(item.get("path")) or _str(item.get("filePath"))
        name = _str(item.get("displayName")) or path
        if media_type and media_type.startswith("image/") and type(data) is str:
            parts.append(ImagePart(media_type=media_type, data=data))
        else:
            parts.append(MediaPart(
                kind, media_type=media_type, name=name,
                size=base64_size(data) if type(data) is str else None,
                url=path or _str(item.get("url")),
            ))
    return parts


def result_parts(result: Any) -> list[Part]:
    """The model-facing parts of a tool result."""
    if type(result) is not dict:
        return [TextPart(result)] if type(result) is str and result else []
    text = result.get("content")
    if type(text) is str and text:
        return [TextPart(text)]
    parts: list[Part] = []
    blocks = result.get("contents")
    for block in blocks if type(blocks) is list else ():
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "text" and type(block.get("text")) is str and block["text"]:
            parts.append(TextPart(block["text"]))
        elif kind == "image":
            data, media_type = block.get("data"), _str(block.get("mimeType"))
            if type(data) is str and data.startswith("data:"):
                parts.append(image_from_url(data))
            else:
                parts.append(ImagePart(media_type=media_type,
                                       data=data if type(data) is str else None))
        elif type(kind) is str:
            parts.append(MediaPart(kind, media_type=_str(block.get("mimeType")),
                                   url=_str(block.get("uri"))))
    if parts:
        return parts
    detailed = result.get("detailedContent")
    return [TextPart(detailed)] if type(detailed) is str and detailed else []


def make_usage(raw: dict[str, Any]) -> Usage:
    """A `Usage` from a ``usage_record``'s counters (``input`` without cached tokens)."""
    def count(key: str) -> int:
        value = raw.get(key)
        if (type(value) is int or type(value) is float) and value == value and value >= 0:
            return int(value)
        return 0

    cache_read, cache_write = count("cacheReadTokens"), count("cacheWriteTokens")
    return Usage(
        input=max(0, count("inputTokens") - cache_read - cache_write),
        output=count("outputTokens"),
        cache_read=cache_read,
        cache_write=cache_write,
    )


def apply_usage(message: Message, usage: Usage, model: str | None, reason: str | None) -> None:
    message.usage = usage
    if message.model is None and model is not None:
        message.model = model
    if reason is not None and message.stop_reason is None:
        message.stop_reason = stop_reason(reason)


# -- helpers ----------------------------------------------------------------------------------


def log_folder(path: Path | None) -> str | None:
    """The session id an ``events.jsonl`` names by its folder (``session-state/<id>/``)."""
    if path is not None and path.name == "events.jsonl" and path.parent.name:
        return path.parent.name
    return None


def read_workspace(path: Path | None) -> dict[str, str]:
    """``workspace.yaml`` beside the log: its flat ``key: value`` lines (no YAML library)."""
    if path is None:
        return {}
    try:
        text = (path.parent / "workspace.yaml").read_text("utf-8", "replace")
    except OSError:
        return {}
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if not colon or key.startswith((" ", "\t", "#")):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if value:
            found[key.strip()] = value
    return found

