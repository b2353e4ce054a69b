"""Request/response log records → sessions, each conversation's messages written once.

Shapes read: ``{"request": {...}, "response": {...}}`` (proxies and loggers; ``body`` wrappers as
in OpenAI batch files are unwrapped), LiteLLM's StandardLoggingPayload (``messages`` = the
request, ``response`` = the ChatCompletion, ``startTime``/``endTime``, ``response_cost``,
``custom_llm_provider``), and Responses API exchanges (request ``instructions`` + ``input``,
response ``output`` items; a bare response object has only the output).

Every record of a chat log repeats the history so far. `LogGrouper` keeps the conversations
that are still open; a record whose request starts with an open conversation's history (request
messages + answers, compared by role, text and tool-call ids; reasoning items are ignored), or
whose ``previous_response_id`` is that conversation's last response, continues it: only the new
messages are added. Any other record starts a new conversation. At most `MAX_OPEN`
conversations stay open (the oldest is finished first), so memory stays bounded on long logs;
sessions come out in the order of their first record.

Times: the request time (``startTime``, ``request.timestamp``/``created_at``) goes on the last
new request message only (the one just sent); the answer gets the response's ``created``
(epoch seconds), else ``endTime``. No other message gets a time. Usage comes from the response:
``prompt_tokens`` → input (minus cached and cache-creation tokens, which are counted apart),
``completion_tokens`` → output, ``prompt_tokens_details.cached_tokens`` (or
``cache_read_input_tokens``) → cache read. Records with a failed call (no response, LiteLLM
``status: failure``) end with an assistant message carrying the error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sts.building.coerce import int_or_zero, text_or_none
from sts.building.vocabulary import stop_reason
from sts.converters.chat.containers import TopLevel
from sts.converters.chat.messages import ChatBuilder
from sts.converters.openai.responses import add_item
from sts.model import Message, Session, StopReason, Usage
from sts.problems import Problems, Reporter
from sts.timestamps import checked_ms

MAX_OPEN = 32
CONVERSATION_KEYS = ("conversation_id", "session_id", "thread_id")
TEXT_KEYS = ("text", "value", "refusal")


@dataclass
class Exchange:
    """One logged model call, taken apart."""

    items: list[Any]
    outputs: list[Any]
    api: str | None = None
    request_time: int | None = None
    response_time: int | None = None
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    error: str | None = None
    response_id: str | None = None
    previous_response_id: str | None = None
    conversation_id: str | None = None


def exchange_of(record: dict[str, Any], line: int | None, problems: Problems) -> Exchange:
    """Take a log record apart into request items, outputs and facts about the call."""
    request = unwrap(record.get("request"))
    if not request and "messages" in record:
        request = record  # LiteLLM: the request fields sit at the top
    response = unwrap(record.get("response"))
    if not response and record.get("object") == "response":
        request, response = {}, record
    items: list[Any] = []
    instructions = request.get("instructions")
    if type(instructions) is str and instructions:
        items.append({"role": "system", "content": instructions})
    messages = request.get("messages", request.get("input"))
    if type(messages) is str:
        messages = [{"role": "user", "content": messages}]
    if type(messages) is list:
        items.extend(messages)
    exchange = Exchange(items, [])
    exchange.request_time = first_time(record, request, ("startTime", "timestamp", "created_at"),
                                       problems, line)
    choices = response.get("choices")
    if type(choices) is list and choices:
        exchange.api = "openai-completions"
        choice = choices[0] if type(choices[0]) is dict else {}
        if type(choice.get("message")) is dict:
            exchange.outputs = [choice["message"]]
        exchange.stop_reason = stop_reason(choice.get("finish_reason"))
        if len(choices) > 1:
            problems.error(line, "extra-choices", f"{len(choices) - 1} extra choice(s) left out")
    elif type(response.get("output")) is list:
        exchange.api = "openai-responses"
        exchange.outputs = response["output"]
    exchange.response_time = first_time(response, {}, ("created", "created_at"), problems, line)
    if exchange.response_time is None:
        exchange.response_time = checked_ms(record.get("endTime"), problems, line, "endTime")
    exchange.model = (
        text_or_none(response.get("model"))
        or text_or_none(record.get("model"))
        or text_or_none(request.get("model"))
    )
    exchange.provider = text_or_none(record.get("custom_llm_provider"))
    exchange.usage = usage_of(response.get("usage"), record)
    exchange.error = error_of(record, response)
    exchange.response_id = text_or_none(response.get("id"))
    exchange.previous_response_id = text_or_none(request.get("previous_response_id"))
    for key in CONVERSATION_KEYS:
        value = record.get(key, request.get(key))
        if type(value) is str and value:
            exchange.conversation_id = value
            break
    return exchange


def unwrap(value: Any) -> dict[str, Any]:
    """A request/response object, with a ``body`` wrapper (batch files) taken off."""
    if type(value) is not dict:
        return {}
    body = value.get("body")
    return body if type(body) is dict else value


def first_time(
    record: dict[str, Any], request: dict[str, Any], keys: tuple[str, ...], problems: Reporter,
    line: int | None,
) -> int | None:
    """The first of `keys` that holds a time, in the record or its request (a value that is no
    time is reported and the next one tried)."""
    for key in keys:
        for source in (record, request):
            if key in source:
                value = checked_ms(source[key], problems, line, key)
                if value is not None:
                    return value
    return None


def usage_of(usage: Any, record: dict[str, Any]) -> Usage | None:
    """Usage of one call: the response's, else LiteLLM's top-level token counts."""
    if type(usage) is not dict:
        if type(record.get("prompt_tokens")) is not int:
            return None
        usage = record
    prompt = int_or_zero(usage.get("prompt_tokens", usage.get("input_tokens")))
    output = int_or_zero(usage.get("completion_tokens", usage.get("output_tokens")))
    details = usage.get("prompt_tokens_details", usage.get("input_tokens_details"))
    cached = int_or_zero(details.get("cached_tokens")) if type(details) is dict else 0
    cached = cached or int_or_zero(usage.get("cache_read_input_tokens"))
    written = int_or_zero(usage.get("cache_creation_input_tokens"))
    result = Usage(
        input=max(prompt - cached - written, 0),
        output=output,
        cache_read=cached,
        cache_write=written,
    )
    total = usage.get("total_tokens")
    if type(total) is int:
        result.total_tokens = total
    cost = record.get("response_cost")
    if type(cost) is int or type(cost) is float:
        result.cost_total = float(cost)
    return result


def error_of(record: dict[str, Any], response: dict[str, Any]) -> str | None:
    if record.get("status") == "failure" or "error" in response or record.get("error_str"):
        info = record.get("error_information")
        for candidate in (
            record.get("error_str"),
            info.get("error_message") if type(info) is dict else None,
            response.get("error", {}).get("message") if type(response.get("error")) is dict
            else response.get("error"),
        ):
            if type(candidate) is str and candidate:
                return candidate
        return "call failed" if record.get("status") == "failure" else None
    return None


def fingerprint(item: Any) -> tuple[Any, ...] | None:
    """What identifies a message across records; None for items left out of the comparison."""
    if type(item) is not dict:
        return ("?", repr(item))
    kind = item.get("type")
    if kind is None or kind == "message":
        calls = item.get("tool_calls")
        call_ids = tuple(
            c.get("id") for c in calls if type(c) is dict
        ) if type(calls) is list else ()
        text = plain_text(item.get("content"))
        return (item.get("role"), text, call_ids, item.get("tool_call_id"))
    if kind == "reasoning":
        return None
    return (kind, item.get("call_id") or item.get("id"))


def plain_text(content: Any) -> str:
    """The text of a content value, for comparison only."""
    if type(content) is str:
        return content.strip()
    if type(content) is list:
        texts = []
        for part in content:
            if type(part) is str:
                texts.append(part)
            elif type(part) is dict:
                texts.extend(part[k] for k in TEXT_KEYS if type(part.get(k)) is str)
        return "".join(texts).strip()
    return ""


@dataclass
class Conversation:
    """An open conversation: its builder, history fingerprints and last response id."""

    builder: ChatBuilder
    history: list[tuple[Any, ...]] = field(default_factory=list)
    response_id: str | None = None
    conversation_id: str | None = None


class LogGrouper:
    """Groups log records into conversations; see the module docstring."""

    def __init__(self, problems: Problems, make_builder: Callable[..., ChatBuilder]) -> None:
        self.problems = problems
        self.make_builder = make_builder
        self.open: list[Conversation] = []

    def add(self, record: dict[str, Any], entry: TopLevel) -> Iterator[Session]:
        """Add one record; yield the sessions finished to make room."""
        exchange = exchange_of(record, entry.line, self.problems)
        prints = [p for p in map(fingerprint, exchange.items) if p is not None]
        conversation = self.find(exchange, prints)
        if conversation is None:
            builder = self.make_builder(record, entry, preferred_id=exchange.conversation_id)
            builder.session.started_at = exchange.request_time
            conversation = Conversation(builder)
            conversation.conversation_id = exchange.conversation_id
            self.open.append(conversation)
            new_items = exchange.items
        elif prints[: len(conversation.history)] == conversation.history:
            new_items = self.new_items(exchange.items, len(conversation.history))
        else:  # continued by id: the request holds only the new input
            new_items = exchange.items
            prints = conversation.history + prints
        self.extend(conversation, exchange, new_items, entry.line)
        conversation.history = prints + [
            p for p in map(fingerprint, exchange.outputs) if p is not None
        ]
        while len(self.open) > MAX_OPEN:
            yield self.open.pop(0).builder.finish()

    def finish(self) -> Iterator[Session]:
        """Yield every conversation still open, oldest first."""
        while self.open:
            yield self.open.pop(0).builder.finish()

    def find(self, exchange: Exchange, prints: list[tuple[Any, ...]]) -> Conversation | None:
        for conversation in reversed(self.open):
            wanted = exchange.conversation_id
            if wanted and conversation.conversation_id == wanted:
                return conversation
            if exchange.previous_response_id and (
                conversation.response_id == exchange.previous_response_id
            ):
                return conversation
            history = conversation.history
            if history and len(prints) > len(history) and prints[: len(history)] == history:
                return conversation
        return None

    @staticmethod
    def new_items(items: list[Any], known: int) -> list[Any]:
        """The request items after the first `known` compared ones (reasoning items skipped)."""
        seen = 0
        for index, item in enumerate(items):
            if seen == known:
                return items[index:]
            if fingerprint(item) is not None:
                seen += 1
        return []

    def extend(
        self, conversation: Conversation, exchange: Exchange, items: list[Any], line: int | None
    ) -> None:
        """Add the new request items, then the answer, with the call's facts."""
        builder = conversation.builder
        messages = builder.session.messages
        builder.model = None  # the request's history: which model wrote it is not known
        before = len(messages)
        for item in items:
            add_item(builder, item, line)
        if len(messages) > before and messages[-1].timestamp is None:
            messages[-1].timestamp = exchange.request_time
        start = len(messages)
        builder.model = exchange.model
        for output in exchange.outputs:
            add_item(builder, output, line)
        if exchange.error:
            failed = Message(role="assistant", stop_reason=StopReason.ERROR,
                             error_message=exchange.error)
            builder.add(failed)
        answers = [m for m in messages[start:] if m.role == "assistant"]
        for message in messages[start:]:
            if message.timestamp is None:
                message.timestamp = exchange.response_time
        for message in answers:
            message.model = message.model or exchange.model
            message.provider = exchange.provider
            message.api = exchange.api
        if answers:
            answers[-1].usage = exchange.usage
            answers[-1].stop_reason = answers[-1].stop_reason or exchange.stop_reason
        conversation.response_id = exchange.response_id
