"""Gemini CLI files → one `Recording`: the session's metadata and its messages, in order.

Three shapes, all turned into the same thing before any message is built:

- JSONL (v0.39+), replayed as ``loadConversationRecord`` does, one line at a time:
  ``{"$rewindTo": id}`` drops that message and every later one (an unknown id drops nothing,
  reported: see `Replay.rewind`); a record with a string ``id`` is a message: the first time
  at the end, a re-append replaces the earlier version where it stood (last version, first
  position); ``{"$set": {...}}`` merges metadata, and a ``$set.messages`` array is the model's
  history from then on (written at start for the ``<session_context>`` turn, on compression
  and on history sync: see `Replay.checkpoint` for what it leaves out); a record with
  ``sessionId`` and ``projectHash`` merges metadata (the first line, or a whole legacy record
  on one line, whose ``messages`` are added).
- A legacy whole document (v0.3-v0.38): ``{sessionId, projectHash, startTime, lastUpdated,
  messages, summary?}``.
- A ``/chat save`` checkpoint: ``{"history": Content[], "authType"?}`` or, very old, a bare
  ``Content[]``: raw Gemini API turns (``role`` user or model, ``parts``), no ids, no times.

``logs.json`` (a list of ``{sessionId, messageId, type, message, timestamp}``) is recognised and
is not a recording: see the package docstring.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

import orjson

from sts.converters.gemini_cli.shapes import is_metadata
from sts.lines import iter_records
from sts.problems import Problems

MESSAGE_TYPES = frozenset(("user", "gemini", "info", "error", "warning"))
# metadata keys that are no message list (merged into `Recording.meta`)
SET_MESSAGES = "messages"


@dataclass(slots=True)
class Entry:
    """One message record (its last version) and the line it was read from.

    A record read from a clean JSONL line is kept as that line's bytes (`raw`) until the
    session is built: a parsed record takes up to four times the memory of its text.
    """

    record: dict[str, Any] | None
    line: int | None
    raw: bytes | None = None

    def take(self) -> dict[str, Any]:
        """The record (parsed from its line when kept as bytes), released from the entry."""
        record = self.record if self.raw is None else orjson.loads(self.raw)
        self.record = self.raw = None
        return record  # type: ignore[return-value]


@dataclass(slots=True)
class Recording:
    """What a Gemini CLI file holds once replayed: metadata and messages in order.

    `shape` is ``jsonl``, ``json`` (legacy document) or ``checkpoint``; `turns` holds a
    checkpoint's API turns (``{role, parts}``) instead of `entries`.
    """

    shape: str
    meta: dict[str, Any] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    turns: list[Any] = field(default_factory=list)
    meta_lines: dict[str, int | None] = field(default_factory=dict)  # the line of each key's value


class Replay:
    """The JSONL replay: messages by id in first-seen order, metadata merged line by line."""

    def __init__(self, problems: Problems) -> None:
        self.problems = problems
        self.meta: dict[str, Any] = {}
        self.meta_lines: dict[str, int | None] = {}
        self.messages: dict[str, Entry] = {}
        self.last_model: dict[str, Any] | None = None  # the latest gemini record read

    def line(self, lineno: int | None, record: dict[str, Any], raw: bytes | None = None) -> None:
        """Apply one JSONL record, in the loader's order of tests (`raw`: its clean line)."""
        rewind = record.get("$rewindTo")
        if type(rewind) is str:
            self.rewind(rewind, lineno)
        elif type(record.get("id")) is str:
            self.upsert(record, lineno, raw)
        elif type(record.get("$set")) is dict:
            update = record["$set"]
            if type(update.get(SET_MESSAGES)) is list:
                self.checkpoint(update[SET_MESSAGES], lineno)
            self.merge(update, lineno)
        elif is_metadata(record):
            self.merge(record, lineno)
            if type(record.get(SET_MESSAGES)) is list:
                self.add_all(record[SET_MESSAGES], lineno)
        else:
            keys = ", ".join(sorted(map(str, record))[:5])
            self.problems.error(lineno, "unknown-record", f"record with no id, $set or "
                                f"$rewindTo ({keys}): skipped")

    def upsert(self, record: dict[str, Any], lineno: int | None, raw: bytes | None = None
               ) -> None:
        """A message: a re-appended id replaces its earlier version where that one stood.

        A user record that only repeats results the latest model record holds (v0.44+ records
        each result twice) is kept as an empty stub: nothing to build, nothing to parse again.
        """
        kind = record.get("type")
        if kind == "gemini":
            self.last_model = record
        elif kind == "user" and self.last_model is not None and repeats_results(
                record.get("content"), self.last_model):
            record, raw = {"id": record["id"], "type": "user", "content": []}, None
        kept = None if raw is not None else record
        entry = self.messages.get(record["id"])
        if entry is None:
            self.messages[record["id"]] = Entry(kept, lineno, raw)
        else:
            entry.record, entry.line, entry.raw = kept, lineno, raw

    def add_all(self, messages: list[Any], lineno: int | None) -> None:
        """The messages of a ``$set.messages`` checkpoint or a one-line legacy record."""
        for message in messages:
            if type(message) is dict and type(message.get("id")) is str:
                self.upsert(message, lineno)
            else:
                self.problems.error(lineno, "bad-message", "checkpoint message without an id: "
                                    "skipped")

    def checkpoint(self, messages: list[Any], lineno: int | None) -> None:
        """A ``$set.messages`` array: the messages the model sees from now on.

        Gemini CLI's loader clears every message and keeps only these. The array holds the
        model's history, so what it leaves out is what the model no longer sees, not what never
        happened: turns a compression summarised, UI notices, slash commands. Those stay where
        they were; messages of the array that were already there are replaced in place (a
        masked tool output), and new ones (a compression summary and its answer) go just before
        the next message of the array that was already there, else at the end.
        """
        fresh: list[dict[str, Any]] = []
        for message in messages:
            if type(message) is dict and type(message.get("id")) is str:
                fresh.append(message)
            else:
                self.problems.error(lineno, "bad-message", "checkpoint message without an id: "
                                    "skipped")
        old = self.messages
        updated = {m["id"]: m for m in fresh}
        before: dict[str, list[dict[str, Any]]] = {}
        run: list[dict[str, Any]] = []
        placed: set[str] = set()
        for message in fresh:
            key = message["id"]
            if key in placed:
                continue
            placed.add(key)
            if key in old:
                before[key] = run
                run = []
            else:
                run.append(message)
        merged: dict[str, Entry] = {}
        for key, entry in old.items():
            for message in before.get(key, ()):
                merged[message["id"]] = Entry(updated[message["id"]], lineno)
            if key in updated:
                entry.record, entry.line, entry.raw = updated[key], lineno, None
            merged[key] = entry
        for message in run:
            merged[message["id"]] = Entry(updated[message["id"]], lineno)
        self.messages = merged

    def rewind(self, target: str, lineno: int | None) -> None:
        """Drop the message `target` and every later one.

        Gemini CLI drops every message when the id is unknown; its writer never names an
        unknown id, so one here means the target's line was lost: nothing is dropped, and that
        is reported.
        """
        ids = list(self.messages)
        if target in self.messages:
            for gone in ids[ids.index(target):]:
                del self.messages[gone]
        elif ids:
            self.problems.warning(lineno, "rewind-unknown", f"$rewindTo names no message "
                                  f"({target!r}): nothing dropped (Gemini CLI would drop all "
                                  f"{len(ids)})")

    def merge(self, update: dict[str, Any], lineno: int | None) -> None:
        """Merge metadata (a ``messages`` list is no metadata)."""
        for key, value in update.items():
            if key != SET_MESSAGES:
                self.meta[key] = value
                self.meta_lines[key] = lineno

    def recording(self) -> Recording:
        return Recording("jsonl", self.meta, list(self.messages.values()),
                         meta_lines=self.meta_lines)


def repeats_results(content: Any, model: dict[str, Any]) -> bool:
    """True when `content` is only ``functionResponse`` parts (each with the parts after it)
    equal to the ``result`` of the call of the same id in `model`'s ``toolCalls``."""
    calls = model.get("toolCalls")
    if type(content) is not list or not content or type(calls) is not list:
        return False
    results = {c["id"]: c.get("result") for c in calls
               if type(c) is dict and type(c.get("id")) is str}
    start = 0
    for end in range(1, len(content) + 1):
        if end < len(content) and not is_response(content[end]):
            continue
        group = content[start:end]
        source_id = group[0]["functionResponse"].get("id") if is_response(group[0]) else None
        if type(source_id) is not str or results.get(source_id) != group:
            return False
        start = end
    return True


def is_response(part: Any) -> bool:
    return type(part) is dict and type(part.get("functionResponse")) is dict


def replay(lines: Iterable[bytes], problems: Problems) -> Recording:
    """The recording of a JSONL file from its lines."""
    state = Replay(problems)
    source = LastLine(lines)
    reported = problems.count
    for lineno, record in iter_records(cast(BinaryIO, source), problems):
        # a line read cleanly is kept as bytes; one that needed a repair (reported) as parsed
        clean = problems.count == reported and lineno > 1
        state.line(lineno, record, source.last if clean else None)
        reported = problems.count
    return state.recording()


class LastLine:
    """The lines of a stream, remembering the last one handed out."""

    def __init__(self, lines: Iterable[bytes]) -> None:
        self.lines = lines
        self.last = b""

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.lines:
            self.last = raw
            yield raw


def legacy_recording(document: dict[str, Any], problems: Problems) -> Recording:
    """The recording of a legacy whole-document session."""
    meta = {k: v for k, v in document.items() if k != SET_MESSAGES}
    entries = []
    for message in document[SET_MESSAGES]:
        if type(message) is dict:
            entries.append(Entry(message, None))
        else:
            problems.error(None, "bad-message", "message is not an object: skipped")
    return Recording("json", meta, entries)


def checkpoint_recording(document: Any) -> Recording:
    """The recording of a ``/chat save`` checkpoint (its turns, and ``authType`` as metadata)."""
    if type(document) is list:
        return Recording("checkpoint", {}, [], document)
    meta = {k: v for k, v in document.items() if k != "history" and type(v) is str}
    return Recording("checkpoint", meta, [], document["history"])
