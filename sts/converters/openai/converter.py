"""OpenAI-style chat data as sessions.

Containers, detected from the input itself (`sts.converters.chat.containers`):

- a JSON array of messages (or of Responses API items): one session;
- a JSON object ``{"messages", "tools"?, "functions"?}``, or a JSON array of such objects
  (LLaMA-Factory's OpenAI format): one session per object;
- JSONL with one such object per line: one session per line, streamed;
- request/response log records (``{request, response}``, LiteLLM's StandardLoggingPayload,
  Responses API exchanges), as JSONL, an array or one object: records that continue the same
  conversation become one session with each message once (`sts.converters.openai.logs`);
- JSONL of bare messages (one message per line): one session.

A JSON document (array or pretty-printed object) is parsed whole with
`sts.lines.loads_document`; JSONL is read one line at a time and never held whole. Message
mapping: `sts.converters.chat.messages`; Responses items: `sts.converters.openai.responses`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from sts.converters.base import Converter, Peek, ReadContext
from sts.converters.chat.kinds import is_message, record_kind
from sts.model import Session

KIND_SCORES = {"log": 0.95, "conversation": 0.9, "messages": 0.85, "message": 0.6, "meta": 0.6}
HERMES_EXPORT_KEYS = ("system_prompt", "source")


class OpenAIConverter(Converter):
    """OpenAI-style chat logs and datasets."""

    name = "openai"
    harness = "openai"
    description = ("OpenAI-style chat messages, fine-tuning JSONL, request/response logs, "
                   "Responses items; Hermes Agent exports and sessions (harness hermes-agent)")

    def sniff(self, peek: Peek) -> float:
        document = peek.document
        if document is not None:
            return score_document(document)
        objects = peek.objects
        if objects and peek.first_byte == b"{":
            first = record_kind(objects[0])
            if first not in KIND_SCORES:  # not a chat record: no later line changes that
                return 0.0
            return score_records(objects[:20])
        head = peek.data
        if peek.first_byte not in (b"[", b"{") or b'"conversations"' in head:
            return 0.0
        if b'"role"' in head and (b'"messages"' in head or peek.first_byte == b"["):
            return 0.7 if b'"choices"' in head else 0.6
        return 0.0

    def read(self, stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
        from sts.converters.openai.reader import read_chat  # loaded only when used: start-up

        return read_chat(stream, context)


def score_document(document: Any) -> float:
    """Confidence for a whole JSON document."""
    if type(document) is list:
        first = next((v for v in document if type(v) is dict), None)
        if first is None:
            return 0.0
        if is_message(first):
            head = document[:20]
            return 0.85 if 2 * sum(map(is_message, head)) >= len(head) else 0.3
        return score_records([v for v in document[:20] if type(v) is dict])
    if type(document) is dict:
        return score_records([document])
    return 0.0


def score_records(records: list[Any]) -> float:
    """Confidence from the first records: every one must be a chat record of one kind."""
    found = [record_kind(r) for r in records]
    if found[:1] == ["meta"] and len(found) > 1 and set(found[1:]) == {"message"}:
        return 0.85  # a Hermes gateway transcript: its session_meta line, then one message a line
    kinds = set(found)
    if len(kinds) != 1:
        return 0.3 if kinds <= set(KIND_SCORES) else 0.0
    kind = kinds.pop()
    score = KIND_SCORES.get(kind or "", 0.0)
    if kind == "conversation" and all(
        all(k in r for k in HERMES_EXPORT_KEYS) for r in records
    ):
        return 0.6  # a Hermes session export: ours unless a Hermes converter claims it
    return score
