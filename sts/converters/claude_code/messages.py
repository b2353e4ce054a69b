"""Main-thread lines → `Message` objects (claude-code.md §3, §4, §6, §11).

- Assistant lines sharing `message.id` become one message: blocks in file order, whitespace-only
  text skipped, thinking kept only when it has text (the signature rides along for Pi),
  redacted thinking as a redacted part, usage counted once (the largest value of each counter
  over the lines), the first line's timestamp, the last stop reason any line gives.
- Synthetic assistant lines (`<synthetic>` model, `isApiErrorMessage`) are not model output:
  they become system messages (kind ``synthetic`` / ``api_error``).
- Tool results are `tool` messages placed right after the message that made the call, even when
  their line was written between two lines of the same reply (or after queued steering).
- Queued steering found only in `queue-operation` lines becomes a user message (kind ``queued``)
  at the enqueue's place.

Messages are made as they are taken (`ThreadReader.messages`), a few lines at a time: a run of
them is given out once no later line can still change it (`final_after`), so that a large
session can be written while it is read and none of it is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sts.building import SessionBuilder
from sts.building.calls import RENAME
from sts.building.coerce import int_or_zero
from sts.building.content import anthropic_document, anthropic_image, anthropic_texts
from sts.building.vocabulary import stop_reason
from sts.converters.claude_code.harness_text import classify
from sts.converters.claude_code.records import AGENT_TAIL, NOT_HELD, Line, Queued
from sts.model import (
    Message,
    MessageKind,
    Part,
    TextPart,
    ToolCall,
    Usage,
)
from sts.spill import StoredText
from sts.timestamps import checked_ms

PROVIDER = "anthropic"
API = "anthropic-messages"
TASK_TOOLS = frozenset(("Task", "Agent"))
#: Assistant block types the format defines and the converter leaves out.
SILENT_BLOCKS = frozenset(("fallback",))


class ThreadReader:
    """Turns the lines of one thread into messages through a `SessionBuilder` (tool-call ids,
    results paired in order); keeps what sub-agent linking needs."""

    def __init__(self, builder: SessionBuilder) -> None:
        self.builder = builder
        self.problems = builder.problems
        self.items: list[tuple[int, Message]] = []
        self.replies: dict[str, Message] = {}
        self.task_prompts: list[tuple[str, str]] = []
        self.agent_calls: dict[str, str] = {}
        self.tokens_before: int | None = None
        self.summaries: set[str] = set()
        self.previous: Message | None = None  # the message made last
        #: the Task calls made (their description and agent type go to the sub-agents)
        self.task_calls: list[ToolCall] = []

    def messages(self, entries: list[Line], waiting: list[Queued],
                 load: Callable[[Line], dict[str, Any] | None], runs: bool = True
                 ) -> Iterator[Message]:
        """The thread's messages in order, made as they are taken: with `runs`, each run of them
        once nothing on a later line can change it (`final_after`), else all at the end.
        `waiting`: the queued steering no line carries; `load` gives each line's record
        (`Transcript.load`)."""
        final = final_after(entries) if runs else [False] * len(entries)
        taken = 0
        for position, entry in enumerate(entries):
            record = load(entry)
            if record is not None:
                entry.record = record
                kind = entry.type
                if kind == "assistant":
                    self.assistant(entry)
                elif kind == "user":
                    self.user(entry)
                elif kind == "system":
                    self.system(entry)
                elif kind == "attachment":
                    self.attachment(entry)
                entry.record = NOT_HELD  # converted: free the line
            if final[position]:
                after = position + 1
                taken = self.queue(waiting, taken, entries[after].index if after < len(entries)
                                   else None)
                yield from self.flush()
        self.queue(waiting, taken, None)
        yield from self.flush()

    def queue(self, waiting: list[Queued], taken: int, before: int | None) -> int:
        """Add the queued steering written before line index `before` (all when None) from
        `waiting[taken:]`; return how many of `waiting` are taken now."""
        while taken < len(waiting) and (before is None or waiting[taken].index < before):
            item = waiting[taken]
            message = Message("user", [TextPart(item.text)], kind=MessageKind.QUEUED,
                              timestamp=checked_ms(item.timestamp, self.problems, item.line,
                                                   "timestamp"))
            self.items.append((item.index, message))
            taken += 1
        return taken

    def flush(self) -> Iterator[Message]:
        """The messages made so far, in file order, each tool result after its call."""
        items = self.items
        if not items:
            return
        self.items = []
        self.replies.clear()  # no later line continues one of them (`final_after`)
        items.sort(key=_first)
        yield from place_results([message for _, message in items])

    def add(self, entry: Line, message: Message) -> None:
        if message.timestamp is None:
            message.timestamp = checked_ms(entry.record.get("timestamp"), self.problems,
                                           entry.line, "timestamp")
        if message.id is None:
            message.id = entry.uuid
        self.items.append((entry.index, message))
        self.previous = message

    # assistant -----------------------------------------------------------------------------

    def assistant(self, entry: Line) -> None:
        body = entry.record.get("message")
        if type(body) is not dict:
            self.problems.error(entry.line, "bad-message", "assistant line without a message")
            return
        if entry.synthetic:
            self.synthetic(entry, body)
            return
        message_id = body.get("id")
        key = message_id if type(message_id) is str else entry.uuid
        message = self.replies.get(key) if key is not None else None
        if message is None:
            model = body.get("model")
            message = Message("assistant", model=model if type(model) is str else None,
                              provider=PROVIDER, api=API)
            if key is not None:
                self.replies[key] = message
            self.add(entry, message)
            if type(message_id) is str:
                message.extras["message_id"] = message_id
        self.add_blocks(entry, message, body.get("content"))
        reason = body.get("stop_reason")
        if type(reason) is str:
            message.stop_reason = stop_reason(reason)
        usage = body.get("usage")
        if type(usage) is dict:
            message.usage = merge_usage(message.usage, usage)

    def add_blocks(self, entry: Line, message: Message, content: Any) -> None:
        known = len(message.tool_calls)
        self.builder.anthropic_blocks(message, content, entry.line, SILENT_BLOCKS)
        for call in message.tool_calls[known:]:
            if call.name not in TASK_TOOLS:
                continue
            self.task_calls.append(call)
            prompt = call.arguments.get("prompt") if type(call.arguments) is dict else None
            if type(prompt) is str:
                self.task_prompts.append((prompt.strip(), call.id))

    def synthetic(self, entry: Line, body: dict[str, Any]) -> None:
        text = "\n\n".join(p.text for p in anthropic_texts(body.get("content")))
        if entry.record.get("isApiErrorMessage") is True:
            message = Message("system", [TextPart(text)], kind=MessageKind.API_ERROR,
                              error_message=text)
        else:
            message = Message("system", [TextPart(text)], kind=MessageKind.SYNTHETIC)
        self.add(entry, message)

    # user ----------------------------------------------------------------------------------

    def user(self, entry: Line) -> None:
        record = entry.record
        body = record.get("message")
        content = body.get("content") if type(body) is dict else None
        if record.get("isCompactSummary") is True:
            self.compaction(entry, content)
            return
        if type(content) is str:
            self.user_text(entry, [TextPart(content)])
            return
        if type(content) is not list:
            self.problems.error(entry.line, "bad-message", "user line without content")
            return
        parts: list[Part] = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "tool_result":
                self.tool_result(entry, block)
            elif kind == "text":
                text = block.get("text")
                if type(text) is str:
                    parts.append(TextPart(text))
            else:
                self.media_block(entry, block, kind, "user", parts)
        if parts:
            self.user_text(entry, parts)

    def user_text(self, entry: Line, parts: list[Part]) -> None:
        first = parts[0]
        found = classify(first.text) if type(first) is TextPart else None
        if found is not None:
            role, kind, text = found
            message = Message(role, [TextPart(text), *parts[1:]], kind=kind)  # type: ignore[arg-type]
        elif entry.record.get("isMeta") is True:
            previous = self.previous
            if previous is not None and previous.kind == MessageKind.COMMAND:
                message = Message("user", parts, kind=MessageKind.COMMAND_PROMPT)
            else:
                message = Message("system", parts, kind=MessageKind.META)
        else:
            message = Message("user", parts)
        self.add(entry, message)

    def tool_result(self, entry: Line, block: dict[str, Any]) -> None:
        call_id = self.builder.answer(block.get("tool_use_id"), None, entry.line)
        name = self.builder.tool_name(call_id)
        parts = self.result_parts(entry, block.get("content"), call_id or "", name in TASK_TOOLS)
        message = Message("tool", parts, tool_call_id=call_id, tool_name=name,
                          is_error=block.get("is_error") is True)
        if entry.agent_id and name in TASK_TOOLS and call_id is not None:
            self.agent_calls.setdefault(entry.agent_id, call_id)
        self.add(entry, message)

    def result_parts(self, entry: Line, content: Any, call_id: str, task: bool) -> list[Part]:
        if type(content) is str or type(content) is StoredText:
            return [TextPart(content)]
        if content is None:
            return []
        if type(content) is not list:
            return [TextPart(str(content))]
        parts: list[Part] = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                text = block.get("text")
                if type(text) is StoredText:
                    parts.append(TextPart(text))
                    continue
                if type(text) is not str:
                    continue
                if task and text.startswith(AGENT_TAIL):
                    agent = text[len(AGENT_TAIL):].split(None, 1)
                    if agent:
                        self.agent_calls.setdefault(agent[0], call_id)
                    continue
                parts.append(TextPart(text))
            else:
                self.media_block(entry, block, kind, "tool-result", parts)
        return parts

    def media_block(self, entry: Line, block: Any, kind: Any, where: str, parts: list[Part]
                    ) -> None:
        """An image or document block of a user line or tool result; any other kind reported."""
        if kind == "image":
            parts.append(anthropic_image(block))
        elif kind == "document":
            parts.append(anthropic_document(block))
        else:
            self.problems.error(entry.line, "unknown-block",
                                f"unknown {where} block type {kind!r} skipped")

    def compaction(self, entry: Line, content: Any) -> None:
        text = "\n\n".join(p.text for p in anthropic_texts(content))
        if text in self.summaries:
            return
        self.summaries.add(text)
        message = Message("system", [TextPart(text)], kind=MessageKind.COMPACTION)
        if self.tokens_before is not None:
            message.tokens_before = self.tokens_before
        self.add(entry, message)

    # system and attachment lines -----------------------------------------------------------

    def system(self, entry: Line) -> None:
        record = entry.record
        subtype = record.get("subtype")
        content = record.get("content")
        if subtype == "compact_boundary":
            meta = record.get("compactMetadata")
            tokens = meta.get("preTokens") if type(meta) is dict else None
            self.tokens_before = tokens if type(tokens) is int else None
        elif subtype == "local_command" and type(content) is str:
            found = classify(content)
            role, kind, text = found or ("system", MessageKind.COMMAND_OUTPUT, content)
            self.add(entry, Message(role, [TextPart(text)], kind=kind))  # type: ignore[arg-type]
        elif subtype in ("api_error", "error") and type(content) is str:
            self.add(entry, Message("system", [TextPart(content)], kind=MessageKind.API_ERROR,
                                    error_message=content))

    def attachment(self, entry: Line) -> None:
        attachment = entry.record.get("attachment")
        if type(attachment) is not dict or attachment.get("type") != "queued_command":
            return
        prompt = attachment.get("prompt")
        parts: list[Part] = (
            [TextPart(prompt)] if type(prompt) is str else [*anthropic_texts(prompt)]
        )
        if not parts:
            return
        if attachment.get("commandMode") == "task-notification":
            self.add(entry, Message("system", parts, kind=MessageKind.TASK_NOTIFICATION))
        else:
            self.add(entry, Message("user", parts, kind=MessageKind.QUEUED))


def final_after(entries: list[Line]) -> list[bool]:
    """For each line of a thread, whether the messages made up to it are final once it is
    converted: no later line continues a reply begun so far (split replies are one message),
    and no call made so far has a result on a later line, nor a result so far its call on a later
    one (results are placed after their calls). A thread with an id-less call, whose results pair
    by position, or an id holding the rename mark, is final only at its end."""
    last_reply: dict[str, int] = {}
    last_link: dict[str, int] = {}
    for position, entry in enumerate(entries):
        for link in entry.links:
            last_link[link] = position
        if entry.type == "assistant":
            if entry.links and any(not link or link == "None" or RENAME in link
                                   for link in entry.links):
                return [False] * len(entries)
            reply = entry.message_id or entry.uuid
            if reply is not None:
                last_reply[reply] = position
    final: list[bool] = []
    reach = -1
    for position, entry in enumerate(entries):
        for link in entry.links:
            reach = max(reach, last_link[link])
        if entry.type == "assistant":
            reply = entry.message_id or entry.uuid
            if reply is not None:
                reach = max(reach, last_reply[reply])
        final.append(reach <= position)
    return final


def place_results(messages: list[Message]) -> list[Message]:
    """Move every tool result right after the message holding its call (order kept)."""
    calls = {c.id for m in messages if m.role == "assistant" for c in m.tool_calls}
    if not calls:
        return messages
    results: dict[str, list[Message]] = {}
    for message in messages:
        if message.role == "tool" and message.tool_call_id in calls:
            results.setdefault(message.tool_call_id, []).append(message)
    ordered: list[Message] = []
    for message in messages:
        if message.role == "tool" and message.tool_call_id in calls:
            continue
        ordered.append(message)
        if message.role == "assistant":
            for call in message.tool_calls:
                ordered.extend(results.pop(call.id, ()))
    return ordered


def merge_usage(current: Usage | None, raw: dict[str, Any]) -> Usage:
    """The usage of a split reply: each counter's largest value over its lines."""
    usage = Usage(
        input=int_or_zero(raw.get("input_tokens")),
        output=int_or_zero(raw.get("output_tokens")),
        cache_read=int_or_zero(raw.get("cache_read_input_tokens")),
        cache_write=int_or_zero(raw.get("cache_creation_input_tokens")),
    )
    if current is None:
        return usage
    current.input = max(current.input, usage.input)
    current.output = max(current.output, usage.output)
    current.cache_read = max(current.cache_read, usage.cache_read)
    current.cache_write = max(current.cache_write, usage.cache_write)
    return current


def _first(item: tuple[int, Message]) -> int:
    return item[0]
