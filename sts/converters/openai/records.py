"""What an OpenAI-style record is, and a conversation record (``{"messages": [...]}``) as a session.

A conversation record is the fine-tuning / TRL shape ``{"messages", "tools"?, "functions"?}``
and its relatives: LLaMA-Factory's ``{"messages", "images"}`` (``<image>`` placeholders in the
text, paths in a side list), Hermes' ``hermes sessions export`` line (``id``, ``model``,
``system_prompt``, ``title``, ``started_at`` in epoch seconds) and its older per-session CLI
file (``session_id``, ``session_start``). Fields for training only (``weight``,
``loss_weight``, ``parallel_tool_calls``) are left out on purpose; ``tools`` and ``functions``
go into the session metadata. A Hermes record (``model_config`` and ``message_count``, which
both Hermes shapes carry) gives harness ``hermes-agent``, the Hub's id for Hermes Agent.
"""

from __future__ import annotations

from typing import Any

from sts.building import ReadContext
from sts.building.coerce import text_or_none
from sts.converters.chat.containers import TopLevel
from sts.converters.chat.hermes import HERMES_HARNESS
from sts.converters.chat.media import attach_side_media
from sts.converters.chat.messages import ChatBuilder, side_fields
from sts.converters.chat.sharegpt_turns import parse_json_text
from sts.converters.openai.responses import add_item
from sts.model import Message, MessageKind, Session, TextPart
from sts.timestamps import checked_ms

HARNESS = "openai"
#: Keys of both Hermes session records (the export line and the CLI session file).
HERMES_KEYS = frozenset(("model_config", "message_count"))
START_KEYS = ("started_at", "session_start", "created_at", "created", "startTime")
START_KEY_SET = frozenset(START_KEYS)
TITLE_KEYS = frozenset(("title", "name"))
ID_KEYS = ("id", "session_id")
USED_FIELDS = frozenset(
    ("messages", "tools", "functions", "model", "system_prompt", "system", "title", "name", "cwd",
     "images", "videos", "audios", "parallel_tool_calls", *START_KEYS, *ID_KEYS)
)


def new_builder(
    record: Any, entry: TopLevel | None, context: ReadContext, preferred_id: str | None = None
) -> ChatBuilder:
    """The builder of a record's session: id `preferred_id`, else the record's, else the
    builder's fallback (the file stem plus the entry key)."""
    builder = ChatBuilder(
        context, "openai", HERMES_HARNESS if is_hermes(record) else HARNESS,
        key=entry.key if entry is not None and entry.key else None,
    )
    if preferred_id is not None:
        builder.offer_id(preferred_id)
    if type(record) is dict:
        for key in ID_KEYS:  # the first one set (a loop: no generator per record)
            value = record.get(key)
            if value is not None and value != "":
                builder.offer_id(value)
                break
    return builder


def is_hermes(record: Any) -> bool:
    """Whether a record is one of Hermes Agent's session records."""
    return type(record) is dict and record.keys() >= HERMES_KEYS


def conversation_session(
    record: dict[str, Any], entry: TopLevel | None, context: ReadContext
) -> Session:
    """A session from a ``{"messages": [...]}`` record."""
    builder = new_builder(record, entry, context)
    line = entry.line if entry is not None else None
    builder.model = text_or_none(record.get("model"))
    system = record["system_prompt"] if "system_prompt" in record else record.get("system")
    if type(system) is str and system:
        builder.add(Message(role="system", content=[TextPart(system)],
                            kind=MessageKind.SYSTEM_PROMPT))
    archived = 0
    hermes = builder.session.harness == HERMES_HARNESS
    for message in record["messages"]:
        if hermes and type(message) is dict and message.get("active") in (0, False):
            archived += 1  # kept by Hermes after a rewind or an in-place compaction
            continue
        add_item(builder, message, line)
    if archived:
        builder.problems.warning(
            line, "archived-rows", f"{archived} archived row(s) (active: 0) left out: Hermes "
            "keeps them after a rewind or compaction, they are not part of the conversation")
    fill_session_fields(builder, record, line)
    attach_side_media(builder.session, record, builder.problems, line)
    return builder.finish()


def fill_session_fields(builder: ChatBuilder, record: dict[str, Any], line: int | None) -> None:
    """Name, start time, cwd and tool definitions from a record's side fields (each group
    looked up only when the record has one of its keys: most have none)."""
    session = builder.session
    if not TITLE_KEYS.isdisjoint(record):
        for key in ("title", "name"):
            if type(record.get(key)) is str and record[key]:
                builder.title(record[key])
                break
    if not START_KEY_SET.isdisjoint(record):
        for key in START_KEYS:
            if key in record:
                session.started_at = checked_ms(record[key], builder.problems, line, key)
                break
    if type(record.get("cwd")) is str and record["cwd"]:
        session.cwd = record["cwd"]
    for key in ("tools", "functions"):
        if record.get(key):
            session.metadata[key] = parse_json_text(record[key])
    if not USED_FIELDS.issuperset(record):
        session.metadata.update(side_fields(record, USED_FIELDS))
