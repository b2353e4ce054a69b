"""One Pi entry → at most one `Message` (``shared/formats/pi.md`` §2, §3, §6).

Choices (documented in the package docstring too):

- ``user`` / ``assistant`` / ``toolResult`` map to user / assistant / tool;
- ``bashExecution`` (a user's ``!cmd``) → a user message with pi's own rendering
  (``bashExecutionToText``), kind ``bash``; kept even with ``excludeFromContext`` (the user ran
  it, pi shows it), which is recorded in extras;
- ``custom`` / v2 ``hookMessage`` messages and ``custom_message`` entries → user, kind
  ``custom``, extras ``custom_type``; except a ``custom_message`` whose ``customType`` is
  ``system`` or ``system:<kind>``: the way our Pi writer stores a system message pi has no role
  for, read back as system with that kind (None for plain ``system``);
- ``system`` (pi 1.x) → system, kind ``system_prompt`` (its content, else its sections joined);
- ``compaction`` / ``compactionSummary`` → system, kind ``compaction``; ``branch_summary`` /
  ``branchSummary`` → system, kind ``branch_summary`` (empty summaries are dropped, as pi does);
- an ``error``/``aborted`` assistant is kept, empty or not, with its ``errorMessage``: pi's
  ``getBranch()`` has it, and a viewer shows the failed turn (pi hides it from the model only).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sts.arguments import parse_arguments
from sts.building.coerce import number_or_none, text_or_empty, text_or_none, whole_number
from sts.formats import pi as pi_format
from sts.lines import clean_text
from sts.model import (
    ImagePart,
    Message,
    MessageKind,
    Part,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from sts.problems import Problems, Reporter
from sts.timestamps import checked_ms, stated_ms

Raw = dict[str, Any]
Change = dict[str, str | None]  # the ModelState fields an entry sets
Notes = list[tuple[str, tuple[Any, ...]]]  # the problems one entry's conversion found

# Entries that carry no message and that we leave out on purpose (pi.md §2 table).
SILENT_ENTRIES = frozenset(("label", "custom", "session_info", "usage", "context_edit"))
class ModelState(NamedTuple):
    """The model in force at a point of the path (from the header, model_change, assistants)."""

    provider: str | None = None
    model: str | None = None
    api: str | None = None
    thinking_level: str | None = None


class ProblemLog:
    """Problems found converting one entry, held until the entry is walked on a path.

    Entries are converted as they are read, so their raw objects need not be kept; their
    problems are reported when the path walk reaches them (`replay`), so the report is the
    same as converting along the path: path order, once, and only for entries on a path.
    """

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: Notes = []

    def error(self, line: int | None, code: str, text: str) -> None:
        self.items.append(("error", (line, code, text)))

    def warning(self, line: int | None, code: str, text: str) -> None:
        self.items.append(("warning", (line, code, text)))

    def unknown_type(self, line: int | None, what: str) -> None:
        self.items.append(("unknown", (line, what)))

    def take(self) -> Notes | None:
        """The problems logged since the last call (None when there were none)."""
        items = self.items
        if not items:
            return None
        self.items = []
        return items


def replay(notes: Notes, problems: Problems) -> None:
    """Report problems logged by a `ProblemLog`, in the order they were found."""
    for severity, args in notes:
        if severity == "error":
            problems.error(*args)
        elif severity == "unknown":
            problems.unknown_type(*args)
        else:
            problems.warning(*args)


def fill_assistant(message: Message, state: ModelState) -> None:
    """Give an assistant message the model it lacks from `state`, the state in force after it
    (its own model, if any, already applied), and the thinking level."""
    if message.model is None:
        message.model = state.model
    if message.provider is None:
        message.provider = state.provider
    if message.api is None:
        message.api = state.api
    if state.thinking_level is not None:
        message.extras["thinking_level"] = state.thinking_level


def message_time(message: Raw, entry: Raw, problems: Reporter, lineno: int) -> int | None:
    """``message.timestamp`` (epoch ms, `stated_ms`), else the entry's ISO timestamp (also when
    the message's is no time: NaN, infinite, outside the years 1 to 9999, text; reported)."""
    value = message.get("timestamp")
    if value is not None:
        found = stated_ms(value, problems, lineno, "message timestamp", "the entry's used")
        if found is not None:
            return found
    return checked_ms(entry.get("timestamp"), problems, lineno, "entry timestamp")


class EntryReader:
    """Converts the entries of one file; reports problems against their line numbers."""

    def __init__(self, problems: ProblemLog) -> None:
        self.problems = problems

    # content ---------------------------------------------------------------------------------

    def plain_blocks(self, content: Any, lineno: int) -> list[Part]:
        """Text and image parts of a user / toolResult / custom content (string or blocks)."""
        if type(content) is str:
            return [TextPart(content)]
        if content is None:
            return []
        if type(content) is not list:
            self.problems.error(lineno, "bad-content", "content is neither text nor blocks")
            return []
        parts: list[Part] = []
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                parts.append(TextPart(text_or_empty(block.get("text"))))
            elif kind == "image":
                parts.append(pi_image(block))
            else:
                self.problems.error(lineno, "unknown-block", f"content block {kind!r} skipped")
        return parts

    def assistant_blocks(self, content: Any, lineno: int) -> tuple[list[Part], list[ToolCall]]:
        """Text/thinking parts in order, and the tool calls, of an assistant content array."""
        if type(content) is str:  # never written by pi, tolerated
            return [TextPart(content)], []
        parts: list[Part] = []
        calls: list[ToolCall] = []
        if content is None:
            return parts, calls
        if type(content) is not list:
            self.problems.error(lineno, "bad-content", "assistant content is not an array")
            return parts, calls
        for block in content:
            kind = block.get("type") if type(block) is dict else None
            if kind == "text":
                parts.append(TextPart(text_or_empty(block.get("text"))))
            elif kind == "thinking":
                signature = block.get("thinkingSignature")
                parts.append(
                    ThinkingPart(
                        text_or_empty(block.get("thinking")),
                        signature if type(signature) is str else None,
                        block.get("redacted") is True,
                    )
                )
            elif kind == "toolCall":
                calls.append(self.tool_call(block, lineno))
            elif kind == "image":
                parts.append(pi_image(block))
            else:
                self.problems.error(lineno, "unknown-block", f"assistant block {kind!r} skipped")
        return parts, calls

    def tool_call(self, block: Raw, lineno: int) -> ToolCall:
        call_id = block.get("id")
        if type(call_id) is not str or not call_id:
            self.problems.warning(lineno, "no-call-id", "toolCall without an id")
            call_id = "" if call_id is None else str(call_id)
        arguments, raw = parse_arguments(block.get("arguments"))
        call = ToolCall(call_id, text_or_empty(block.get("name")), arguments, raw)
        signature = block.get("thoughtSignature")
        if type(signature) is str:
            call.extras["thought_signature"] = signature
        return call

    # roles -----------------------------------------------------------------------------------

    def message(
        self, entry: Raw, lineno: int, message_id: str | None
    ) -> tuple[Message | None, Change | None]:
        """The Message of a ``message`` entry (None when left out) and the state it sets.

        An assistant lacking its own model gets it later, from the path (`fill_assistant`).
        """
        body = entry.get("message")
        if type(body) is not dict:
            self.problems.error(lineno, "bad-message", "message entry without a message object")
            return None, None
        role = body.get("role")
        result: Message | None
        change: Change | None = None
        if role == "assistant":
            result, change = self.assistant(body, lineno)
        elif role == "user":
            result = Message("user", self.plain_blocks(body.get("content"), lineno))
        elif role == "toolResult":
            result = self.tool_result(body, lineno)
        elif role == "bashExecution":
            result = bash_message(body)
        elif role in ("custom", "hookMessage"):
            result = self.custom(body, lineno)
        elif role == "system":
            result = self.system(body, lineno)
        elif role == "compactionSummary":
            result = summary_message(MessageKind.COMPACTION, body.get("summary"))
            if result is not None and type(body.get("tokensBefore")) is int:
                result.tokens_before = body["tokensBefore"]
        elif role == "branchSummary":
            result = summary_message(MessageKind.BRANCH_SUMMARY, body.get("summary"))
            if result is not None and type(body.get("fromId")) is str:
                result.from_id = body["fromId"]
        else:
            self.problems.error(lineno, "unknown-role", f"unknown message role {role!r} skipped")
            return None, None
        if result is not None:
            result.id = message_id
            result.timestamp = message_time(body, entry, self.problems, lineno)
        return result, change

    def assistant(self, body: Raw, lineno: int) -> tuple[Message | None, Change | None]:
        """An assistant message with only its own model fields, and the model it sets."""
        parts, calls = self.assistant_blocks(body.get("content"), lineno)
        provider = pi_format.named(body.get("provider"))
        model = pi_format.named(body.get("model"))
        api = pi_format.named(body.get("api"))
        change = None
        if text_or_none(body.get("model")) or text_or_none(body.get("provider")):
            # the model in force from here on, pi's placeholder for "not named" included
            change = {"provider": provider, "model": model, "api": api}
        message = Message(
            "assistant",
            parts,
            calls,
            model=model,
            provider=provider,
            api=api,
            usage=pi_usage(body.get("usage")),
            stop_reason=pi_format.canonical_stop(body.get("stopReason")),
            error_message=text_or_none(body.get("errorMessage")),
        )
        return message, change

    def tool_result(self, body: Raw, lineno: int) -> Message:
        call_id = body.get("toolCallId")
        if type(call_id) is not str:
            self.problems.warning(lineno, "no-call-id", "toolResult without a toolCallId")
        return Message(
            "tool",
            self.plain_blocks(body.get("content"), lineno),
            tool_call_id=call_id if type(call_id) is str else None,
            tool_name=pi_format.named(body.get("toolName")),
            is_error=body.get("isError") is True,
        )

    def custom(self, body: Raw, lineno: int) -> Message:
        content = self.plain_blocks(body.get("content"), lineno)
        message = Message("user", content, kind=MessageKind.CUSTOM)
        custom_type = body.get("customType")
        if type(custom_type) is str:
            message.custom_type = custom_type
        return message

    def custom_entry(self, entry: Raw, lineno: int, message_id: str | None) -> Message:
        """A ``custom_message`` entry: extension text that reached the model as a user turn, or
        a system message as our Pi writer stores it (``customType`` ``system[:<kind>]``)."""
        custom_type = entry.get("customType")
        if pi_format.is_system_custom_type(custom_type):
            kind = pi_format.system_kind(custom_type)
            message = Message("system", self.plain_blocks(entry.get("content"), lineno), kind=kind)
            if kind is None and custom_type != pi_format.SYSTEM_TYPE:
                message.custom_type = custom_type  # a kind this model does not know: kept
        else:
            message = self.custom(entry, lineno)
        message.id = message_id
        message.timestamp = checked_ms(entry.get("timestamp"), self.problems, lineno, "timestamp")
        return message

    def system(self, body: Raw, lineno: int) -> Message | None:
        text = "\n\n".join(
            p.text for p in self.plain_blocks(body.get("content"), lineno) if type(p) is TextPart
        )
        if not text.strip():
            sections = body.get("sections")
            if type(sections) is dict:
                text = "\n\n".join(v for v in sections.values() if type(v) is str and v)
        if not text:
            return None
        return Message("system", [TextPart(text)], kind=MessageKind.SYSTEM_PROMPT)


def pi_image(block: Raw) -> ImagePart:
    """A pi ``image`` block (``mimeType``, base64 ``data``)."""
    return ImagePart(text_or_none(block.get("mimeType")), text_or_none(block.get("data")))


def summary_message(kind: MessageKind, summary: Any) -> Message | None:
    """A compaction or branch summary as a system message (None when the summary is empty)."""
    if type(summary) is not str or not summary:
        return None
    return Message("system", [TextPart(summary)], kind=kind)


def bash_message(body: Raw) -> Message:
    """A user's ``!command`` rendered exactly as pi shows it to the model."""
    command = body.get("command")
    output = body.get("output")
    text = f"Ran `{command if command is not None else 'undefined'}`\n"
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = body.get("exitCode")
    if body.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    path = body.get("fullOutputPath")
    if body.get("truncated") and path:
        text += f"\n\n[Output truncated. Full output: {path}]"
    message = Message("user", [TextPart(clean_text(text))], kind=MessageKind.BASH)
    message.extras["command"] = command
    if exit_code is not None:
        message.extras["exit_code"] = exit_code
    if body.get("excludeFromContext"):
        message.extras["exclude_from_context"] = True
    return message


def pi_usage(value: Any) -> Usage | None:
    """A Usage from pi's usage object (costs in USD); None when there is none."""
    if type(value) is not dict:
        return None
    cost = value.get("cost")
    cost = cost if type(cost) is dict else {}
    total = value.get("totalTokens")
    return Usage(
        input=whole_number(value.get("input")),
        output=whole_number(value.get("output")),
        cache_read=whole_number(value.get("cacheRead")),
        cache_write=whole_number(value.get("cacheWrite")),
        total_tokens=total if type(total) is int else None,
        cost_input=number_or_none(cost.get("input")),
        cost_output=number_or_none(cost.get("output")),
        cost_cache_read=number_or_none(cost.get("cacheRead")),
        cost_cache_write=number_or_none(cost.get("cacheWrite")),
        cost_total=number_or_none(cost.get("total")),
    )
