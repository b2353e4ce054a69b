"""Redaction over a whole `Session`: every decoded string of the model, in place.

The walker knows the model only through its classes' fields: every string field is redacted
except the opaque ones in `OPAQUE_FIELDS` (ids, roles, provider names, base64 image data,
thinking signatures), and lists, dicts and nested objects are walked, so a field added to the
model is redacted by default. Strings are the decoded values, so a secret written with JSON
escapes in the source (``\\u0041KIA...``, ``https:\\/\\/...``) is whole here.

Each finding names the session, the message index and the path of the string in the model
(``messages[3].tool_calls[0].arguments.command``), with the span of the hit in the redacted
string: what `sts view` and the publish report need.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from sts.model import Session, TextPart
from sts.redact.engine import Hit, Redactor
from sts.spill import StoredText

#: Fields never redacted: identifiers and format words, not text a person wrote.
OPAQUE_FIELDS = frozenset(
    ("id", "key", "role", "tool_call_id", "tool_name", "signature", "data", "media_type",
     "model", "provider", "api", "stop_reason", "kind", "source_format", "source_version",
     "harness", "first_kept_id", "from_id", "custom_type")
)
#: Dict keys (in metadata and extras) whose values are left alone: ids and hashes (and any key
#: ending in ``Id``, ``_id``, ``Ids``, ``_ids``).
OPAQUE_KEYS = frozenset(("id", "uuid", "parentUuid", "signature", "encrypted_content", "sha",
                         "commit", "hash", "etag"))
_ID_ENDINGS = ("Id", "_id", "ID", "Ids", "_ids", "IDs", "Uuid", "_uuid")


@dataclass(slots=True)
class Finding:
    """One redaction or flag in one session: what `sts view` and the report show.

    `message` is the index in `session.messages` (None for session-level fields such as the
    name, cwd or metadata), `path` the model path of the string, `start`/`end` the span in the
    redacted string. `file` and `line` are set once the session is written.
    """

    session: str
    message: int | None
    path: str
    rule: str
    action: str
    start: int
    end: int
    fingerprint: str
    preview: str
    context: str
    file: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The report entry (never the secret: a masked preview and a keyed fingerprint)."""
        return dataclasses.asdict(self)


def redact_session(session: Session, redactor: Redactor, children: bool = True) -> list[Finding]:
    """Redact `session` in place (with its sub-agent sessions unless `children` is False);
    return what was found."""
    findings: list[Finding] = []
    _Walk(redactor, session.id, findings).session(session)
    if children:
        for child in session.children:
            findings += redact_session(child, redactor)
    return findings


def locate(findings: list[Finding], session: Session, file: str, to: str) -> None:
    """Set each finding's output `file` and `line`: the header is line 1, and each message
    has one line after it (after pi's ``session_info`` line when the session has a name)."""
    first = 2 + (to == "pi" and bool(session.name))
    for finding in findings:
        finding.file = file
        if finding.message is not None:
            finding.line = first + finding.message
        else:
            finding.line = 2 if finding.path == "name" and to == "pi" else 1


class _Walk:
    def __init__(self, redactor: Redactor, session_id: str, findings: list[Finding]) -> None:
        self.redactor = redactor
        self.session_id = session_id
        self.findings = findings
        self.message: int | None = None

    def session(self, session: Session) -> None:
        # ids are opaque elsewhere, but a session's id and key name its output file: a user
        # name or path in them (ids made from file names) must not reach the file name
        self.session_id = self.redactor.text(session.id)[0]  # what findings name, even its own
        session.id = self.string(session.id, "id")
        if session.key is not None:
            session.key = self.string(session.key, "key")
        for name in _string_fields(Session):
            if name in ("messages", "children"):
                continue
            setattr(session, name, self.value(getattr(session, name), name))
        for index, message in enumerate(session.messages):
            if message is None:
                continue
            self.message = index
            self.obj(message, f"messages[{index}]")
        self.message = None

    def value(self, value: Any, path: str) -> Any:
        kind = type(value)
        if kind is str:
            return self.string(value, path)
        if kind is list:
            for index, item in enumerate(value):
                value[index] = self.value(item, f"{path}[{index}]")
            return value
        if kind is dict:
            for key, item in value.items():
                if key not in OPAQUE_KEYS and not str(key).endswith(_ID_ENDINGS):
                    value[key] = self.value(item, f"{path}.{key}")
            return value
        if kind is TextPart:
            text = value.value
            if type(text) is StoredText:
                text = text.load()
            new = self.string(text, f"{path}.text")
            return value if new is text else TextPart(new)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            self.obj(value, path)
        return value

    def obj(self, obj: Any, path: str) -> None:
        for name in _string_fields(type(obj)):
            current = getattr(obj, name)
            if current is None or isinstance(current, (bool, int, float, enum.Enum)):
                continue
            new = self.value(current, f"{path}.{name}")
            if new is not current:
                setattr(obj, name, new)

    def string(self, text: str, path: str) -> str:
        new, hits = self.redactor.text(text)
        if hits:
            safe = masked(new, hits)
            for hit in hits:
                self.findings.append(Finding(
                    self.session_id, self.message, path, hit.rule, hit.action, hit.start,
                    hit.end, hit.fingerprint, hit.preview, context(safe, hit),
                ))
        return text if new == text else new


def masked(text: str, hits: list[Hit]) -> str:
    """`text` with every flagged span (text still in the output) overwritten by ``*``, same
    length, so that no report context shows it."""
    flagged = [h for h in hits if h.action == "flagged"]
    if not flagged:
        return text
    chars = list(text)
    for hit in flagged:
        chars[hit.start:hit.end] = "*" * (hit.end - hit.start)
    return "".join(chars)


def context(safe: str, hit: Hit, width: int = 30) -> str:
    """Up to `width` characters either side of the hit in the redacted, masked text."""
    return " ".join(safe[max(0, hit.start - width):hit.end + width].split())


_FIELDS: dict[type, tuple[str, ...]] = {}


def _string_fields(cls: type) -> tuple[str, ...]:
    """The fields of a model class that may hold text (cached per class)."""
    names = _FIELDS.get(cls)
    if names is None:
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in OPAQUE_FIELDS)
        else:
            names = ()
        _FIELDS[cls] = names
    return names

