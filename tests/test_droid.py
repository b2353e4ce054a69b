"""Factory Droid: session-store files with their settings sidecar, and stream-json output."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sts.converters.base import Peek
from sts.converters.droid import DroidConverter
from sts.model import ImagePart, Session, ThinkingPart
from tests.support import (
    CASES,
    checked_model,
    corpus,
    detected,
    line_codes,
    read_sessions,
    sts_messages,
    write_checked,
)
from tests.test_pi_writer import check_pi_loads

DROID = CASES / "factory-droid"
STORE = DROID / "sessions" / "-home-dev-shop" / "2b6c4e8a-1f3d-4a5b-9c7e-0d1f2a3b4c5d.jsonl"
OLDER = DROID / "sessions" / "7f0e9d8c-0000-4000-8000-000000000001.jsonl"
STREAM = DROID / "exec" / "stream-json.jsonl"
CASE_FILES = [STORE, OLDER, STREAM]
CORPUS_FILES = (
    "droid_session_store_fixture_multiturn_tool.jsonl",
    "droid_session_store_fixture_system_reminder_version_int.jsonl",
    "handmade__letta-trajectory__happy-path.jsonl",
    "real__teich__example_droid_session.jsonl",
    "droid_exec_stream_json_fixture_camelcase_epochms.jsonl",
)
SIDECAR = "handmade__8534a502-106a-4227-a227-55fac3265fcd.settings.json"


def read_one(path: Path | bytes, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(path, "factory-droid", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def shape(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


# -- snapshots, validity, the real pi ----------------------------------------------------------


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.parent.name)
def test_case_snapshot(path, snapshot_model):
    session, _ = read_one(path)
    assert checked_model(session) == snapshot_model


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.parent.name)
def test_pi_outputs_load_in_the_real_pi(path):
    check_pi_loads(read_one(path)[0])


# -- detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.parent.name)
def test_detected_from_content(path):
    assert detected(path) == "factory-droid"
    data = path.read_bytes()
    cut = data.index(b"\n") + 30  # a head cut in the second line, from stdin
    assert DroidConverter().sniff(Peek(data[:cut], None, False)) >= 0.85


@pytest.mark.parametrize(
    "data",
    [b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n',
     b'{"type":"message","message":{"role":"user","content":"hi"}}\n',
     b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","sessionId":"s"}\n',
     b'[{"role":"user","content":"hi"}]'],
)
def test_sniff_leaves_other_formats_alone(data):
    assert DroidConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


def test_the_settings_sidecar_is_a_companion():
    converter = DroidConverter()
    assert converter.is_companion(STORE.with_name(STORE.stem + ".settings.json"))
    assert not converter.is_companion(STORE)
    assert not converter.is_companion(OLDER.with_name("no-such-session.settings.json"))


# -- the session store -------------------------------------------------------------------------


def test_store_session_header_sidecar_and_messages():
    session, problems = read_one(STORE)
    assert problems == []
    assert (session.id, session.harness, session.name) == (
        "2b6c4e8a-1f3d-4a5b-9c7e-0d1f2a3b4c5d", "factory-droid", "Fix Cart Total Rounding")
    assert (session.cwd, session.source_version, session.started_at) == (
        "/home/dev/shop", "2", 1781949600000)
    assert session.metadata["reasoningEffort"] == "medium"
    assert session.metadata["tokenUsage"]["cacheReadTokens"] == 8800
    assert session.metadata["todos"] == "1. [in_progress] Fix rounding in Cart.total"
    assert shape(session) == [
        ("system", "injected_context"), ("system", "injected_context"), ("user", None),
        ("assistant", None), ("tool", None), ("assistant", None), ("assistant", None),
        ("tool", None), ("tool", None), ("assistant", None), ("tool", None),
        ("system", "injected_context"), ("user", None), ("system", "compaction"),
        ("assistant", None),
    ]
    messages = session.messages
    assert messages[0].id == "context-aaaa" and len(messages[0].content) == 2
    assert messages[1].text == "<system-reminder>\nBe concise.\n</system-reminder>"
    prompt = messages[2]
    assert prompt.text == "fix the cart total, it rounds wrong" and prompt.id == "u1"
    assert type(prompt.content[-1]) is ImagePart
    first = messages[3]
    assert first.content[0] == ThinkingPart("Find where totals are computed.", "EqQBCkYIBxgCKkB")
    assert (first.model, first.provider) == ("claude-sonnet-4-5-20250929", "anthropic")
    assert [(m.tool_call_id, m.is_error) for m in messages if m.role == "tool"] == [
        ("toolu_grep", False), ("toolu_read", False), ("toolu_exec", True), ("toolu_edit", True)]
    # a placeholder signature from another provider is not kept; the reasoning field is not
    # added twice
    edit = messages[9]
    assert edit.content == [ThinkingPart("round(x, 1) drops cents.")]
    assert edit.extras["openai_message_id"] == "chatcmpl-77"
    assert messages[11].text == "Request interrupted by user"
    final = messages[-1]
    assert final.reasoning == "Decimal keeps cents exact."
    assert final.text == "Switched Cart.total to Decimal; all 12 tests pass."


def test_older_store_file_without_sidecar_or_times():
    session, problems = read_one(OLDER)
    assert problems == []
    assert session.source_version == "0.81.0" and session.name == "list files"
    assert all(m.timestamp is None and m.model is None for m in session.messages)
    assert session.started_at is None
    assert session.messages[-1].text == "Two files: a.txt and b.txt."


def test_stdin_reads_without_the_sidecar():
    session, _ = read_one(STORE.read_bytes())
    assert session.id == "2b6c4e8a-1f3d-4a5b-9c7e-0d1f2a3b4c5d"
    assert all(m.model is None for m in session.messages)


def test_damaged_sidecar_is_reported_and_no_model_invented(tmp_path):
    copy = tmp_path / STORE.name
    shutil.copyfile(STORE, copy)
    copy.with_name(copy.stem + ".settings.json").write_bytes(b'{"model": "x"')
    session, problems = read_one(copy)
    assert line_codes(problems) == [(None, "bad-companion")]
    assert all(m.model is None for m in session.messages)


def test_sidecar_named_after_the_session_id_and_nested_settings(tmp_path):
    copy = tmp_path / "renamed.jsonl"
    shutil.copyfile(STORE, copy)
    (tmp_path / "2b6c4e8a-1f3d-4a5b-9c7e-0d1f2a3b4c5d.settings.json").write_bytes(
        b'{"sessionDefaultSettings": {"model": "glm-5", "reasoningEffort": "high"}}')
    session, _ = read_one(copy)
    assert {m.model for m in session.messages if m.role == "assistant"} == {"glm-5"}
    assert session.metadata["reasoningEffort"] == "high"


def test_unknown_lines_and_roles_are_reported():
    data = (b'{"type":"session_start","id":"s","version":2,"cwd":"/"}\n'
            b'{"type":"mystery"}\n'
            b'{"type":"message","message":{"role":"robot","content":[]}}\n'
            b'{"type":"message","message":"x"}\n'
            b'{"type":"compaction_state","id":"c"}\n'
            b'{"type":"session_start","id":"t"}\n'
            b'{"type":"message","message":{"role":"user","content":"hi"}}\n')
    session, problems = read_one(data)
    assert session.id == "s" and session.messages[0].text == "hi"
    assert line_codes(problems) == [(2, "unknown-type"), (3, "unknown-role"),
                                    (4, "bad-message"), (5, "bad-compaction"), (6, "second-header")]


# -- droid exec stream-json --------------------------------------------------------------------


def test_stream_json_run():
    session, problems = read_one(STREAM)
    assert problems == []
    assert (session.id, session.cwd, session.source_version) == (
        "sess-exec-1", "/home/dev/shop", "stream-json")
    assert session.metadata["tools"] == ["Read", "Execute"]
    assert shape(session) == [("user", None), ("assistant", None), ("tool", None),
                              ("tool", None), ("assistant", None)]
    _, reply, first, second, final = session.messages
    assert [c.id for c in reply.tool_calls] == ["call_a", "call_b"]
    assert reply.model == "gpt-5-codex"
    assert (first.tool_call_id, first.tool_name, first.is_error) == ("call_a", "Execute", False)
    assert (second.text, second.is_error) == ('{"error":"ENOENT"}', True)
    assert final.text == "There are 12 tests." and final.timestamp == 1782028806000
    assert (final.usage.input, final.usage.output, final.usage.cache_read) == (900, 40, 300)


# -- the corpus --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_files_convert_to_both_targets(name):
    path = corpus("droid", name)
    assert detected(path) == "factory-droid"
    session, problems = read_one(path)
    assert [p for p in problems if p.severity == "error"] == []
    messages = sts_messages(write_checked(session, "sts"))
    calls = {c["id"] for m in messages for c in m.get("toolCalls", [])}
    answered = [m["toolCallId"] for m in messages if m["role"] == "tool"]
    assert set(answered) - calls <= {"TodoWrite_1"}  # the real file's call was never written
    check_pi_loads(session)


def test_corpus_real_session_facts(tmp_path):
    copy = tmp_path / "8534a502-106a-4227-a227-55fac3265fcd.jsonl"
    shutil.copyfile(corpus("droid", "real__teich__example_droid_session.jsonl"), copy)
    shutil.copyfile(corpus("droid", SIDECAR), tmp_path / (copy.stem + ".settings.json"))
    session, problems = read_one(copy)
    assert line_codes(problems) == [(10, "orphan-result")]
    assert session.name == "Question About Assistant Current Location"
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert {m.model for m in assistants} == {"claude-opus-4-5-20251101"}
    assert sum(len(m.tool_calls) for m in assistants) == 22
    assert session.messages[1].text == "where are you"
    assert session.messages[0].kind == "injected_context"
    assert all(p.signature is None for m in assistants for p in m.content
               if type(p) is ThinkingPart)  # "reasoning_content" placeholders
    assert [a.text for a in assistants if a.text][-1].startswith("Done. Uploaded just")
    assert assistants[-1].tool_calls and session.messages[-1] is assistants[-1]  # cut there


def test_walk_converts_each_session_once(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(DROID), "-o", f"{out}/"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert written == sorted(p.relative_to(DROID).as_posix() for p in CASE_FILES)
