"""A time that is there but is no time (text, a number or an offset past the years 1-9999) is
reported ``bad-timestamp`` at its line by every reader, left out (never guessed), and the rest
of the session is converted and written validly; no writer fails on any time a reader returns.

Each reader gets one planted bad time: a hand-written case with one of its times replaced.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts.converters.registry import builtin_converters
from sts.model import CONVERSION_TIME, INPUT_MTIME, FallbackTime, Message, Session, TextPart
from sts.problems import Problems
from sts.timestamps import (
    _MAX_MS,
    _MIN_MS,
    SECONDS_2000,
    SECONDS_2100,
    epoch_ms,
    iso_from_ms,
    to_ms,
)
from sts.undated import HEADER_FIELD, modified_time
from sts.validation import validate_bytes
from sts.writers import write_pi, write_sts
from tests.support import CASES, ROOT, assert_valid, lines, read_sessions, walk, write_checked
from tests.test_cli import sts as run_sts

#: Present but no time: an offset carrying the time past year 9999, a number of ms past it, text,
#: and a time no output can hold (its ms read as seconds of 2000-2100).
BAD = ["9999-12-31T23:59:59-14:00", 253_402_300_800_000, "yesterday", "1970-01-15T00:00:00Z"]


@dataclass(frozen=True)
class Plant:
    """Where one reader reads a time: `old` (unique in `edit`, holding the time `value`)."""

    fmt: str
    tree: str  # a case under the project: one file, or a folder copied whole
    old: str
    value: str
    edit: str = ""  # the file to change inside a folder
    read: str = ""  # what to read inside a folder (default: the changed file)

    @property
    def id(self) -> str:
        key, value = (part.strip(' "') for part in (self.old.split(":")[0], self.value))
        return f"{self.fmt}:{Path(self.edit or self.tree).name}:{key}={value}"


KIMI = "tests/cases/kimi-cli/kimi-home"
KIMI_SESSION = ("sessions/2b8c70fb72d8a087e5dee109778f74cf/3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b/")
CLINE = "tests/cases/cline/roo"  # no ui_messages.json: no other time to fall back on
CLINE_TASK = "rooveterinaryinc.roo-cline/tasks/0198f0a1-2b3c-7d4e-8f90-a1b2c3d4e5f6/"
DROID = "tests/cases/factory-droid/sessions/-home-dev-shop"

PLANTS = [
    Plant("claude-code", "tests/cases/claude-code/compaction.jsonl",
          '"timestamp":"2026-02-11T10:00:02.000Z"', '"2026-02-11T10:00:02.000Z"'),
    Plant("codex", "tests/cases/codex/envelope_basic.jsonl",
          '"timestamp":"2026-03-01T10:00:00.300Z"', '"2026-03-01T10:00:00.300Z"'),
    Plant("codex", "tests/cases/codex/envelope_basic.jsonl",  # session_meta: the start
          '"timestamp":"2026-03-01T10:00:00.000Z"', '"2026-03-01T10:00:00.000Z"'),
    Plant("gemini-cli", "tests/cases/gemini-cli/jsonl_replay.jsonl",
          '"timestamp":"2026-11-30T10:00:00.001Z"', '"2026-11-30T10:00:00.001Z"'),
    Plant("gemini-cli", "tests/cases/gemini-cli/jsonl_replay.jsonl",
          '"startTime":"2026-11-30T10:00:00.000Z"', '"2026-11-30T10:00:00.000Z"'),
    Plant("gemini-cli", "tests/cases/gemini-cli/jsonl_replay.jsonl",  # header metadata
          '"lastUpdated":"2026-11-30T10:00:08.000Z"', '"2026-11-30T10:00:08.000Z"'),
    Plant("github-copilot", "tests/cases/github-copilot/bash_tool.jsonl",
          '"timestamp": "2026-03-01T10:00:01.000Z"', '"2026-03-01T10:00:01.000Z"'),
    Plant("openclaw", "tests/cases/openclaw/v7-no-openclaw-path.jsonl",
          '"timestamp": "2026-07-06T14:00:01.000Z"', '"2026-07-06T14:00:01.000Z"'),
    Plant("pi", "tests/cases/pi/compaction.jsonl",
          '"timestamp":"2026-02-01T10:00:05.000Z"', '"2026-02-01T10:00:05.000Z"'),
    Plant("pi", "tests/cases/pi/compaction.jsonl",  # the header: the start
          '"timestamp":"2026-02-01T10:00:00.000Z"', '"2026-02-01T10:00:00.000Z"'),
    Plant("sts", "samples/hello.sts.jsonl", '"timestamp":1751382000000', "1751382000000"),
    Plant("factory-droid", DROID, '"timestamp": "2026-06-20T10:00:03.000Z"',
          '"2026-06-20T10:00:03.000Z"', edit="2b6c4e8a-1f3d-4a5b-9c7e-0d1f2a3b4c5d.jsonl"),
    Plant("kimi-cli", KIMI, '"timestamp": 1796100002.0,', "1796100002.0",
          edit=KIMI_SESSION + "wire.jsonl", read=KIMI_SESSION + "context.jsonl"),
    Plant("cline", CLINE, '"ts": 1777200003000', "1777200003000",
          edit=CLINE_TASK + "api_conversation_history.json"),
    Plant("openai", "tests/cases/openai/hermes_export.jsonl",
          '"timestamp": 1772355601.5', "1772355601.5"),
    Plant("openai", "tests/cases/openai/hermes_export.jsonl",
          '"started_at": 1772355600.25', "1772355600.25"),
    Plant("openai", "tests/cases/openai/log_records.jsonl",
          '"timestamp": "2025-03-01T10:00:05Z"', '"2025-03-01T10:00:05Z"'),
    Plant("opencode", "tests/cases/opencode/generations.sql",
          '"count the lines","time":{"created":1001}', "1001"),
    Plant("opencode", "tests/cases/opencode/generations.sql",  # a session row's start (SQL)
          "'Only 1.x', '/w', '1.18.0', 2000,", "2000"),
    Plant("cursor", "tests/cases/cursor/state.sql",
          '"createdAt":1785000001000', "1785000001000"),
]
#: Converters whose sources hold no time they read.
NO_TIMES = {
    "cursor-cli": "transcripts have no timestamps (chat meta.json: test_cursor_cli_chat_time)",
    "sharegpt": "turns have no times; a Hermes trajectory's timestamp is kept as metadata text",
}


def test_every_reader_of_times_has_a_plant():
    assert {p.fmt for p in PLANTS} | set(NO_TIMES) == set(builtin_converters())


def build(plant: Plant, folder: Path, value: str) -> tuple[Path, Path]:
    """The case in `folder` with the planted time set to `value` (JSON text): (what to read,
    the file the time is in)."""
    source = ROOT / plant.tree
    if source.is_dir():
        shutil.copytree(source, folder, dirs_exist_ok=True)
        edited = folder / (plant.edit or plant.read)
        read = folder / (plant.read or plant.edit)
    else:
        edited = read = folder / source.name
        shutil.copyfile(source, edited)
    text = edited.read_text("utf-8")
    assert text.count(plant.old) == 1, f"{plant.old} is not unique in {edited}"
    if plant.old.startswith("'") and value.startswith('"'):  # an SQL literal
        value = "'" + json.loads(value) + "'"
    edited.write_text(text.replace(plant.old, plant.old.replace(plant.value, value)), "utf-8")
    if edited.suffix == ".sql":  # a database built from the script
        read = edited.with_suffix(".vscdb" if plant.fmt == "cursor" else ".db")
        read.unlink(missing_ok=True)
        connection = sqlite3.connect(read)
        connection.executescript(edited.read_text("utf-8"))
        connection.commit()
        connection.close()
        edited = read
    return read, edited


#: Header metadata that holds a time (epoch ms).
METADATA_TIMES = ("lastUpdated", "archivedAt", "updatedAt")


def times(session: Session) -> list[int | None]:
    return [session.started_at, *(session.metadata.get(key) for key in METADATA_TIMES),
            *(m.timestamp for m in session.messages)]


def shape(message: Message) -> tuple:
    return (message.role, message.kind, message.text, [c.id for c in message.tool_calls],
            message.tool_call_id)


@pytest.mark.parametrize("bad", BAD, ids=["offset-past-9999", "ms-past-9999", "text", "1970-01"])
@pytest.mark.parametrize("plant", PLANTS, ids=[p.id for p in PLANTS])
def test_a_bad_time_is_reported_left_out_and_the_rest_converted(plant, bad, tmp_path):
    read, edited = build(plant, tmp_path, plant.value)
    before, before_problems = read_sessions(read, plant.fmt)
    read, edited = build(plant, tmp_path, json.dumps(bad))
    after, problems = read_sessions(read, plant.fmt)

    line = None
    if edited.suffix == ".jsonl":
        text = edited.read_text("utf-8")
        line = text[:text.index(plant.old.replace(plant.value, json.dumps(bad)))].count("\n") + 1
    reported = [p for p in problems if p.code == "bad-timestamp"]
    assert [(p.file, p.line, p.severity) for p in reported] == [(str(edited), line, "warning")]
    assert repr(bad)[:20] in reported[0].text and reported[0].text.endswith("left out")
    others = [p for p in problems if p.code != "bad-timestamp"]
    assert [(p.file, p.line, p.code) for p in others] == [
        (p.file, p.line, p.code) for p in before_problems]

    # (a store lists its sessions by start time: one without it may move)
    old_sessions, new_sessions = (sorted(walk(found), key=lambda s: s.id)
                                  for found in (before, after))
    assert [s.id for s in new_sessions] == [s.id for s in old_sessions]
    lost = 0
    for old, new in zip(old_sessions, new_sessions, strict=True):
        assert [shape(m) for m in new.messages] == [shape(m) for m in old.messages]
        for was, now in zip(times(old), times(new), strict=True):
            assert now in (was, None), "a time was guessed"
            lost += now is None and was is not None
        write_checked(new, "sts")
        write_checked(new, "pi")
    assert lost == 1, "the bad time was not left out (or more went with it)"


# -- the writers take every time a reader can return ---------------------------------------

EDGES = [_MIN_MS, _MIN_MS + 1, -1, 0, 1, 999, 1000, _MAX_MS - 1, _MAX_MS,
         -30_610_224_000_001, -30_610_224_000_000,  # year 1000 starts at -30610224000000
         SECONDS_2000 - 1, SECONDS_2100 + 1]  # the ms between read as seconds: no time


HELD = st.integers(_MIN_MS, _MAX_MS).filter(lambda ms: epoch_ms(ms) is not None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(EDGES), HELD), min_size=1, max_size=4))
def test_every_time_a_reader_can_return_is_written_validly(stamps):
    session = Session(id="s", source_format="pi", started_at=stamps[0])
    session.messages = [Message("user", [TextPart(f"m{n}")], timestamp=ms)
                        for n, ms in enumerate(stamps)]
    sts_lines = lines(write_checked(session, "sts"))
    assert [line["message"]["timestamp"] for line in sts_lines[1:]] == stamps
    pi_lines = lines(write_checked(session, "pi"))
    assert [line["timestamp"] for line in pi_lines[1:]] == [iso_from_ms(ms) for ms in stamps]
    assert [line["message"]["timestamp"] for line in pi_lines[1:]] == stamps
    assert all(len(line["timestamp"]) == 24 for line in pi_lines)  # four year digits, ms, Z


@pytest.mark.parametrize("value", ["1970-01-15T00:00:00Z", 1_209_600, 1_209_600.0, "1209600"])
def test_a_time_no_output_can_hold_is_no_time(value):
    """The ms of 1970-01-11..02-17 (1209600 s is 1970-01-15) read as seconds of 2000-2100:
    `sts validate` rejects them in STS and in Pi messages, so readers take them for no time."""
    assert to_ms(value) is None
    assert epoch_ms(1_209_600_000) is None and epoch_ms(SECONDS_2000 - 1) == SECONDS_2000 - 1


def test_an_undated_input_whose_mtime_no_output_can_hold_gets_the_conversion_time(tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes((CASES / "openai" / "chat-without-times.jsonl").read_bytes())
    os.utime(chat, ns=(1_209_600 * 10**9,) * 2)  # 1970-01-15: as ms it reads as seconds
    before = time.time_ns() // 1_000_000
    done = run_sts("convert", chat, "--to", "pi", "-o", f"{tmp_path}/out/")
    assert done.returncode == 0, done.stderr
    for output in (tmp_path / "out").rglob("*.jsonl"):
        data = output.read_bytes()
        assert_valid(data, "pi")
        header = lines(data)[0]
        assert header[HEADER_FIELD] == CONVERSION_TIME
        assert to_ms(header["timestamp"]) >= before - 1000  # (ISO has whole ms)


def test_cursor_cli_chat_time(tmp_path):
    """A Cursor Agent CLI transcript has no times; its chat's meta.json ``updatedAtMs`` does."""
    transcript = tmp_path / "projects" / "app" / "agent-transcripts" / "aaaa-1111.jsonl"
    transcript.parent.mkdir(parents=True)
    shutil.copyfile(CASES / "cursor-cli" / "cli_2026_turns.jsonl", transcript)
    chat = tmp_path / "chats" / "5f2b" / "aaaa-1111" / "meta.json"
    chat.parent.mkdir(parents=True)
    found = []
    for value in (1772442845112, *BAD):
        chat.write_text(json.dumps({"updatedAtMs": value}))
        (session,), problems = read_sessions(transcript, "cursor-cli")
        found.append((session.metadata.get("updatedAt"), [p.code for p in problems]))
        write_checked(session, "sts")
        write_checked(session, "pi")
    assert found == [(1772442845112, [])] + [(None, ["bad-timestamp"])] * len(BAD)


@pytest.mark.parametrize("ms", [1_209_600_000, 253_402_300_800_000, -62_135_596_800_001])
def test_a_modified_time_no_output_can_hold_is_replaced_by_the_conversion_time(ms):
    """What a file's or a store object's modification time goes through (`sts.undated`)."""
    assert modified_time(ms).origin == CONVERSION_TIME
    assert modified_time(1772442845112) == FallbackTime(1772442845112, INPUT_MTIME)


@pytest.mark.parametrize("bad", [10**17, -(10**17), 2_000_000_000, float("nan")])
def test_a_hand_built_session_with_no_time_is_written_validly_and_says_so(bad):
    # no reader returns such a time, but a session built by hand or by a plug-in can hold one
    session = Session("s", [Message("user", [TextPart("hi")], timestamp=bad),
                            Message("assistant", [TextPart("yo")], timestamp=1_751_385_600_000)],
                      started_at=bad)
    for to in ("sts", "pi"):
        data = write_checked(session, to)
        assert str(bad).encode() not in data
        notes = Problems(sink=None)
        (write_sts if to == "sts" else write_pi)(session, io.BytesIO(), None, problems=notes)
        assert [(p.code, "timestamp that is no time (1)" in p.text) for p in notes.problems] == [
            ("field-dropped", True)]
    sts_lines = [line for line in write_checked(session, "sts").splitlines()[1:]]
    assert [b'"timestamp"' in line for line in sts_lines] == [False, True]


def test_validate_rejects_a_message_time_past_the_year_9999():
    data = (b'{"type":"session","harness":"h","id":"s"}\n'
            b'{"type":"message","message":{"role":"user","content":"hi","timestamp":'
            + str(10**17).encode() + b'}}\n')
    assert [(p.code, p.severity) for p in validate_bytes(data, "sts")] == [
        ("bad-timestamp", "error")]
