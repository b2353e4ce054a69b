"""Cline / Roo Code / Kilo Code tasks: hand-written cases per quirk, snapshots, the corpus."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import sts
from sts.converters.base import Peek
from sts.converters.cline import ClineConverter
from sts.converters.openai.converter import OpenAIConverter
from sts.model import ImagePart, Session, ThinkingPart
from tests.support import (
    CASES,
    checked_model,
    corpus,
    detected,
    line_codes,
    lines,
    read_sessions,
    sts_messages,
    write_checked,
)
from tests.test_pi_writer import check_pi_loads

CLINE = CASES / "cline"
HISTORIES = sorted(CLINE.rglob("api_conversation_history.json"))
NATIVE = CLINE / "native/saoudrizwan.claude-dev/tasks/1777100000000/api_conversation_history.json"
LEGACY = CLINE / ("legacy-xml/saoudrizwan.claude-dev/tasks/1735000000000/"
                  "api_conversation_history.json")
ROO = CLINE / ("roo/rooveterinaryinc.roo-cline/tasks/0198f0a1-2b3c-7d4e-8f90-a1b2c3d4e5f6/"
               "api_conversation_history.json")
KILO = CLINE / ("kilo/kilocode.kilo-code/tasks/5b2f7e1c-6a7d-4c3e-9f10-0a1b2c3d4e5f/"
                "api_conversation_history.json")
CORPUS_TASKS = (
    "built__cline-legacy-xml-tools/tasks/1735689600000",
    "built__cline-vscode-globalStorage__saoudrizwan.claude-dev/tasks/1777073160794",
    "built__roo-code-globalStorage__rooveterinaryinc.roo-cline/tasks/"
    "0198f0a1-2b3c-7d4e-8f90-a1b2c3d4e5f6",
)


def read_one(path: Path | bytes, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(path, "cline", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def shape(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


def case_id(path: Path) -> str:
    return path.relative_to(CLINE).parts[0]


# -- snapshots and validity ----------------------------------------------------------------


@pytest.mark.parametrize("path", HISTORIES, ids=case_id)
def test_case_snapshot(path, snapshot_model):
    session, _ = read_one(path)
    assert checked_model(session) == snapshot_model


@pytest.mark.parametrize("path", HISTORIES, ids=case_id)
def test_pi_outputs_load_in_the_real_pi(path):
    check_pi_loads(read_one(path)[0])


# -- detection -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", HISTORIES, ids=case_id)
def test_detected_by_name_and_by_content(path):
    data = path.read_bytes()
    assert detected(path) == "cline"
    by_content = ClineConverter().sniff(Peek(data, None, True))
    assert by_content > OpenAIConverter().sniff(Peek(data, None, True))
    assert by_content >= 0.9


def test_a_large_history_is_sniffed_from_its_head():
    data = NATIVE.read_bytes()
    assert ClineConverter().sniff(Peek(data[:300], None, False)) >= 0.9


@pytest.mark.parametrize(
    "data",
    [b'[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]',
     b'[{"ts":1,"type":"say","say":"task","text":"hi"}]',
     b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'],
)
def test_sniff_leaves_other_inputs_alone(data):
    assert ClineConverter().sniff(Peek(data, "x.json", True)) == 0.0


def test_companions_are_not_inputs_of_their_own():
    converter = ClineConverter()
    folder = NATIVE.parent
    for name in ("ui_messages.json", "task_metadata.json", "context_history.json"):
        assert converter.is_companion(folder / name)
    assert not converter.is_companion(NATIVE)
    assert not converter.is_companion(CASES / "openai" / "messages_array.json")


def test_task_indexes_are_passed_over(tmp_path):
    storage = tmp_path / "saoudrizwan.claude-dev"
    (storage / "tasks").mkdir(parents=True)
    (storage / "state").mkdir()
    converter = ClineConverter()
    assert converter.is_companion(storage / "state" / "taskHistory.json")
    assert converter.is_companion(storage / "tasks" / "_index.json")  # Roo Code's
    assert not converter.is_companion(tmp_path / "state" / "taskHistory.json")


# -- the native protocol (Cline 2026) ------------------------------------------------------


def test_native_task_messages_and_links():
    session, problems = read_one(NATIVE)
    assert problems == []
    assert session.id == "1777100000000" and session.harness == "cline"
    assert session.name == "Fix the failing test in tests/test_calc.py (screenshot attached)"
    assert session.cwd == "/home/dev/calc"
    assert session.started_at == 1777100000000
    assert session.metadata["extension"] == "saoudrizwan.claude-dev"
    assert shape(session) == [
        ("user", None), ("system", "injected_context"),
        ("assistant", None), ("tool", None), ("tool", None), ("system", "injected_context"),
        ("assistant", None), ("tool", None), ("system", "injected_context"),
        ("assistant", None), ("tool", None), ("system", "injected_context"),
        ("assistant", None),
    ]
    prompt, env, first, read, search, _, edit, denied, _, done, feedback, _, final = (
        session.messages
    )
    assert prompt.text == "Fix the failing test in tests/test_calc.py (screenshot attached)"
    assert [type(p) for p in prompt.content][-1] is ImagePart
    assert env.text.startswith("<environment_details>")
    # thinking with its signature, parallel calls, results linked by id, an error result
    thinking = first.content[0]
    assert type(thinking) is ThinkingPart and thinking.signature == "sig-AAA"
    assert [c.id for c in first.tool_calls] == ["toolu_01A", "toolu_01B"]
    assert (read.tool_call_id, read.is_error) == ("toolu_01A", False)
    assert (search.tool_call_id, search.tool_name, search.is_error) == (
        "toolu_01B", "search_files", True)
    assert edit.content[0] == ThinkingPart("", "ENCRYPTED-BLOB", redacted=True)
    assert denied.tool_call_id == "toolu_01C" and "Import pytest first" in denied.text
    # attempt_completion answered by the user's feedback: text and call both kept
    assert done.text == "The test now uses pytest.approx."
    assert [c.name for c in done.tool_calls] == ["attempt_completion"]
    assert feedback.tool_call_id == "toolu_01D"
    # the final completion has a command too: kept as a call, its result is the final text
    assert final.text == "Running them now.\n\nFixed; all 12 tests pass."
    assert final.tool_calls[0].arguments == {"result": "Fixed; all 12 tests pass.",
                                             "command": "pytest -q"}


def test_native_times_models_and_usage_from_message_then_companions():
    session, _ = read_one(NATIVE)
    assistants = [m for m in session.messages if m.role == "assistant"]
    first, edit, done, _ = assistants
    # own ts / modelInfo / metrics (prompt includes the cached tokens)
    assert (first.timestamp, first.model, first.provider) == (
        1777100004000, "claude-sonnet-4-5", "anthropic")
    assert (first.usage.input, first.usage.output, first.usage.cache_read) == (4000, 120, 8000)
    assert first.usage.cost_total == 0.021
    assert first.extras["response_id"] == "resp_1" and first.extras["mode"] == "act"
    # no ts: the first reply row of its history index; no metrics: its request's usage
    assert edit.timestamp == 1777100009000
    assert (edit.model, edit.extras["mode"]) == ("claude-opus-4-5", "plan")
    assert (edit.usage.input, edit.usage.cache_write, edit.usage.cost_total) == (900, 3000, 0.017)
    # tool results and injected context dated when their request was sent
    tool = session.messages[7]
    assert tool.role == "tool" and tool.timestamp == 1777100015010
    assert done.usage.cost_total is None and done.usage.input == 1000


def test_model_from_task_metadata_when_the_message_names_none(tmp_path):
    task = tmp_path / "saoudrizwan.claude-dev" / "tasks" / "1"
    task.mkdir(parents=True)
    history = [{"role": "user", "content": "<task>\nhi\n</task>"},
               {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]
    (task / "api_conversation_history.json").write_bytes(orjson.dumps(history))
    (task / "task_metadata.json").write_bytes(orjson.dumps(
        {"model_usage": [{"ts": 5, "model_id": "gpt-5", "model_provider_id": "openai"}]}))
    session, problems = read_one(task / "api_conversation_history.json")
    assert problems == []
    assert (session.messages[-1].model, session.messages[-1].provider) == ("gpt-5", "openai")
    assert session.messages[-1].timestamp is None  # no ui_messages.json: no time invented


# -- the XML protocol (≤ 2025) ---------------------------------------------------------------


def test_legacy_xml_calls_become_tool_calls_linked_to_their_results():
    session, problems = read_one(LEGACY)
    assert problems == []
    calls = {c.id: c for m in session.messages for c in m.tool_calls}
    assert list(calls) == ["call_2_0", "call_5_0", "call_8_0", "call_11_0", "call_11_1"]
    assert calls["call_2_0"].name == "read_file"
    assert calls["call_2_0"].arguments == {"path": "src/app.py"}
    # content keeps the tags inside it and its own line breaks
    assert calls["call_5_0"].arguments["content"] == 'def greet(name):\n    return f"<b>{name}</b>"'
    assert calls["call_11_1"].arguments == {"command": "python -c 'import src.greet'",
                                            "requires_approval": "false"}
    results = [m for m in session.messages if m.role == "tool"]
    assert [(r.tool_call_id, r.tool_name, r.is_error) for r in results] == [
        ("call_2_0", "read_file", False), ("call_5_0", "write_to_file", True),
        ("call_8_0", "ask_followup_question", False), ("call_11_0", "write_to_file", False),
        ("call_11_1", "execute_command", False),
    ]
    assert results[0].text == "def main():\n    pass\n"
    assert results[2].text == "Yes, src/greet.py"
    question = next(m for m in session.messages
                    if m.tool_calls and m.tool_calls[0].id == "call_8_0")
    assert question.text == "Should I write somewhere else?"  # speech, and an answered call
    first = session.messages[2]
    assert first.reasoning == "Look at the file first." and first.text == ""


def test_legacy_completion_resumption_and_notices():
    session, _ = read_one(LEGACY)
    tail = session.messages[-8:]
    assert [(m.role, m.kind) for m in tail] == [
        ("assistant", None), ("system", "injected_context"), ("user", None),
        ("system", "injected_context"), ("assistant", None), ("system", "injected_context"),
        ("system", "injected_context"), ("assistant", None),
    ]
    completion, resumption, typed = tail[0], tail[1], tail[2]
    assert completion.text == "Added greet() in src/greet.py." and completion.tool_calls == []
    assert resumption.text.startswith("[TASK RESUMPTION]")
    assert "Also add a test" not in resumption.text and typed.text == "Also add a test"
    assert tail[4].text == "Sure, a test would help."
    assert tail[5].text.startswith("[ERROR] You did not use a tool")
    assert tail[-1].text == "Done: greet() and its test."


def test_legacy_times_and_usage_by_request_order():
    session, _ = read_one(LEGACY)
    users = [m for m in session.messages if m.role == "user"]
    assert users[0].timestamp == 1735000000000  # the task row
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert [a.timestamp for a in assistants] == [1735000000000 + 3000 * k for k in range(1, 8)]
    assert [a.usage.input for a in assistants] == [1000 + k for k in range(7)]
    assert all(a.model is None for a in assistants)  # no model anywhere: none invented


def test_request_rows_that_do_not_pair_give_no_times():
    session, _ = read_one(corpus("cline", CORPUS_TASKS[0], "api_conversation_history.json"))
    assert [m.timestamp for m in session.messages if m.role == "assistant"] == [None, None]


def test_drop_injected_leaves_environment_details_out():
    session, _ = read_one(LEGACY, drop_injected=True)
    assert all(m.role != "system" for m in session.messages)
    assert session.cwd == "/home/dev/calc"


# -- Roo Code and Kilo Code ----------------------------------------------------------------


def test_roo_code_task():
    session, problems = read_one(ROO)
    assert problems == []
    assert session.harness == "roo-code"
    assert session.messages[0].text == "List the TODOs"
    result = session.messages[3]
    assert result.tool_call_id == "toolu_roo_1" and result.text.startswith("Found 2 results.")
    assert result.timestamp is None  # no ts, no ui_messages.json
    assert session.messages[-1].text == "There are two TODOs: src/a.py:3 and src/b.py:9."


def test_kilo_code_task_with_a_cut_off_ui_messages_file():
    session, problems = read_one(KILO)
    assert session.harness == "kilo-code"
    assert line_codes(problems) == [(None, "bad-companion")]
    assert shape(session) == [("user", None), ("system", "injected_context"), ("assistant", None)]
    assert session.messages[0].text == "Say hi"
    assert session.messages[2].reasoning == "Trivial." and session.messages[2].text == "Hi!"


def test_stdin_has_no_companions_and_the_default_harness():
    session, problems = read_one(NATIVE.read_bytes())
    assert problems == []
    assert session.harness == "cline"
    assert session.id == "1777100000000"  # the first message time (no task folder)
    assert session.messages[6].timestamp is None  # its time came from ui_messages.json


# -- damaged input ---------------------------------------------------------------------------


def test_cut_off_history_is_reported_never_a_crash():
    data = NATIVE.read_bytes()
    sessions, problems = read_sessions(data[: len(data) // 2], "cline")
    assert sessions == []
    assert [p.code for p in problems] in (["truncated-document"], ["malformed-json"])


@pytest.mark.parametrize("path", HISTORIES, ids=case_id)
def test_wrong_types_anywhere_never_crash(path):
    history = json.loads(path.read_bytes())
    for index, message in enumerate(history):
        for key in [*message, "content"]:
            for value in (None, 7, "x", [], {}, [None, 3, "s"], [{"type": 5}]):
                copy = json.loads(json.dumps(history))
                copy[index][key] = value
                sessions, _ = read_sessions(orjson.dumps(copy), "cline")
                for session in sessions:
                    write_checked(session, "sts")
                    write_checked(session, "pi")


def test_not_an_array_and_bad_messages_are_reported():
    _, problems = read_sessions(b'{"role": "user"}', "cline")
    assert [p.code for p in problems] == ["not-a-history"]
    sessions, problems = read_sessions(b'[3, {"role": "robot", "content": "x"}, '
                                       b'{"role": "user", "content": [{"type": "audio"}]}]',
                                       "cline")
    assert sessions == []  # nothing left to convert: the driver says no-sessions
    assert [p.code for p in problems] == ["bad-message", "unknown-role", "unknown-block"]


# -- directories and the command line --------------------------------------------------------


def test_a_directory_walk_converts_each_task_once(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(CLINE), "-o", f"{out}/"],
                          capture_output=True, text=True, timeout=120)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    assert written == sorted(
        p.relative_to(CLINE).with_suffix(".jsonl").as_posix() for p in HISTORIES)
    assert "bad-companion" in done.stderr and "unknown-format" not in done.stderr


def test_api_reads_a_task_and_harness_overrides():
    session = next(sts.read(ROO))
    out = io.BytesIO()
    sts.write(session, out, harness="my-roo")
    assert lines(out.getvalue())[0]["harness"] == "my-roo"


# -- the corpus ------------------------------------------------------------------------------


@pytest.mark.parametrize("task", CORPUS_TASKS)
def test_corpus_tasks_convert_to_both_targets(task):
    path = corpus("cline", task, "api_conversation_history.json")
    assert detected(path) == "cline"
    session, problems = read_one(path)
    assert [p for p in problems if p.severity == "error"] == []
    data = write_checked(session, "sts")
    messages = sts_messages(data)
    assert messages[0] == {"role": "user", "content": "How many lines are in README.md?",
                           **({"timestamp": messages[0]["timestamp"]}
                              if "timestamp" in messages[0] else {})}
    calls = [c for m in messages for c in m.get("toolCalls", [])]
    results = [m["toolCallId"] for m in messages if m["role"] == "tool"]
    assert calls and results == [calls[0]["id"]]
    assert messages[-1]["role"] == "assistant"
    assert messages[-1]["content"] == "README.md has 42 lines."
    check_pi_loads(session)


def test_wrong_types_in_the_companions_never_crash(tmp_path):
    task = tmp_path / "tasks" / "1"
    task.mkdir(parents=True)
    (task / "api_conversation_history.json").write_bytes(NATIVE.read_bytes())
    rows = json.loads((NATIVE.parent / "ui_messages.json").read_bytes())
    for index in range(len(rows)):
        for key in ("ts", "type", "say", "ask", "text", "partial", "conversationHistoryIndex",
                    "modelInfo"):
            for value in (None, 7, -3, "x", [], {}, ["say"], {"modelId": 3}, 2**62, 1e300):
                copy = json.loads(json.dumps(rows))
                copy[index][key] = value
                (task / "ui_messages.json").write_bytes(orjson.dumps(copy))
                (task / "task_metadata.json").write_bytes(orjson.dumps(
                    {"model_usage": [{"ts": value, "model_id": value}, value]}))
                session, _ = read_one(task / "api_conversation_history.json")
                write_checked(session, "sts")
                write_checked(session, "pi")
