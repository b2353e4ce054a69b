"""The Pi reader: hand-written cases (one quirk each), pi's own view as the oracle, the corpus."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from sts.building import RENAME
from sts.converters.base import Peek, ReadContext
from sts.converters.pi import PiConverter
from sts.converters.sts import StsConverter
from sts.model import ImagePart, Session, StreamedSession, ThinkingPart
from sts.problems import Problems
from tests.pi_compare import expected, ours
from tests.support import (
    CASES,
    SAMPLES,
    checked_model,
    corpus,
    line_codes,
    pi_view,
    sts_messages,
    write_checked,
)


def read_sessions(path: Path, fmt: str = "pi", **options) -> tuple[list[Session], list]:
    """Read with PiConverter itself (not the registry), so this file tests the reader alone."""
    assert fmt == "pi"
    found: list = []
    problems = Problems(str(path), "skip", found.append)
    context = ReadContext(problems, path, {"subagents": True, **options})
    return list(PiConverter().read(io.BytesIO(path.read_bytes()), context)), found

PI_CASES = CASES / "pi"
CASE_FILES = sorted(PI_CASES.glob("*.jsonl"))
PI_SAMPLES = [SAMPLES / "pi-v3-session.jsonl", SAMPLES / "pi-v1-session.jsonl"]
CORPUS_FILES = (
    "v1-before-compaction-thinking-bash.jsonl",
    "v1-compaction-images-malformed-line.jsonl",
    "v1-large-session-aborted-error.jsonl",
    "v3-branching-compaction-unknown-entry-fixture.jsonl",
    "v3-real-pi0.74-fixture-provider-two-compactions.jsonl",
)


def read_one(path: Path, **options) -> tuple[Session, list]:
    sessions, problems = read_sessions(path, "pi", **options)
    assert len(sessions) == 1
    return sessions[0], problems


def case(name: str, **options) -> tuple[Session, list]:
    return read_one(PI_CASES / f"{name}.jsonl", **options)


def texts(session: Session) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in session.messages]


# snapshots: every case x both targets ---------------------------------------------------------


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_case_snapshot(path: Path, snapshot_model) -> None:
    sessions, _ = read_sessions(path, "pi")
    assert len(sessions) == 1
    assert checked_model(sessions) == snapshot_model


# the tree and the leaf ------------------------------------------------------------------------


def test_label_leaf_on_older_branch_picks_that_branch() -> None:
    session, problems = case("branch-label-leaf")
    assert texts(session) == [
        ("user", "Name a colour."), ("assistant", "Blue."),
        ("user", "Another one?"), ("assistant", "Green."),
    ]
    assert [m.id for m in session.messages] == ["u1", "a1", "u2", "a2"]
    assert line_codes(problems) == [(None, "other-branches")]


def test_all_branches_yields_the_other_leaf_after_main() -> None:
    sessions, problems = read_sessions(PI_CASES / "branch-label-leaf.jsonl", "pi",
                                       all_branches=True)
    main, other = sessions
    assert (main.key, other.key) == ("main", "branch-a3")
    assert other.id == "case-branch-label-leaf.branch-a3"
    assert other.metadata == {"mainSession": "case-branch-label-leaf", "leafId": "a3"}
    assert texts(other) == [
        ("user", "Name a colour."), ("assistant", "Blue."),
        ("user", "Name a fruit instead."), ("assistant", "Apple."),
    ]
    assert problems == []


def test_all_branches_on_a_linear_file_keeps_one_session_without_key() -> None:
    sessions, _ = read_sessions(PI_CASES / "compaction.jsonl", "pi", all_branches=True)
    assert len(sessions) == 1 and sessions[0].key is None


def test_several_roots_and_a_missing_parent() -> None:
    session, problems = case("several-roots")
    assert line_codes(problems) == [(None, "other-branches")]
    assert texts(session) == [
        ("user", "My parent is missing, so I am a root."),
        ("assistant", "Answer under the missing parent."),
    ]
    sessions, _ = read_sessions(PI_CASES / "several-roots.jsonl", "pi", all_branches=True)
    assert [s.key for s in sessions] == ["main", "branch-a1", "branch-a2"]
    assert [m.text for m in sessions[2].messages] == [
        "Second root question.", "Second root answer."
    ]


def test_malformed_line_is_skipped_and_breaks_the_chain_as_in_pi() -> None:
    session, problems = case("malformed-line")
    assert (3, "malformed-json") in line_codes(problems)
    # a1 is unreadable, so u2's parent is missing: u2 is a root, as pi sees it
    assert texts(session) == [("user", "Are you there?"), ("assistant", "Yes.")]


def test_glued_line_is_dropped_whole_not_split() -> None:
    session, problems = case("glued-line")
    assert line_codes(problems) == [(4, "malformed-json")]
    assert texts(session) == [("user", "Fix the typo."), ("assistant", "Fixed.")]


def test_unknown_entry_role_and_blocks_are_reported_and_skipped() -> None:
    session, problems = case("unknown-entry")
    assert line_codes(problems) == [
        (2, "unknown-block"), (3, "unknown-type"), (4, "unknown-role"), (5, "unknown-block"),
    ]
    assert texts(session) == [
        ("user", "Summarise the log."), ("assistant", "The log shows two restarts."),
    ]


# compaction -----------------------------------------------------------------------------------


def test_compaction_keeps_everything_once_in_place() -> None:
    session, problems = case("compaction")
    assert problems == []
    assert [(m.role, m.kind, m.id) for m in session.messages] == [
        ("user", None, "u1"), ("assistant", None, "a1"), ("user", None, "u2"),
        ("assistant", None, "a2"), ("system", "compaction", "c1"), ("user", None, "u3"),
        ("assistant", None, "a3"), ("system", "compaction", "c2"), ("user", None, "u4"),
    ]
    first, second = session.messages[4], session.messages[7]
    assert first.text == "Steps one and two are done."
    assert (first.tokens_before, first.first_kept_id) == (4200, "u2")
    # firstKeptEntryId names the root model_change: the first message after it is u1
    assert (second.tokens_before, second.first_kept_id) == (5100, "u1")


def test_v1_compaction_index_counts_the_header() -> None:
    session, problems = case("v1-compaction")
    assert problems == []
    compaction = next(m for m in session.messages if m.kind == "compaction")
    # index 3 is the thinking_level_change; the first message at or after it is entry 4
    assert (compaction.tokens_before, compaction.first_kept_id) == (900, "00000004")
    assert next(m for m in session.messages if m.id == "00000004").text == "Now read b.txt."
    assert [m.id for m in session.messages] == [
        "00000001", "00000002", "00000004", "00000005", "00000006", "00000008", "00000009",
    ]


def test_v1_header_model_and_changes_fill_assistants_without_one() -> None:
    session, _ = case("v1-header-model")
    first, second = [m for m in session.messages if m.role == "assistant"]
    assert (first.provider, first.model, first.extras) == (
        "anthropic", "claude-sonnet-4-5", {"thinking_level": "off"}
    )
    assert (second.provider, second.model, second.extras) == (
        "openai", "gpt-5.1-codex", {"thinking_level": "medium"}
    )
    assert session.metadata["branchedFrom"].endswith("_old.jsonl")
    assert session.source_version == "1"
    # no message timestamp: the entry's ISO time
    assert session.messages[0].timestamp == 1763625601000


def test_v1_own_model_wins_over_header_and_level_changes() -> None:
    session, _ = case("v1-compaction")
    assistants = [m for m in session.messages if m.role == "assistant"]
    assert [(m.model, m.extras.get("thinking_level")) for m in assistants] == [
        ("claude-sonnet-4-5", "low"), ("claude-opus-4-5", "high"), ("gpt-5", "high"),
    ]


# roles ----------------------------------------------------------------------------------------


def test_bash_execution_is_pis_own_rendering() -> None:
    session, _ = case("bash-execution")
    assert [m.kind for m in session.messages] == ["bash"] * 5 + [None]
    assert [m.text for m in session.messages[:5]] == [
        "Ran `ls`\n```\na.txt\nb.txt\n```",
        "Ran `cat missing.txt`\n```\ncat: missing.txt: No such file or directory\n```"
        "\n\nCommand exited with code 1",
        "Ran `true`\n(no output)",
        "Ran `sleep 100`\n(no output)\n\n(command cancelled)",
        "Ran `seq 100000`\n```\n99999\n100000\n```"
        "\n\n[Output truncated. Full output: /tmp/pi-bash-1a2b.log]",
    ]
    # `!!cmd` (excludeFromContext) is kept in the transcript and marked
    assert session.messages[2].extras == {
        "command": "true", "exit_code": 0, "exclude_from_context": True
    }


def test_v2_hook_message_is_a_custom_user_message() -> None:
    session, _ = case("v2-hook-message")
    hook = session.messages[1]
    assert (hook.role, hook.kind, hook.text, hook.custom_type) == (
        "user", "custom", "Reminder: deploys are frozen until Monday.", "deploy-guard",
    )
    assert session.source_version == "2"


def test_custom_message_with_image_keeps_text_and_image() -> None:
    session, problems = case("custom-message-image")
    assert problems == []
    user, custom, todo, _ = session.messages
    assert [type(p) for p in user.content][1] is ImagePart
    assert custom.kind == "custom" and custom.custom_type == "screenshot" and not custom.extras
    assert custom.text == "Screenshot taken by the screen extension."
    image = custom.content[1]
    assert isinstance(image, ImagePart) and image.media_type == "image/png"
    assert custom.timestamp == 1769940002000  # the entry's ISO time
    assert (todo.kind, todo.text, todo.custom_type) == ("custom", "Open todos: none.", "todo")
    sts = sts_messages(write_checked(session, "sts"))
    assert sts[1]["content"] == (
        "Screenshot taken by the screen extension.\n\n[image: image/png, 70 B]"
    )


def test_redacted_and_empty_thinking_are_kept_but_not_shown() -> None:
    session, _ = case("redacted-thinking")
    answer = session.messages[1]
    assert [type(p) for p in answer.content] == [ThinkingPart] * 3 + [type(answer.content[3])]
    redacted, empty, real = answer.content[:3]
    assert redacted.redacted and redacted.signature == "EmwKAhgBEgy3dXJlZGFjdGVkX3RoaW5raW5n"
    assert (empty.text, empty.signature) == ("", "ErUBCkYIBRgCIkDx")
    assert answer.reasoning == real.text
    assert sts_messages(write_checked(session, "sts"))[1] == {
        "role": "assistant", "content": "Yes, 97 is prime.",
        "reasoningContent": "Check divisors up to 9: 2, 3, 5, 7 do not divide 97.",
        "timestamp": 1769940002000, "model": "claude-opus-4-5",
    }


def test_failed_turns_are_kept_with_their_error_empty_or_not() -> None:
    """Empty aborted and errored turns are kept, as pi's getBranch() has them (issue 13 item 7);
    the error text is a Pi field, and an STS note where the content does not show it."""
    session, problems = case("aborted-assistant")
    assert problems == []
    assert [m.id for m in session.messages] == ["u1", "a1", "a2", "u2", "a3", "a4"]
    empty, partial = session.messages[1:3]
    assert (empty.text, empty.stop_reason, empty.error_message) == (
        "", "error", "529 overloaded_error: Overloaded")
    assert (partial.text, partial.stop_reason, partial.error_message) == (
        "Morning light on", "aborted", "Request was aborted."
    )
    sts_out = sts_messages(write_checked(session, "sts"))
    assert [m["content"] for m in sts_out[1:3]] == [
        "[error: 529 overloaded_error: Overloaded]",
        "Morning light on\n\n[aborted: Request was aborted.]"]
    pi_out = [json.loads(line) for line in write_checked(session, "pi").splitlines()[1:]]
    assert [e["message"].get("errorMessage") for e in pi_out[1:3]] == [
        "529 overloaded_error: Overloaded", "Request was aborted."]
    assert [e["message"]["stopReason"] for e in pi_out[1:3]] == ["error", "aborted"]


def test_orphan_calls_and_results_are_kept_never_invented() -> None:
    session, problems = case("orphan-tool-call")
    assert [(p.line, p.code) for p in problems] == [(4, "orphan-result")]  # reported, kept
    turn, result = session.messages[1], session.messages[2]
    assert [c.id for c in turn.tool_calls] == ["call_tests", "call_lint"]
    assert turn.tool_calls[1].arguments == {"command": "ruff check"}  # JSON text parsed
    assert (turn.stop_reason, turn.error_message) == ("error", "terminated")
    assert (result.role, result.tool_call_id, result.tool_name) == (
        "tool", "call_elsewhere", "bash"
    )
    assert sum(1 for m in session.messages if m.role == "tool") == 1


def test_system_role_and_summary_roles() -> None:
    session, _ = case("system-role")
    prompt, _, _, branch, compaction = session.messages
    assert (prompt.role, prompt.kind) == ("system", "system_prompt")
    assert prompt.text == (
        "You are pi, a coding agent.\n\nread, bash, edit, write\n\nCurrent directory: /work/demo"
    )
    assert (branch.kind, branch.text, branch.from_id) == (
        "branch_summary", "Tried a longer greeting first.", "zz"
    )
    assert (compaction.kind, compaction.tokens_before) == ("compaction", 12)


def test_session_name_latest_session_info_in_file_order_on_any_branch() -> None:
    session, _ = case("session-info-rename")
    assert session.name == "Lyon by train"  # s2 sits off the active branch, and is trimmed
    cleared, _ = case("session-info-clear")
    assert cleared.name is None


def test_header_fields() -> None:
    session, _ = read_one(SAMPLES / "pi-v3-session.jsonl")
    assert (session.id, session.cwd, session.started_at, session.source_format) == (
        "0d1c6e52-8b7a-4c1e-9f3a-52b0e7d41a96", "/home/ana/projects/weather", 1772442845112, "pi"
    )
    assert (session.harness, session.source_version, session.name) == (
        "pi", "3", "Fix the flaky forecast test"
    )


def test_sample_v3_details() -> None:
    session, problems = read_one(SAMPLES / "pi-v3-session.jsonl")
    assert line_codes(problems) == [(None, "other-branches")]
    kinds = [(m.role, m.kind) for m in session.messages]
    assert kinds == [
        ("user", None), ("assistant", None), ("tool", None), ("assistant", None), ("tool", None),
        ("system", "branch_summary"), ("system", "compaction"), ("user", None),
        ("assistant", None), ("tool", None), ("assistant", None),
    ]
    compaction = session.messages[6]
    assert (compaction.tokens_before, compaction.first_kept_id) == (5518, "4d5e6f70")
    assert session.messages[5].from_id == "708192a3"
    failed = session.messages[4]
    assert failed.is_error and failed.text.endswith("Command exited with code 1")
    first = session.messages[1]
    assert first.reasoning.startswith("A flaky test usually")
    assert first.usage.cost_total == 0.01701 and first.usage.cache_write == 2304
    edit = session.messages[8]
    assert (edit.model, edit.provider, edit.api) == ("gpt-5", "openai", "openai-responses")
    assert edit.extras == {"thinking_level": "medium"}
    assert edit.reasoning is None and edit.content[0].signature.startswith('{"type":"reasoning"')
    assert edit.tool_calls[0].id == "call_Vb81sK2mQe4R|fc_68c1f0a3c9d48190"
    assert edit.tool_calls[0].arguments["newText"] == "forecast(3)"


# sniffing -------------------------------------------------------------------------------------


def sniff_both(path: Path) -> tuple[float, float]:
    data = path.read_bytes()
    peek = Peek(data, path.name, complete=True)
    return PiConverter().sniff(peek), StsConverter().sniff(peek)


@pytest.mark.parametrize("path", [*PI_SAMPLES, *CASE_FILES], ids=lambda p: p.stem)
def test_sniff_prefers_pi_for_pi_files(path: Path) -> None:
    pi, sts = sniff_both(path)
    assert pi >= 0.9 and pi > sts


def test_sniff_beats_sts_on_pi_with_harness_and_leaves_sts_alone() -> None:
    ours_pi = write_checked(read_one(SAMPLES / "pi-v3-session.jsonl")[0], "pi")
    peek = Peek(ours_pi, "x.jsonl", complete=True)
    assert PiConverter().sniff(peek) > StsConverter().sniff(peek)
    pi, sts = sniff_both(SAMPLES / "hello.sts.jsonl")
    assert sts > pi and pi <= 0.1


# the real pi as oracle for the reader ---------------------------------------------------------


def pi_inputs() -> list[Path]:
    return [*PI_SAMPLES, *CASE_FILES]


@pytest.mark.parametrize("path", pi_inputs(), ids=lambda p: p.stem)
def test_reader_matches_pis_own_branch(path: Path) -> None:
    check_against_pi(path)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_reader_matches_pis_own_branch_on_corpus(name: str) -> None:
    check_against_pi(corpus("pi", name))


def unrenamed(value: Any) -> Any:
    """`value` (as JSON values) with tool-call ids the builder renamed (``id~2``) back to the
    file's own: pi keeps a repeated id as it is, we rename it so that the output is valid."""
    return json.loads(re.sub(rf'{RENAME}\d+"', '"', json.dumps(value)))


def check_against_pi(path: Path) -> None:
    session, _ = read_one(path)
    (view,) = pi_view(path)
    v1 = session.source_version == "1"  # pi gives v1 entries new random ids
    want = expected(view["branch"], with_id=not v1)
    got = [ours(m, with_id=not v1) for m in session.messages]
    assert len(got) == len(want)
    for index, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        assert unrenamed(mine) == unrenamed(theirs), f"message {index}"
    assert session.name == view["name"]
    assert session.id == view["header"]["id"]


# corpus facts (counted by reading the files) --------------------------------------------------


def roles(session: Session) -> dict[str, int]:
    found: dict[str, int] = {}
    for m in session.messages:
        key = m.role if m.kind is None else f"{m.role}:{m.kind}"
        found[key] = found.get(key, 0) + 1
    return found


def test_corpus_v1_before_compaction() -> None:
    session, problems = read_one(corpus("pi", CORPUS_FILES[0]))
    assert problems == []
    # 484 assistants in the file, 13 of them aborted with empty content
    assert roles(session) == {
        "user": 55, "assistant": 484, "tool": 448, "system:compaction": 2, "user:bash": 3
    }
    compactions = [m for m in session.messages if m.kind == "compaction"]
    assert [c.tokens_before for c in compactions] == [175004, 185014]
    assert session.metadata["branchedFrom"].endswith("d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl")
    last = session.messages[-1]  # a `!find .` the user ran; the leaf is a thinking_level_change
    assert (last.kind, last.text.splitlines()[0]) == ("bash", "Ran `find .`")


def test_corpus_v1_malformed_last_line() -> None:
    session, problems = read_one(corpus("pi", CORPUS_FILES[1]))
    assert line_codes(problems) == [(1013, "malformed-json")]
    assert roles(session) == {
        "user": 77, "assistant": 503, "tool": 429, "user:bash": 1, "system:compaction": 1
    }
    images = [p for m in session.messages for p in m.content if isinstance(p, ImagePart)]
    assert len(images) == 3 and {i.media_type for i in images} == {"image/png"}
    first_call = session.messages[1].tool_calls[0]
    assert first_call.id == "toolu_014CTWreQeKBDxBSHXdfkYo3"
    assert first_call.arguments == {
        "command": "cd /Users/badlogic/workspaces/pi-mono && gh issue view 288 --comments"
    }


def test_corpus_v1_large_session() -> None:
    session, problems = read_one(corpus("pi", CORPUS_FILES[2]))
    assert problems == []
    assert roles(session) == {"user": 88, "assistant": 453, "tool": 373}
    terminated = [m for m in session.messages if m.error_message == "terminated"]
    assert len(terminated) == 1 and len(terminated[0].tool_calls) == 16
    assert session.messages[0].text == "/mode"
    # the first assistant is an empty aborted gpt-5.1-codex turn, kept; the next one runs after a
    # model_change to claude-sonnet-4-5 and names its own model
    aborted = session.messages[1]
    assert (aborted.text, aborted.stop_reason, aborted.model) == ("", "aborted", "gpt-5.1-codex")
    assert session.messages[2].text.startswith("read packages/coding-agent/docs/theme.md")
    assert session.messages[3].model == "claude-sonnet-4-5"


def test_corpus_v3_fixture_unknown_leaf() -> None:
    session, problems = read_one(corpus("pi", CORPUS_FILES[3]))
    assert line_codes(problems) == [(9, "unknown-type"), (None, "other-branches")]
    assert [(m.role, m.id) for m in session.messages] == [("user", "e1"), ("assistant", "e7")]
    assert session.messages[1].tool_calls[0].id == "call-2"
    assert session.messages[0].timestamp == 1  # tiny fixture times taken as ms, as pi does


def test_corpus_v3_real_capture_two_compactions() -> None:
    session, problems = read_one(corpus("pi", CORPUS_FILES[4]))
    assert problems == []
    assert [(m.role, m.kind) for m in session.messages] == [
        ("user", None), ("assistant", None), ("system", "compaction"),
        ("user", None), ("assistant", None), ("system", "compaction"),
    ]
    # both keep from the root model_change: the first message after it is the first user turn
    compaction = session.messages[2]
    assert (compaction.tokens_before, compaction.first_kept_id) == (19, "30c6a75f")
    assert session.messages[5].first_kept_id == "30c6a75f"
    assert session.messages[-2].text == "hello.py prints a fixture greeting."
    assert session.messages[1].provider == "pi-fixture"


def test_an_empty_session_id_is_named_after_the_file(tmp_path: Path) -> None:
    source = tmp_path / "2026-01-01_abc.jsonl"
    rows = (PI_CASES / "compaction.jsonl").read_bytes().split(b"\n")
    header = rows[0]
    rows[0] = header.replace(header[header.index(b'"id":'):].split(b",")[0], b'"id":""')
    assert b'"id":""' in rows[0]
    source.write_bytes(b"\n".join(rows))
    session, problems = read_one(source)
    assert line_codes(problems) == [(1, "no-session-id")]
    assert session.id == "2026-01-01_abc" and session.messages
    write_checked(session, "sts")


def test_a_message_timestamp_that_is_no_time_gives_way_to_the_entry_time(tmp_path) -> None:
    """Found by the damaged-file property: digits inserted into an epoch-ms number made a year
    37200 that no ISO date (and no writer) can hold."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/"}\n'
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-01T10:00:01.000Z",'
        '"message":{"role":"user","content":"hi","timestamp":372000000000000000}}\n'
        '{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-02-01T10:00:02.000Z",'
        '"message":{"role":"user","content":"again","timestamp":2.222222176994e+19}}\n'
        '{"type":"message","id":"u3","parentId":"u2","timestamp":"2026-02-01T10:00:03.000Z",'
        '"message":{"role":"user","content":"ok","timestamp":1769940003500}}\n'
    )
    session, problems = read_one(path)
    assert line_codes(problems) == [(2, "bad-timestamp"), (3, "bad-timestamp")]
    assert [m.timestamp for m in session.messages] == [1769940001000, 1769940002000, 1769940003500]
    write_checked(session, "sts")
    write_checked(session, "pi")


def test_a_replayed_tool_call_id_is_renamed_and_results_pair_in_order() -> None:
    """Two toolCalls sharing call_1 on the path: the second becomes call_1~2, each result
    answers its own call, and the output passes the validator and the real pi."""
    session, problems = case("replayed-tool-call-id")
    assert [(p.line, p.code) for p in problems] == [(5, "duplicate-call-id")]
    calls = [(c.id, c.arguments) for m in session.messages for c in m.tool_calls]
    assert calls == [("call_1", {"path": "a.txt"}), ("call_1~2", {"path": "a.txt", "offset": 1})]
    results = [(m.tool_call_id, m.text) for m in session.messages if m.role == "tool"]
    assert results == [("call_1", "first"), ("call_1~2", "second")]
    for target in ("sts", "pi"):
        write_checked(session, target)


def read_with(fmt: str, path: Path) -> tuple[list[Session], list]:
    """Read `path` with the converter of another format (the registry's)."""
    from tests.support import read_sessions as read_with_registry

    return read_with_registry(path, fmt)


def test_the_writers_unknown_placeholder_reads_as_no_name(tmp_path) -> None:
    """Where a source named no model, the Pi writer writes ``unknown`` (pi's types need a
    string); reading it back is no model, not a model called "unknown" (issue 13 item 8)."""
    source = CASES / "openai" / "legacy_function.json"
    (session,), _ = read_with("openai", source)
    assert all(m.model is None for m in session.messages if m.role == "assistant")
    pi_file = tmp_path / "x.pi.jsonl"
    pi_file.write_bytes(write_checked(session, "pi"))
    written = [json.loads(line) for line in pi_file.read_bytes().splitlines()[1:]]
    assert {e["message"]["model"] for e in written if e["message"]["role"] == "assistant"} == {
        "unknown"}
    back, problems = read_one(pi_file)
    assert problems == []
    assistants = [m for m in back.messages if m.role == "assistant"]
    assert assistants and all(
        (m.model, m.provider, m.api) == (None, None, None) for m in assistants)
    assert all("model" not in m for m in sts_messages(write_checked(back, "sts")))



# a long session read for writing only: slim entries, messages made again (issue 12) -----------


def deferred_read(source: bytes | io.BufferedIOBase, **options) -> tuple[list[Session], list]:
    """Read as `sts convert` does (sessions only written), every file treated as long."""
    found: list = []
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    context = ReadContext(Problems("<case>", "skip", found.append), None,
                          {"subagents": True, **options}, deferred=True)
    return list(PiConverter().read(stream, context)), found  # type: ignore[arg-type]


@pytest.fixture
def every_file_long(monkeypatch) -> None:
    from sts.converters.pi import entries

    monkeypatch.setattr(entries, "DEFER_AT", 0)
    monkeypatch.setattr(entries, "KEEP_BYTES", 1 << 40)


def written(sessions: list[Session]) -> list[bytes]:
    return [write_checked(s, target) for s in sessions for target in ("sts", "pi")]


def written_deferred(data: bytes, **options: Any) -> tuple[list[bytes], list]:
    """`written` of a deferred read: each session is streamed, its messages made once, so the
    file is read again for each target."""
    outputs: dict[str, list[bytes]] = {}
    for target in ("sts", "pi"):
        sessions, problems = deferred_read(data, **options)
        assert all(isinstance(s, StreamedSession) and s.messages == [] for s in sessions)
        outputs[target] = [write_checked(s, target) for s in sessions]
    return [out for pair in zip(outputs["sts"], outputs["pi"], strict=True) for out in pair], (
        problems)


@pytest.mark.parametrize("name", [*(p.name for p in CASE_FILES), *CORPUS_FILES])
@pytest.mark.parametrize("branches", [False, True], ids=["active", "all-branches"])
def test_messages_made_again_from_the_input_are_written_the_same(
    name: str, branches: bool, every_file_long: None
) -> None:
    path = PI_CASES / name if name.endswith(".jsonl") and (PI_CASES / name).exists() else (
        corpus("pi", name))
    data = path.read_bytes()
    kept, kept_problems = read_sessions(path, all_branches=branches)
    made, made_problems = written_deferred(data, all_branches=branches)
    assert made == written(kept)
    assert [(p.line, p.code, p.text) for p in made_problems] == [
        (p.line, p.code, p.text) for p in kept_problems]


def test_a_long_file_keeps_no_object_per_entry(every_file_long: None) -> None:
    from array import array

    from sts.converters.pi.reader import parse_file

    rows = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-02T09:14:05Z"}]
    rows += [{"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None,
              "timestamp": "2026-03-02T09:14:05Z",
              "message": {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]}}
             for i in range(300)]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    pi_file = parse_file(io.BytesIO(data), Problems(sink=None), deferred=True)
    assert pi_file is not None
    table = pi_file.entries
    assert table.messages is None  # dropped: made again from the input when written
    assert len(table) == 300
    per_entry = [table.lines, table.parents, table.changes, table.offsets, table.flags]
    assert all(type(column) in (array, bytearray) for column in per_entry)
    assert (table.notes, table.first_kept, table.change_values) == ({}, {}, [])
    assert list(table.parents) == [-1, *range(299)]
    (session,), _ = deferred_read(data)
    assert isinstance(session, StreamedSession)
    assert [m.text for m in session.stream] == [f"m{i}" for i in range(300)]


def test_a_long_sessions_messages_are_made_once_as_it_is_written(
    monkeypatch, every_file_long: None
) -> None:
    """Writing a streamed session makes each message again once (not once per pass over it:
    the header's totals are gathered as the body is written)."""
    from sts.converters.pi import reader

    made: list[int] = []
    remake = reader.EntryConverter.remake

    def counted(self: Any, record: dict, lineno: int, index: int) -> Any:
        made.append(lineno)
        return remake(self, record, lineno, index)

    monkeypatch.setattr(reader.EntryConverter, "remake", counted)
    (session, *_), _ = deferred_read((PI_CASES / "compaction.jsonl").read_bytes())
    made.clear()
    lines = write_checked(session, "sts").splitlines()
    assert len(lines) > 5
    assert sorted(made) == sorted(set(made)) and len(made) == len(lines) - 1


def test_standard_input_keeps_its_messages(every_file_long: None) -> None:
    """A stream that cannot be read again (stdin, a pipe) is read as before: messages kept."""

    class Pipe(io.BytesIO):
        def seekable(self) -> bool:
            return False

    data = (PI_CASES / "compaction.jsonl").read_bytes()
    (session, *_), _ = deferred_read(Pipe(data))
    assert type(session) is Session and type(session.messages) is list
    assert written([session]) == written(read_sessions(PI_CASES / "compaction.jsonl")[0][:1])


def test_parents_follow_pis_rules_when_read_in_one_pass() -> None:
    """Parents resolved as the file is read: one named before its entry, a reused id (the later
    entry wins, also for children read before it), a parent never read (a root)."""
    from sts.converters.pi.reader import parse_file
    from sts.converters.pi.tree import Tree

    def entry(own: str, parent: str | None) -> dict:
        return {"type": "message", "id": own, "parentId": parent,
                "timestamp": "2026-03-02T09:14:05Z", "message": {"role": "user", "content": own}}

    rows = [{"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-02T09:14:05Z"},
            entry("c", "b"),  # 0: its parent comes later
            entry("a", None),  # 1
            entry("x", "a"),  # 2: child of the first "x"'s parent... named "x" again below
            entry("y", "x"),  # 3: resolves to the later "x" (5)
            entry("b", "gone"),  # 4: a parent never read: a root
            entry("x", "b"),  # 5: "x" again: the later one wins
            entry("z", "y")]  # 6: the last entry: pi's leaf
    data = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    problems: list = []
    pi_file = parse_file(io.BytesIO(data), Problems("f", "skip", problems.append))
    assert pi_file is not None
    tree = Tree(pi_file, Problems("f", "skip", problems.append))
    assert list(tree.active_path()) == [4, 5, 3, 6]  # b, x (the later), y, z
    assert list(tree.path_to(0)) == [4, 0]
    assert tree.leaves() == [0, 6]  # the first "x" (2) is named by no one any more
    assert line_codes(problems) == [(7, "duplicate-id")]


@pytest.mark.parametrize("change", ["edited", "cut short"])
def test_an_input_changed_before_its_messages_are_made_again_fails(
    change: str, tmp_path: Path, monkeypatch, every_file_long: None
) -> None:
    """A long file's messages are made again from the file when written: a file changed in
    between (an edit of the same length, a truncation) fails that input and writes nothing,
    never a session with other text (or a crash)."""
    from click.testing import CliRunner

    from sts.cli import main
    from sts.converters.pi import reader

    source = tmp_path / "live.jsonl"
    data = (PI_CASES / "compaction.jsonl").read_bytes()
    source.write_bytes(data)
    edited = data.replace(b"Step one.", b"Step 0ne.") if change == "edited" else (
        data[: len(data) // 2])
    assert edited != data
    build = reader.build_sessions

    def changed_after_reading(*args: Any, **kwargs: Any) -> list[Session]:
        sessions = build(*args, **kwargs)
        source.write_bytes(edited)
        return sessions

    monkeypatch.setattr(reader, "build_sessions", changed_after_reading)
    out = tmp_path / "out.jsonl"
    done = CliRunner().invoke(main, ["convert", str(source), "--to", "sts", "-o", str(out)])
    assert done.exit_code == 1, done.output
    assert "the input changed while it was converted" in done.output
    assert "[io-error]" in done.output
    assert not out.exists()


def test_index_keys_keep_every_id_apart() -> None:
    from sts.formats.pi import id_key, key_id

    ids = ["1", "01", "001", "a1b2c3d4", "A1B2C3D4", "0x1f", " 1f", "1_f", "-1", "",
           "ffffffffffffff", "fffffffffffffff", "e6b1f5d2-8c7a-4c1e-9f0a-0123456789ab"]
    keys = [id_key(own) for own in ids]
    assert len(set(keys)) == len(ids)
    assert [key_id(key) for key in keys] == ids
    assert type(id_key("a1b2c3d4")) is int and type(id_key("A1B2C3D4")) is str


def test_the_id_index_maps_like_a_dict_through_growth_and_reuse() -> None:
    import random

    from sts.converters.pi.index import IdIndex
    from sts.formats.pi import id_key

    rng = random.Random(12)
    ids = [f"{rng.getrandbits(32):08x}" for _ in range(3000)]
    ids += [f"{i << 20:014x}" for i in range(1, 2000)]  # low bits all equal: one slot if masked
    ids += ["e6b1f5d2-8c7a-4c1e", "A1", "", "0"]
    ids += rng.sample(ids, 500)  # reused: the later entry wins
    index, expected = IdIndex(), {}
    for position, own in enumerate(ids):
        key = id_key(own)
        assert index.put(key, position) == expected.get(key)
        expected[key] = position
    assert all(index.get(id_key(own)) == expected[id_key(own)] for own in ids)
    assert index.get(id_key("ffffffff")) is None and index.get("missing") is None
    assert dict(index.items()) == expected
