"""Gemini CLI converter: hand-written cases per quirk, snapshots, the project layout, the corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sts.cli import main
from sts.converters.base import Peek
from sts.converters.gemini_cli import GeminiCliConverter
from sts.converters.registry import detect
from sts.model import ImagePart, MediaPart, Session, TextPart, ThinkingPart
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
    sts_messages,
    walk,
    write_checked,
)

GEMINI = CASES / "gemini-cli"
CASE_FILES = sorted(p.name for p in GEMINI.iterdir() if p.is_file())
PROJECT = GEMINI / "gemini-home" / "tmp" / "demo-project"
MAIN = PROJECT / "chats" / "session-2026-11-30T15-00-a1b2c3d4.jsonl"
CHILD_ID = "e5f6a7b8-2222-4333-8444-555566667777"
CORPUS_FILES = (
    "handmade__letta-trajectory__cleanup.json",
    "handmade__letta-trajectory__tool-calls.json",
    "real-legacy-json__yoavf-pomodoro__session.json",
    "writer-v0.61-jsonl__main__session-2026-12-01T01-34-8f14e45f.jsonl",
    "writer-v0.61-jsonl__migrated-from-legacy__pomodoro.jsonl",
    "writer-v0.61-jsonl__subagent__b2c7d0e1-4f5a-4c3b-9d8e-7a6b5c4d3e2f.jsonl",
    "writer-v0.61__checkpoint-before-refactor.json",
)


def read_case(source: str | Path, **options) -> tuple[Session, list]:
    path = source if isinstance(source, Path) else GEMINI / source
    sessions, problems = read_sessions(path, "gemini-cli", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def shape(session: Session) -> list[tuple[str, str | None, str]]:
    """(role, kind, text) of each message."""
    return [(m.role, m.kind, m.text) for m in session.messages]


# -- snapshots: every case, both targets ----------------------------------------------------


@pytest.mark.parametrize("name", CASE_FILES)
def test_case_snapshot(name, snapshot_model):
    session, _ = read_case(name)
    assert checked_model(session) == snapshot_model


def test_the_project_layout_snapshot(snapshot_model):
    """The main session with its sub-agent child, and the /chat save checkpoint."""
    sessions = [read_case(MAIN)[0], read_case(PROJECT / "checkpoint-before-build.json")[0]]
    assert checked_model(sessions) == snapshot_model


def test_every_case_loads_in_the_real_pi():
    sessions = [read_case(name)[0] for name in CASE_FILES]
    views = pi_view(*(write_checked(session, "pi") for session in sessions))  # one node run
    for session, view in zip(sessions, views, strict=True):
        assert len(view["branch"]) >= len(session.messages), session.id


# -- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*CASE_FILES, str(MAIN.relative_to(GEMINI))])
def test_detected_by_content_whole_and_from_a_cut_head(name):
    data = (GEMINI / name).read_bytes()
    assert detect(Peek(data, None, True)).name == "gemini-cli"  # no file name: stdin
    if name.endswith(".jsonl"):
        assert GeminiCliConverter().sniff(Peek(data[: len(data) // 2], None, False)) >= 0.9


def test_a_large_legacy_document_is_detected_from_its_head():
    head = (GEMINI / "legacy_document.json").read_bytes()[:300]
    assert GeminiCliConverter().sniff(Peek(head, None, False)) >= 0.5
    assert detect(Peek(head, None, False)).name == "gemini-cli"


@pytest.mark.parametrize(
    "data",
    [b'{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n',
     b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}\n',
     b'[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]',
     b'{"messages":[{"role":"user","content":"hi"}]}'],
)
def test_sniff_rejects_other_formats(data):
    assert GeminiCliConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


# -- JSONL replay -----------------------------------------------------------------------------


def test_replay_keeps_the_last_version_at_the_first_position_and_applies_rewinds():
    session, problems = read_case("jsonl_replay.jsonl")
    assert problems == []
    assert session.id == "5b1e2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert session.name == "List and show files"  # $set.summary
    assert session.started_at == 1796032800000
    assert shape(session) == [
        ("system", "injected_context", session.messages[0].text),
        ("user", None, "List the files, please."),  # re-appended at the end, kept first
        ("assistant", None, ""),
        ("tool", None, "README.md\nsrc/"),  # once: the functionResponse copy is dropped
        ("assistant", None, "There is a README.md and a src/ folder."),
        ("user", None, "Show README.md instead."),  # "Delete src/." and its reply rewound
        ("assistant", None, "README.md says: hello."),
    ]
    assert session.messages[0].text.startswith("<session_context>")
    first = session.messages[2]
    assert first.reasoning == "**Listing** Use ls."
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("list_directory_1_0", "list_directory", {"dir_path": "."})]
    assert first.usage.input == 1000 and first.usage.output == 15  # output + thoughts
    assert first.usage.total_tokens == 1015
    second = session.messages[4].usage
    assert (second.input, second.cache_read, second.output) == (200, 900, 12)
    assert linked_results(session) == [("list_directory_1_0", "README.md\nsrc/")]
    assert session.metadata["lastUpdated"] == 1796032808000
    assert session.metadata["sessionKind"] == "main"


def test_drop_injected_leaves_the_session_context_out():
    session, _ = read_case("jsonl_replay.jsonl", drop_injected=True)
    assert [m.kind for m in session.messages if m.role == "system"] == []


def test_a_checkpoint_keeps_what_it_summarised_and_marks_the_summary():
    session, problems = read_case("jsonl_compression.jsonl")
    assert problems == []
    assert [(r, k) for r, k, _ in shape(session)] == [
        ("system", "injected_context"), ("user", None), ("assistant", None),
        ("system", "notice"), ("user", "command"),
        ("system", "compaction"), ("assistant", None), ("user", None),
        ("assistant", None), ("tool", None), ("assistant", None), ("tool", None),
        ("assistant", None),
    ]
    assert session.messages[3].extras["level"] == "warning"
    assert session.name == "Read a.txt."
    # content with thought / functionCall parts is the source of truth: no doubled reasoning
    modern = session.messages[8]
    thinking = [p for p in modern.content if type(p) is ThinkingPart]
    assert [(p.text, p.signature) for p in thinking] == [("I need b.txt.", "c2lnLTE=")]
    assert [c.id for c in modern.tool_calls] == ["read_file_9_0"]
    # a functionResponse record answering a call with no recorded result is the result
    assert linked_results(session) == [("read_file_9_0", "B"), ("glob_9_1", "a.txt\nb.txt")]


def test_a_rewind_to_an_unknown_message_drops_nothing_and_says_so():
    session, problems = read_case("jsonl_rewind_unknown.jsonl")
    assert [m.text for m in session.messages] == [
        "First question.", "First answer.", "Second question.", "Second answer."]
    assert line_codes(problems) == [(4, "rewind-unknown")]
    assert problems[0].severity == "warning"


def test_parts_commands_hooks_media_and_notices():
    session, problems = read_case("parts_and_commands.jsonl")
    assert line_codes(problems) == [(5, "bad-timestamp")]
    kinds = [(m.role, m.kind) for m in session.messages]
    assert kinds == [("user", "command"), ("user", None), ("system", "injected_context"),
                     ("assistant", None), ("tool", None), ("assistant", None),
                     ("system", "notice"), ("user", None)]
    prompt = session.messages[1]
    assert type(prompt.content[1]) is ImagePart and prompt.content[1].data
    assert prompt.content[2] == MediaPart("file", "application/pdf", url="gs://bucket/spec.pdf")
    result = session.messages[4]
    assert [type(p) for p in result.content] == [TextPart, ImagePart]
    assert result.timestamp == session.messages[3].timestamp  # its own time is not a time
    assert "```python\nprint(1 + 1)\n```" in session.messages[5].text
    assert session.messages[6].extras["level"] == "error"
    assert session.messages[7].timestamp == 1796130006000
    assert session.name == "What is in this picture and in @spec.pdf?"


def test_unknown_and_broken_records_are_reported_and_skipped():
    session, problems = read_case("unknown_and_broken.jsonl")
    assert line_codes(problems) == [
        (4, "unknown-record"), (7, "malformed-json"), (3, "unknown-type"),
        (5, "content-not-string"), (5, "bad-tool-calls"), (6, "unknown-block")]
    assert [m.text for m in session.messages] == ["Hello?", "42", "Hello!"]


def test_a_legacy_document():
    session, problems = read_case("legacy_document.json")
    assert problems == []
    assert session.name == "Fix the failing date test"
    assert session.metadata["geminiFormat"] == "json"
    turn = session.messages[1]
    assert turn.reasoning == "**Reading the test** I should read tests/test_dates.py first.\n\n" \
        "Then run it."
    assert [c.name for c in turn.tool_calls] == ["read_file", "run_shell_command", "write_file"]
    results = [m for m in session.messages if m.role == "tool"]
    # the cancelled call has no result: none is made up
    assert [(m.tool_call_id, m.is_error) for m in results] == [
        ("read_file-1756800005000-aa11", False), ("run_shell_command-1756800005000-bb22", True)]
    assert turn.usage.input == 1200 and turn.usage.cache_read == 4000
    assert session.messages[-1].usage is None  # all-zero tokens are no usage
    assert session.messages[-1].model == "gemini-2.5-flash"
    header = lines(write_checked(session, "sts"))[0]
    assert header["toolErrors"] == ["run_shell_command-1756800005000-bb22"]


def test_a_bare_list_checkpoint_gets_stable_call_ids_and_no_times():
    session, problems = read_case("checkpoint-legacy%20list.json")
    assert problems == []
    assert session.id == "checkpoint-legacy%20list" and session.name == "legacy list"
    assert session.metadata["geminiFormat"] == "checkpoint"
    assert linked_results(session) == [("call_1_0", "src/a.py:3: TODO")]
    assert all(m.timestamp is None and m.model is None for m in session.messages)
    again, _ = read_case("checkpoint-legacy%20list.json")
    assert write_checked(again, "sts") == write_checked(session, "sts")


# -- the project folder: sub-agents, companions, logs.json, checkpoints -----------------------


def test_a_sub_agent_is_read_with_its_parent_and_linked_to_its_call():
    session, problems = read_case(MAIN)
    assert problems == []
    assert session.cwd == "/home/dev/demo-project"  # from .project_root
    [child] = session.children
    assert child.id == CHILD_ID and child.key == f"agent-{CHILD_ID}"
    assert child.name == "Investigated the build"
    assert child.metadata["parentSessionId"] == session.id
    assert child.metadata["parentToolCallId"] == "codebase_investigator_5_0"
    assert session.metadata["subagentLinks"] == [
        {"key": child.key, "sessionId": CHILD_ID, "agentId": CHILD_ID,
         "toolCallId": "codebase_investigator_5_0"}]
    assert linked_results(child) == [("read_file_6_0", "all:\n\tcc -o demo main.c\n")]
    assert not read_case(MAIN, subagents=False)[0].children


def test_a_folder_walk_converts_each_session_once(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(GEMINI / "gemini-home"), "-o",
                                       f"{out}/"])
    assert result.exit_code == 0, result.output
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*.jsonl"))
    assert written == [
        "tmp/demo-project/chats/session-2026-11-30T15-00-a1b2c3d4.agent-"
        f"{CHILD_ID}.jsonl",
        "tmp/demo-project/chats/session-2026-11-30T15-00-a1b2c3d4.jsonl",
        "tmp/demo-project/checkpoint-before-build.jsonl",
    ]
    for path in out.rglob("*.jsonl"):
        assert [p for p in validate_bytes(path.read_bytes(), "sts") if p.severity == "error"] \
            == []
    assert "5 companion file(s)" in result.output  # logs.json, the .json twin, the sub-agent,
    # the /restore checkpoint and the spilled tool output


def test_companions_are_only_claimed_inside_a_gemini_project():
    converter = GeminiCliConverter()
    chats = PROJECT / "chats"
    assert converter.is_companion(chats / "session-2026-11-30T15-00-a1b2c3d4.json")
    assert not converter.is_companion(chats / "session-2026-11-30T15-00-a1b2c3d4.jsonl")
    assert converter.is_companion(chats / "a1b2c3d4-1111-4222-8333-444455556666" /
                                  f"{CHILD_ID}.jsonl")
    assert converter.is_companion(PROJECT / "logs.json")
    assert not converter.is_companion(PROJECT / "checkpoint-before-build.json")
    assert not converter.is_companion(GEMINI / "legacy_document.json")


def test_a_lone_sub_agent_file_is_still_converted(tmp_path):
    lone = tmp_path / "chats" / "someone" / f"{CHILD_ID}.jsonl"
    lone.parent.mkdir(parents=True)
    shutil.copyfile(PROJECT / "chats" / "a1b2c3d4-1111-4222-8333-444455556666" /
                    f"{CHILD_ID}.jsonl", lone)
    assert not GeminiCliConverter().is_companion(lone)


def test_logs_json_is_prompt_history_not_a_session(tmp_path):
    result = CliRunner().invoke(main, ["convert", str(PROJECT / "logs.json")])
    assert result.exit_code == 1
    assert "[not-a-session]" in result.output and "[no-sessions]" not in result.output


def test_a_chat_save_checkpoint_is_a_conversation():
    session, problems = read_case(PROJECT / "checkpoint-before-build.json")
    assert problems == []
    assert session.id == "checkpoint-before-build" and session.name == "before-build"
    assert session.metadata["authType"] == "oauth-personal"
    assert [(r, k) for r, k, _ in shape(session)] == [
        ("system", "injected_context"), ("user", None), ("assistant", None), ("tool", None),
        ("assistant", None)]
    assert session.messages[2].reasoning == "**Delegating** The investigator knows."
    assert linked_results(session) == [("codebase_investigator_5_0", "With make.")]
    assert session.cwd == "/home/dev/demo-project"


# -- the corpus -------------------------------------------------------------------------------


def test_corpus_samples_through_both_writers_and_the_real_pi():
    sessions = []
    for name in CORPUS_FILES:
        session, problems = read_case(corpus("gemini-cli", name))
        errors = [(p.line, p.code) for p in problems if p.severity == "error"]
        # the letta fixture's "telemetry" message is an unknown type on purpose: a warning
        assert errors == [], name
        unknown = [p.code for p in problems if p.code == "unknown-type"]
        assert unknown == (["unknown-type"] if "cleanup" in name else []), name
        assert session.harness == "gemini-cli" and session.messages, name
        messages = sts_messages(write_checked(session, "sts"))
        if "checkpoint" not in name:  # a checkpoint holds no times
            assert all(type(m.get("timestamp")) is int for m in messages), name
        assert linked_results(session), name
        sessions.append(session)
    views = pi_view(*(write_checked(session, "pi") for session in sessions))
    for session, view in zip(sessions, views, strict=True):
        assert len(view["branch"]) >= len(session.messages), session.id


def test_corpus_logs_json_is_recognised_and_refused():
    path = corpus("gemini-cli", "writer-v0.61__logs.json")
    sessions, problems = read_sessions(path, "gemini-cli")
    assert sessions == [] and [p.code for p in problems] == ["not-a-session"]


def test_corpus_writer_session_facts():
    session, problems = read_case(corpus(
        "gemini-cli", "writer-v0.61-jsonl__main__session-2026-12-01T01-34-8f14e45f.jsonl"))
    assert problems == []
    users = [m.text for m in session.messages if m.role == "user"]
    assert users == ["How many lines are in README.md?",
                     "Read docs/missing.md and then ask the investigator about the build."]
    assert "Delete README.md" not in [m.text for m in session.messages]  # rewound
    assert [m.kind for m in session.messages if m.role == "system"] == [
        "injected_context", "notice"]
    assert [(call, text[:20]) for call, text in linked_results(session)] == [
        ("run_shell_command_1787040000000_0", "Output: 42 README.md"),
        ("read_file_1787040005000_0", "File not found: /hom"),
        ("codebase_investigator_1787040006000_0", "Subagent 'codebase_i")]
    assert [m.is_error for m in session.messages if m.role == "tool"] == [False, True, False]
    assert session.messages[-1].text.startswith("docs/missing.md does not exist")
    assert {m.model for m in session.messages if m.role == "assistant"} == {
        "gemini-3-flash-preview"}
    assert sum(m.usage.output for m in session.messages if m.usage) == 26 + 120 + 14 + 30 + 64 \
        + 20 + 25
    assert all(m.timestamp > 1_700_000_000_000 for m in session.messages)


def test_corpus_sub_agent_linked_in_a_project_layout(tmp_path):
    chats = tmp_path / "chats"
    (chats / "8f14e45f-ceea-467a-9e5b-0c7d3b5a2f10").mkdir(parents=True)
    main_file = chats / "session-2026-12-01T01-34-8f14e45f.jsonl"
    shutil.copyfile(corpus("gemini-cli", CORPUS_FILES[3]), main_file)
    sub_id = "b2c7d0e1-4f5a-4c3b-9d8e-7a6b5c4d3e2f"
    shutil.copyfile(corpus("gemini-cli", CORPUS_FILES[5]),
                    chats / "8f14e45f-ceea-467a-9e5b-0c7d3b5a2f10" / f"{sub_id}.jsonl")
    session, _ = read_case(main_file)
    [child] = session.children
    assert child.metadata["parentToolCallId"] == "codebase_investigator_1787040006000_0"
    assert child.cwd == "/home/user/demo-project"
    views = pi_view(*(write_checked(s, "pi") for s in walk([session])))
    assert len(views) == 2


def test_corpus_migrated_legacy_session_keeps_every_turn():
    legacy, _ = read_case(corpus("gemini-cli", "real-legacy-json__yoavf-pomodoro__session.json"))
    migrated, _ = read_case(corpus("gemini-cli",
                                   "writer-v0.61-jsonl__migrated-from-legacy__pomodoro.jsonl"))
    assert migrated.id == legacy.id
    assert shape(migrated)[: len(legacy.messages)] == shape(legacy)
    assert shape(migrated)[-1] == ("user", None, "Resumed: thanks!")


def test_read_from_stdin_without_a_name():
    data = (GEMINI / "jsonl_replay.jsonl").read_bytes()
    result = CliRunner().invoke(main, ["convert", "--to", "sts"], input=data)
    assert result.exit_code == 0, result.output
    header = lines(result.stdout_bytes)[0]
    assert header["harness"] == "gemini-cli" and header["id"] == (
        "5b1e2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")


def test_a_list_sidecar_is_a_companion_of_its_session(tmp_path):
    chats = tmp_path / "chats"
    chats.mkdir()
    (chats / "session-2026-11-30T15-00-a1b2c3d4.jsonl").write_bytes(MAIN.read_bytes())
    sidecar = chats / "session-2026-11-30T15-00-a1b2c3d4.meta.json"
    sidecar.write_text('{"version": 1}')
    assert GeminiCliConverter().is_companion(sidecar)
    (chats / "session-2026-11-30T15-00-a1b2c3d4.jsonl").unlink()
    assert not GeminiCliConverter().is_companion(sidecar)


def test_a_walk_of_the_sub_agent_folder_alone_converts_it(tmp_path):
    """Its parent session is not in the walk: the sub-agent file is not passed over."""
    folder = PROJECT / "chats" / "a1b2c3d4-1111-4222-8333-444455556666"
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", f"{out}/"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.rglob("*.jsonl")] == [f"{CHILD_ID}.jsonl"]
