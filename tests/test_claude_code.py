"""Claude Code converter: hand-written cases (one quirk each), snapshots, the corpus, real pi."""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sts.cli import main as cli_main
from sts.converters.base import Peek, ReadContext
from sts.converters.claude_code import ClaudeCodeConverter
from sts.model import ImagePart, Message, Session, StopReason, StreamedSession, ThinkingPart
from sts.problems import ConversionFailed, Problem, Problems
from sts.timestamps import iso_from_ms
from tests.support import (
    CASES,
    checked_model,
    corpus,
    detected,
    lines,
    pi_view,
    sts_messages,
    write_checked,
)

CC = CASES / "claude-code"
CONVERTER = ClaudeCodeConverter()
SINGLE_CASES = sorted(p.name for p in CC.glob("*.jsonl"))
SPOT = "v2.1.39-compaction-subagent-interrupt-queue/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
CCV_PARALLEL = (
    "v1.0.98-inline-parallel-sidechains-summary/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
)
CCV_SLASH = "v1.0.98-slash-command-split-messages/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
CCV_REMINDER = (
    "v1.0.108-inline-sidechain-system-reminder/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
)


def read(
    source: Path | bytes, policy: str = "skip", **options: Any
) -> tuple[Session, list[Problem]]:
    """Read one input with the converter (path given for files, so sub-agents are found)."""
    found: list[Problem] = []
    path = source if isinstance(source, Path) else None
    data = source.read_bytes() if isinstance(source, Path) else source
    problems = Problems(str(path or "<case>"), policy, found.append)  # type: ignore[arg-type]
    context = ReadContext(problems, path, {"subagents": True, **options})
    sessions = list(CONVERTER.read(io.BytesIO(data), context))
    assert len(sessions) == 1
    return sessions[0], found


def case(name: str, **options: Any) -> tuple[Session, list[Problem]]:
    return read(CC / name, **options)


def roles(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


def final_assistant_text(session: Session) -> str:
    return [m for m in session.messages if m.role == "assistant"][-1].text


# -- snapshots --


@pytest.mark.parametrize("name", SINGLE_CASES)
def test_snapshot(name: str, snapshot_model) -> None:
    session, _ = case(name)
    assert checked_model(session) == snapshot_model


# -- split replies, threading ---------------------------------------------------------------------


def test_split_reply_is_one_message_with_results_after_it() -> None:
    session, problems = case("split-reply.jsonl")
    assert not problems
    assert roles(session) == [("user", None), ("assistant", None), ("tool", None),
                              ("tool", None), ("assistant", None)]
    reply = session.messages[1]
    assert [c.id for c in reply.tool_calls] == ["toolu_1", "toolu_2"]
    assert reply.text == "Running ls and pwd."  # the "\n\n" block is skipped
    assert reply.content[0] == ThinkingPart("I should run ls.", "sig-A")
    assert reply.timestamp == 1770804002000  # the first line's
    assert reply.usage is not None and (reply.usage.input, reply.usage.output) == (10, 57)
    assert (reply.usage.cache_read, reply.usage.cache_write) == (100, 5)
    assert reply.provider == "anthropic" and reply.api == "anthropic-messages"
    assert reply.model == "claude-opus-4-6"
    assert [m.tool_name for m in session.messages[2:4]] == ["Bash", "Bash"]
    assert session.messages[4].stop_reason == StopReason.STOP  # end_turn
    sts = sts_messages(write_checked(session, "sts"))
    assert [m.get("toolCallId") for m in sts] == [None, None, "toolu_1", "toolu_2", None]
    header = lines(write_checked(session, "sts"))[0]
    assert header["usage"]["output"] == 57 + 42  # usage counted once per reply


def test_parallel_results_on_sibling_branches_are_kept() -> None:
    session, _ = case("parallel-results-branch.jsonl")
    assert [m.tool_call_id for m in session.messages if m.role == "tool"] == ["toolu_1", "toolu_2"]
    assert [m.text for m in session.messages] == [
        "Read both files", "", "content of x", "content of y", "x and y read."]


def test_rewind_follows_the_newest_leaf() -> None:
    session, _ = case("rewind-fork.jsonl")
    assert [m.text for m in session.messages] == [
        "Write a poem", "Roses are red.", "Make it about the sea instead", "The sea is wide."]


def test_compaction_keeps_earlier_messages_and_the_summary_once() -> None:
    session, _ = case("compaction.jsonl")
    assert roles(session) == [("user", None), ("assistant", None), ("tool", None),
                              ("system", "compaction"), ("assistant", None)]
    summary = session.messages[3]
    assert summary.text.startswith("This session is being continued")
    assert summary.tokens_before == 167094
    entries = lines(write_checked(session, "pi"))
    compactions = [e for e in entries if e["type"] == "compaction"]
    assert len(compactions) == 1 and compactions[0]["tokensBefore"] == 167094


# -- user lines --


def test_harness_text_is_never_a_prompt() -> None:
    session, _ = case("harness-user-lines.jsonl")
    assert roles(session) == [
        ("system", "caveat"), ("user", "command"), ("user", "command_prompt"),
        ("assistant", None), ("tool", None), ("system", "interrupt"),
        ("system", "task_notification"), ("system", "command_output"), ("system", "meta"),
        ("user", None), ("assistant", None), ("system", "interrupt"),
    ]
    assert session.messages[1].text == "/review src/app.py"
    assert session.messages[4].is_error is True
    assert session.name == "Now fix the bug please"
    prompts = [m.text for m in session.messages if m.role == "user" and m.kind is None]
    assert prompts == ["Now fix the bug please"]


def test_queued_steering_only_in_queue_operations_reaches_the_output() -> None:
    session, _ = case("queued-steering.jsonl")
    assert [(m.role, m.kind, m.text) for m in session.messages if m.role == "user"] == [
        ("user", None, "Run the tests"),
        ("user", "queued", "also check the linter"),  # only in the enqueue line
        ("user", None, "and then commit"),  # the enqueue copy is not repeated
        ("user", "queued", "use a short message"),  # attachment queued_command
    ]
    # The steering is placed after the tool result, never between a call and its result.
    assert roles(session)[1:4] == [("assistant", None), ("tool", None), ("user", "queued")]
    assert session.messages[3].timestamp == 1770804003000


# -- assistant content --


def test_thinking_signatures_redaction_and_synthetic_lines() -> None:
    session, _ = case("thinking-synthetic.jsonl")
    reply = session.messages[1]
    assert reply.content[0] == ThinkingPart("", "EmwKAhgBEgy3redacted", redacted=True)
    assert reply.content[1] == ThinkingPart("Real reasoning here.", "sig-2")
    assert len(reply.content) == 3  # the empty thinking block is not kept
    assert reply.reasoning == "Real reasoning here."
    assert reply.model == "claude-opus-4-6"  # the first line's model
    assert roles(session)[3:] == [("system", "api_error"), ("system", "synthetic")]
    assert session.messages[3].error_message == "API Error: Request was aborted."
    assert final_assistant_text(session) == "The answer is 4."
    sts = sts_messages(write_checked(session, "sts"))
    assert "EqQBCkYIBxgCKkB" not in str(sts) and "EmwKAhgBEgy3redacted" not in str(sts)
    assert sts[1]["reasoningContent"] == "Real reasoning here."
    pi = [e["message"] for e in lines(write_checked(session, "pi")) if e["type"] == "message"]
    thinking = [b for b in pi[1]["content"] if b["type"] == "thinking"]
    assert thinking[0] == {"type": "thinking", "thinking": "", "thinkingSignature":
                           "EmwKAhgBEgy3redacted", "redacted": True}
    assert thinking[1]["thinkingSignature"] == "sig-2"


def test_tool_results_images_errors_and_task_tail() -> None:
    session, _ = case("tool-results-images.jsonl")
    prompt = session.messages[0]
    assert type(prompt.content[0]) is ImagePart and prompt.content[0].media_type == "image/png"
    image_result, error_result, task_result = session.messages[2:5]
    assert type(image_result.content[0]) is ImagePart
    assert error_result.is_error is True and error_result.text == "Error: exit code 1"
    assert task_result.text == "The config is in pyproject.toml."  # agentId tail removed
    assert task_result.tool_name == "Task"
    pi = [e["message"] for e in lines(write_checked(session, "pi")) if e["type"] == "message"]
    assert pi[2]["content"][0]["type"] == "image"
    assert pi[0]["content"][0]["type"] == "image"
    sts = lines(write_checked(session, "sts"))
    assert sts[0]["toolErrors"] == ["toolu_2"]
    assert sts[3]["message"]["content"].startswith("[image: image/png")


# -- titles --


@pytest.mark.parametrize(("name", "title"), [
    ("title-custom.jsonl", "My renamed session"),
    ("title-summary.jsonl", "Own leaf title"),
    ("title-first-prompt.jsonl",
     "A prompt that is long enough to be cut when it becomes a title because it goes…"),
])
def test_titles(name: str, title: str) -> None:
    session, _ = case(name)
    assert session.name == title
    assert session.id == "11111111-2222-4333-8444-555555555555"
    assert (session.cwd, session.git, session.source_version) == (
        "/home/dev/proj", {"branch": "main"}, "2.1.39")
    assert session.harness == "claude-code" and session.source_format == "claude-code"


def test_session_id_falls_back_to_the_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "abc-stem.jsonl"
    path.write_bytes(b'{"type":"user","uuid":"u","parentUuid":null,"message":'
                     b'{"role":"user","content":"hi"}}\n')
    session, _ = read(path)
    assert session.id == "abc-stem" and session.messages[0].text == "hi"


# -- robustness --


def test_corrupt_lines_are_reported_with_their_line_numbers() -> None:
    session, problems = case("corrupt-lines.jsonl")
    assert [m.text for m in session.messages] == [
        "first prompt \ufffd", "first answer", "second prompt", "second answer",
        "third answer after a lost line"]
    assert sorted((p.line, p.code, p.severity) for p in problems) == [
        (2, "lone-surrogate", "warning"),
        (3, "unknown-block", "error"),
        (4, "glued-records", "warning"),
        (5, "malformed-json", "error"),
        (6, "unknown-type", "warning"),
        (8, "dangling-parent", "warning"),
        (9, "truncated-line", "error"),
    ]
    for target in ("sts", "pi"):
        write_checked(session, target)


def test_corrupt_lines_fail_under_the_fail_policy() -> None:
    with pytest.raises(ConversionFailed):
        read(CC / "corrupt-lines.jsonl", policy="fail")


def test_left_out_line_types_are_silent() -> None:
    _, problems = case("title-first-prompt.jsonl")  # summary + file-history-snapshot lines
    assert problems == []
    _, problems = case("compaction.jsonl")  # progress + compact_boundary
    assert problems == []


# -- sub-agents --


def test_inline_sidechain_becomes_a_linked_child() -> None:
    session, _ = case("inline-sidechain.jsonl")
    assert [m.text for m in session.messages if m.role != "tool"] == [
        "Explore the repo", "", "The repo has README.md and src."]
    (child,) = session.children
    assert child.key == "sidechain-1"
    assert [m.text for m in child.messages] == [
        "List the top-level files", "", "README.md\nsrc", "Top-level: README.md and src."]
    assert child.metadata["parentSessionId"] == session.id
    assert child.metadata["parentToolCallId"] == "toolu_T"
    assert session.metadata["subagentLinks"] == [
        {"key": "sidechain-1", "sessionId": "s1", "toolCallId": "toolu_T"}]
    header = lines(write_checked(session, "sts"))[0]
    assert header["subagents"] == [{"id": "s1", "key": "sidechain-1"}]
    assert write_checked(child, "pi")


def test_subagents_option_false_leaves_children_out() -> None:
    session, _ = case("inline-sidechain.jsonl", subagents=False)
    assert session.children == [] and "subagentLinks" not in session.metadata
    assert len(session.messages) == 4


def test_layout_2_1_subagents_folder() -> None:
    main = CC / "layout-2.1/project/22222222-3333-4444-8555-666666666666.jsonl"
    session, problems = read(main)
    assert problems == []
    assert [m.text for m in session.messages] == [
        "Ask the helper", "", "Found 2 TODOs.", "There are 2 TODOs."]  # no progress leak
    (child,) = session.children  # agent-acompact-* is not a sub-agent
    assert (child.key, child.id) == ("agent-abc1234", "abc1234")
    assert child.metadata["parentToolCallId"] == "toolu_T"
    assert child.metadata["parentSessionId"] == session.id
    assert child.metadata["agentType"] == "Explore"
    assert [m.role for m in child.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.metadata["subagentLinks"][0]["agentId"] == "abc1234"


def test_layout_2_0_sibling_agent_files_of_this_session_only() -> None:
    main = CC / "layout-2.0/project/33333333-4444-4555-8666-777777777777.jsonl"
    session, _ = read(main)
    (child,) = session.children  # agent-0badf00d belongs to another session
    assert child.key == "agent-deadbeef"
    assert child.metadata["parentToolCallId"] == "toolu_T"
    assert [m.text for m in child.messages] == ["Say hi", "hi"]


def test_stdin_reads_without_a_path() -> None:
    main = CC / "layout-2.1/project/22222222-3333-4444-8555-666666666666.jsonl"
    session, _ = read(main.read_bytes())
    assert session.children == [] and len(session.messages) == 4


def test_is_companion() -> None:
    sub = CC / "layout-2.1/project/22222222-3333-4444-8555-666666666666/subagents"
    assert CONVERTER.is_companion(sub / "agent-abc1234.jsonl")
    assert CONVERTER.is_companion(sub / "agent-acompact-123abc.jsonl")
    assert CONVERTER.is_companion(CC / "layout-2.0/project/agent-deadbeef.jsonl")
    assert not CONVERTER.is_companion(CC / "split-reply.jsonl")
    assert not CONVERTER.is_companion(
        CC / "layout-2.1/project/22222222-3333-4444-8555-666666666666.jsonl")


# -- sniff --


@pytest.mark.parametrize("name", SINGLE_CASES)
def test_sniff_recognises_every_case(name: str) -> None:
    data = (CC / name).read_bytes()
    assert CONVERTER.sniff(Peek(data, name, True)) >= 0.8


@pytest.mark.parametrize("data", [
    b'{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z"}\n',
    b'{"type":"session","harness":"a","id":"x"}\n{"type":"message","message":{"role":"user"}}\n',
    b'{"timestamp":"2026","type":"session_meta","payload":{}}\n',
    b'[{"role":"user","content":"hi"}]',
])
def test_sniff_rejects_other_formats(data: bytes) -> None:
    assert CONVERTER.sniff(Peek(data, "x.jsonl", True)) == 0.0


# -- CLI --


def test_cli_converts_a_projects_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli_main, ["convert", str(CC / "layout-2.1"), "-o", f"{out}/",
                                           "--from", "claude-code"])
    assert result.exit_code == 0, result.output
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    stem = "project/22222222-3333-4444-8555-666666666666"
    assert written == [f"{stem}.agent-abc1234.jsonl", f"{stem}.jsonl"]
    main = lines((out / f"{stem}.jsonl").read_bytes())
    assert main[0]["harness"] == "claude-code"
    assert main[0]["subagentLinks"][0]["toolCallId"] == "toolu_T"
    child = lines((out / f"{stem}.agent-abc1234.jsonl").read_bytes())
    assert child[0]["parentToolCallId"] == "toolu_T"
    assert child[-1]["message"]["content"] == "Found 2 TODOs."


def test_cli_no_subagents(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(cli_main, ["convert", str(CC / "layout-2.0"), "-o", f"{out}/",
                                           "--no-subagents", "--to", "pi"])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in out.rglob("*") if p.is_file())
    # agent-0badf00d belongs to a session that is not there: no main session claims it, so it
    # is converted as a session of its own (issue 12), sub-agents or not
    assert written == ["33333333-4444-4555-8666-777777777777.jsonl", "agent-0badf00d.jsonl"]


# -- the corpus --


CORPUS_FACTS = {
    # file: (main-thread roles/kinds, first and last tool call id, final assistant text start)
    SPOT: ({("tool", None): 186, ("assistant", None): 152, ("user", None): 2,
            ("system", "task_notification"): 2, ("user", "queued"): 2,
            ("system", "interrupt"): 1, ("system", "compaction"): 1},
           "toolu_01MGqJNAucDoKPyZKrzvWLmx", "toolu_011v4f3amdxz8wWL4951uemP",
           "Yes — everything is pushed and clean:"),
    CCV_PARALLEL: ({("tool", None): 11, ("assistant", None): 9, ("user", "command"): 1,
                    ("user", "command_prompt"): 1, ("user", None): 1},
                   "toolu_019okXfjnUzJkV2VZbndx6ik", "toolu_01G5fXX8sk5nLjyGcqi6LW7q",
                   "CLAUDE.md has been created with comprehensive documentation"),
    CCV_SLASH: ({("tool", None): 12, ("assistant", None): 7, ("user", "command"): 1,
                 ("user", "command_prompt"): 1},
                "toolu_01FHpVtawG6NqQ943umBMky8", "toolu_01WG87BhAT5yVaRwP1gU9Uxz",
                "I've created a basic CLAUDE.md file for this empty repositor"),
    CCV_REMINDER: ({("tool", None): 13, ("assistant", None): 10, ("user", "command"): 1,
                    ("user", "command_prompt"): 1},
                   "toolu_01NG5xcSvVWynFdbWxaW2SPc", "toolu_01FWcqW51ygiCEmjsfndBEGN",
                   "CLAUDE.mdファイルを最新の状態にアップデートしました。"),
}


@pytest.mark.parametrize("name", sorted(CORPUS_FACTS))
def test_corpus_facts(name: str) -> None:
    counts, first_call, last_call, final = CORPUS_FACTS[name]
    session, problems = read(corpus("claude-code", name))
    assert [p for p in problems if p.severity == "error"] == []
    assert Counter(roles(session)) == counts
    calls = [c.id for m in session.messages for c in m.tool_calls]
    assert (calls[0], calls[-1]) == (first_call, last_call)
    results = [m.tool_call_id for m in session.messages if m.role == "tool"]
    assert sorted(results) == sorted(calls)  # every call answered once
    assert final_assistant_text(session).startswith(final)
    assert all(m.model != "<synthetic>" for m in session.messages)
    for message in session.messages:  # each result follows its call's message
        if message.role == "tool":
            index = session.messages.index(message)
            owner = next(i for i, m in enumerate(session.messages)
                         if message.tool_call_id in [c.id for c in m.tool_calls])
            assert owner < index
            between = session.messages[owner + 1:index]
            assert all(m.role == "tool" for m in between)


def test_corpus_spot_details() -> None:
    session, _ = read(corpus("claude-code", SPOT))
    assert session.id == "258c7280-ae70-4798-800f-63464d01a85d"
    assert session.name == "Implement spotter-gqc"
    assert session.source_version == "2.1.39" and session.git == {"branch": "spotter-gqc"}
    queued = [m.text for m in session.messages if m.kind == "queued"]
    assert queued == ["check again", "new beads for the epic were added. tackle them"]
    (compaction,) = [m for m in session.messages if m.kind == "compaction"]
    assert compaction.tokens_before == 167094
    (child,) = session.children  # agent-acompact-fffbd0 is left out
    assert child.key == "agent-a881341"
    assert child.metadata["parentToolCallId"] == "toolu_01VmaERAwhb19LGUwu9GenaK"
    assert child.metadata["agentType"] == "claude-code-guide"
    assert Counter(m.role for m in child.messages) == {"assistant": 3, "tool": 2, "user": 1}
    assert child.messages[-1].text.startswith("Based on the official Claude Code hooks")
    task = next(m for m in session.messages
                if m.tool_call_id == "toolu_01VmaERAwhb19LGUwu9GenaK")
    assert "agentId:" not in task.text
    thinking = [p for m in session.messages for p in m.content if type(p) is ThinkingPart]
    assert thinking and all(p.signature == "[REDACTED_SIGNATURE]" for p in thinking)


def test_corpus_inline_sidechains_link_by_prompt() -> None:
    session, _ = read(corpus("claude-code", CCV_PARALLEL))
    assert session.name == "Thanks! Please update CLAUDE.md for current changes"  # foreign summary
    links = {c.metadata.get("parentToolCallId"): len(c.messages) for c in session.children}
    assert links == {"toolu_01LS6tcVd796SbQKmZqeVnWY": 18, "toolu_014i9ThHMNShCHocf9xMKasf": 68,
                     "toolu_01EbxY94wRUAGyMLj5wh699C": 80, "toolu_017rjDpjVPeNFmAEXNTkoP55": 50,
                     "toolu_01EPom7jESzNbU8coiKjzVGS": 106}
    assert sum(len(c.messages) for c in session.children) == 322


def _all_corpus_sessions() -> list[Path]:
    root = corpus("claude-code")
    return sorted(p for p in root.rglob("*.jsonl") if not CONVERTER.is_companion(p))


def _pi_view_of(message: dict[str, Any]) -> tuple[Any, ...]:
    role = {"toolResult": "tool"}.get(message["role"], message["role"])
    content = message["content"]
    texts = [b["text"] for b in content if b["type"] == "text"] if type(content) is list else [
        content]
    calls = tuple(b["id"] for b in content if b["type"] == "toolCall") if type(
        content) is list else ()
    return role, "\n\n".join(texts), calls, message.get("toolCallId")


def _ours(message: Message) -> tuple[Any, ...]:
    return (message.role, message.text, tuple(c.id for c in message.tool_calls),
            message.tool_call_id)


def _branch_views(branch: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    views = []
    for entry in branch:
        if entry["type"] == "message":
            views.append(_pi_view_of(entry["message"]))
        elif entry["type"] == "custom_message":
            views.append(("system", entry["content"], (), None))
        elif entry["type"] == "compaction":
            views.append(("system", entry["summary"], (), None))
    return views


def test_corpus_converts_and_real_pi_agrees() -> None:
    for path in _all_corpus_sessions():
        session, _ = read(path)
        for item in [session, *session.children]:
            write_checked(item, "sts")
            data = write_checked(item, "pi")
            (view,) = pi_view(data)
            assert view["header"]["harness"] == "claude-code"
            assert _branch_views(view["branch"]) == [_ours(m) for m in item.messages], path


def test_real_pi_loads_every_case() -> None:
    sessions = [case(name)[0] for name in SINGLE_CASES]
    views = pi_view(*(write_checked(s, "pi") for s in sessions))
    for session, view in zip(sessions, views, strict=True):
        assert view["name"] == session.name
        assert _branch_views(view["branch"]) == [_ours(m) for m in session.messages]


def test_a_replayed_tool_use_id_is_renamed_and_results_pair_in_order() -> None:
    """Two calls sharing toolu_1 (a replayed line): the second becomes toolu_1~2, the first
    result answers the first call and the second the second; the output passes validation."""
    session, problems = case("replayed-tool-use-id.jsonl")
    assert [(p.line, p.code) for p in problems] == [(4, "duplicate-call-id")]
    calls = [(c.id, c.arguments) for m in session.messages for c in m.tool_calls]
    assert calls == [("toolu_1", {"command": "ls"}), ("toolu_1~2", {"command": "ls -a"})]
    results = [(m.tool_call_id, m.tool_name, m.text) for m in session.messages if m.role == "tool"]
    assert results == [("toolu_1", "Bash", "a.txt"), ("toolu_1~2", "Bash", ".env\na.txt")]
    assert [m.role for m in session.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant"
    ]
    for target in ("sts", "pi"):
        write_checked(session, target)  # the shared validator and the real pi accept it


def test_lines_that_name_no_parent_are_kept_in_file_order() -> None:
    """Claude-Code-shaped lines without ``parentUuid`` (or all null) form no thread: all six are
    kept in file order with one warning, not only the last (issue 13 item 1)."""
    session, problems = case("unchained-lines.jsonl")
    assert [(p.line, p.code, p.severity) for p in problems] == [
        (1, "unchained-lines", "warning")]
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "List the files."), ("assistant", ""), ("tool", "a.txt\nb.txt"),
        ("assistant", "Two files: a.txt and b.txt."), ("user", "Thanks."),
        ("assistant", "You're welcome."),
    ]
    assert session.messages[1].tool_calls[0].id == session.messages[2].tool_call_id == "toolu_1"
    for target in ("sts", "pi"):
        write_checked(session, target)


def test_lines_without_chain_keys_are_detected() -> None:
    """Detection rests on what every Claude Code line has, not on parentUuid (item 2)."""
    assert detected(CASES / "claude-code" / "unchained-lines.jsonl") == "claude-code"


def test_steering_carried_only_by_a_remove_line_reaches_the_output() -> None:
    """From 2.1.205 a ``remove`` queue operation carries the steering text: where no enqueue or
    user line has it, it is the queued prompt (issue 13 item 4); the same text in an enqueue and
    its remove is one prompt."""
    session, _ = case("queued-steering-remove-2.1.205.jsonl")
    assert [(m.role, m.kind, m.text) for m in session.messages if m.role == "user"] == [
        ("user", None, "Run the tests"),
        ("user", "queued", "also check the linter"),  # only in the remove line
        ("user", None, "and then commit"),
        ("user", "queued", "use a short message"),
    ]
    both = (CC / "queued-steering.jsonl").read_bytes().replace(
        b'"operation":"remove","timestamp":"2026-02-11T10:00:03.500Z","sessionId":'
        b'"11111111-2222-4333-8444-555555555555"}',
        b'"operation":"remove","timestamp":"2026-02-11T10:00:03.500Z","sessionId":'
        b'"11111111-2222-4333-8444-555555555555","content":"also check the linter"}')
    again, _ = read(both)
    assert [m.text for m in again.messages if m.role == "user"].count("also check the linter") == 1


# -- two passes: the first keeps an index, the thread's lines are read again ----------------------


def _outputs(path: Path, streamed: bool, writer: Any) -> list[bytes]:
    """What `writer` makes of the session in `path` and of its sub-agents, read as the CLI reads
    it (`streamed`: its messages made while it is written)."""
    from sts.pipeline import released

    problems = Problems(str(path), sink=None)
    context = ReadContext(problems, path, {"subagents": True}, deferred=streamed)
    written = []
    with path.open("rb") as stream:
        for session in CONVERTER.read(stream, context):
            assert isinstance(session, StreamedSession) is streamed
            out = io.BytesIO()
            writer(session, out, messages=released(session), problems=problems)
            written.append(out.getvalue())
            for child in session.children:
                out = io.BytesIO()
                writer(child, out)
                written.append(out.getvalue())
    written.append("\n".join(str(p) for p in problems.problems).encode())
    return written


@pytest.mark.parametrize("target", ["sts", "pi"])
@pytest.mark.parametrize("name", [
    *SINGLE_CASES,
    "layout-2.1/project/22222222-3333-4444-8555-666666666666.jsonl",
    "layout-2.0/project/33333333-4444-4555-8666-777777777777.jsonl",
])
def test_a_streamed_session_writes_the_same_bytes(name: str, target: str, monkeypatch) -> None:
    from sts.converters.claude_code import session as assembly
    from sts.writers import write_pi, write_sts

    writer = write_sts if target == "sts" else write_pi
    whole = _outputs(CC / name, False, writer)
    monkeypatch.setattr(assembly, "STREAMED_FROM", 0)
    assert _outputs(CC / name, True, writer) == whole
    assert whole[0].count(b"\n") > 2  # a header and messages


def test_the_first_pass_keeps_no_record_of_a_file() -> None:
    from sts.converters.claude_code.records import NOT_HELD, read_transcript

    with (CC / "split-reply.jsonl").open("rb") as stream:
        transcript = read_transcript(stream, Problems(sink=None), again=True)
        converted = [e for e in transcript.entries if e.type in ("user", "assistant")]
        assert len(converted) == 9
        assert all(e.record is NOT_HELD and e.offset >= 0 for e in converted)
        first = transcript.load(converted[0])
    assert first is not None and first["uuid"] == converted[0].uuid


def test_a_stream_that_cannot_be_read_again_is_read_once(monkeypatch) -> None:
    from sts.converters.claude_code import session as assembly
    from sts.converters.claude_code.records import bytes_left

    class Pipe(io.RawIOBase):  # no fileno, cannot seek: standard input from a pipe
        def __init__(self, data: bytes) -> None:
            self.data = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            chunk = self.data.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    data = (CC / "split-reply.jsonl").read_bytes()
    assert bytes_left(io.BufferedReader(Pipe(data))) is None
    assert bytes_left(io.BytesIO(data)) == len(data)
    monkeypatch.setattr(assembly, "STREAMED_FROM", 0)
    context = ReadContext(Problems(sink=None), deferred=True)
    [session] = CONVERTER.read(io.BufferedReader(Pipe(data)), context)
    assert not isinstance(session, StreamedSession)
    assert session.messages == read(data)[0].messages


@pytest.mark.parametrize("changed", [b'"uuid":"u', b'"content":"List the '],
                         ids=["its uuid", "its text only"])
def test_a_line_changed_between_the_two_passes_is_reported_and_left_out(changed: bytes) -> None:
    """Also a change that keeps the line's uuid (its text edited, same length): it was written
    with the new text, exit 0."""
    from sts.converters.claude_code.records import read_transcript
    from sts.converters.claude_code.session import build_main

    data = (CC / "split-reply.jsonl").read_bytes()
    stream = io.BytesIO(data)
    found: list[Problem] = []
    problems = Problems("<case>", "skip", found.append)
    transcript = read_transcript(stream, problems, again=True)
    where = data.index(changed) + len(changed)
    stream.getbuffer()[where] = ord("X")  # the file is rewritten while it is converted
    session = build_main(transcript, ReadContext(problems), subagents=False)
    assert isinstance(session, StreamedSession)
    messages = list(session.stream)
    assert [(p.code, p.line) for p in found] == [("input-changed", 1)]
    assert messages[0].id == "a1"  # the user line is left out, the rest converted


@pytest.mark.parametrize("target", ["sts", "pi"])
def test_the_cli_writes_streamed_sessions_and_their_sub_agents_alike(
    tmp_path: Path, target: str, monkeypatch
) -> None:
    """Every case through `sts convert -o DIR/`, built whole and streamed; a copy of the 2.1
    layout whose sub-agent has no time checks that a streamed session's sub-agents still get
    their fallback time, their own file's (they are made once the session is written)."""
    import shutil

    from sts.converters.claude_code import session as assembly

    cases = tmp_path / "cases"
    shutil.copytree(CC, cases)
    agent = cases / "layout-2.1/project/22222222-3333-4444-8555-666666666666/subagents"
    agent /= "agent-abc1234.jsonl"
    undated = [{k: v for k, v in line.items() if k != "timestamp"}
               for line in lines(agent.read_bytes())]
    agent.write_text("".join(json.dumps(line) + "\n" for line in undated))

    def convert(out: Path) -> dict[str, bytes]:
        result = CliRunner().invoke(cli_main, ["convert", str(cases), "-o", f"{out}/",
                                               "--to", target, "--from", "claude-code"])
        assert result.exit_code == 1, result.output  # corrupt-lines.jsonl
        return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    whole = convert(tmp_path / "whole")
    monkeypatch.setattr(assembly, "STREAMED_FROM", 0)
    assert convert(tmp_path / "streamed") == whole
    child = "layout-2.1/project/22222222-3333-4444-8555-666666666666.agent-abc1234.jsonl"
    assert len(whole) == 22 and child in whole
    if target == "pi":
        header = lines(whole[child])[0]
        assert header["timestampFallback"] == "subagent-file-mtime"
        assert header["timestamp"] == iso_from_ms(agent.stat().st_mtime_ns // 1_000_000)


def test_unknown_records_of_a_sub_agent_file_are_all_counted(tmp_path: Path) -> None:
    layout = shutil.copytree(CC / "layout-2.1", tmp_path / "layout")
    agent = layout / "project/22222222-3333-4444-8555-666666666666/subagents/agent-abc1234.jsonl"
    with agent.open("a") as out:
        for n in range(3):
            out.write(f'{{"type":"hook-fired","uuid":"h{n}","sessionId":"s"}}\n')
    result = CliRunner().invoke(cli_main, ["convert", str(layout / "project"), "-o",
                                           f"{tmp_path / 'out'}/"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "[unknown-type]" in line]
    assert len(warnings) == 2 and all(line.startswith(f"{agent}:") for line in warnings)
    assert "2 more record(s) of" in warnings[1]
