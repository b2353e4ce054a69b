"""Pi output complete by Pi's own types (issue 13): a header ``cwd`` and ISO ``timestamp``, an
ISO time on every entry and a numeric one on every message, whatever the source recorded.

Times come from the source, carried forward; a session with no time at all gets ONE fallback,
the input file's modification time (the time of conversion for stdin, streams and bytes),
named in the header's ``timestampFallback`` so that nobody takes it for a recorded time, and
read back as no time (the same fallback carried on)."""

from __future__ import annotations

import io
import os
import time
from datetime import datetime
from pathlib import Path

import pytest

import sts
from sts.model import (
    CONVERSION_TIME,
    INPUT_MTIME,
    SUBAGENT_MTIME,
    FallbackTime,
    Message,
    Session,
    TextPart,
)
from sts.timestamps import iso_from_ms
from sts.undated import HEADER_FIELD
from tests.support import (
    CASES,
    SAMPLES,
    assert_valid,
    corpus,
    lines,
    pi_view,
    sts_messages,
    write_checked,
)
from tests.test_cli import sts as run_sts

CHAT = CASES / "openai" / "chat-without-times.jsonl"
SOME_TIMES = CASES / "sts" / "some-times.jsonl"
CONTINUED = CASES / "pi" / "continued-after-fallback.jsonl"
FALLBACK_MS = 1772442845112  # the continued case's header time (2026-03-02T09:14:05.112Z)


def mtime_ms(path: Path) -> int:
    return os.stat(path).st_mtime_ns // 1_000_000


def times(data: bytes) -> tuple[list[str], list[int]]:
    """Every entry's ISO time and every message's numeric time of a Pi file (asserting each
    entry and message has one)."""
    entries = lines(data)[1:]
    assert all("timestamp" in entry for entry in entries)
    bodies = [entry["message"] for entry in entries if entry["type"] == "message"]
    assert all("timestamp" in body for body in bodies)
    return [entry["timestamp"] for entry in entries], [body["timestamp"] for body in bodies]


def pi_outputs(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in sorted(folder.rglob("*.jsonl"))]


def test_a_chat_without_times_gets_its_files_mtime_everywhere_and_says_so(tmp_path: Path) -> None:
    done = run_sts("convert", CHAT, "--to", "pi", "-o", f"{tmp_path}/")
    assert done.returncode == 0, done.stderr
    outputs = pi_outputs(tmp_path)
    assert len(outputs) == 2
    when = mtime_ms(CHAT)
    for data in outputs:
        assert_valid(data, "pi")
        header = lines(data)[0]
        assert header["cwd"] == ""
        assert header["timestamp"] == iso_from_ms(when)
        assert header[HEADER_FIELD] == INPUT_MTIME
        entry_times, message_times = times(data)
        assert set(entry_times) == {iso_from_ms(when)}
        assert set(message_times) == {when}
    for view in pi_view(*outputs):  # the real pi loads them and keeps the header as written
        assert view["header"][HEADER_FIELD] == INPUT_MTIME
        assert view["header"]["cwd"] == ""
        assert datetime.fromisoformat(view["header"]["timestamp"]).tzinfo is not None
        assert all(type(e["timestamp"]) is str for e in view["branch"])


def test_stdin_gets_the_conversion_time_and_says_so() -> None:
    first = CHAT.read_bytes().split(b"\n")[1] + b"\n"
    before = time.time_ns() // 1_000_000
    done = run_sts("convert", "--to", "pi", stdin=first)
    after = time.time_ns() // 1_000_000
    assert done.returncode == 0, done.stderr
    assert_valid(done.stdout, "pi")
    header = lines(done.stdout)[0]
    assert header[HEADER_FIELD] == CONVERSION_TIME
    stamp = datetime.fromisoformat(header["timestamp"]).timestamp() * 1000
    assert before <= stamp <= after
    entry_times, message_times = times(done.stdout)
    assert set(entry_times) == {header["timestamp"]} and len(set(message_times)) == 1


def test_some_recorded_times_are_carried_forward_never_back_and_nothing_is_marked() -> None:
    (session,) = sts.read(SOME_TIMES)
    assert session.fallback_time is None
    data = write_checked(session, "pi")
    header = lines(data)[0]
    assert HEADER_FIELD not in header and header["cwd"] == ""
    first, second = 1772442871318, 1772442875000
    assert header["timestamp"] == iso_from_ms(first)  # the first recorded time starts it
    entry_times, message_times = times(data)
    assert message_times == [first, first, first, second, second]
    assert entry_times == [iso_from_ms(t) for t in message_times]
    assert message_times == sorted(message_times)


def test_a_files_fallback_is_read_back_as_no_time_and_carried_on(tmp_path: Path) -> None:
    done = run_sts("convert", CHAT, "--to", "pi", "-o", f"{tmp_path}/")
    assert done.returncode == 0, done.stderr
    for data in pi_outputs(tmp_path):
        (session,) = sts.read(data, "pi")  # bytes: no file time of their own
        assert session.fallback_time == FallbackTime(mtime_ms(CHAT), INPUT_MTIME)
        assert session.started_at is None
        assert all(m.timestamp is None for m in session.messages)
        assert all("timestamp" not in m for m in sts_messages(write_checked(session, "sts")))
        assert write_checked(session, "pi") == data


def test_a_marked_file_continued_in_pi_keeps_its_recorded_times() -> None:
    (session,) = sts.read(CONTINUED)
    assert session.fallback_time == FallbackTime(FALLBACK_MS, INPUT_MTIME)
    assert [m.timestamp for m in session.messages] == [None, None, 1772704800000, 1772704801000]
    assert [m.get("timestamp") for m in sts_messages(write_checked(session, "sts"))] == [
        None, None, 1772704800000, 1772704801000]
    data = write_checked(session, "pi")
    header = lines(data)[0]
    assert header["timestamp"] == iso_from_ms(FALLBACK_MS) and header[HEADER_FIELD] == INPUT_MTIME
    assert times(data)[1] == [FALLBACK_MS, FALLBACK_MS, 1772704800000, 1772704801000]
    pi_view(data)


def test_the_library_gets_the_file_time_from_paths_and_now_from_bytes(tmp_path: Path) -> None:
    sessions = list(sts.read(CHAT))
    assert {s.fallback_time for s in sessions} == {FallbackTime(mtime_ms(CHAT), INPUT_MTIME)}
    before = time.time_ns() // 1_000_000
    (session,) = sts.read(CHAT.read_bytes().split(b"\n")[1], "openai")
    fallback = session.fallback_time
    assert fallback is not None and fallback.origin == CONVERSION_TIME
    assert before <= fallback.ms <= time.time_ns() // 1_000_000
    written = sts.convert(CHAT, tmp_path / "out", to="pi")
    assert {lines(p.read_bytes())[0]["timestamp"] for p in written} == {
        iso_from_ms(mtime_ms(CHAT))}


def test_a_session_built_by_hand_is_written_with_the_time_of_writing() -> None:
    session = Session("by-hand", [Message("user", [TextPart("hi")])], cwd="/work")
    out = io.BytesIO()
    before = time.time_ns() // 1_000_000
    sts.write(session, out, "pi")
    header = lines(out.getvalue())[0]
    assert_valid(out.getvalue(), "pi")
    assert header["cwd"] == "/work" and header[HEADER_FIELD] == CONVERSION_TIME
    assert before <= datetime.fromisoformat(header["timestamp"]).timestamp() * 1000


def test_an_input_in_a_store_gets_the_stores_modified_time() -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/undated/in/chat.jsonl", CHAT.read_bytes())
    modified = int(fs.modified("/undated/in/chat.jsonl").timestamp() * 1000)
    try:
        results = sts.convert_many(["memory://undated/in/chat.jsonl"], "memory://undated/out/",
                                   to="pi")
        assert [r.status for r in results] == ["ok"]
        outputs = [fs.cat(name) for name in sorted(fs.find("/undated/out"))]
    finally:
        fs.rm("/undated", recursive=True)
    assert len(outputs) == 2
    for data in outputs:
        header = lines(data)[0]
        assert header[HEADER_FIELD] == INPUT_MTIME
        assert header["timestamp"] == iso_from_ms(modified)


@pytest.mark.parametrize("name", ["v3-real-pi0.74-fixture-provider-two-compactions.jsonl",
                                  "v3-branching-compaction-unknown-entry-fixture.jsonl",
                                  "sample"])
def test_pi_files_pi_wrote_have_every_time_and_cwd(name: str) -> None:
    """What sts validate now requires is what pi itself writes: its files pass unchanged."""
    path = SAMPLES / "pi-v3-session.jsonl" if name == "sample" else corpus("pi", name)
    assert_valid(path.read_bytes(), "pi")


# A sub-agent read from a file of its own: (case folder, the main input, the sub-agent's own file
# (its fallback's), the sub-agent's files whose times are removed)
CHILD_DIR = "sessions/2b8c70fb72d8a087e5dee109778f74cf/3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
GEMINI_CHATS = "tmp/demo-project/chats"
OWN_FILES = {
    "claude-code": ("claude-code/layout-2.1",
                    "project/22222222-3333-4444-8555-666666666666.jsonl",
                    "project/22222222-3333-4444-8555-666666666666/subagents/agent-abc1234.jsonl",
                    ()),
    "gemini-cli": ("gemini-cli/gemini-home",
                   f"{GEMINI_CHATS}/session-2026-11-30T15-00-a1b2c3d4.jsonl",
                   f"{GEMINI_CHATS}/a1b2c3d4-1111-4222-8333-444455556666/"
                   "e5f6a7b8-2222-4333-8444-555566667777.jsonl", ()),
    "kimi-cli": ("kimi-cli/kimi-home", f"{CHILD_DIR}/context.jsonl",
                 f"{CHILD_DIR}/subagents/agent-7c1e/context.jsonl",
                 (f"{CHILD_DIR}/subagents/agent-7c1e/wire.jsonl",)),
}
TIME_KEYS = frozenset(("timestamp", "startTime", "lastUpdated"))


def without_times(value: object) -> object:
    if type(value) is dict:
        return {k: without_times(v) for k, v in value.items() if k not in TIME_KEYS}
    if type(value) is list:
        return [without_times(v) for v in value]
    return value


@pytest.mark.parametrize("fmt", sorted(OWN_FILES))
def test_a_sub_agent_without_times_gets_its_own_files_mtime(tmp_path: Path, fmt: str) -> None:
    import json
    import shutil

    case, main, own, others = OWN_FILES[fmt]
    folder = shutil.copytree(CASES / case, tmp_path / "in")
    for name in (own, *others):
        path = folder / name
        path.write_text("".join(json.dumps(without_times(record)) + "\n"
                                for record in lines(path.read_bytes())))
    main_ms, own_ms = 1_780_000_000_000, 1_790_000_000_123  # 2026-05-28, 2026-09-21
    os.utime(folder / main, ns=(main_ms * 1_000_000, main_ms * 1_000_000))
    os.utime(folder / own, ns=(own_ms * 1_000_000, own_ms * 1_000_000))
    done = run_sts("convert", folder / main, "--to", "pi", "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 0, done.stderr
    outputs = pi_outputs(tmp_path / "out")
    headers = [lines(data)[0] for data in outputs]
    children = [h for h in headers if h.get("parentSessionId")]
    assert len(children) == 1 and len(headers) == 2
    (child,) = children
    assert (child["timestamp"], child[HEADER_FIELD]) == (iso_from_ms(own_ms), SUBAGENT_MTIME)
    (parent,) = [h for h in headers if h is not child]
    assert HEADER_FIELD not in parent  # its times were recorded
    for data in outputs:
        assert_valid(data, "pi")
    views = pi_view(*outputs)  # the real pi loads them and keeps the header as written
    assert [v["header"].get(HEADER_FIELD) for v in views].count(SUBAGENT_MTIME) == 1
