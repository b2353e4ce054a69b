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
"""

from __future__ import annotations

from typing import Any

from sts.arguments import parse_arguments
from sts.building.vocabulary import stop_reason
from sts.converters.claude_code.harness_text import classify
from sts.converters.claude_code.records import AGENT_TAIL, Entry, Queued
from sts.converters.claude_code.thread import is_synthetic
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Part,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from sts.problems import Problems
from sts.spill import StoredText
from sts.timestamps import to_ms

PROVIDER = "anthropic"
API = "anthropic-messages"
TASK_TOOLS = frozenset(("Task", "Agent"))
#: What a thread line's record becomes once converted.
RELEASED: dict[str, Any] = {}
#: Assistant block types the format defines and the converter leaves out.
SILENT_BLOCKS = frozenset(("fallback",))


class Builder:
    """Builds the messages of one thread; keeps what sub-agent linking needs."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.items: list[tuple[int, Message]] = []
        self.replies: dict[str, Message] = {}
        self.call_names: dict[str, str] = {}
        self.task_prompts: list[tuple[str, str]] = []
        self.agent_calls: dict[str, str] = {}
        self.tokens_before: int | None = None
        self.summaries: set[str] = set()

    def build(self, entries: list[Entry], queued: list[Queued], typed: set[str]) -> list[Message]:
        """The thread's messages in order; `typed` holds texts that user lines already carry."""
        for entry in entries:
            kind = entry.type
            if kind == "assistant":
                self.assistant(entry)
            elif kind == "user":
                self.user(entry)
            elif kind == "system":
                self.system(entry)
            elif kind == "attachment":
                self.attachment(entry)
            entry.record = RELEASED  # converted: free the line as the messages grow
        for item in queued:
            if item.text.strip() not in typed:
                message = Message("user", [TextPart(item.text)], kind=MessageKind.QUEUED,
                                  timestamp=to_ms(item.timestamp))
                self.items.append((item.index, message))
        self.items.sort(key=_first)
        return place_results([message for _, message in self.items])

    def add(self, entry: Entry, message: Message) -> None:
        if message.timestamp is None:
            message.timestamp = to_ms(entry.record.get("timestamp"))
        if message.id is None:
            message.id = entry.uuid
        self.items.append((entry.index, message))

    # assistant -----------------------------------------------------------------------------

    def assistant(self, entry: Entry) -> None:
        body = entry.record.get("message")
        if type(body) is not dict:
            self.problems.error(entry.line, "bad-message", "assistant line without a message")
            return
        if is_synthetic(entry):
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

    def add_blocks(self, entry: Entry, message: Message, content: Any) -> None:
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        if type(content) is not list:
            return
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                text = block.get("text")
                if type(text) is str and text.strip():
                    message.content.append(TextPart(text))
            elif kind == "thinking":
                text, signature = block.get("thinking"), block.get("signature")
                if type(text) is str and text.strip():
                    message.content.append(
                        ThinkingPart(text, signature if type(signature) is str else None))
            elif kind == "redacted_thinking":
                data = block.get("data")
                message.content.append(
                    ThinkingPart("", data if type(data) is str else None, redacted=True))
            elif kind == "tool_use":
                self.tool_call(message, block)
            elif kind == "image":
                message.content.append(image_part(block))
            elif type(kind) is not str or kind not in SILENT_BLOCKS:
                self.problems.error(entry.line, "unknown-block",
                                    f"unknown assistant block type {kind!r} skipped")

    def tool_call(self, message: Message, block: dict[str, Any]) -> None:
        call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
        arguments, raw = parse_arguments(block.get("input"))
        message.tool_calls.append(ToolCall(call_id, name, arguments, raw))
        self.call_names[call_id] = name
        if name in TASK_TOOLS and type(arguments) is dict:
            prompt = arguments.get("prompt")
            if type(prompt) is str:
                self.task_prompts.append((prompt.strip(), call_id))

    def synthetic(self, entry: Entry, body: dict[str, Any]) -> None:
        text = "\n\n".join(p.text for p in _text_parts(body.get("content")))
        if entry.record.get("isApiErrorMessage") is True:
            message = Message("system", [TextPart(text)], kind=MessageKind.API_ERROR,
                              error_message=text)
        else:
            message = Message("system", [TextPart(text)], kind=MessageKind.SYNTHETIC)
        self.add(entry, message)

    # user ----------------------------------------------------------------------------------

    def user(self, entry: Entry) -> None:
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

    def user_text(self, entry: Entry, parts: list[Part]) -> None:
        first = parts[0]
        found = classify(first.text) if type(first) is TextPart else None
        if found is not None:
            role, kind, text = found
            message = Message(role, [TextPart(text), *parts[1:]], kind=kind)  # type: ignore[arg-type]
        elif entry.record.get("isMeta") is True:
            previous = self.items[-1][1] if self.items else None
            if previous is not None and previous.kind == MessageKind.COMMAND:
                message = Message("user", parts, kind=MessageKind.COMMAND_PROMPT)
            else:
                message = Message("system", parts, kind=MessageKind.META)
        else:
            message = Message("user", parts)
        self.add(entry, message)

    def tool_result(self, entry: Entry, block: dict[str, Any]) -> None:
        call_id = str(block.get("tool_use_id") or "")
        name = self.call_names.get(call_id)
        parts = self.result_parts(entry, block.get("content"), call_id, name in TASK_TOOLS)
        message = Message("tool", parts, tool_call_id=call_id, tool_name=name,
                          is_error=block.get("is_error") is True)
        if entry.agent_id and name in TASK_TOOLS:
            self.agent_calls.setdefault(entry.agent_id, call_id)
        self.add(entry, message)

    def result_parts(self, entry: Entry, content: Any, call_id: str, task: bool) -> list[Part]:
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

    def media_block(self, entry: Entry, block: Any, kind: Any, where: str, parts: list[Part]
                    ) -> None:
        """An image or document block of a user line or tool result; any other kind reported."""
        if kind == "image":
            parts.append(image_part(block))
        elif kind == "document":
            parts.append(document_part(block))
        else:
            self.problems.error(entry.line, "unknown-block",
                                f"unknown {where} block type {kind!r} skipped")

    def compaction(self, entry: Entry, content: Any) -> None:
        text = "\n\n".join(p.text for p in _text_parts(content))
        if text in self.summaries:
            return
        self.summaries.add(text)
        message = Message("system", [TextPart(text)], kind=MessageKind.COMPACTION)
        if self.tokens_before is not None:
            message.tokens_before = self.tokens_before
        self.add(entry, message)

    # system and attachment lines -----------------------------------------------------------

    def system(self, entry: Entry) -> None:
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

    def attachment(self, entry: Entry) -> None:
        attachment = entry.record.get("attachment")
        if type(attachment) is not dict or attachment.get("type") != "queued_command":
            return
        prompt = attachment.get("prompt")
        parts = [TextPart(prompt)] if type(prompt) is str else _text_parts(prompt)
        if not parts:
            return
        if attachment.get("commandMode") == "task-notification":
            self.add(entry, Message("system", parts, kind=MessageKind.TASK_NOTIFICATION))
        else:
            self.add(entry, Message("user", parts, kind=MessageKind.QUEUED))


def typed_texts(entries: list[Entry]) -> set[str]:
    """Texts that user lines and queued-command attachments carry (to drop duplicate queue ops)."""
    texts: set[str] = set()
    for entry in entries:
        if entry.type == "user":
            body = entry.record.get("message")
            content = body.get("content") if type(body) is dict else None
        elif entry.type == "attachment":
            attachment = entry.record.get("attachment")
            content = attachment.get("prompt") if type(attachment) is dict else None
        else:
            continue
        if type(content) is str:
            texts.add(content.strip())
        else:
            texts.update(p.text.strip() for p in _text_parts(content))
    return texts


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
        input=_count(raw, "input_tokens"),
        output=_count(raw, "output_tokens"),
        cache_read=_count(raw, "cache_read_input_tokens"),
        cache_write=_count(raw, "cache_creation_input_tokens"),
    )
    if current is None:
        return usage
    current.input = max(current.input, usage.input)
    current.output = max(current.output, usage.output)
    current.cache_read = max(current.cache_read, usage.cache_read)
    current.cache_write = max(current.cache_write, usage.cache_write)
    return current


def image_part(block: dict[str, Any]) -> ImagePart:
    """An Anthropic image block (base64 or url source)."""
    source = block.get("source")
    if type(source) is not dict:
        return ImagePart()
    media_type = source.get("media_type")
    media_type = media_type if type(media_type) is str else None
    if source.get("type") == "url":
        url = source.get("url")
        return ImagePart(media_type, url=url if type(url) is str else None)
    data = source.get("data")
    return ImagePart(media_type, data if type(data) is str else None)


def document_part(block: dict[str, Any]) -> MediaPart:
    """A document block (PDF ...) as a placeholder: neither target holds the payload."""
    source = block.get("source")
    source = source if type(source) is dict else {}
    data = source.get("data")
    media_type = source.get("media_type")
    size = len(data) * 3 // 4 if type(data) is str else None
    title = block.get("title")
    return MediaPart("document", media_type if type(media_type) is str else None,
                     title if type(title) is str else None, size)


def _text_parts(content: Any) -> list[TextPart]:
    if type(content) is str:
        return [TextPart(content)]
    if type(content) is not list:
        return []
    return [
        TextPart(block["text"]) for block in content
        if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str
    ]


def _count(raw: dict[str, Any], key: str) -> int:
    value = raw.get(key)
    return value if type(value) is int else 0


def _first(item: tuple[int, Message]) -> int:
    return item[0]
