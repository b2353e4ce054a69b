"""Codex rollout converter: hand-written cases per generation and quirk, snapshots, the corpus."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from sts.converters.base import Peek, ReadContext
from sts.converters.codex import CodexConverter
from sts.model import Message, Session, StopReason
from sts.problems import Problem, Problems
from tests.support import (
    CASES,
    checked_model,
    corpus,
    line_codes,
    lines,
    pi_agrees,
    pi_view,
    sts_messages,
    write_checked,
)

CODEX_CASES = CASES / "codex"
CASE_FILES = sorted(p.name for p in CODEX_CASES.iterdir())
CORPUS_FILES = (
    "codex_v0104_desktop_redacted_long_compaction_replacement_history.jsonl",
    "codex_v0104_desktop_redacted_mcp_tool_calls.jsonl",
    "codex_v0104_desktop_redacted_small_inprogress_unanswered_call.jsonl",
    "codex_v0125_cli_real_2turns_exec_command_write_stdin_apply_patch_extended_events.jsonl",
    "codex_v0146_handmade_schema_coverage_fixture_newest_kinds.jsonl",
)
REAL_0125 = CORPUS_FILES[3]


def read_sessions(
    source: Path | bytes, fmt: str = "codex", policy: str = "skip", **options
) -> tuple[list[Session], list[Problem]]:
    """Like `tests.support.read_sessions`, with the Codex converter itself (no registry)."""
    assert fmt == "codex"
    found: list[Problem] = []
    problems = Problems(str(source) if isinstance(source, Path) else "<case>", policy,
                        found.append)  # type: ignore[arg-type]
    data = source.read_bytes() if isinstance(source, Path) else source
    path = source if isinstance(source, Path) else None
    context = ReadContext(problems, path, {"subagents": True, **options})
    sessions = list(CodexConverter().read(io.BytesIO(data), context))
    problems.close()
    return sessions, found


def read_case(name: str, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(CODEX_CASES / name, "codex", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def roles(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


def codes(problems) -> list[str]:
    return [p.code for p in problems]


# -- snapshots: every case, both targets ----------------------------------------------------


@pytest.mark.parametrize("name", CASE_FILES)
def test_case_snapshot(name, snapshot_model):
    session, _ = read_case(name)
    assert checked_model(session) == snapshot_model


# -- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "least"),
    [("envelope_basic.jsonl", 0.9), ("envelope_v0148_ordinal_no_user_events.jsonl", 0.9),
     ("legacy_no_envelope.jsonl", 0.8), ("typescript_cli.json", 0.9)],
)
def test_sniff_recognises_every_generation_from_the_head(name, least):
    data = (CODEX_CASES / name).read_bytes()
    assert CodexConverter().sniff(Peek(data, name, True)) >= least
    # A head cut in the middle of a line still sniffs (JSONL generations).
    if name.endswith(".jsonl"):
        assert CodexConverter().sniff(Peek(data[: len(data) // 2], name, False)) >= 0.8


def test_sniff_large_typescript_document_from_its_head():
    head = b'{\n  "session": {\n    "timestamp": "2025-04-20T08:30:00Z",\n    "id": "x"\n  },\n'
    head += b'  "items": [\n    {"type": "message", "role": "user", "content": ['
    assert CodexConverter().sniff(Peek(head, "rollout-2025-04-20-x.json", False)) >= 0.5


@pytest.mark.parametrize(
    "data",
    [b'{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n',
     b'{"type":"session","harness":"x","id":"s"}\n{"type":"message","message":{"role":"user",'
     b'"content":"hi"}}\n',
     b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}\n',
     b'[{"role":"user","content":"hi"}]'],
)
def test_sniff_rejects_other_formats(data):
    assert CodexConverter().sniff(Peek(data, "x.jsonl", True)) == 0.0


# -- generations ----------------------------------------------------------------------------


def test_envelope_basic_conversation_and_metadata():
    session, problems = read_case("envelope_basic.jsonl")
    assert problems == []
    assert session.id == "11111111-2222-4333-8444-555555555555"
    assert session.name == "How many tests are there?"
    assert session.harness == "codex" and session.source_format == "codex"
    assert session.source_version == "0.110.0"
    assert session.cwd == "/home/dev/proj"
    assert session.git == {"commit_hash": "abc123", "branch": "main",
                           "repository_url": "git@example.com:dev/proj.git"}
    assert session.started_at == 1772359200000
    assert session.metadata["originator"] == "codex_cli_rs"
    assert roles(session) == [
        ("system", "system_prompt"), ("system", "developer"), ("system", "injected_context"),
        ("user", None), ("assistant", None), ("tool", None), ("assistant", None),
    ]
    system_prompt, developer, injected, user, first, result, final = session.messages
    assert system_prompt.text == "You are Codex, a coding agent."
    assert developer.text.startswith("<permissions instructions>")
    assert "<collaboration_mode>" in developer.text
    # AGENTS.md and environment_context parts of one user message: one system message.
    assert len(injected.content) == 2 and "<environment_context>" in injected.text
    assert user.text == "How many tests are there?" and user.timestamp == 1772359201000
    # Reasoning once (the agent_reasoning event is a mirror), no encrypted content anywhere.
    assert first.reasoning == "**Counting tests**"
    assert first.text == "I'll count them."
    assert [c.id for c in first.tool_calls] == ["call_count"]
    assert first.tool_calls[0].arguments == {"cmd": "ls tests | wc -l", "workdir": "/home/dev/proj"}
    assert first.model == "gpt-5.3-codex"
    assert first.provider == "openai" and first.api == "openai-responses"
    # Two identical token_count events count once; input excludes the cached part.
    assert (first.usage.input, first.usage.cache_read, first.usage.output) == (800, 200, 50)
    assert result.tool_call_id == "call_count" and result.tool_name == "exec_command"
    assert result.is_error is False
    assert final.text == "There are 12 tests." and final.usage.input == 300
    for target in ("sts", "pi"):
        assert b"gAAAA" not in write_checked(session, target)


def test_file_without_user_message_events_loses_nothing():
    session, problems = read_case("envelope_v0148_ordinal_no_user_events.jsonl")
    assert problems == []
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "Rename the app to Orbit"),
        ("assistant", "Done: the app is now called Orbit."),
    ]
    assert session.name == "Rename to Orbit"  # thread_name_updated wins over the prompt
    assert session.messages[0].id == "msg_u1"
    assert session.messages[1].model == "gpt-5.6"  # from world_state: no turn_context here
    assert session.metadata["historyMode"] == "paginated"


def test_legacy_jsonl_without_envelope():
    session, problems = read_case("legacy_no_envelope.jsonl")
    assert problems == []
    assert session.id == "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
    assert session.metadata["codexFormat"] == "legacy"
    assert session.git["branch"] == "dev"
    assert session.cwd == "/tmp/x"  # no header cwd: the one its environment context told
    assert read_case("legacy_no_envelope.jsonl", drop_injected=True)[0].cwd == "/tmp/x"
    assert roles(session) == [
        ("system", "system_prompt"), ("system", "injected_context"), ("user", None),
        ("assistant", None), ("tool", None), ("assistant", None), ("tool", None),
        ("assistant", None),
    ]
    assert all(m.timestamp is None and m.model is None for m in session.messages)
    shell = session.messages[3]
    assert shell.reasoning == "Use date."
    call = shell.tool_calls[0]
    assert (call.id, call.name, call.arguments["command"]) == ("call_date", "local_shell", ["date"])
    assert session.messages[4].text == "Tue Jul  1 12:00:01 UTC 2025\n"
    assert session.messages[4].is_error is False
    assert session.messages[6].is_error is True  # exit_code 1 in the JSON-in-string output


def test_cwd_from_the_first_tool_workdir_when_nothing_else_names_it():
    session, problems = read_case("legacy_workdir_only.jsonl")
    assert problems == []
    assert session.cwd == "/srv/app"  # the first call's, not the later /srv/app/logs
    told, _ = read_case("legacy_no_envelope.jsonl")  # environment context over a tool's
    assert told.cwd == "/tmp/x"


def test_typescript_json_document():
    session, problems = read_case("typescript_cli.json")
    assert problems == []
    assert session.id == "c0ffee00-1234-4abc-8def-000000000001"
    assert session.metadata["codexFormat"] == "typescript"
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "Always answer in French."), ("user", "What is 2+2?"), ("assistant", ""),
        ("tool", "4\n"), ("assistant", "Cela fait 4."),
    ]
    assert session.messages[2].tool_calls[0].id == "call_py"
    assert session.messages[4].model is None  # the file has no model: none is invented


def test_typescript_document_on_one_line_and_from_stdin():
    data = (CODEX_CASES / "typescript_cli.json").read_bytes().replace(b"\n", b"")
    sessions, problems = read_sessions(data, "codex")
    assert problems == [] and sessions[0].messages[-1].text == "Cela fait 4."


# -- tools ----------------------------------------------------------------------------------


def test_tool_calls_outputs_and_exit_codes():
    session, problems = read_case("tools_and_outputs.jsonl")
    assert line_codes(problems) == [(21, "orphan-result")]  # call_nobody, reported by the builder
    calls = {c.id: c for m in session.messages for c in m.tool_calls}
    results = {m.tool_call_id: m for m in session.messages if m.role == "tool"}
    # apply_patch freeform input becomes {"input": <patch text>}.
    assert calls["call_patch"].arguments == {"input": "*** Begin Patch\n*** Add File: a.txt\n"
                                                      "+hello\n*** End Patch\n"}
    assert results["call_patch"].text == "a.txt already exists\n"
    assert results["call_patch"].is_error is True
    # Invalid JSON arguments are kept verbatim.
    assert calls["call_badjson"].arguments is None
    assert calls["call_badjson"].raw_arguments == '{"command": "cat a.txt", "workdir": "/w"'
    assert results["call_badjson"].is_error is True  # "Exit code: 2"
    # Output that merely is JSON is kept as written, not re-serialised.
    assert results["call_json"].text == '{"name": "demo", "version": "1.0.0"}'
    assert results["call_json"].is_error is None
    # web_search_call: the id from the web_search_end before it, else a stable synthetic one.
    assert calls["ws_abc"].name == "web_search"
    assert calls["ws_abc"].arguments == {"type": "search", "query": "orbit release"}
    assert calls["web_search_2"].arguments["type"] == "open_page"
    assert "ws_abc" not in results  # no output item: the call stays unanswered
    assert results["call_mcp"].is_error is True  # mcp_tool_call_end Err
    assert calls["call_mcp"].name == "mcp__docs__lookup"
    image_result = results["call_img"]
    assert [type(p).__name__ for p in image_result.content] == ["TextPart", "ImagePart"]
    assert image_result.content[1].media_type == "image/png"
    assert calls["call_plan"].arguments == {"plan": [{"step": "patch", "status": "completed"}]}
    assert results["call_nobody"].tool_name is None  # orphan result kept, no crash
    assert "call_unanswered" in calls and "call_unanswered" not in results
    sts = sts_messages(write_checked(session, "sts"))
    assert sts[0]["content"].endswith("[image: image/png, 16 B]")
    pi = write_checked(session, "pi")
    assert b'"_raw":"{\\"command\\": \\"cat a.txt\\"' in pi


def test_model_per_turn_and_injected_notices():
    session, problems = read_case("model_change_and_notices.jsonl")
    assert problems == []
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert [m.model for m in assistants] == ["gpt-5.4", "gpt-5.5", "gpt-5.5"]
    users = [m.text for m in session.messages if m.role == "user"]
    # A prompt that merely mentions a tag is not context (Codex needs open and close markers).
    assert users == ["first question", "second question, with a skill",
                     "<environment_context> is a tag I saw, what does it mean?"]
    injected = [m.text.split("\n", 1)[0] for m in session.messages
                if m.kind == "injected_context"]
    assert injected == ["<user_shell_command>", "<skill>", "<turn_aborted>",
                        "<subagent_notification>"]
    assert assistants[1].reasoning == "raw thinking from an open-weight model"
    assert assistants[1].stop_reason == StopReason.ABORTED  # turn_aborted event


def test_drop_injected_option():
    session, _ = read_case("model_change_and_notices.jsonl", drop_injected=True)
    assert all(m.kind != "injected_context" for m in session.messages)
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant",
                                                  "user", "assistant"]
    basic, _ = read_case("envelope_basic.jsonl", drop_injected=True)
    assert [m.kind for m in basic.messages if m.role == "system"] == ["system_prompt",
                                                                     "developer"]


# -- compaction, rollback, forks ------------------------------------------------------------


def test_compaction_is_a_marker_and_history_is_not_replayed():
    session, problems = read_case("compaction.jsonl")
    assert problems == []
    assert [(m.role, m.text) for m in session.messages] == [
        ("user", "build the parser"), ("assistant", "Parser built."),
        ("system", "Summary: the user asked for a parser; it was built."),
        ("user", "now add tests"), ("assistant", "Tests added."),
        ("system", "[context compacted]"), ("user", "thanks"),
    ]
    markers = [m for m in session.messages if m.kind == "compaction"]
    assert len(markers) == 2 and markers[0].tokens_before == 90500
    assert markers[1].tokens_before is None
    assert session.messages[4].usage is None  # all-zero usage after compaction is ignored
    view = pi_view(write_checked(session, "pi"))[0]
    kinds = [e["type"] for e in view["branch"]]
    assert kinds.count("compaction") == 2


def test_rollback_drops_the_rolled_back_turns():
    session, problems = read_case("rollback.jsonl")
    assert problems == []
    assert [m.text for m in session.messages] == [
        "turn one", "answer one", "turn two, asked differently", "answer two, again"]


def test_keep_rolled_back_option_marks_them():
    session, _ = read_case("rollback.jsonl", keep_rolled_back=True)
    assert [m.text for m in session.messages if m.rolled_back] == [
        "turn two (to be undone)", "", "", "answer two"]
    notice = session.messages[6]
    assert (notice.role, notice.kind) == ("system", "rollback")
    assert session.messages[-1].text == "answer two, again"
    assert len(session.messages) == 9


def test_fork_and_subagent_links_in_header():
    session, problems = read_case("fork_subagent.jsonl")
    assert problems == []
    assert session.id == "66666666-0000-4000-8000-000000000006"  # the first session_meta
    header = lines(write_checked(session, "sts"))[0]
    assert header["forkedFromId"] == "77777777-0000-4000-8000-000000000007"
    assert header["parentThreadId"] == "77777777-0000-4000-8000-000000000007"
    assert header["threadSource"] == "subagent"
    assert header["agentNickname"] == "scout" and header["agentRole"] == "explorer"
    pi_header = lines(write_checked(session, "pi"))[0]
    assert pi_header["forkedFromId"] == header["forkedFromId"]


def test_parent_thread_id_from_thread_spawn_source():
    data = (b'{"timestamp":"2026-06-01T12:00:00Z","type":"session_meta","payload":{"id":"c1",'
            b'"source":{"subagent":{"thread_spawn":{"parent_thread_id":"p1","depth":1}}}}}\n')
    sessions, _ = read_sessions(data, "codex")
    assert sessions[0].metadata["parentThreadId"] == "p1"


# -- robustness -----------------------------------------------------------------------------


def test_unknown_types_are_skipped_and_counted():
    session, problems = read_case("unknown_and_broken.jsonl")
    assert [(p.line, p.code, p.severity) for p in problems] == [
        (4, "unknown-type", "warning"), (6, "unknown-type", "warning"),
        (7, "unknown-type", "warning"), (12, "bad-timestamp", "warning"),
        (13, "truncated-line", "error"), (5, "unknown-type", "warning"),
    ]
    assert problems[0].text.startswith("record type 'hologram' skipped: not known to this version")
    assert problems[-1].text == "1 more record(s) of record type 'hologram' skipped"
    assert [m.text for m in session.messages] == ["hello", "hi\n\nstill here"]
    assert session.messages[1].provider == "azure" and session.messages[1].api is None


def test_fail_policy_stops_at_broken_input_not_at_unknown_types():
    from sts.problems import ConversionFailed

    with pytest.raises(ConversionFailed) as failed:
        read_sessions(CODEX_CASES / "unknown_and_broken.jsonl", "codex", policy="fail")
    assert (failed.value.problem.line, failed.value.problem.code) == (13, "truncated-line")


def test_session_id_from_file_name_when_no_session_meta(tmp_path):
    path = tmp_path / "rollout-2025-06-01T10-00-00-0196b5a1-1111-7222-8333-444455556666.jsonl"
    path.write_bytes(b'{"type":"message","role":"user","content":[{"type":"input_text",'
                     b'"text":"hi"}]}\n')
    problems = Problems("x", "skip", None)
    context = ReadContext(problems, path, {})
    with path.open("rb") as stream:
        (session,) = CodexConverter().read(stream, context)
    assert session.id == "0196b5a1-1111-7222-8333-444455556666"
    assert session.messages[0].text == "hi"


def test_a_cut_first_line_costs_that_line_only():
    """The first line is not JSON, but the lines after it are records: JSONL, not a document."""
    rows = (CODEX_CASES / "envelope_basic.jsonl").read_bytes().split(b"\n")
    cut = b"\n".join([rows[0][:60], *rows[1:]])
    (session,), problems = read_sessions(cut, "codex")
    assert [(p.line, p.code) for p in problems] == [(1, "malformed-json")]
    (whole,), _ = read_sessions(b"\n".join(rows), "codex")
    assert whole.messages[0].kind == "system_prompt"  # from session_meta, the line lost
    assert [m.text for m in session.messages] == [m.text for m in whole.messages[1:]]


def test_a_cut_pretty_printed_document_is_one_error():
    data = (CODEX_CASES / "typescript_cli.json").read_bytes()
    sessions, problems = read_sessions(data[: len(data) // 2], "codex")
    assert sessions == [] and [p.code for p in problems] == ["truncated-document"]


def test_a_lone_surrogate_in_a_one_line_document_is_repaired():
    data = (CODEX_CASES / "typescript_cli.json").read_bytes().replace(b"\n", b"")
    data = data.replace(b"Cela fait 4.", b"Cela \\ud800fait 4.")
    (session,), problems = read_sessions(data, "codex")
    assert [(p.line, p.code) for p in problems] == [(None, "lone-surrogate")]
    assert session.messages[-1].text == "Cela \ufffdfait 4."


def test_empty_input_yields_no_session():
    assert read_sessions(b"", "codex")[0] == []
    assert read_sessions(b"\n\n", "codex")[0] == []


def test_long_first_prompt_is_shortened_for_the_name():
    prompt = "word " * 40
    data = ('{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":'
            '"message","role":"user","content":[{"type":"input_text","text":"PROMPT"}]}}\n')
    data = data.replace("PROMPT", prompt)
    sessions, _ = read_sessions(data.encode(), "codex")
    assert len(sessions[0].name) == 80 and sessions[0].name.endswith("…")


# -- the corpus -----------------------------------------------------------------------------


def no_duplicates(session: Session) -> None:
    """No message appears twice in a row, and every tool call id is unique."""
    ids = [c.id for m in session.messages for c in m.tool_calls]
    assert len(ids) == len(set(ids))
    for a, b in zip(session.messages, session.messages[1:], strict=False):
        if a.role in ("user", "assistant") and a.role == b.role:
            assert (a.text, a.tool_calls) != (b.text, b.tool_calls)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_converts_validly_and_pi_agrees(name):
    path = corpus("codex", name)
    sessions, problems = read_sessions(path, "codex")
    assert len(sessions) == 1
    session = sessions[0]
    allowed = {"unknown-record", "duplicate-call-id", "orphan-result"}
    if "handmade" in name:  # its times are "[trimmed for fixture]" too
        allowed.add("bad-timestamp")
    assert {p.code for p in problems} <= allowed
    if "handmade" not in name:  # the fixture's ids are all "[trimmed for fixture]"
        no_duplicates(session)
    pi_agrees(session)


def test_corpus_real_0125_facts():
    path = corpus("codex", REAL_0125)
    (session,), problems = read_sessions(path, "codex")
    assert problems == []
    assert session.id == "019e1625-789d-76c0-80ab-3724b5ddb799"
    assert session.name == "show tools"
    assert session.source_version == "0.125.0"
    assert session.metadata["originator"] == "codex-tui"
    assert [m.text for m in session.messages if m.role == "user"] == [
        "show tools", "let's update the defailt context compart to 90 in env var"]
    injected = [m for m in session.messages if m.kind == "injected_context"]
    assert len(injected) == 1
    assert injected[0].text.startswith("# AGENTS.md instructions for /Users/Sample_User/")
    assert "<environment_context>" in injected[0].text
    calls = [c for m in session.messages for c in m.tool_calls]
    names = Counter(c.name for c in calls)
    # 99 function_call + 3 custom_tool_call + 3 web_search_call items in the file.
    assert len(calls) == 105
    assert names["apply_patch"] == 3 and names["web_search"] == 3 and names["update_plan"] == 2
    assert calls[0].id == "call_Y2p6KmqwoTtpi6atpDPuxC5M"
    assert [c.id for c in calls if c.name == "web_search"] == [
        "ws_023bc037ca71df15016a0195bb758c819ba5b12d072d9bb0ae",
        "ws_023bc037ca71df15016a019620b190819ba7eace465d2dd516",
        "ws_023bc037ca71df15016a019633e7cc819bbd3924bbd3e48ff1",
    ]
    results = [m for m in session.messages if m.role == "tool"]
    assert len(results) == 102  # 99 + 3 outputs; web searches have none
    patch = next(m for m in results if m.tool_call_id == "call_0gOiGGSkJEBvvlrXtBn0xzwL")
    assert patch.text == ("Success. Updated the following files:\n"
                          "M src/agents/plugins/__tests__/codemie-code-reasoning.test.ts\n")
    assert patch.is_error is False
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert {m.model for m in assistants} == {"gpt-5.5"}
    assert assistants[-1].text.startswith("Implemented the default context compaction setting")
    assert assistants[-1].timestamp == 1778489097895
    # Usage: the summed last_token_usage equals the file's final cumulative total.
    used = [m.usage for m in assistants if m.usage]
    assert sum(u.input + u.cache_read for u in used) == 6055836
    assert sum(u.output for u in used) == 9118
    assert all(m.reasoning is None for m in assistants)  # encrypted-only reasoning


def test_corpus_desktop_mcp_and_unanswered_facts():
    (mcp,), _ = read_sessions(corpus("codex", CORPUS_FILES[1]), "codex")
    calls = [c for m in mcp.messages for c in m.tool_calls]
    assert len(calls) == 5 and calls[0].id == "call_OIMY41RetdVChp5U51mMLGOD"
    assert calls[0].name == "mcp__cloud-associates__search_workflows"
    # Redacted arguments are placeholders, not JSON: kept verbatim.
    assert calls[0].raw_arguments == "[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]"
    assert {m.model for m in mcp.messages if m.role == "assistant"} == {"gpt-5.3-codex"}
    # Two token_count events per request: six requests, six usages.
    assert sum(1 for m in mcp.messages if m.usage) == 6

    (small,), _ = read_sessions(corpus("codex", CORPUS_FILES[2]), "codex")
    last = small.messages[-1]
    assert last.role == "assistant"
    assert [c.id for c in last.tool_calls] == ["call_UtYwHmwWekzvq83m8Rb9K8jJ"]
    assert last.reasoning == "[REDACTED_TEXT len=34 sha=c8b34894]"  # once, not twice
    assert last.text == "[REDACTED_TEXT len=124 sha=7a220b7e]"
    assert small.metadata["originator"] == "Codex Desktop"


def test_corpus_long_compaction_facts():
    (session,), problems = read_sessions(corpus("codex", CORPUS_FILES[0]), "codex")
    assert problems == []
    markers = [m for m in session.messages if m.kind == "compaction"]
    assert len(markers) == 1 and markers[0].text == "[REDACTED_MESSAGE len=0 sha=e3b0c442]"
    calls = [c for m in session.messages for c in m.tool_calls]
    # 316 function_call + 49 custom_tool_call + 7 web_search_call, none replayed.
    assert len(calls) == 372
    assert sum(1 for m in session.messages if m.role == "tool") == 365
    # The 346 message items: 45 developer + 46 user + 255 assistant texts (none duplicated
    # by the replacement history or by the 255 agent_message events).
    texts = sum(len([p for p in m.content if type(p).__name__ == "TextPart"])
                for m in session.messages if m.role == "assistant")
    assert texts == 255


def test_corpus_handmade_fixture_facts():
    (session,), problems = read_sessions(corpus("codex", CORPUS_FILES[4]), "codex")
    # Its ids are all "[trimmed for fixture]": repeated call ids are renamed, with a warning;
    # the output written before any such call answers none. Its 17 line times are trimmed too:
    # each reported, left out.
    bad = [p for p in problems if p.code == "bad-timestamp"]
    assert len(bad) == 17 and all("'[trimmed for fixture]' not a time" in p.text for p in bad)
    assert [p.code for p in problems if p not in bad] == [
        "orphan-result", "duplicate-call-id", "duplicate-call-id"]
    trimmed = [c.id for m in session.messages for c in m.tool_calls if c.id.startswith("[trim")]
    assert trimmed == ["[trimmed for fixture]", "[trimmed for fixture]~2",
                       "[trimmed for fixture]~3"]
    assert session.id == "019fc8be-3658-7ca3-9e29-000000000000"
    assert session.name == "[trimmed for fixture]"  # thread_name_updated
    first_user = next(m for m in session.messages if m.role == "user")
    assert first_user.text == "List the files" and first_user.id == "msg-1"
    calls = [c.id for m in session.messages for c in m.tool_calls]
    assert calls[:4] == ["call-1", "call-2", "call-3", "ws-1"]
    result = next(m for m in session.messages if m.tool_call_id == "call-2")
    assert result.text == "a.txt\n"  # an object output, tolerated


def _message_count(session: Session, role: str) -> int:
    return sum(1 for m in session.messages if m.role == role)


def test_stream_without_path_works():
    data = (CODEX_CASES / "envelope_basic.jsonl").read_bytes()
    problems = Problems("<stdin>", "skip", None)
    (session,) = CodexConverter().read(io.BytesIO(data), ReadContext(problems, None, {}))
    assert _message_count(session, "assistant") == 2
    assert isinstance(session.messages[0], Message)


def test_two_calls_sharing_a_call_id_each_get_their_own_result():
    """Two calls with one call_id: the second becomes call_x~2; the first output (and exit
    code) answers the first call, the second the second; the output passes validation."""
    session, problems = read_case("shared_call_id.jsonl")
    assert line_codes(problems) == [(5, "duplicate-call-id")]
    calls = [(c.id, c.arguments) for m in session.messages for c in m.tool_calls]
    assert calls == [("call_x", {"command": ["pwd"]}), ("call_x~2", {"command": ["ls"]})]
    results = [(m.tool_call_id, m.text, m.is_error) for m in session.messages if m.role == "tool"]
    assert results == [("call_x", "/w", False), ("call_x~2", "ls: cannot open directory", True)]
    for target in ("sts", "pi"):
        write_checked(session, target)


def test_legacy_instructions_are_one_system_message_not_two():
    """The header's ``instructions`` and the ``<user_instructions>`` message repeating them are
    one system message (issue 13 item 6); other injected context stays."""
    session, problems = read_case("legacy_instructions_repeated.jsonl")
    assert problems == []
    assert roles(session) == [
        ("system", "system_prompt"), ("system", "injected_context"), ("user", None),
        ("assistant", None),
    ]
    assert session.messages[0].text == "Always run the tests.\nPrefer small diffs."
    assert session.messages[1].text.startswith("<environment_context>")


def test_web_search_call_with_its_own_id_and_query():
    """A ``web_search_call`` carrying ``call_id`` and ``query`` keeps both (issue 13 item 5)."""
    session, problems = read_case("web_search_call_id_query.jsonl")
    assert problems == []
    calls = [call for m in session.messages for call in m.tool_calls]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("ws_abc", "web_search", {"query": "latest python release"}),
        ("ws_def", "web_search", {"type": "search", "query": "python 3.14 release date"}),
    ]
