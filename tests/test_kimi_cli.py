"""Kimi CLI converter: context.jsonl joined with wire.jsonl, companions, sub-agents, the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sts.cli import main
from sts.converters.base import Peek
from sts.converters.kimi_cli import KimiCliConverter
from sts.converters.registry import detect
from sts.model import ImagePart, MediaPart, Session, ThinkingPart
from sts.validation import validate_bytes
from tests.support import (
    CASES,
    checked_model,
    corpus,
    line_codes,
    lines,
    linked_results,
    pi_view,
    read_sessions,
    walk,
    write_checked,
)

KIMI = CASES / "kimi-cli"
HOME = KIMI / "kimi-home"
BUCKET = HOME / "sessions" / "2b8c70fb72d8a087e5dee109778f74cf"
FOLDER = BUCKET / "3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
MAIN = FOLDER / "context.jsonl"
FLAT = BUCKET / "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl"
QUIRKS = KIMI / "quirks_flat.jsonl"
REAL = "real-writer-1.49.0__fake-model"


def read_case(path: Path, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(path, "kimi-cli", **options)
    assert len(sessions) == 1
    return sessions[0], problems


@pytest.mark.parametrize("path", [MAIN, FLAT, QUIRKS], ids=["session", "flat", "quirks"])
def test_case_snapshot(path, snapshot_model):
    session, _ = read_case(path)  # the session folder's case holds a sub-agent child
    assert checked_model(session) == snapshot_model


def test_cases_load_in_the_real_pi():
    sessions = [s for path in (MAIN, FLAT, QUIRKS) for s in walk([read_case(path)[0]])]
    views = pi_view(*(write_checked(session, "pi") for session in sessions))
    for session, view in zip(sessions, views, strict=True):
        assert len(view["branch"]) >= len(session.messages), session.id


# -- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [MAIN, FLAT, QUIRKS, FOLDER / "wire.jsonl"],
                         ids=["context", "flat", "quirks", "wire"])
def test_detected_by_content_also_from_a_cut_head(path):
    data = path.read_bytes()
    assert detect(Peek(data, None, True)).name == "kimi-cli"
    assert KimiCliConverter().sniff(Peek(data[: len(data) // 2], None, False)) >= 0.9


@pytest.mark.parametrize(
    "data",
    [b'{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n',
     b'{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n',
     b'{"sessionId":"s","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}\n'],
)
def test_sniff_rejects_other_formats(data):
    assert KimiCliConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


# -- the session folder -----------------------------------------------------------------------


def test_context_joined_with_the_wire():
    session, problems = read_case(MAIN)
    assert problems == []
    assert session.id == "3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
    assert session.name == "Count and review main.py"  # state.json custom_title
    assert session.cwd == "/home/dev/proj"  # kimi.json, by the md5 naming the folder
    assert session.started_at == 1796100000500
    assert [(m.role, m.kind, m.timestamp) for m in session.messages] == [
        ("system", "system_prompt", None),
        ("user", None, 1796100000500),  # TurnBegin, float seconds → ms
        ("assistant", None, 1796100001750),  # its step's last streamed call
        ("tool", None, 1796100002000),  # its ToolResult
        ("assistant", None, 1796100003200),
        ("tool", None, 1796100009000),
        ("tool", None, 1796100010000),
        ("assistant", None, 1796100011000),
        ("user", None, 1796100060000),  # a prompt given as parts
        ("assistant", None, 1796100061500),
    ]
    assert linked_results(session) == [
        ("Shell:0", "<system>Command executed successfully.</system>\n\n12 main.py\n"),
        ("Agent:1", "agent_id: agent-7c1e\nThe code is fine."),
        ("ReadFile:2", "Permission denied by the user.")]
    tools = [m for m in session.messages if m.role == "tool"]
    assert [m.is_error for m in tools] == [False, False, True]  # the wire's is_error
    replies = [m for m in session.messages if m.role == "assistant"]
    assert [(u.input, u.output, u.cache_read) for u in (m.usage for m in replies)] == [
        (900, 40, 0), (80, 30, 900), (120, 15, 980), (300, 9, 1000)]
    assert [m.extras["response_id"] for m in replies] == [
        "chatcmpl-1", "chatcmpl-2", "chatcmpl-3", "chatcmpl-4"]
    assert all(m.model is None for m in replies)  # no file names the main agent's model
    assert replies[0].reasoning == "Use the shell."
    [hidden] = [p for p in replies[3].content if type(p) is ThinkingPart]
    assert hidden.redacted and hidden.signature == "gAAAAencrypted"
    image = session.messages[8].content[1]
    assert type(image) is ImagePart and image.media_type == "image/png" and image.data
    # _usage is the context's length, never usage: only its last value, in the header
    assert session.metadata["contextTokens"] == 1230
    header = lines(write_checked(session, "sts"))[0]
    assert header["usage"]["input"] == 1400 and header["contextTokens"] == 1230
    assert header["toolErrors"] == ["ReadFile:2"]


def test_a_sub_agent_is_a_linked_child_with_its_model():
    session, _ = read_case(MAIN)
    [child] = session.children
    assert child.id == "agent-7c1e" and child.key == "agent-7c1e"
    assert child.metadata["parentSessionId"] == session.id
    assert child.metadata["parentToolCallId"] == "Agent:1"
    assert child.metadata["agentType"] == "coder"
    assert child.cwd == "/home/dev/proj"
    [reply] = [m for m in child.messages if m.role == "assistant"]
    assert reply.model == "kimi-k2-turbo-preview"  # meta.json's effective_model
    assert reply.timestamp == 1796100008000 and reply.usage.output == 20
    assert session.metadata["subagentLinks"] == [
        {"key": "agent-7c1e", "sessionId": "agent-7c1e", "agentId": "agent-7c1e",
         "toolCallId": "Agent:1"}]
    assert not read_case(MAIN, subagents=False)[0].children


def test_a_flat_legacy_file_has_no_wire_and_no_times():
    session, problems = read_case(FLAT)
    assert problems == []
    assert session.id == "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
    assert session.cwd == "/home/dev/proj"
    assert [m.text for m in session.messages] == [
        "An old flat session.", "Yes, from before the session folders."]
    assert all(m.timestamp is None for m in session.messages)


def test_quirks_are_kept_or_reported():
    session, problems = read_case(QUIRKS)
    assert line_codes(problems) == [(4, "bad-token-count"), (9, "unknown-role"),
                                    (10, "unknown-block"), (10, "bad-tool-calls")]
    assert [(m.role, m.kind) for m in session.messages] == [
        ("system", "injected_context"), ("user", None), ("assistant", None), ("tool", None),
        ("system", "compaction"), ("system", None), ("assistant", None)]
    assert session.messages[1].content[1] == MediaPart("audio", url="https://example.com/a.mp3")
    call = session.messages[2].tool_calls[0]
    assert call.arguments is None and call.raw_arguments == '{"command": "ls"'
    assert session.messages[3].is_error  # the <system>ERROR: prefix, without a wire
    assert "contextTokens" not in session.metadata


def test_a_folder_walk_reads_companions_with_their_session(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(KIMI), "-o", f"{out}/"])
    assert result.exit_code == 1, result.output  # quirks_flat.jsonl has errors on purpose
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.jsonl"))
    session = "kimi-home/sessions/2b8c70fb72d8a087e5dee109778f74cf/"
    assert written == [
        f"{session}3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b/context.agent-7c1e.jsonl",
        f"{session}3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b/context.jsonl",
        f"{session}9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl",
        "quirks_flat.jsonl",
    ]
    for path in out.rglob("*.jsonl"):
        assert [p for p in validate_bytes(path.read_bytes(), "sts") if p.severity == "error"] \
            == []
    # wire.jsonl, state.json, context_1.jsonl, kimi.json and the sub-agent's five files
    assert "9 companion file(s)" in result.output


def test_companions_are_only_claimed_beside_a_context():
    converter = KimiCliConverter()
    for name in ("wire.jsonl", "state.json", "context_1.jsonl",
                 "subagents/agent-7c1e/context.jsonl", "subagents/agent-7c1e/meta.json"):
        assert converter.is_companion(FOLDER / name), name
    assert converter.is_companion(HOME / "kimi.json")
    assert not converter.is_companion(MAIN)
    assert not converter.is_companion(FLAT)
    assert not converter.is_companion(KIMI / "wire.jsonl")


def test_a_wire_file_on_its_own_is_refused():
    result = CliRunner().invoke(main, ["convert", str(FOLDER / "wire.jsonl")])
    assert result.exit_code == 1
    assert "[not-a-session]" in result.output and "context.jsonl" in result.output


# -- the corpus -------------------------------------------------------------------------------


def test_corpus_real_writer_session():
    path = next(corpus("kimi-cli", REAL, "sessions").glob("*/*/context.jsonl"))
    session, problems = read_case(path)
    assert problems == []
    assert session.name == "Read NOTES.md and run echo"
    assert session.cwd == "/home/user/work0/kimirun/proj"  # kimi.json's last_session_id
    assert [m.text for m in session.messages if m.role == "user"] == [
        "Read NOTES.md and run echo", "SECOND-PROMPT: what did we run?"]
    assert [call for call, _ in linked_results(session)] == [
        "call_3a7f527161d8", "call_4ca17933ff34"]
    assert [m.is_error for m in session.messages if m.role == "tool"] == [True, False]
    assert session.messages[-1].text == "We ran `echo fixture` earlier."
    assert all(m.timestamp is not None for m in session.messages if m.role != "system")
    assert session.messages[1].timestamp == 1796089679843  # 1796089679.84256 s
    replies = [m for m in session.messages if m.role == "assistant"]
    assert [m.reasoning for m in replies] == [
        "First check the notes file.", None, None, "Answer from memory."]
    assert all(m.usage.input == 120 and m.usage.output == 8 for m in replies)
    assert session.metadata["contextTokens"] == 128


def test_corpus_handmade_fixture_and_every_sample_in_the_real_pi():
    fixture = corpus("kimi-cli", "handmade__cchv-fixture", "sessions", "project-hash",
                     "session-1", "context.jsonl")
    session, problems = read_case(fixture)
    assert line_codes(problems) == [(4, "bad-token-count")]  # a token_count object, not a number
    assert session.name == "Implement Kimi provider"
    assert linked_results(session) == [("tool_1", "src-tauri/src/providers/mod.rs")]
    assert session.started_at == 1770000000000  # a legacy "hello" wire still gives times
    real = next(corpus("kimi-cli", REAL, "sessions").glob("*/*/context.jsonl"))
    sessions = [session, read_case(real)[0]]
    views = pi_view(*(write_checked(s, "pi") for s in sessions))
    for one, view in zip(sessions, views, strict=True):
        assert len(view["branch"]) >= len(one.messages)


def test_corpus_files_are_detected_or_left_to_their_session():
    """Every corpus file: a context or wire file is Kimi CLI's; state.json and kimi.json are no
    converter's (a walk passes them over as companions)."""
    folder = corpus("kimi-cli")
    for path in sorted(folder.rglob("*.json*")):
        data = path.read_bytes()
        found = detect(Peek(data[: 256 * 1024], path.name, len(data) <= 256 * 1024))
        if path.name in ("context.jsonl", "wire.jsonl"):
            assert found is not None and found.name == "kimi-cli", path
        else:
            assert found is None, path
            assert KimiCliConverter().is_companion(path), path


def test_read_from_stdin_has_no_wire_to_join():
    result = CliRunner().invoke(main, ["convert"], input=MAIN.read_bytes())
    assert result.exit_code == 0, result.output
    header, *messages = lines(result.stdout_bytes)
    assert header["harness"] == "kimi-cli" and header["id"] == "stdin"
    assert header["contextTokens"] == 1230 and "usage" not in header  # usage is the wire's
    assert all("timestamp" not in m["message"] for m in messages)  # no times made up


def test_a_walk_of_the_sub_agent_folder_alone_converts_it(tmp_path):
    """Its parent session is not in the walk: the sub-agent's context is converted, with its
    wire joined; its meta.json, prompt.txt and output are passed over with it."""
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(FOLDER / "subagents"), "-o", f"{out}/"])
    assert result.exit_code == 0, result.output
    [written] = out.rglob("*.jsonl")
    header, *messages = lines(written.read_bytes())
    assert header["id"] == "agent-7c1e" and messages[-1]["message"]["timestamp"] == 1796100008000
