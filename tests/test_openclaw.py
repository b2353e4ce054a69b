"""OpenClaw: pi's session format with OpenClaw's entries, told apart from Pi by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from sts.converters.base import Peek
from sts.converters.openclaw import OpenClawConverter
from sts.converters.registry import detect
from sts.model import Session
from tests.support import (
    CASES,
    SAMPLES,
    checked_model,
    corpus,
    detected,
    line_codes,
    read_sessions,
    sts_messages,
    write_checked,
)
from tests.test_pi_writer import check_pi_loads

OPENCLAW = CASES / "openclaw"
AGENT = OPENCLAW / "agents" / "main" / "sessions" / "6d1f0c2e-8a4b-4c3d-9e8f-7a6b5c4d3e2f.jsonl"
V7 = OPENCLAW / "v7-no-openclaw-path.jsonl"
CASE_FILES = [AGENT, V7]
CORPUS_FILES = (
    "real__teich__example_openclaw_session.jsonl",
    "handmade__letta-trajectory__tool-calls.jsonl",
    "handmade__letta-trajectory__cleanup.jsonl",
)


def read_one(path: Path | bytes, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(path, "openclaw", **options)
    assert len(sessions) == 1
    return sessions[0], problems


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem[:8])
def test_case_snapshot(path, snapshot_model):
    session, _ = read_one(path)
    assert checked_model(session) == snapshot_model


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem[:8])
def test_pi_outputs_load_in_the_real_pi(path):
    check_pi_loads(read_one(path)[0])


# -- detection: OpenClaw over Pi, without the Pi sniffer knowing OpenClaw ----------------------


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem[:8])
def test_detected_as_openclaw(path):
    assert detected(path) == "openclaw"


def pi_head(header: str, *entries: str) -> Peek:
    return Peek("\n".join((header, *entries)).encode() + b"\n", None, True)


PI_HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}'


@pytest.mark.parametrize(
    ("peek", "expected"),
    [
        (pi_head(PI_HEADER), "pi"),
        (pi_head(PI_HEADER.replace('"version":3', '"version":7')), "openclaw"),
        (pi_head(PI_HEADER.replace('"/p"', '"/home/a/.openclaw/workspace"')), "openclaw"),
        (pi_head(PI_HEADER.replace('"/p"', '"/home/a/.clawdbot"')), "openclaw"),
        (pi_head(PI_HEADER, '{"type":"custom","customType":"openclaw.cache-ttl","id":"1"}'),
         "openclaw"),
        (pi_head(PI_HEADER, '{"type":"custom","customType":"my-extension","id":"1"}'), "pi"),
        (pi_head(PI_HEADER, '{"type":"message","id":"1","message":{"role":"assistant",'
                            '"content":[],"model":"delivery-mirror"}}'), "openclaw"),
    ],
)
def test_detection_tells_openclaw_from_pi(peek, expected):
    found = detect(peek)
    assert found is not None and found.name == expected


def test_the_agent_session_index_is_passed_over():
    converter = OpenClawConverter()
    assert converter.is_companion(AGENT.with_name("sessions.json"))
    assert not converter.is_companion(AGENT)
    assert not converter.is_companion(OPENCLAW / "sessions.json")


def test_pi_samples_stay_pi():
    for path in sorted(SAMPLES.glob("pi-*.jsonl")):
        assert detected(path) == "pi", path
        assert OpenClawConverter().sniff(Peek(path.read_bytes(), path.name, True)) == 0.0


# -- what OpenClaw adds to Pi ------------------------------------------------------------------


def test_agent_session_active_branch_custom_entries_and_mirror():
    session, problems = read_one(AGENT)
    assert line_codes(problems) == [(None, "other-branches")]
    assert (session.id, session.harness, session.source_format, session.source_version) == (
        "6d1f0c2e-8a4b-4c3d-9e8f-7a6b5c4d3e2f", "openclaw", "openclaw", "3")
    assert session.name == "Calendar" and session.cwd == "/home/ana/.openclaw/workspace"
    texts = [(m.role, m.kind, m.text) for m in session.messages]
    assert texts == [
        ("user", None, "[Telegram Ana id:42 2026-03-02 09:00] what's on my calendar today?"),
        ("assistant", None, ""),
        ("tool", None, "10:00 standup\n14:00 dentist"),
        ("assistant", None, "Two things today: standup at 10:00 and the dentist at 14:00."),
        ("assistant", None, "Reminder: dentist at 14:00."),
        ("system", "compaction", "Ana asked for today's calendar: standup 10:00, dentist 14:00."),
        ("user", None, "move the dentist to friday"),
        ("assistant", None, "Done, the dentist is now on Friday at 14:00."),
    ]
    call, result = session.messages[1], session.messages[2]
    assert call.content[0].signature == "EtsBCkYICxgC" and call.extras["thinking_level"] == "low"
    assert result.tool_call_id == call.tool_calls[0].id == "toolu_cal_1"
    mirror, last = session.messages[4], session.messages[-1]
    assert (mirror.model, mirror.provider, mirror.api) == (None, None, None)
    assert mirror.usage is None and mirror.timestamp == 1772442020000
    assert (last.model, last.provider) == ("claude-opus-4-6", "anthropic")  # mirror changed none
    assert session.messages[5].first_kept_id == "a0000009"


def test_all_branches_writes_the_abandoned_answer():
    sessions, _ = read_sessions(AGENT, "openclaw", all_branches=True)
    assert [s.key for s in sessions] == ["main", "branch-b0000008"]
    assert sessions[1].messages[-1].text == "You have standup at 10."
    assert sessions[1].harness == "openclaw"


def test_version_7_file_with_a_malformed_line():
    session, problems = read_one(V7)
    assert line_codes(problems) == [(3, "malformed-json")]
    assert session.source_version == "7" and session.harness == "openclaw"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.messages[2].is_error is True


def test_a_fragment_without_header_is_reported():
    data = corpus("openclaw", "handmade__hypabolic__append-step-3.jsonl").read_bytes()
    sessions, problems = read_sessions(data, "openclaw")
    assert sessions == []
    assert "no-header" in [p.code for p in problems]


# -- the corpus --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_files_convert_to_both_targets(name):
    path = corpus("openclaw", name)
    assert detected(path) == "openclaw"
    session, problems = read_one(path)
    messages = sts_messages(write_checked(session, "sts"))
    assert messages and messages[0]["role"] == "user"
    assert all(m.get("model") != "delivery-mirror" for m in messages)
    assert [p.code for p in problems if p.severity == "error"] in (
        [], ["malformed-json", "no-entry-id"])
    check_pi_loads(session)


def test_corpus_real_session_facts():
    session, problems = read_one(corpus("openclaw", "real__teich__example_openclaw_session.jsonl"))
    assert problems == []
    assert [m.role for m in session.messages] == ["user", "assistant", "user"]
    reply = session.messages[1]
    assert (reply.model, reply.provider) == ("claude-opus-4-6", "anthropic")
    assert reply.reasoning == "First session, BOOTSTRAP.md exists. Let me follow it."
    assert reply.usage is not None and reply.usage.output == 82
