"""One Codex rollout → one `Session`: a single stateful pass over normalised records.

The reader hands every line over as (kind, payload, timestamp ms, line number), whatever the file
generation. The conversation comes from ``response_item`` payloads only, in file order;
``event_msg`` payloads never become messages, they only add metadata (usage, exit codes, titles,
rollbacks, aborted turns). Choices, documented once here:

- Consecutive assistant outputs of one model request (reasoning, text, tool calls) form one
  assistant message; a tool result, a user/system message, or a ``token_count`` event (the
  per-request boundary) closes it, and text arriving after tool calls starts a new one.
- Reasoning summaries (else raw ``content``) become a ThinkingPart of the next assistant output.
  ``encrypted_content`` is dropped: it is opaque and nothing in the file makes it replayable.
  ``agent_reasoning`` events mirror the items and are ignored, so reasoning is never doubled.
- ``token_count``: the first of a run of identical events is used (Codex often writes them
  twice); ``last_token_usage`` goes to the assistant message that request produced. ``input``
  excludes cached tokens (``cache_read``), as pi counts OpenAI usage. All-zero usage is ignored.
- Tool calls: ``function_call`` arguments via `parse_arguments` (kept verbatim when invalid);
  ``custom_tool_call`` (freeform, e.g. apply_patch) → arguments ``{"input": <raw text>}``, the
  shape of apply_patch's function form; ``local_shell_call`` → ``local_shell`` with the
  ``action`` object; ``web_search_call`` → ``web_search`` with the ``action`` object, id from the
  ``web_search_end`` event written just before it, else the item's ``id``, else
  ``web_search_<n>``; ``tool_search_call`` → ``tool_search``. Results are linked by ``call_id``.
- A call id used twice in one file (hand-edited or replayed files) gets a ``#2`` suffix, with a
  ``duplicate-call-id`` warning; the results that follow answer the renamed call.
- Exit codes: from the output itself (see `parts`), or from ``exec_command_end``,
  ``patch_apply_end`` and ``mcp_tool_call_end`` events keyed by ``call_id``.
- Injected context parts of user messages → system ``injected_context`` (dropped with option
  ``drop_injected``); ``developer`` → system ``developer``; ``system`` → system;
  ``base_instructions`` → a leading system ``system_prompt``; inter-agent ``agent_message`` →
  system ``inter_agent``; ``image_generation_call`` → an assistant image.
- ``compacted``: ``replacement_history`` is never replayed; one system ``compaction`` message
  carries ``message`` (``[context compacted]`` when empty), with ``tokens_before`` when known.
- ``thread_rolled_back``: the newest N user turns are dropped (option ``keep_rolled_back`` keeps
  them with ``extras["rolled_back"]`` and adds a system ``rollback`` notice).
- ``turn_aborted`` sets ``stop_reason="aborted"`` and an ``error`` event ``error_message`` on the
  turn's last assistant message.
"""

from __future__ import annotations

from typing import Any

from sts.building import SessionBuilder, TitleRank
from sts.building.coerce import positive_int, text_or_none
from sts.building.content import openai_parts, texts_of
from sts.converters.base import ReadContext
from sts.converters.codex import parts as P
from sts.converters.codex.context import environment_cwd, is_injected, user_instructions
from sts.converters.codex.options import CodexOptions
from sts.model import (
    ImagePart,
    Message,
    MessageKind,
    Part,
    StopReason,
    TextPart,
    ThinkingPart,
    Usage,
)
from sts.problems import Reporter
from sts.timestamps import checked_ms

COMPACTION_PLACEHOLDER = "[context compacted]"

# Records and item / event types we know and deliberately leave out: silent.
SILENT_ITEMS = frozenset(
    ("ghost_snapshot", "compaction", "compaction_summary", "context_compaction",
     "additional_tools", "other")
)
SILENT_EVENTS = frozenset(
    ("user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
     "agent_reasoning_section_break", "agent_message_delta", "agent_reasoning_delta",
     "task_started", "task_complete", "turn_started", "turn_complete", "context_compacted",
     "entered_review_mode", "exited_review_mode", "undo_started", "undo_completed",
     "image_generation_begin", "image_generation_end", "item_started", "item_completed",
     "warning", "stream_error", "background_event", "view_image_tool_call",
     "collab_agent_spawn_begin", "collab_agent_spawn_end", "collab_agent_interaction_begin",
     "collab_agent_interaction_end", "collab_waiting_begin", "collab_waiting_end",
     "collab_close_begin", "collab_close_end", "collab_resume_begin", "collab_resume_end",
     "dynamic_tool_call_request", "dynamic_tool_call_response", "guardian_assessment",
     "sub_agent_activity", "thread_goal_updated", "thread_settings_applied", "plan_update",
     "turn_diff", "session_configured", "exec_command_begin", "patch_apply_begin",
     "mcp_tool_call_begin", "web_search_begin", "exec_approval_request",
     "apply_patch_approval_request", "shutdown_complete", "deprecation_notice",
     "mcp_startup_update", "mcp_startup_complete", "realtime_conversation_started",
     "realtime_conversation_closed", "user_message_delta", "raw_response_item")
)


class Rollout:
    """Accumulates the messages and facts of one rollout through a `SessionBuilder`."""

    def __init__(self, context: ReadContext) -> None:
        self.builder = SessionBuilder(context, "codex", "codex", title_from_prompt=True)
        self.problems = context.problems
        options = CodexOptions.of(context.options)
        self.drop_injected = options.drop_injected
        self.instructions: str | None = None  # the header's instructions, once written
        self.keep_rolled_back = options.keep_rolled_back
        self.messages = self.builder.messages
        self.model: str | None = None
        self.provider: str | None = None
        self.api: str | None = None
        self.cwd: str | None = None
        self.workdir: str | None = None  # the first tool call's working directory
        self.thinking: list[ThinkingPart] = []
        self.current: Message | None = None  # open assistant message of this request
        self.usage_target: Message | None = None  # assistant message awaiting its usage
        self.turn_assistant: Message | None = None  # last assistant message of this turn
        self.last_total: Any = None
        self.context_tokens: int | None = None
        self.results: dict[str | None, Message] = {}
        self.statuses: dict[str, bool] = {}
        self.user_starts: list[int] = []
        self.search_id: str | None = None
        self.search_count = 0

    # -- settings -------------------------------------------------------------------------

    def set_provider(self, provider: Any) -> None:
        """The model provider from the session header; OpenAI's implies the Responses API."""
        if type(provider) is str and provider:
            self.provider = provider
            self.api = "openai-responses" if provider == "openai" else None

    def turn_context(self, payload: dict[str, Any]) -> None:
        """A ``turn_context``: the model (and cwd) of the following requests."""
        model = payload.get("model")
        if type(model) is not str or not model:
            mode = payload.get("collaboration_mode")
            settings = mode.get("settings") if type(mode) is dict else None
            model = settings.get("model") if type(settings) is dict else None
        if type(model) is str and model:
            self.model = model
        if self.cwd is None and type(payload.get("cwd")) is str:
            self.cwd = payload["cwd"]

    def world_state(self, payload: dict[str, Any]) -> None:
        """A ``world_state`` snapshot/patch: only its model is used."""
        state = payload.get("state")
        model = state.get("model") if type(state) is dict else None
        if type(model) is str and model:
            self.model = model

    # -- response items -------------------------------------------------------------------

    def item(self, payload: dict[str, Any], ts: int | None, lineno: int | None) -> None:
        """One model-visible item (``response_item`` payload or a bare legacy/TS item)."""
        kind = payload.get("type")
        search_id, self.search_id = self.search_id, None
        if ts is None:
            ts = _create_time(payload, self.problems, lineno)
        if kind == "message":
            role = payload.get("role")
            if role == "assistant":
                self._assistant_message(payload, ts, lineno)
            elif role == "user":
                self._user_message(payload, ts, lineno)
            elif role == "developer" or role == "system":
                content = openai_parts(payload.get("content"), lineno, self.problems)
                self._system(content, ts, role, payload)
            else:
                self.problems.error(lineno, "unknown-record",
                                    f"message of unknown role {role!r} skipped")
        elif kind == "reasoning":
            self._reasoning(payload)
        elif kind == "function_call":
            self._call(payload, ts, payload.get("name"), payload.get("arguments"), lineno)
        elif kind == "custom_tool_call":
            self._call(payload, ts, payload.get("name"), {"input": payload.get("input")}, lineno)
        elif kind == "local_shell_call":
            self._call(payload, ts, "local_shell", payload.get("action"), lineno)
        elif kind == "web_search_call":
            self.search_count += 1
            call_id = (search_id or text_or_none(payload.get("call_id"))
                       or text_or_none(payload.get("id")) or f"web_search_{self.search_count}")
            self._call(payload, ts, "web_search", search_arguments(payload), lineno, call_id)
        elif kind == "tool_search_call":
            self._call(payload, ts, "tool_search", payload.get("arguments"), lineno)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            content, failed = P.tool_output(payload.get("output"), lineno, self.problems)
            self._result(payload, ts, content, failed, lineno)
        elif kind == "tool_search_output":
            tools = payload.get("tools")
            names = [t.get("name") for t in tools if type(t) is dict] if type(tools) is list else []
            text = "tools: " + ", ".join(str(n) for n in names)
            self._result(payload, ts, [TextPart(text)], payload.get("status") == "failed",
                         lineno)
        elif kind == "image_generation_call":
            self._image_generation(payload, ts)
        elif kind == "agent_message":
            self._inter_agent(payload, ts, lineno)
        elif type(kind) is str and kind in SILENT_ITEMS:
            return
        else:
            self.report_unknown(lineno, f"response item {kind!r}", kind)

    def _open_assistant(self, ts: int | None, payload: dict[str, Any], text: bool) -> Message:
        message = self.current
        if message is None or (text and message.tool_calls):
            message = Message(
                "assistant", timestamp=ts, id=text_or_none(payload.get("id")), model=self.model,
                provider=self.provider, api=self.api,
            )
            self._append(message)
            self.current = self.usage_target = self.turn_assistant = message
        if self.thinking:
            message.content.extend(self.thinking)
            self.thinking = []
        return message

    def _assistant_message(
        self, payload: dict[str, Any], ts: int | None, line: int | None
    ) -> None:
        content = openai_parts(payload.get("content"), line, self.problems)
        message = self._open_assistant(ts, payload, True)
        message.content.extend(content)
        phase = payload.get("phase")
        if type(phase) is str:
            message.extras.setdefault("phases", []).append(phase)

    def _reasoning(self, payload: dict[str, Any]) -> None:
        summary = payload.get("summary")
        text = texts_of(summary)
        if not text:
            raw = payload.get("content")
            text = texts_of(raw)
        if text:
            if self.current is not None and self.current.tool_calls:
                self.current = None  # reasoning after tool calls opens the next message
            self.thinking.append(ThinkingPart(text))

    def _call(
        self, payload: dict[str, Any], ts: int | None, name: Any, arguments: Any,
        line: int | None, call_id: str | None = None,
    ) -> None:
        call_id = (call_id or text_or_none(payload.get("call_id"))
                   or text_or_none(payload.get("id")))
        message = self._open_assistant(ts, payload, False)
        name = name if type(name) is str and name else "unknown"
        call = self.builder.call(call_id, name, arguments, line)
        if self.workdir is None and type(call.arguments) is dict:
            workdir = call.arguments.get("workdir") or call.arguments.get("working_directory")
            self.workdir = workdir if type(workdir) is str and workdir else None
        namespace = payload.get("namespace")
        if type(namespace) is str and namespace:
            call.extras["namespace"] = namespace
        message.tool_calls.append(call)

    def _result(
        self, payload: dict[str, Any], ts: int | None, content: list[Part], failed: bool | None,
        line: int | None,
    ) -> None:
        call_id = self.builder.answer(text_or_none(payload.get("call_id")), None, line)
        status = self.statuses.pop(call_id, None) if call_id is not None else None
        message = Message(
            "tool", content, tool_call_id=call_id, tool_name=self.builder.tool_name(call_id),
            is_error=status if status is not None else failed, timestamp=ts,
            id=text_or_none(payload.get("id")),
        )
        self._append(message)
        self.results[call_id] = message

    def _user_message(self, payload: dict[str, Any], ts: int | None, line: int | None) -> None:
        run: list[Part] = []
        run_injected = False
        for part in openai_parts(payload.get("content"), line, self.problems):
            injected = type(part) is TextPart and is_injected(part.text)
            if (injected and self.instructions is not None
                    and user_instructions(part.text) == self.instructions):  # type: ignore[union-attr]
                continue  # the header's instructions again: one system message holds them
            if run and injected != run_injected:
                self._user_run(run, run_injected, ts, payload)
                run = []
            run.append(part)
            run_injected = injected
        if run:
            self._user_run(run, run_injected, ts, payload)

    def _user_run(
        self, content: list[Part], injected: bool, ts: int | None, payload: dict[str, Any]
    ) -> None:
        if injected:
            if self.cwd is None:  # what the model was told (legacy rollouts name it nowhere else)
                self.cwd = next(filter(None, (environment_cwd(p.text) for p in content
                                              if type(p) is TextPart)), None)
            if not self.drop_injected:
                self._append(Message("system", content, timestamp=ts,
                                     kind=MessageKind.INJECTED_CONTEXT))
            return
        self.user_starts.append(len(self.messages))
        self._append(Message("user", content, timestamp=ts, id=text_or_none(payload.get("id"))))
        self.turn_assistant = None

    def _system(
        self, content: list[Part], ts: int | None, role: str, payload: dict[str, Any]
    ) -> None:
        if content:
            kind = MessageKind.DEVELOPER if role == "developer" else MessageKind.SYSTEM
            self._append(Message("system", content, timestamp=ts, kind=kind,
                                 id=text_or_none(payload.get("id"))))

    def _image_generation(self, payload: dict[str, Any], ts: int | None) -> None:
        message = self._open_assistant(ts, payload, True)
        prompt = payload.get("revised_prompt")
        if type(prompt) is str and prompt:
            message.content.append(TextPart(f"[generated image] {prompt}"))
        result = payload.get("result")
        data = result if type(result) is str and result else None
        message.content.append(ImagePart(media_type="image/png", data=data))

    def _inter_agent(self, payload: dict[str, Any], ts: int | None, line: int | None) -> None:
        content = openai_parts(payload.get("content"), line, self.problems)
        author, recipient = payload.get("author"), payload.get("recipient")
        message = Message("system", content, timestamp=ts, kind=MessageKind.INTER_AGENT,
                          id=text_or_none(payload.get("id")))
        message.extras.update(author=author, recipient=recipient)
        self._append(message)

    def _append(self, message: Message) -> None:
        if message.role != "assistant":
            self.current = None
        self.builder.add(message)

    # -- other records ----------------------------------------------------------------------

    def system_prompt(self, text: Any, ts: int | None) -> None:
        """The session's system prompt (``base_instructions``, TS/legacy ``instructions``)."""
        if type(text) is str and text:
            self.instructions = text.strip()
            self._append(Message("system", [TextPart(text)], timestamp=ts,
                                 kind=MessageKind.SYSTEM_PROMPT))

    def compacted(self, payload: dict[str, Any], ts: int | None) -> None:
        """A ``compacted`` line: one marker; the replacement history is not replayed."""
        text = payload.get("message")
        text = text if type(text) is str and text else COMPACTION_PLACEHOLDER
        message = Message("system", [TextPart(text)], timestamp=ts, kind=MessageKind.COMPACTION)
        if self.context_tokens:
            message.tokens_before = self.context_tokens
        self._append(message)
        self.thinking = []
        self.context_tokens = None

    def event(self, payload: dict[str, Any], lineno: int) -> None:
        """An ``event_msg``: metadata only, never a message."""
        kind = payload.get("type")
        if kind == "token_count":
            self._token_count(payload.get("info"))
        elif kind == "web_search_end":
            self.search_id = text_or_none(payload.get("call_id"))
        elif kind == "exec_command_end":
            code = payload.get("exit_code")
            if type(code) is int:
                self._status(payload.get("call_id"), code != 0)
        elif kind == "patch_apply_end":
            success = payload.get("success")
            if type(success) is bool:
                self._status(payload.get("call_id"), not success)
        elif kind == "mcp_tool_call_end":
            self._mcp_status(payload)
        elif kind == "thread_name_updated":
            name = payload.get("thread_name")
            if type(name) is str and name.strip():
                self.builder.title(name.strip(), TitleRank.GENERATED)
        elif kind == "thread_rolled_back":
            turns = payload.get("num_turns")
            if type(turns) is int and turns > 0:
                self._rollback(turns)
        elif kind == "turn_aborted":
            if self.turn_assistant is not None:
                self.turn_assistant.stop_reason = StopReason.ABORTED
        elif kind == "error":
            text = payload.get("message")
            if self.turn_assistant is not None and type(text) is str:
                self.turn_assistant.error_message = text
                self.turn_assistant.stop_reason = StopReason.ERROR
        elif type(kind) is not str or kind not in SILENT_EVENTS:
            self.report_unknown(lineno, f"event {kind!r}", kind)

    def _token_count(self, info: Any) -> None:
        if type(info) is not dict:
            return
        total = info.get("total_token_usage")
        if total is not None and total == self.last_total:
            return
        self.last_total = total
        last = info.get("last_token_usage")
        usage = _usage(last) if type(last) is dict else None
        if usage is None:
            return
        self.context_tokens = usage.total_tokens or None
        target = self.usage_target
        if target is not None and target.usage is None:
            target.usage = usage
        self.usage_target = None
        self.current = None

    def _status(self, call_id: Any, failed: bool) -> None:
        if type(call_id) is not str:
            return
        call_id = self.builder.calls.next_answer(call_id) or call_id
        message = self.results.get(call_id)
        if message is not None:
            message.is_error = failed
        else:
            self.statuses[call_id] = failed

    def _mcp_status(self, payload: dict[str, Any]) -> None:
        result = payload.get("result")
        if type(result) is not dict:
            return
        if "Err" in result:
            self._status(payload.get("call_id"), True)
        elif type(result.get("Ok")) is dict and type(result["Ok"].get("isError")) is bool:
            self._status(payload.get("call_id"), result["Ok"]["isError"])

    def _rollback(self, turns: int) -> None:
        if not self.user_starts:
            return
        turns = min(turns, len(self.user_starts))
        cut = self.user_starts[-turns]
        del self.user_starts[-turns:]
        if self.keep_rolled_back:
            for message in self.messages[cut:]:
                message.rolled_back = True
            notice = f"[rolled back {turns} turn(s): the messages above left the history]"
            self._append(Message("system", [TextPart(notice)], kind=MessageKind.ROLLBACK))
        else:
            del self.messages[cut:]
        self.current = self.usage_target = self.turn_assistant = None
        self.thinking = []

    def report_unknown(self, lineno: int | None, what: str, kind: Any) -> None:
        """A line of a type this reader does not know: a warning, counted, when the type is a
        name (a newer Codex wrote it); an error when the line has no such name."""
        if type(kind) is str:
            self.problems.unknown_type(lineno, what)
        else:
            self.problems.error(lineno, "unknown-record", f"{what} skipped")


def search_arguments(payload: dict[str, Any]) -> Any:
    """A ``web_search_call``'s arguments: its ``action``, else its bare ``query``."""
    action = payload.get("action")
    if action is None and type(payload.get("query")) is str:
        return {"query": payload["query"]}
    return action


def _create_time(payload: dict[str, Any], problems: Reporter, lineno: int | None) -> int | None:
    """An item's own ``create_time`` (epoch seconds; zero or less: unset)."""
    meta = payload.get("internal_chat_message_metadata_passthrough")
    if type(meta) is dict:
        value = meta.get("create_time")
        if (type(value) is int or type(value) is float) and value <= 0:
            return None
        return checked_ms(value, problems, lineno, "create_time")
    return None


def _usage(raw: dict[str, Any]) -> Usage | None:
    """Codex usage → Usage; None when every count is zero (e.g. right after a compaction)."""
    cached = positive_int(raw.get("cached_input_tokens"))
    usage = Usage(
        input=max(positive_int(raw.get("input_tokens")) - cached, 0),
        output=positive_int(raw.get("output_tokens")),
        cache_read=cached,
        cache_write=positive_int(raw.get("cache_write_input_tokens")),
    )
    total = raw.get("total_tokens")
    if type(total) is int:
        usage.total_tokens = total
    if not (usage.input or usage.output or usage.cache_read or usage.cache_write):
        return None
    return usage
