"""Gemini CLI message records (and checkpoint API turns) → model messages.

- ``user``: the text parts are the prompt. A text starting with ``<session_context>`` (the
  environment bootstrap turn) or ``<hook_context>`` is injected context: a system message of
  kind ``injected_context`` (left out with option ``drop_injected``); one starting with ``/`` or
  ``?`` (a command, which Gemini CLI never sends back to the model) is a user message of kind
  ``command``; one starting with ``<state_snapshot>`` (a compression summary) is a system
  message of kind ``compaction``. ``functionResponse`` parts are tool results: since v0.44 every
  result is recorded twice, in the call's ``toolCalls[].result`` and as a user record of
  ``functionResponse`` parts, so a result whose call already has one is dropped (when the two
  differ, in a hand-edited file, the user record's copy, which is what the model was sent,
  replaces the other; only a result of the latest model record is compared, so that the
  sources of earlier ones need not be kept); one answering a call with no result yet (a
  checkpoint's history) is kept. Parts after a ``functionResponse``
  (an image a tool returned) belong to that result.
- ``gemini``: an assistant message. ``content`` is normally a string; when it holds
  ``functionCall`` or ``thought`` parts it is the source of truth (as Gemini CLI reads it):
  thought parts become reasoning (with their ``thoughtSignature``), and the ``thoughts``
  summaries are not added again. Otherwise each ``thoughts`` summary becomes reasoning as
  Gemini CLI replays it, ``**subject** description``. Calls come from ``functionCall`` parts,
  then from ``toolCalls`` not already called; each ``toolCalls[].result`` becomes a tool
  message right after (status ``error`` or ``cancelled``, or an ``error`` response, marks it an
  error), timed by the call's ``timestamp``. ``model`` per message; ``tokens`` as usage:
  ``input`` less ``cached`` as input, ``cached`` as cache reads, ``output`` plus ``thoughts``
  as output (what is billed), ``total``; all-zero or null tokens are no usage.
- ``info``, ``warning``, ``error``: UI notices (model fallbacks, cancellations), never model
  context: system messages of kind ``notice`` (``extras["level"]`` says which).
- Parts: ``text``; ``inlineData`` (an image keeps its data, other media a placeholder);
  ``fileData`` by URI; ``executableCode`` and ``codeExecutionResult`` as text. ``displayContent``
  (what the UI showed instead, e.g. before ``@file`` expansion) is left out: ``content`` is what
  the model got.
"""

from __future__ import annotations

from typing import Any

import orjson

from sts.building import SessionBuilder
from sts.building.coerce import positive_int, text_or_none
from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    MessageKind,
    Part,
    TextPart,
    ThinkingPart,
    Usage,
    base64_size,
)
from sts.timestamps import checked_ms

INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
COMMAND_PREFIXES = ("/", "?")
SUMMARY_PREFIX = "<state_snapshot>"
NOTICE_TYPES = frozenset(("info", "warning", "error"))
ERROR_STATUSES = frozenset(("error", "cancelled"))
# Part fields that carry no content of their own (signatures, settings of a media part)
SILENT_PART_KEYS = frozenset(("thoughtSignature", "thought", "videoMetadata", "partMetadata",
                              "mediaResolution"))


class MessageBuilder:
    """Feeds one session's Gemini CLI records to a `SessionBuilder` (which links results to
    calls by id)."""

    def __init__(self, builder: SessionBuilder, drop_injected: bool = False) -> None:
        self.b = builder
        self.problems = builder.problems
        self.drop_injected = drop_injected
        self.agent_calls: dict[str, str] = {}  # sub-agent session id -> the call that ran it
        self.results: dict[str, Message] = {}  # call id -> its tool message
        # call id -> its response and parts, for the latest model record's results only: a
        # copy of an older result is dropped without comparing (memory stays bounded)
        self.sources: dict[str, tuple[Any, list[Any]]] = {}

    # -- records -----------------------------------------------------------------------------
    def record(self, record: dict[str, Any], line: int | None) -> None:
        """One message record of a recording."""
        kind = record.get("type")
        time = checked_ms(record.get("timestamp"), self.problems, line, "timestamp")
        if kind == "user":
            self.user(record.get("content"), time, line, record.get("id"))
        elif kind == "gemini":
            self.gemini(record, time, line)
        elif type(kind) is str and kind in NOTICE_TYPES:
            parts = self.parts(record.get("content"), line)
            message = Message("system", [p for p in parts if type(p) is not ThinkingPart],
                              timestamp=time, kind=MessageKind.NOTICE)
            message.extras["level"] = kind
            self.add(message, record.get("id"))
        elif type(kind) is str:
            self.problems.unknown_type(line, f"message type {kind[:40]!r}")
        else:
            self.problems.error(line, "unknown-record", f"message type {kind!r:.40} skipped")

    def turn(self, turn: Any, index: int) -> None:
        """One API turn of a checkpoint (``{role, parts}``); no ids, no times, no model."""
        if type(turn) is not dict or turn.get("role") not in ("user", "model"):
            self.problems.error(None, "unknown-record", f"checkpoint turn {index} is no "
                                "user or model turn: skipped")
            return
        if turn["role"] == "user":
            self.user(turn.get("parts"), None, None, None)
        else:
            self.gemini({"content": turn.get("parts")}, None, None)

    def add(self, message: Message, source_id: Any) -> Message:
        message.id = text_or_none(source_id)
        return self.b.add(message)

    # -- user ----------------------------------------------------------------------------------
    def user(self, content: Any, time: int | None, line: int | None, source_id: Any) -> None:
        """A user record: prompt text, and tool results given back as ``functionResponse``."""
        items = as_part_list(content)
        if items is None:
            self.problems.warning(line, "content-not-string", "content is not text or parts: "
                                  "kept as text")
            items = [{"text": str(content)}]
        prompt: list[Any] = []
        results: list[list[Any]] = []
        for item in items:
            if type(item) is dict and type(item.get("functionResponse")) is dict:
                results.append([item])
            elif results:
                results[-1].append(item)
            else:
                prompt.append(item)
        if prompt:
            self.prompt(self.parts(prompt, line), time, line, source_id)
        for group in results:
            self.given_result(group, time, line)

    def prompt(self, parts: list[Part], time: int | None, line: int | None,
               source_id: Any) -> None:
        parts = [p for p in parts if type(p) is not ThinkingPart]
        if not parts:
            return
        text = "".join(p.text for p in parts if type(p) is TextPart).lstrip()
        if text.startswith(INJECTED_PREFIXES):
            if not self.drop_injected:
                self.add(Message("system", parts, timestamp=time,
                                 kind=MessageKind.INJECTED_CONTEXT), source_id)
        elif text.startswith(SUMMARY_PREFIX):
            self.add(Message("system", parts, timestamp=time, kind=MessageKind.COMPACTION),
                     source_id)
        elif text.startswith(COMMAND_PREFIXES):
            self.add(Message("user", parts, timestamp=time, kind=MessageKind.COMMAND), source_id)
        else:
            self.add(Message("user", parts, timestamp=time), source_id)

    def given_result(self, group: list[Any], time: int | None, line: int | None) -> None:
        """A ``functionResponse`` part (and the parts after it) from a user record: a tool
        result, unless its call already has one (recorded in ``toolCalls[].result``)."""
        response = group[0]["functionResponse"]
        source_id = text_or_none(response.get("id"))
        ledger = self.b.calls
        if source_id is not None and ledger.by_source.get(source_id) and not (
                ledger.unanswered.get(source_id)):
            known = ledger.by_source[source_id][-1]
            if known in self.results:
                written = self.results[known]
                # the copy of a result already written; when it differs from a result of the
                # latest model record, what the model was sent wins (compared as source
                # values: the written text may be spilled)
                if known in self.sources and self.sources[known] != (
                        response.get("response"), group[1:]):
                    content, error = self.result_parts(response, group[1:], line)
                    written.content = content
                    written.is_error = bool(written.is_error or error)
                return
        self.result(response, group[1:], None, time, line)

    # -- gemini --------------------------------------------------------------------------------
    def gemini(self, record: dict[str, Any], time: int | None, line: int | None) -> None:
        """An assistant record with its reasoning, calls, usage and the calls' results."""
        self.sources.clear()
        content = record.get("content")
        items = as_part_list(content)
        if items is None:
            self.problems.warning(line, "content-not-string", "content is not text or parts: "
                                  "kept as text")
            items = [{"text": str(content)}]
        parts = self.parts([i for i in items if not is_call(i)], line)
        modern = any(type(p) is ThinkingPart for p in parts) or any(map(is_call, items))
        thinking: list[Part] = [p for p in parts if type(p) is ThinkingPart]
        if not modern:
            thinking = self.summaries(record.get("thoughts"), line)
        message = Message("assistant", [*thinking, *(p for p in parts if type(p) is not
                                                      ThinkingPart)], timestamp=time)
        b = self.b
        for item in items:
            if is_call(item):
                call = item["functionCall"]
                message.tool_calls.append(b.call(call.get("id"), call.get("name"),
                                                 call.get("args", {}), line))
        records = record.get("toolCalls")
        if records is not None and type(records) is not list:
            self.problems.error(line, "bad-tool-calls", "toolCalls is not a list: skipped")
            records = None
        calls = [r for r in records or () if self.valid_call(r, line)]
        called = {c.id for c in message.tool_calls}
        for call_record in calls:
            source_id = text_or_none(call_record.get("id"))
            if source_id is not None and not called.isdisjoint(
                    b.calls.by_source.get(source_id, ())):
                continue  # called in the content already
            call = b.call(source_id, call_record.get("name"), call_record.get("args", {}), line)
            message.tool_calls.append(call)
            called.add(call.id)
            agent = text_or_none(call_record.get("agentId"))
            if agent is not None:
                self.agent_calls[agent] = call.id
        message.model = text_or_none(record.get("model"))
        message.usage = usage(record.get("tokens"))
        if (message.content or message.tool_calls or message.usage or message.model
                or record.get("id") is not None):
            self.add(message, record.get("id"))
        for call_record in calls:
            result = call_record.get("result")
            if result is None:
                continue
            self.recorded_result(call_record, result, time, line)

    def valid_call(self, item: Any, line: int | None) -> bool:
        if type(item) is dict and type(item.get("name")) is str:
            return True
        self.problems.error(line, "bad-tool-call", "tool call without a name: skipped")
        return False

    def summaries(self, thoughts: Any, line: int | None) -> list[Part]:
        """``thoughts`` summaries as reasoning, the way Gemini CLI replays them."""
        if thoughts is None:
            return []
        if type(thoughts) is not list:
            self.problems.error(line, "bad-content", "thoughts is not a list: left out")
            return []
        found: list[Part] = []
        for thought in thoughts:
            if type(thought) is not dict:
                continue
            subject, description = thought.get("subject"), thought.get("description")
            subject = subject if type(subject) is str else ""
            description = description if type(description) is str else ""
            text = f"**{subject}** {description}" if subject else description
            if text.strip():
                found.append(ThinkingPart(text))
        return found

    # -- results -------------------------------------------------------------------------------
    def recorded_result(self, call: dict[str, Any], result: Any, time: int | None,
                        line: int | None) -> None:
        """``toolCalls[].result``: ``functionResponse`` parts (plus extras), or older text."""
        status = call.get("status")
        failed = type(status) is str and status in ERROR_STATUSES
        call_time = checked_ms(call.get("timestamp"), self.problems, line, "tool call timestamp")
        source_id = call.get("id")
        items = as_part_list(result)
        if items is None:
            items = [{"text": str(result)}]
        responses = [i for i in items if type(i) is dict and type(i.get("functionResponse"))
                     is dict]
        others = [i for i in items if not (type(i) is dict and type(i.get("functionResponse"))
                                           is dict)]
        response = responses[0]["functionResponse"] if responses else {}
        self.result({**response, "id": source_id, "name": call.get("name")}, others,
                    failed, call_time if call_time is not None else time, line)

    def result(self, response: dict[str, Any], extra: list[Any], failed: bool | None,
               time: int | None, line: int | None) -> None:
        """One tool message answering the call `response["id"]`."""
        content, error = self.result_parts(response, extra, line)
        message = self.b.result(text_or_none(response.get("id")), content,
                                name=response.get("name"), line=line,
                                is_error=bool(failed or error), timestamp=time)
        call_id = message.tool_call_id
        if call_id is not None and call_id not in self.results:
            self.results[call_id] = message
            self.sources[call_id] = (response.get("response"), extra)

    def result_parts(self, response: dict[str, Any], extra: list[Any], line: int | None
                     ) -> tuple[list[Part], bool]:
        """A result's content (the response's text, then the parts after it) and whether the
        response is an error."""
        text, error = response_text(response.get("response"))
        content: list[Part] = [TextPart(text)] if text else []
        content += [p for p in self.parts(extra, line) if type(p) is not ThinkingPart]
        return content, error

    # -- parts ---------------------------------------------------------------------------------
    def parts(self, items: Any, line: int | None) -> list[Part]:
        """Gemini API parts → model parts (calls and responses are handled by the caller)."""
        found: list[Part] = []
        for item in as_part_list(items) or ():
            part = self.part(item, line)
            if part is not None:
                found.append(part)
        return found

    def part(self, item: Any, line: int | None) -> Part | None:
        if type(item) is str:
            return TextPart(item) if item else None
        if type(item) is not dict:
            self.problems.error(line, "unknown-block", f"part is not an object: {item!r:.40}")
            return None
        text = item.get("text")
        if type(text) is str:
            if item.get("thought") is True:
                signature = item.get("thoughtSignature")
                return ThinkingPart(text, signature if type(signature) is str else None)
            return TextPart(text) if text else None
        inline = item.get("inlineData")
        if type(inline) is dict:
            return media(inline.get("mimeType"), data=inline.get("data"))
        linked = item.get("fileData")
        if type(linked) is dict:
            return media(linked.get("mimeType"), url=linked.get("fileUri"))
        code = item.get("executableCode")
        if type(code) is dict and type(code.get("code")) is str:
            language = code.get("language")
            language = language.lower() if type(language) is str else ""
            return TextPart(f"```{language}\n{code['code']}\n```")
        outcome = item.get("codeExecutionResult")
        if type(outcome) is dict:
            output = outcome.get("output")
            return TextPart(output) if type(output) is str and output else None
        if type(item.get("functionResponse")) is dict or is_call(item):
            return None  # placed by the caller
        if set(item) <= SILENT_PART_KEYS:
            return None  # a bare signature or media settings: no content
        keys = ", ".join(sorted(map(str, item))[:4])
        self.problems.error(line, "unknown-block", f"part with {keys} skipped")
        return None


def as_part_list(content: Any) -> list[Any] | None:
    """``PartListUnion``: a string, one part or a list of parts, as a list (None: neither)."""
    if content is None:
        return []
    if type(content) is list:
        return content
    if type(content) is str:
        return [content]
    if type(content) is dict:
        return [content]
    return None


def is_call(item: Any) -> bool:
    return type(item) is dict and type(item.get("functionCall")) is dict


def media(mime: Any, data: Any = None, url: Any = None) -> Part:
    """An inline or linked media part: images keep their data, others become placeholders."""
    mime = mime if type(mime) is str and mime else None
    data = data if type(data) is str else None
    url = url if type(url) is str and url else None
    if mime is not None and mime.startswith("image/"):
        return ImagePart(mime, data, url)
    kind = mime.split("/", 1)[0] if mime and mime.split("/", 1)[0] in ("audio", "video") else (
        "file")
    return MediaPart(kind, mime, size=base64_size(data) if data else None, url=url)


def response_text(response: Any) -> tuple[str, bool]:
    """The text of a ``functionResponse.response`` and whether it is an error."""
    if type(response) is str:
        return response, False
    if type(response) is not dict:
        return ("" if response is None else orjson.dumps(response).decode()), False
    output, error = response.get("output"), response.get("error")
    pieces = [v for v in (output, error) if type(v) is str and v]
    if pieces and set(response) <= {"output", "error"}:
        return "\n".join(pieces), error is not None
    if not response:
        return "", False
    return _dump(response), error is not None


def _dump(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        return str(value)


def usage(tokens: Any) -> Usage | None:
    """Per-message ``tokens`` → Usage; None for null or all-zero counts (older files)."""
    if type(tokens) is not dict:
        return None

    prompt, cached, output, thoughts = (positive_int(tokens.get(k)) for k in (
        "input", "cached", "output", "thoughts"))
    if not (prompt or cached or output or thoughts):
        return None
    return Usage(input=max(prompt - cached, 0), output=output + thoughts, cache_read=cached,
                 total_tokens=positive_int(tokens.get("total")) or None)
