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

from sts.converters.chat.containers import Entry
from sts.converters.chat.hermes import HERMES_HARNESS
from sts.converters.chat.media import attach_side_media
from sts.converters.chat.messages import ChatBuilder, side_fields
from sts.converters.chat.sharegpt_turns import parse_json_text
from sts.converters.openai.responses import add_item
from sts.model import Message, Session, TextPart
from sts.problems import Problems
from sts.timestamps import to_ms

HARNESS = "openai"
#: Keys of both Hermes session records (the export line and the CLI session file).
HERMES_KEYS = ("model_config", "message_count")
START_KEYS = ("started_at", "session_start", "created_at", "created", "startTime")
ID_KEYS = ("id", "session_id")
USED_FIELDS = frozenset(
    ("messages", "tools", "functions", "model", "system_prompt", "system", "title", "name", "cwd",
     "images", "videos", "audios", "parallel_tool_calls", *START_KEYS, *ID_KEYS)
)


def new_session(record: Any, entry: Entry | None, base: str) -> Session:
    """An empty session for a record: the record's id, else `base` plus the entry key."""
    record_id = None
    if type(record) is dict:
        record_id = next((record[k] for k in ID_KEYS if record.get(k) not in (None, "")), None)
    if type(record_id) is str or type(record_id) is int:
        session_id = str(record_id)
    else:
        session_id = f"{base}-{entry.key}" if entry is not None and entry.key else base
    return Session(
        id=session_id,
        source_format="openai",
        harness=HERMES_HARNESS if is_hermes(record) else HARNESS,
        key=entry.key if entry is not None and entry.key else None,
    )


def is_hermes(record: Any) -> bool:
    """Whether a record is one of Hermes Agent's session records."""
    return type(record) is dict and all(key in record for key in HERMES_KEYS)


def conversation_session(
    record: dict[str, Any], entry: Entry | None, base: str, problems: Problems
) -> Session:
    """A session from a ``{"messages": [...]}`` record."""
    session = new_session(record, entry, base)
    line = entry.line if entry is not None else None
    model = record.get("model")
    builder = ChatBuilder(session, problems, model if type(model) is str and model else None)
    system = record.get("system_prompt", record.get("system"))
    if type(system) is str and system:
        builder.add(Message(role="system", content=[TextPart(system)], kind="system_prompt"))
    for message in record["messages"]:
        add_item(builder, message, line)
    fill_session_fields(session, record)
    attach_side_media(session, record, problems, line)
    return session


def fill_session_fields(session: Session, record: dict[str, Any]) -> None:
    """Name, start time, cwd and tool definitions from a record's side fields."""
    for key in ("title", "name"):
        if type(record.get(key)) is str and record[key]:
            session.name = record[key]
            break
    for key in START_KEYS:
        if key in record:
            session.started_at = to_ms(record[key])
            break
    if type(record.get("cwd")) is str and record["cwd"]:
        session.cwd = record["cwd"]
    for key in ("tools", "functions"):
        if record.get(key):
            session.metadata[key] = parse_json_text(record[key])
    session.metadata.update(side_fields(record, USED_FIELDS))
