"""Cursor Agent CLI transcripts: hand-written cases per quirk, snapshots, the corpus, real pi."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sts.converters.base import Peek
from sts.converters.cursor_cli import CursorCliConverter
from sts.converters.registry import detect
from sts.model import ImagePart, MediaPart, Session, TextPart, ThinkingPart
from tests.support import (
    CASES,
    checked_model,
    corpus,
    detected,
    line_codes,
    pi_agrees,
    read_sessions,
    walk,
)

CASE_DIR = CASES / "cursor-cli"
CASE_FILES = sorted(p.name for p in CASE_DIR.iterdir())
NESTED = "projects/%2Fworkspace%2Fdemo/agent-transcripts/{id}/{id}.jsonl"
CORPUS_FILES = [
    "handmade__hypabolic-conformance__tool-calls/"
    + NESTED.format(id="019f0000-0000-7000-8000-0000000000c2"),
    "handmade__hypabolic-conformance__cleanup/"
    + NESTED.format(id="019f0000-0000-7000-8000-0000000000c3"),
    "handmade__letta-trajectory__swechat-capture-tool-calls.jsonl",
    "handmade__letta-trajectory__swechat-capture-cleanup.jsonl",
    "derived__teich-enriched-transcript.jsonl",
]


def read_case(name: str) -> tuple[Session, list]:
    sessions, problems = read_sessions(CASE_DIR / name, "cursor-cli")
    assert len(sessions) == 1
    return sessions[0], problems


def shape(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


@pytest.mark.parametrize("name", CASE_FILES)
def test_case_snapshot(name, snapshot_model):
    session, _ = read_case(name)
    assert checked_model(session) == snapshot_model


@pytest.mark.parametrize("name", CASE_FILES)
def test_every_case_and_sub_agent_loads_in_the_real_pi(name):
    session, _ = read_case(name)
    for each in walk([session]):
        pi_agrees(each)


@pytest.mark.parametrize("name", CASE_FILES)
def test_every_case_is_detected_also_on_stdin_and_from_a_cut_head(name):
    data = (CASE_DIR / name).read_bytes()
    assert CursorCliConverter().sniff(Peek(data, name, True)) >= 0.9
    assert detect(Peek(data, None, True)).name == "cursor-cli"
    assert CursorCliConverter().sniff(Peek(data[: len(data) // 2], None, False)) >= 0.9


@pytest.mark.parametrize("data", [
    b'{"type": "user", "uuid": "u", "sessionId": "s", "parentUuid": null,'
    b' "message": {"role": "user", "content": "hi"}}\n',
    b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n',
    b'{"type": "message", "id": "a", "parentId": null, "timestamp": "2025-01-01T00:00:00Z",'
    b' "role": "user", "message": {"content": "hi"}}\n',
    b'{"type": "turn_ended", "status": "success"}\n',  # a control line alone is no transcript
])
def test_sniff_rejects_other_formats(data):
    assert CursorCliConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


def test_cli_turns_wrapper_ids_and_turn_errors():
    session, problems = read_case("cli_2026_turns.jsonl")
    assert problems == []
    assert shape(session) == [
        ("user", None), ("system", "injected_context"), ("assistant", None),
        ("assistant", None), ("assistant", None), ("user", None), ("assistant", None),
        ("user", None), ("system", "api_error"),
    ]
    prompt, context = session.messages[:2]
    assert prompt.text == "Add a --verbose flag to the CLI"  # the <user_query> wrapper removed
    assert context.text.startswith("<context>\n<open_file")
    first = session.messages[2]
    assert first.reasoning == "I need to see the CLI entry point first."
    # no ids in the file: synthesized from the position, the same on every run
    calls = [c for m in session.messages for c in m.tool_calls]
    assert [(c.id, c.name) for c in calls] == [
        ("call_2_0", "read_file"), ("call_2_1", "grep"), ("call_3_2", "edit_file"),
        ("call_6_0", "run_terminal_cmd")]
    again, _ = read_case("cli_2026_turns.jsonl")
    assert [c.id for m in again.messages for c in m.tool_calls] == [c.id for c in calls]
    assert not any(m.role == "tool" for m in session.messages)  # no result is invented
    running = session.messages[6]
    assert (running.stop_reason, running.error_message) == ("error", "Connection lost")
    assert session.messages[8].text == "Model unavailable"  # an error turn with no reply
    assert all(m.timestamp is None and m.model is None for m in session.messages)
    assert session.started_at is None
    assert session.name == "Add a --verbose flag to the CLI"
    assert session.id == "cli_2026_turns"


def test_capture_results_linked_images_and_placeholders():
    session, problems = read_case("capture_results.jsonl")
    assert line_codes(problems) == [(11, "unknown-part")]
    assert shape(session) == [("user", None), ("assistant", None), ("tool", None),
                              ("tool", None), ("assistant", None), ("tool", None),
                              ("assistant", None), ("tool", None), ("user", None),
                              ("assistant", None)]
    msgs = session.messages
    assert (msgs[1].id, msgs[1].model) == ("msg-a1", "claude-4-sonnet")  # the capture's own
    assert [type(p) for p in msgs[1].content] == [ThinkingPart]
    assert [(m.tool_call_id, m.is_error, m.text) for m in msgs[2:4]] == [
        ("toolu_2", False, "expect(1).toBe(2)"), ("toolu_1", True, "1 failing")]
    assert msgs[2].tool_name == "Read"
    # a result without an id answers the waiting call; command_output too
    assert msgs[5].tool_call_id == msgs[4].tool_calls[0].id == "call_4_0"
    assert (msgs[7].tool_call_id, msgs[7].text) == (msgs[6].tool_calls[0].id, "1 passing")
    # the redacted-only assistant lines are left out
    assert [type(p) for p in msgs[8].content] == [TextPart, ImagePart]
    assert msgs[8].content[1].data == "iVBORw0KGgo="
    assert [type(p) for p in msgs[9].content] == [TextPart, MediaPart]
    assert msgs[9].content[1].kind == "diff_preview"


def test_damaged_lines_are_reported_and_skipped():
    session, problems = read_case("damaged.jsonl")
    assert line_codes(problems) == [
        (1, "misplaced-block"), (2, "unknown-role"), (3, "bad-message"), (4, "bad-message"),
        (5, "unknown-type"), (6, "tool-call-without-name")]
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "check it"), ("assistant", "Checked."), ("user", "and this?"),
        ("system", "turn ended with an error")]
    assert session.messages[1].tool_calls[0].name == "unknown"


# -- where the files live -------------------------------------------------------------------


def cursor_home(root: Path) -> Path:
    """A ~/.cursor with one nested, one flat transcript, a chat meta.json and side files."""
    home = root / ".cursor"
    project = home / "projects" / "home-dev-app"
    nested = project / "agent-transcripts" / "aaaa-1111" / "aaaa-1111.jsonl"
    nested.parent.mkdir(parents=True)
    shutil.copyfile(CASE_DIR / "cli_2026_turns.jsonl", nested)
    shutil.copyfile(CASE_DIR / "capture_results.jsonl",
                    project / "agent-transcripts" / "bbbb-2222.jsonl")
    (project / "repo.json").write_text('{"name": "app"}')
    (project / "mcps" / "github" / "tools").mkdir(parents=True)
    (project / "mcps" / "github" / "tools" / "search.json").write_text('{"name": "search"}')
    chat = home / "chats" / "5f2b" / "aaaa-1111"
    chat.mkdir(parents=True)
    (chat / "meta.json").write_text(json.dumps({"title": "Verbose flag", "updatedAtMs": 1772}))
    return home


def test_layouts_meta_json_and_side_files(tmp_path):
    home = cursor_home(tmp_path)
    nested = next(home.rglob("aaaa-1111.jsonl"))
    (session,), _ = read_sessions(nested, "cursor-cli")
    assert session.id == "aaaa-1111"
    assert session.name == "Verbose flag"  # chats/*/<id>/meta.json
    assert session.metadata["updatedAt"] == 1772
    assert session.cwd is None and session.metadata["cursorProject"] == "home-dev-app"
    converter = CursorCliConverter()
    for side in ("chats/5f2b/aaaa-1111/meta.json", "projects/home-dev-app/repo.json",
                 "projects/home-dev-app/mcps/github/tools/search.json"):
        assert converter.is_companion(home / side), side
    assert not converter.is_companion(nested)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(home), "-o", f"{out}/"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 session(s) written from 2 input(s)" in done.stderr
    assert "0 skipped" in done.stderr
    assert sorted(p.name for p in out.rglob("*.jsonl")) == ["aaaa-1111.jsonl", "bbbb-2222.jsonl"]


def test_stdin_gets_a_fixed_id():
    data = (CASE_DIR / "cli_2026_turns.jsonl").read_bytes()
    done = subprocess.run([sys.executable, "-m", "sts", "convert"], input=data,
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    header = json.loads(done.stdout.split(b"\n", 1)[0])
    assert (header["id"], header["harness"]) == ("stdin", "cursor-cli")


def test_a_transcript_only_written_keeps_its_edits_in_the_temporary_file(monkeypatch):
    """Read to be written (`ReadContext.deferred`, as `sts convert` reads), the texts inside a
    call's arguments (a transcript's bulk: the contents of edits; the CLI records no results)
    go to the temporary file like message texts, and the output is the same bytes; a library
    read (`sts.read`) keeps them as strings."""
    import io

    import orjson

    from sts import spill
    from sts.building import ReadContext
    from sts.pipeline import one_behind
    from sts.problems import Problems
    from sts.spill import StoredText
    from tests.support import write_checked

    monkeypatch.setattr(spill, "BUDGET", 0)
    body = "def main():\n    print('\u00e9 \u4e2d\u6587 \U0001f642 \u2028 \\ \"q\"')\n" * 40
    edit = {"path": "src/app.py", "contents": body, "hunks": [{"new": body + "x"}]}
    lines = [{"role": "user", "message": {"content": "<user_query>edit it</user_query>"}},
             {"role": "assistant", "message": {"content": [
                 {"type": "tool_use", "name": "edit_file", "input": edit}]}},
             {"type": "turn_ended", "status": "success"}]
    data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    problems = Problems("<case>", sink=None)
    context = ReadContext(problems, None, deferred=True)
    [(written, _)] = one_behind(CursorCliConverter().read(io.BytesIO(data), context), problems)
    [call] = written.messages[1].tool_calls
    contents, hunk = call.arguments["contents"], call.arguments["hunks"][0]["new"]
    assert type(contents) is StoredText and contents.load() == body
    assert type(hunk) is StoredText and hunk.load() == body + "x"
    assert call.arguments["path"] == "src/app.py"  # short texts stay in memory
    [read], _ = read_sessions(data, "cursor-cli")
    assert read.messages[1].tool_calls[0].arguments == edit
    read.fallback_time = written.fallback_time  # no time in the format: the driver's
    for to in ("sts", "pi"):
        assert write_checked(written, to) == write_checked(read, to)


# -- the corpus -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_converts_validly_and_pi_agrees(name):
    path = corpus("cursor", name)
    assert detected(path) == "cursor-cli"
    sessions, _ = read_sessions(path, "cursor-cli")
    assert len(sessions) == 1
    pi_agrees(sessions[0])


def test_corpus_hypabolic_cleanup_facts():
    (session,), problems = read_sessions(corpus("cursor", CORPUS_FILES[1]), "cursor-cli")
    assert line_codes(problems) == [
        (1, "malformed-json"), (2, "not-an-object"), (3, "unknown-type"), (4, "unknown-role"),
        (5, "unknown-part"), (5, "misplaced-block"), (6, "tool-call-without-name")]
    assert session.id == "019f0000-0000-7000-8000-0000000000c3"
    assert session.cwd == "/workspace/demo"  # the %2F-encoded project folder
    user, reply = session.messages
    assert [type(p) for p in user.content] == [TextPart, ImagePart, MediaPart]
    assert user.content[1].url == "/Users/real-user/image.png"
    assert reply.text == "Done." and reply.stop_reason == "error"


def test_corpus_hypabolic_tool_calls_and_teich_facts():
    (calls,), problems = read_sessions(corpus("cursor", CORPUS_FILES[0]), "cursor-cli")
    assert problems == []
    assert [(c.id, c.name) for c in calls.messages[1].tool_calls] == [
        ("call_1_0", "read_file"), ("call_1_1", "list_files")]
    assert calls.messages[-1].text == "I found the project files."
    (teich,), problems = read_sessions(corpus("cursor", CORPUS_FILES[4]), "cursor-cli")
    assert problems == []
    assert teich.id == "example-cursor-session"  # teich's header names it
    assert teich.metadata["tools"][0]["function"]["name"] == "Shell"
    assert [(m.role, m.tool_call_id) for m in teich.messages] == [
        ("user", None), ("assistant", None), ("tool", "call-shell"), ("assistant", None)]
    assert all(m.model is None for m in teich.messages)  # teich's meta model is not Cursor's
