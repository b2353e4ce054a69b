"""The one reading loop behind the ``openai`` and ``sharegpt`` converters.

Both formats come in the same containers (see `sts.converters.chat.containers`), and real files mix
their record shapes, so every record is looked at on its own:

- ``{"messages": [...]}`` (and a line holding a bare message array) → one session each;
- ShareGPT ``{"conversations": [...]}`` → one session each;
- request/response log records → grouped into conversations (`openai.logs.LogGrouper`);
- bare messages or Responses items, one per line (or a document array of them) → together one
  session for the whole input; a Hermes ``{"role": "session_meta"}`` line gives its model and
  tools;
- anything else is reported (``unknown-record``) and skipped.

Sessions stream: a JSONL input yields each line's session before reading the next line (log
groups and the loose-message session come out when they are complete). Each session of a
multi-session input gets a key: ``L<line>`` for JSONL, ``item<n>`` for a document array. Session
ids are the record's own id when it has one, else ``<file stem>-<key>`` (``stdin`` for stdin).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any, BinaryIO

from sts.converters.base import ReadContext
from sts.converters.chat.containers import TopLevel, document_entries, open_input
from sts.converters.chat.hermes import HERMES_HARNESS
from sts.converters.chat.kinds import is_message, record_kind
from sts.converters.chat.messages import ChatBuilder
from sts.converters.chat.sharegpt_turns import sharegpt_session
from sts.converters.openai.logs import LogGrouper
from sts.converters.openai.records import conversation_session, new_builder
from sts.converters.openai.responses import add_item
from sts.model import Session
from sts.timestamps import checked_ms


def read_chat(stream: BinaryIO, context: ReadContext) -> Iterator[Session]:
    """Every session of an OpenAI-style or ShareGPT input, one at a time."""
    problems = context.problems
    opened = open_input(stream, problems)
    if opened.lines is not None:
        yield from read_entries(opened.lines, context)
        return
    document = opened.document
    if type(document) is list:
        first = next((v for v in document if type(v) is dict), None)
        if is_message(first):
            yield conversation_session({"messages": document}, None, context)
        else:
            yield from read_entries(document_entries(document), context)
    elif type(document) is dict:
        yield from read_entries([TopLevel(document, None, "")], context)
    elif document is not None:
        problems.error(None, "unknown-record", "the document is not an object or an array")


def read_entries(entries: Iterable[TopLevel], context: ReadContext) -> Iterator[Session]:
    """Sessions from a stream of top-level records."""
    problems = context.problems
    grouper = LogGrouper(problems, partial(new_builder, context=context))
    loose: ChatBuilder | None = None
    for entry in entries:
        record = entry.value
        kind = record_kind(record)
        if kind == "conversation":
            yield conversation_session(record, entry, context)
        elif kind == "sharegpt":
            yield sharegpt_session(record, entry, context)
        elif kind == "log":
            yield from grouper.add(record, entry)
        elif kind == "messages":
            yield conversation_session({"messages": record}, entry, context)
        elif kind == "message" or kind == "meta":
            if loose is None:
                loose = new_builder(None, None, context)
            if kind == "meta":
                take_meta(loose, record, entry.line)
            else:
                add_item(loose, record, entry.line)
        else:
            what = f"keys {sorted(record)[:6]}" if type(record) is dict else type(record).__name__
            problems.error(entry.line, "unknown-record", f"not a chat record ({what}): skipped")
    yield from grouper.finish()
    if loose is not None:
        yield loose.finish()


def take_meta(builder: ChatBuilder, record: dict[str, Any], line: int | None) -> None:
    """A Hermes ``session_meta`` line: model, tools and start of the transcript, and its
    harness."""
    builder.session.harness = HERMES_HARNESS
    if builder.session.started_at is None:
        builder.session.started_at = checked_ms(record.get("timestamp"), builder.problems, line,
                                                "timestamp")
    model = record.get("model")
    if type(model) is str and model:
        builder.model = model
    for key in ("tools", "platform"):
        if record.get(key):
            builder.session.metadata[key] = record[key]
