"""Cursor IDE: composers and bubbles of ``state.vscdb``, read-only."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sts.converters.base import Peek
from sts.converters.cursor_ide import CursorIdeConverter
from sts.converters.registry import detect
from sts.model import ImagePart, Session, ThinkingPart
from sts.pipeline import store_converter
from tests.support import CASES, checked_model, corpus, pi_agrees, read_sessions, walk

CASE_SQL = CASES / "cursor" / "state.sql"
USER = "built__cursor-ide-User"


def build_case(user: Path) -> Path:
    """A Cursor ``User`` folder with the hand-written database and one workspace."""
    database = user / "globalStorage" / "state.vscdb"
    database.parent.mkdir(parents=True)
    connection = sqlite3.connect(database)
    connection.executescript(CASE_SQL.read_text())
    connection.commit()
    connection.close()
    workspace = user / "workspaceStorage" / "ws1"
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text('{"folder": "file:///home/dev/my%20app"}')
    return database


def read(path: Path, **options) -> tuple[list[Session], list]:
    return read_sessions(path, "cursor", **options)


def test_corpus_user_folder_both_targets_and_pi():
    sessions, problems = read(corpus("cursor", USER))
    assert problems == []
    assert [s.id for s in sessions] == ["0a0b0c0d-1111-4222-8333-444455556666",
                                        "5b1e2c3d-4f50-4a6b-8c7d-9e0f1a2b3c4d"]
    checked_model(sessions)
    for session in walk(sessions):
        assert session.harness == "cursor"
        pi_agrees(session)
    agent = sessions[1]
    assert agent.name == "Fix failing math test" and agent.cwd == "/home/user/demo-project"
    assert agent.messages[0].text == "Fix the failing test in src/math.ts"
    calls = [c for m in agent.messages for c in m.tool_calls]
    results = {m.tool_call_id: m for m in agent.messages if m.role == "tool"}
    assert [c.name for c in calls] == ["read_file", "run_terminal_cmd"]
    assert set(results) == {c.id for c in calls}
    assert results["toolu_01CursorTermBBBB"].is_error is True  # rejected by the user
    assert results["toolu_01CursorReadAAAA"].text.startswith("import { add }")
    assert type(agent.messages[1].content[0]) is ThinkingPart
    assert agent.messages[1].content[0].signature == "<redacted-signature>"
    assert agent.messages[-1].text.startswith("Fixed `add`")
    assert agent.messages[-1].usage.input == 5120
    legacy = sessions[0]
    assert [(m.role, m.text) for m in legacy.messages] == [
        ("user", "What does main.c do?"), ("assistant", "It prints hello.")]


def test_corpus_is_detected_by_content():
    user = corpus("cursor", USER)
    assert store_converter(user).name == "cursor"
    database = user / "globalStorage" / "state.vscdb"
    assert detect(Peek(database.read_bytes()[: 256 * 1024], None, False)).name == "cursor"
    workspace_db = next((user / "workspaceStorage").glob("*/state.vscdb"))
    assert CursorIdeConverter().sniff(Peek(workspace_db.read_bytes(), "state.vscdb", True)) == 0


def test_case_snapshot(tmp_path, snapshot_model):
    sessions, _ = read(build_case(tmp_path / "User"))
    assert checked_model(sessions) == snapshot_model


def test_case_facts(tmp_path):
    database = build_case(tmp_path / "User")
    sessions, problems = read(tmp_path / "User")
    assert problems == []
    assert [s.id for s in sessions] == ["c-agent", "c-legacy"]  # the draft left out
    agent = sessions[0]
    assert agent.cwd == "/home/dev/my app"  # from workspace.json (the composer has no path)
    prompt = agent.messages[0]
    assert [type(p) for p in prompt.content][1:] == [ImagePart]
    thought = agent.messages[1]
    assert thought.content[0] == ThinkingPart("Look at the Makefile first.")
    assert thought.timestamp == 1785123526001  # ISO createdAt
    calls = {c.id: c for m in agent.messages for c in m.tool_calls}
    assert calls["call_1"].arguments == {"target_file": "Makefile"}  # double-encoded rawArgs
    assert calls["call_2"].arguments == {"query": "make tidy"}  # params when no rawArgs
    results = {m.tool_call_id: m for m in agent.messages if m.role == "tool"}
    assert results["call_1"].text == "all:\n\tcc main.c\n"
    assert results["call_2"].text == '["a","b"]'
    assert results["call_3"].is_error is True  # cancelled
    assert "call_4" not in results and calls["call_4"].extras["status"] == "loading"
    assert agent.messages[-1].text == "The Makefile is tidy now."
    assert "not in the headers" not in str(checked_model(sessions))
    # the database alone: the workspace folder found beside it
    alone, _ = read(database)
    assert alone[0].cwd == "/home/dev/my app"


def test_token_table_never_read_and_nothing_changed(tmp_path):
    database = build_case(tmp_path / "User")
    before = {p: (hashlib.sha256(p.read_bytes()).digest(), p.stat().st_mtime_ns)
              for p in database.parent.iterdir()}
    sessions, _ = read(tmp_path / "User")
    assert b"SECRET" not in checked_model(sessions)
    after = {p: (hashlib.sha256(p.read_bytes()).digest(), p.stat().st_mtime_ns)
             for p in database.parent.iterdir()}
    assert after == before


def test_cli_session_flag_stdin_and_walk(tmp_path):
    database = build_case(tmp_path / "Cursor" / "User")
    (tmp_path / "Cursor" / "User" / "settings.json").write_text("{}")
    shutil.copyfile(database, database.with_name("state.vscdb.backup"))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(tmp_path / "Cursor"),
                           "--session", "c-legacy", "-o", f"{out}/"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.rglob("*.jsonl")) == ["User.jsonl"]
    done = subprocess.run([sys.executable, "-m", "sts", "convert", "-"],
                          input=database.read_bytes(), capture_output=True)
    assert done.returncode == 1 and b"[needs-path]" in done.stderr


@pytest.mark.parametrize("options", [{"sessions": ("nope",)}])
def test_unknown_session_is_reported(tmp_path, options):
    database = build_case(tmp_path / "User")
    sessions, problems = read(database, **options)
    assert sessions == [] and [p.code for p in problems] == ["unknown-session"]


def test_damaged_rows_are_reported_and_the_rest_read(tmp_path):
    database = build_case(tmp_path / "User")
    connection = sqlite3.connect(database)
    connection.executescript(
        "UPDATE cursorDiskKV SET value = '{\"bubbleId\": \"k2\", '"
        " WHERE key = 'bubbleId:c-agent:k2';"
        "INSERT INTO cursorDiskKV VALUES ('composerData:c-broken', 'not json');"
        "INSERT INTO cursorDiskKV VALUES ('bubbleId:c-agent:u9', '{\"type\": 7, \"text\": \"?\"}');"
        "UPDATE cursorDiskKV SET value = replace(value, '{\"bubbleId\":\"gone\",\"type\":2}',"
        " '{\"bubbleId\":\"u9\",\"type\":7}') WHERE key = 'composerData:c-agent';")
    connection.commit()
    connection.close()
    sessions, problems = read(database)
    assert [s.id for s in sessions] == ["c-agent", "c-legacy"]
    assert sorted((p.code, p.text) for p in problems) == [
        ("bad-message", "bubble k2: not a JSON object"),
        ("bad-message", "composerData:c-broken: not a JSON object"),
        ("unknown-role", "bubble u9: bubble type 7 skipped")]
    calls = [c.id for m in sessions[0].messages for c in m.tool_calls]
    assert calls == ["call_1", "call_3", "call_4"]  # k2's call is lost with its row
