"""GitHub Copilot CLI converter: hand-written cases per quirk, snapshots, the corpus, real pi."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sts.converters.base import Peek
from sts.converters.copilot import CopilotConverter
from sts.converters.registry import detect
from sts.model import ImagePart, MediaPart, Session, TextPart
from tests.support import (
    CASES,
    checked_model,
    corpus,
    detected,
    line_codes,
    pi_agrees,
    read_sessions,
    sts_messages,
    walk,
    write_checked,
)

CASE_DIR = CASES / "github-copilot"
CASE_FILES = sorted(p.name for p in CASE_DIR.iterdir())
REAL = {
    "bash": "real-writer-1.0.102__bash-tool/session-state/"
            "658a10d2-5a90-4df6-95c3-31a88d1b0fc3/events.jsonl",
    "resume": "real-writer-1.0.102__subagent-error-resume/session-state/"
              "79a4da81-a5ff-404a-9926-d684842f8cfe/events.jsonl",
}
CORPUS_FILES = [*REAL.values(), "handmade__letta-trajectory__cleanup.events.jsonl",
                "handmade__legacy-history-session-state__session_4b0c7d2e.json"]


def read_case(name: str, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(CASE_DIR / name, "github-copilot", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def roles(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


# -- snapshots: every case, every session, both targets ------------------------------------


@pytest.mark.parametrize("name", CASE_FILES)
def test_case_snapshot(name, snapshot_model):
    session, _ = read_case(name)
    assert checked_model(session) == snapshot_model


@pytest.mark.parametrize("name", CASE_FILES)
def test_every_case_and_sub_agent_loads_in_the_real_pi(name):
    session, _ = read_case(name)
    for each in walk([session]):
        pi_agrees(each)


# -- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASE_FILES)
def test_every_case_is_detected_also_from_a_cut_head_and_stdin(name):
    data = (CASE_DIR / name).read_bytes()
    assert CopilotConverter().sniff(Peek(data, name, True)) >= 0.9
    assert detect(Peek(data, None, True)).name == "github-copilot"  # stdin: no name
    if name.endswith(".jsonl"):
        assert CopilotConverter().sniff(Peek(data[: len(data) // 2], None, False)) >= 0.9


@pytest.mark.parametrize("data", [
    b'{"type": "user", "uuid": "u", "sessionId": "s", "parentUuid": null, "message": {}}\n',
    b'{"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}\n',
    b'{"role": "user", "content": "hi"}\n',
    b'{"type": "session", "version": 3, "id": "x", "timestamp": "2025-01-01T00:00:00Z"}\n',
    b'{"type": "session.start"}\n',  # no data object
])
def test_sniff_rejects_other_formats(data):
    assert CopilotConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


# -- the quirks of the note, one by one -----------------------------------------------------


def test_tool_call_result_reasoning_usage_and_exit_code():
    session, problems = read_case("bash_tool.jsonl")
    assert problems == []
    assert roles(session) == [("system", "system_prompt"), ("user", None), ("assistant", None),
                              ("tool", None), ("assistant", None)]
    _, prompt, call, result, final = session.messages
    assert prompt.text == "run the tests"  # as typed, not transformedContent
    assert prompt.timestamp == 1772359201000 and prompt.id == "u-1"
    assert call.reasoning == "The user wants the test suite run."  # reasoningOpaque dropped
    assert [(c.id, c.name, c.arguments) for c in call.tool_calls] == [
        ("call_run", "bash", {"command": "npm test", "description": "Run tests"})]
    assert (result.tool_call_id, result.tool_name, result.is_error) == ("call_run", "bash", False)
    assert result.text.startswith("2 passing\n")  # model-facing content, not detailedContent
    assert result.extras["exit_code"] == 0
    # inputTokens counts cached tokens: input = 1500 - 1000 - 200
    usage = call.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (300, 40, 1000, 200)
    assert usage.cost_total is None  # Copilot's "cost" is premium requests
    assert (final.usage.input, final.stop_reason, final.model) == (200, "stop",
                                                                  "claude-sonnet-4.5")
    assert session.id == "5d7c1b2a-0000-4000-8000-00000000aaaa"
    assert session.started_at == 1772359199500 and session.source_version == "1.0.102"
    assert session.cwd == "/home/dev/app" and session.git["branch"] == "main"
    assert session.metadata["premiumRequests"] == 1


def test_sub_agent_is_a_child_linked_to_its_task_call():
    session, problems = read_case("subagent_parallel.jsonl")
    assert problems == []
    assert roles(session) == [("system", "system_prompt"), ("user", None), ("assistant", None),
                              ("tool", None), ("tool", None), ("assistant", None)]
    # the view result finished first, the task result last: both linked by id, not order
    assert [(m.tool_call_id, m.is_error) for m in session.messages if m.role == "tool"] == [
        ("call_view", True), ("call_task", False)]
    assert session.messages[3].text == "Path does not exist"
    (child,) = session.children
    assert child.id == child.metadata["agentId"] == "aaaaaaaa-1111-4222-8333-444444444444"
    assert child.key == "agent-aaaaaaaa-1111-4222-8333-444444444444"
    assert child.metadata["parentSessionId"] == session.id
    assert child.metadata["parentToolCallId"] == "call_task"
    assert child.metadata["agentName"] == "explore"
    assert session.metadata["subagentLinks"] == [
        {"key": child.key, "sessionId": child.id, "agentId": child.id, "toolCallId": "call_task"}]
    assert roles(child) == [("system", "system_prompt"), ("user", None), ("assistant", None),
                            ("tool", None), ("assistant", None)]
    assert child.messages[1].text == "Find where config is loaded."  # its prompt, a user turn
    assert [m.model for m in child.messages if m.role == "assistant"] == [
        "claude-haiku-4.5"] * 2  # from the sub-agent's own model_change
    assert child.messages[3].tool_call_id == "call_grep"
    assert sum(m.usage.input for m in child.messages if m.usage) == 650
    # nothing of the sub-agent leaks into the parent
    assert all("Searching" not in m.text for m in session.messages)
    without, _ = read_case("subagent_parallel.jsonl", subagents=False)
    assert without.children == [] and "subagentLinks" not in without.metadata


def test_older_build_sub_agent_known_only_by_its_task_call():
    session, problems = read_case("older_build_parent_tool_call.jsonl")
    assert problems == []  # session.truncation is a known event, left out
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "who calls parse()?"),
        ("assistant", "Delegating."), ("tool", "main.ts calls it."),
        ("assistant", "Only src/main.ts calls parse()."),
    ]
    selection = session.messages[0].content[1]
    assert (selection.kind, selection.url) == ("selection", "/srv/repo/src/parse.ts")
    (child,) = session.children
    assert child.id == "0b0b0b0b-0000-4000-8000-000000000001-task-tc_task"
    assert child.key == "task-tc_task" and "agentId" not in child.metadata
    assert child.metadata["parentToolCallId"] == "tc_task"
    assert child.name == "find callers of parse"  # the task call's prompt argument
    assert [(m.role, m.tool_call_id) for m in child.messages] == [
        ("assistant", None), ("tool", "tc_grep"), ("assistant", None)]
    assert child.messages[0].model == "gpt-5"  # the session's selected model


def test_resumed_file_keeps_both_runs_and_never_sums_the_shutdowns():
    session, problems = read_case("resume.jsonl")
    assert problems == []
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "You are the GitHub Copilot CLI, a terminal assistant built by GitHub."),
        ("user", "say hi"), ("assistant", "Hi!"),
        ("user", "and again, in French"), ("assistant", "Salut !"),
    ]  # the system prompt saved again after the resume is kept once; turnId "0" twice is fine
    hi, salut = (m for m in session.messages if m.role == "assistant")
    # usage written after its message still finds it (by apiCallId)
    assert (hi.usage.input, hi.model) == (500, "claude-sonnet-4.5")
    assert (salut.usage.input, salut.model) == (700, "gpt-5.1")  # the resume's selectedModel
    assert session.metadata["premiumRequests"] == 2  # the last shutdown, not 1 + 2
    assert list(session.metadata["modelMetrics"]) == ["claude-sonnet-4.5", "gpt-5.1"]
    assert session.metadata["resumedAt"] == [1772359230000]
    assert session.name == "Greeting"  # session.title_changed
    header = write_checked(session, "sts").split(b"\n", 1)[0]
    assert b'"usage":{"input":1200,"output":7' in header


def test_quirks_injections_chunks_attachments_and_notices():
    session, problems = read_case("quirks.jsonl")
    assert line_codes(problems) == [
        (14, "orphan-result"), (22, "unknown-type"), (24, "bad-timestamp")]
    assert roles(session) == [
        ("system", "system_prompt"), ("user", None), ("system", "developer"),
        ("system", "injected_context"), ("assistant", None), ("tool", None), ("tool", None),
        ("tool", None), ("system", "task_notification"), ("system", "compaction"),
        ("system", "api_error"), ("assistant", None), ("system", "context_cleared"),
        ("user", None), ("assistant", None),
    ]
    msgs = session.messages
    prompt = msgs[1]
    assert prompt.text == "fix the build"  # the hook.start copy is not added again
    assert [type(p) for p in prompt.content] == [TextPart, MediaPart, ImagePart]
    assert prompt.content[1].url == "/home/dev/app/package.json"
    assert msgs[3].extras["source"] == "skill-pnpm"
    reply = msgs[4]
    assert reply.text == "Looking at it."  # two chunks of one messageId, merged
    assert reply.reasoning == "Check the build script first."  # reasoning event + text, once
    patch, bash = reply.tool_calls
    assert (patch.arguments, patch.raw_arguments) == (None, "*** Begin Patch\n*** End Patch")
    assert patch.extras["type"] == "custom"
    assert bash.arguments == {"command": "pnpm build"}
    assert reply.usage.input == 800  # usage_record after both chunks
    assert next(p for p in msgs[5].content if type(p) is ImagePart).media_type == "image/png"
    assert msgs[5].text == "build ok"  # result.contents when content is empty
    assert msgs[9].tokens_before == 52000
    assert msgs[10].error_message == "Rate limited, retrying"
    assert (msgs[11].stop_reason, msgs[11].error_message) == ("aborted", "user initiated")
    assert msgs[13].text.startswith("now lint it")  # hook.start with no user.message after it
    assert msgs[14].timestamp is None  # "yesterday" is no time: left out


def test_legacy_history_session_state():
    session, problems = read_case("legacy_history.json")
    assert problems == []
    assert session.id == "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    assert session.metadata["copilotFormat"] == "history-session-state"
    assert [(m.role, m.timestamp) for m in session.messages] == [
        ("user", 1756800001000), ("assistant", None), ("tool", 1756800003000),
        ("assistant", None), ("tool", 1756800005000), ("assistant", 1756800006000)]
    assert [m.tool_call_id for m in session.messages if m.role == "tool"] == ["tc_1", "tc_2"]
    assert session.messages[1].tool_calls[0].arguments["command"] == "create"
    assert all(m.model is None for m in session.messages)  # the shape has no model


# -- the session folder: workspace.yaml and companions --------------------------------------


def session_folder(root: Path) -> Path:
    folder = root / "session-state" / "5d7c1b2a-0000-4000-8000-00000000aaaa"
    (folder / "checkpoints").mkdir(parents=True)
    shutil.copyfile(CASE_DIR / "bash_tool.jsonl", folder / "events.jsonl")
    (folder / "workspace.yaml").write_text(
        "id: 5d7c1b2a-0000-4000-8000-00000000aaaa\ncwd: /home/dev/app\nbranch: main\n"
        "client_name: github/cli\nname: 'Run the test suite'\nuser_named: true\n")
    (folder / "checkpoints" / "index.md").write_text("# checkpoints\n")
    (folder / "plan.md").write_text("plan\n")
    return folder


def test_workspace_yaml_names_the_session_and_companions_are_not_converted(tmp_path):
    folder = session_folder(tmp_path)
    (session,), _ = read_sessions(folder / "events.jsonl", "github-copilot")
    assert session.name == "Run the test suite"
    assert session.metadata["clientName"] == "github/cli"
    converter = CopilotConverter()
    assert not converter.is_companion(folder / "events.jsonl")
    for companion in ("workspace.yaml", "plan.md", "checkpoints/index.md"):
        assert converter.is_companion(folder / companion)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "sts", "convert", str(tmp_path / "session-state"), "-o",
         f"{out}/"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 session(s) written from 1 input(s) (3 " in done.stderr  # read with their session
    assert "0 skipped" in done.stderr
    assert [p.name for p in out.rglob("*.jsonl")] == ["events.jsonl"]


def test_a_folder_without_a_log_is_not_a_companion(tmp_path):
    folder = tmp_path / "session-state" / "x"
    folder.mkdir(parents=True)
    (folder / "notes.json").write_text("{}")
    assert not CopilotConverter().is_companion(folder / "notes.json")


# -- the corpus -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_converts_validly_and_pi_agrees(name):
    assert detected(corpus("github-copilot", name)) == "github-copilot"
    sessions, problems = read_sessions(corpus("github-copilot", name), "github-copilot")
    assert len(sessions) == 1
    assert {p.code for p in problems} <= {"malformed-json", "unknown-record", "unknown-type"}
    for session in walk(sessions):
        pi_agrees(session)


def test_corpus_real_writer_subagent_resume_facts():
    (session,), problems = read_sessions(corpus("github-copilot", REAL["resume"]),
                                         "github-copilot")
    assert problems == []
    assert session.name == "Read NOTES.md and find test helpers"  # workspace.yaml
    assert [m.text for m in session.messages if m.role == "user"] == [
        "Read NOTES.md and find test helpers", "SECOND-PROMPT: what did we run before?"]
    assert [m.kind for m in session.messages if m.role == "system"] == ["system_prompt"]
    calls = [c for m in session.messages for c in m.tool_calls]
    assert [(c.id, c.name) for c in calls] == [("call_bd1f315534eb", "view"),
                                               ("call_bb3b5d01dd83", "task")]
    results = [m for m in session.messages if m.role == "tool"]
    assert [(r.tool_call_id, r.is_error) for r in results] == [
        ("call_bd1f315534eb", True), ("call_bb3b5d01dd83", False)]
    assert session.messages[-1].text == "We ran `echo fixture` earlier; it printed `fixture`."
    assert session.messages[-1].reasoning == "Answer from memory."
    (child,) = session.children
    assert child.metadata["parentToolCallId"] == "call_bb3b5d01dd83"
    assert child.messages[1].text == "SUBAGENT-TASK: list shared test helpers under test/."
    assert child.messages[-1].text == (
        "No shared test helpers exist; tests import from src/ directly.")
    # per-call usage adds up to the last shutdown's per-agent totals, never to their sum
    main_input = sum(m.usage.input for m in session.messages if m.usage)
    child_input = sum(m.usage.input for m in child.messages if m.usage)
    assert (main_input, child_input) == (480, 240)
    assert session.metadata["modelMetrics"]["fake-model"]["usage"]["inputTokens"] == 720
    assert len(session.metadata["resumedAt"]) == 1
    stamps = [m.timestamp for m in session.messages]
    assert all(type(t) is int and t > 1_700_000_000_000 for t in stamps)


def test_corpus_real_writer_bash_facts():
    (session,), problems = read_sessions(corpus("github-copilot", REAL["bash"]),
                                         "github-copilot")
    assert problems == []
    data = write_checked(session, "sts")
    messages = sts_messages(data)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[2]["toolCalls"][0]["id"] == messages[3]["toolCallId"] == "call_5e127d5e71a2"
    assert messages[3]["content"].startswith("fixture\n")
    assert messages[4]["content"] == "The command printed `fixture`. Done."
    assert all(m.get("model") == "fake-model" for m in messages if m["role"] == "assistant")


def test_corpus_letta_fixture_prompt_from_hook_and_error_result():
    (session,), problems = read_sessions(
        corpus("github-copilot", CORPUS_FILES[2]), "github-copilot")
    assert line_codes(problems) == [(1, "malformed-json"), (6, "unknown-type")]
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "Run the command."), ("assistant", ""), ("tool", "command failed")]
    call = session.messages[1].tool_calls[0]
    assert (call.arguments, call.raw_arguments) == (None, "not-json")
    assert session.messages[2].is_error is True
