"""The openai converter: containers, messages, arguments, reasoning, logs, Responses items,
the shared corpus, the real pi, detection and streaming."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sts.converters.base import Peek, ReadContext
from sts.converters.openai import OpenAIConverter
from sts.converters.registry import detect
from sts.converters.sharegpt import ShareGPTConverter
from sts.io import peek_file
from sts.model import ImagePart, MediaPart, StopReason, TextPart, ThinkingPart
from sts.pipeline import is_companion, store_converter
from sts.problems import Problems
from tests.support import (
    CASES,
    CORPUS,
    checked_model,
    corpus,
    line_codes,
    lines,
    pi_view,
    read_sessions,
    sts_messages,
    write_checked,
)

OPENAI = CASES / "openai"
CASE_NAMES = sorted(p.name for p in OPENAI.iterdir())


def read(name: str, fmt: str = "openai"):
    return read_sessions(OPENAI / name, fmt)


@pytest.mark.parametrize("case", CASE_NAMES)
def test_snapshot(case, snapshot_model):
    sessions, _ = read(case)
    assert sessions
    assert checked_model(sessions) == snapshot_model


def test_messages_array_roles_parts_and_links():
    (session,), problems = read("messages_array.json")
    assert problems == []
    assert session.id == "messages_array" and session.harness == "openai"
    roles = [(m.role, m.kind) for m in session.messages]
    assert roles[:3] == [("system", None), ("system", "developer"), ("user", None)]
    user = session.messages[2]
    kinds = [type(p) for p in user.content]
    assert kinds == [type(user.content[0]), ImagePart, ImagePart, MediaPart, MediaPart]
    assert user.content[1].url == "https://example.com/cat.png"
    assert (user.content[2].media_type, user.content[2].data) == ("image/png", "iVBORw0KGgo=")
    assert (user.content[3].kind, user.content[3].media_type) == ("audio", "audio/wav")
    assert (user.content[4].name, user.content[4].media_type) == ("notes.pdf", "application/pdf")
    calls = session.messages[3]
    assert [c.id for c in calls.tool_calls] == ["call_a", "call_b"]  # parallel: one message
    assert calls.reasoning == "Two lookups needed."  # same text in two fields, kept once
    assert sum(type(p) is ThinkingPart for p in calls.content) == 1
    results = session.messages[4:6]
    assert [(m.tool_call_id, m.text, m.tool_name) for m in results] == [
        ("call_b", "a PDF of notes", "describe"),
        ("call_a", "a cat", "describe"),
    ]
    out = sts_messages(write_checked(session, "sts"))
    assert out[6]["content"] == "A cat and notes.\n\nI will not read the audio."
    assert out[8]["content"] == "Sorry, I cannot help with that."  # refusal field kept


def test_finetune_jsonl_one_session_per_line_and_arguments():
    sessions, problems = read("finetune.jsonl")
    assert problems == []
    assert [(s.id, s.key) for s in sessions] == [("finetune-L1", "L1"), ("finetune-L2", "L2")]
    assert sessions[0].metadata["tools"] == [{"type": "function", "function": {"name": "takeoff"}}]
    first = sts_messages(write_checked(sessions[0], "sts"))
    assert first[1]["toolCalls"][0]["function"]["arguments"] == '{"altitude":100}'  # object
    assert first[3]["toolCalls"][0]["function"]["arguments"] == '{"location":"home"}'  # double
    second = sessions[1].messages[1]
    broken, custom = second.tool_calls
    assert (broken.arguments, broken.raw_arguments) == (None, '{"cmd": "ls"')  # invalid: kept raw
    assert custom.arguments == {"input": "*** Begin Patch\n*** End Patch"}
    assert custom.extras["type"] == "custom"
    pi = lines(write_checked(sessions[1], "pi"))
    blocks = pi[2]["message"]["content"]
    assert blocks[1]["arguments"] == {"_raw": '{"cmd": "ls"'}
    assert [m.tool_call_id for m in sessions[1].messages[2:]] == ["call_4", "call_3"]


def test_legacy_function_call_gets_stable_ids_and_links():
    (session,), problems = read("legacy_function.json")
    assert problems == []
    assert session.id == "legacy-1"
    calls = [c for m in session.messages for c in m.tool_calls]
    assert [(c.id, c.name) for c in calls] == [
        ("call_1_0", "get_weather"),
        ("call_3_0", "get_time"),
    ]
    results = [m for m in session.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.tool_name, m.text) for m in results] == [
        ("call_1_0", "get_weather", '{"temp": -3}'),
        ("call_3_0", "get_time", "09:00"),
    ]
    again, _ = read("legacy_function.json")
    assert [c.id for m in again[0].messages for c in m.tool_calls] == ["call_1_0", "call_3_0"]


def test_reasoning_think_and_details_kept_once():
    sessions, problems = read("reasoning.jsonl")
    assert line_codes(problems) == [(3, "unclosed-think")]
    think, details, unclosed = (s.messages[1] for s in sessions)
    assert (think.reasoning, think.text) == ("Add them.", "4")
    assert sum(type(p) is ThinkingPart for p in think.content) == 1
    readable = [p for p in details.content if type(p) is ThinkingPart and not p.redacted]
    assert [(p.text, p.signature) for p in readable] == [("First step. Second step.", "sig-1")]
    encrypted = [p for p in details.content if type(p) is ThinkingPart and p.redacted]
    assert [(p.text, p.signature) for p in encrypted] == [("", "ENCRYPTED==")]
    assert (unclosed.reasoning, unclosed.text) == ("I was cut off", "")


def test_log_records_grouped_into_conversations():
    sessions, problems = read("log_records.jsonl")
    assert problems == []
    by_id = {s.id: s for s in sessions}
    assert sorted(by_id) == ["fail-1", "log_records-L1", "log_records-L3"]
    weather = by_id["log_records-L1"]
    texts = [(m.role, m.text) for m in weather.messages]
    assert texts == [
        ("system", "Be brief."),
        ("user", "Weather in Paris?"),
        ("assistant", ""),
        ("tool", "18 C, sunny"),
        ("assistant", "18 °C and sunny."),
        ("user", "And tomorrow?"),
        ("assistant", "Rain."),
    ]  # four records, every message once
    first_answer = weather.messages[2]
    assert first_answer.tool_calls[0].id == "call_w"
    assert weather.messages[3].tool_call_id == "call_w"
    assert first_answer.timestamp == 1740823201000  # response.created, seconds -> ms
    assert weather.messages[1].timestamp == 1740823200000  # the request time (ISO)
    assert weather.messages[0].timestamp is None  # no invented times
    assert first_answer.model == "gpt-4o-2024-08-06"
    assert first_answer.api == "openai-completions"
    assert first_answer.stop_reason == StopReason.TOOL_USE  # tool_calls
    usage = first_answer.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (30, 10, 20, 60)
    failed = by_id["fail-1"]
    assert [m.role for m in failed.messages] == ["user", "assistant"]
    assert failed.messages[1].error_message == "RateLimitError: slow down"
    assert failed.messages[1].provider == "openai"


def test_responses_items_linked_by_call_id():
    (session,), problems = read("responses_items.json")
    assert line_codes(problems) == [(None, "unknown-type"), (None, "unknown-type")]
    roles = " ".join(m.role for m in session.messages)
    assert roles == "system user assistant tool tool assistant tool assistant"
    turn = session.messages[2]
    assert [c.id for c in turn.tool_calls] == ["call_ls", "call_wc"]
    assert turn.reasoning == "Run two commands."
    assert [p.signature for p in turn.content if type(p) is ThinkingPart] == ["gAAAA"]
    assert [(m.tool_call_id, m.text) for m in session.messages[3:5]] == [
        ("call_wc", "2"),
        ("call_ls", "a.txt\nb.txt"),
    ]
    assert session.messages[5].tool_calls[0].arguments == {"input": "*** Begin Patch"}
    assert session.messages[7].extras["phase"] == "final_answer"


def test_responses_log_continued_by_previous_response_id():
    (session,), problems = read("responses_log.jsonl")
    assert problems == []
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "Be exact."),
        ("user", "Say hi"),
        ("assistant", "hi"),
        ("user", "Again"),
        ("assistant", "hi again"),
    ]
    usage = session.messages[2].usage
    assert (usage.input, usage.output, usage.cache_read) == (8, 3, 4)
    assert session.messages[2].api == "openai-responses"


def test_llamafactory_value_parts():
    (session,), problems = read("llamafactory_v1.jsonl")
    assert problems == []
    assert session.messages[0].text == "What is 3*4?"
    assert (session.messages[1].reasoning, session.messages[1].text) == ("Multiply.", "12")
    assert session.metadata["tools"] == [{"name": "calc"}]


def test_bad_lines_reported_not_fatal():
    sessions, problems = read("bad_lines.jsonl")
    assert line_codes(problems) == [
        (1, "unknown-role"),
        (1, "unknown-block"),
        (2, "malformed-json"),
        (3, "unknown-record"),
        (4, "unknown-record"),
        (5, "orphan-result"),
    ]
    assert [s.key for s in sessions] == ["L1", "L5"]
    assert [m.text for m in sessions[0].messages] == ["fine", "ok"]


def test_a_cut_first_line_costs_that_line_only():
    """The first line is not JSON but the next ones are records: JSONL, not one document."""
    first, second = (OPENAI / "finetune.jsonl").read_bytes().split(b"\n")[:2]
    sessions, problems = read_sessions(first[:40] + b"\n" + second + b"\n", "openai")
    assert line_codes(problems) == [(1, "malformed-json")]
    assert [(s.key, s.messages[0].text) for s in sessions] == [("L2", "Patch it")]


def test_a_lone_surrogate_on_the_first_line_is_repaired_not_fatal():
    first, second = (OPENAI / "finetune.jsonl").read_bytes().split(b"\n")[:2]
    first = first.replace(b"Take off", b"Take \\udfffoff")
    sessions, problems = read_sessions(first + b"\n" + second + b"\n", "openai")
    assert line_codes(problems) == [(1, "lone-surrogate")]
    assert [s.messages[0].text for s in sessions] == ["Take \ufffdoff", "Patch it"]


def test_a_document_whose_lines_look_like_jsonl_is_still_a_document():
    data = b'{"messages":\n[{"role": "user", "content": "hi"}]\n}\n'
    (session,), problems = read_sessions(data, "openai")
    assert problems == [] and [m.text for m in session.messages] == ["hi"]


@pytest.mark.parametrize(("fmt", "name"), [("sharegpt", "glaive.json"),
                                           ("openai", "messages_array.json")])
def test_a_cut_pretty_printed_document_is_one_error(fmt, name):
    source = CASES / fmt / name
    data = source.read_bytes()
    assert data.count(b"\n") > 4  # pretty-printed
    sessions, problems = read_sessions(data[: len(data) // 2], fmt)
    assert sessions == [] and [p.code for p in problems] == ["truncated-document"]


def test_duplicate_call_ids_renamed_and_linked():
    (session,), problems = read("duplicate_ids.json")
    assert line_codes(problems) == [(None, "duplicate-call-id")]
    pairs = [(m.tool_calls[0].id if m.tool_calls else m.tool_call_id) for m in session.messages[1:]]
    assert pairs == ["call_id", "call_id", "call_id~2", "call_id~2"]


def test_harness_override():
    (session,), _ = read("messages_array.json")
    assert lines(write_checked(session, "sts", harness="my-agent"))[0]["harness"] == "my-agent"


# -- streaming --------------------------------------------------------------------------------
class CountingLines:
    """A stream of JSONL lines that counts how many lines were taken from it."""

    def __init__(self, records: list[bytes]) -> None:
        self.lines = iter(records)
        self.taken = 0

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        line = next(self.lines)
        self.taken += 1
        return line

    def read(self) -> bytes:
        return b"".join(self)


@pytest.mark.parametrize("converter", [OpenAIConverter(), ShareGPTConverter()])
def test_jsonl_streams_one_session_at_a_time(converter):
    def records():
        yield b'{"messages": [{"role": "user", "content": "first"}]}\n'
        yield b'{"conversations": [{"from": "human", "value": "second"}]}\n'
        for n in range(10_000):
            yield b'{"messages": [{"role": "user", "content": "more %d"}]}\n' % n

    stream = CountingLines(list(records()))
    sessions = converter.read(stream, ReadContext(Problems(sink=None)))  # type: ignore[arg-type]
    first = next(sessions)
    assert first.messages[0].text == "first" and first.key == "L1"
    assert stream.taken == 1
    second = next(sessions)
    assert second.messages[0].text == "second" and stream.taken == 2
    assert sum(1 for _ in sessions) == 10_000


def test_stdin_ids_derive_from_stdin():
    problems = Problems(sink=None)
    data = b'{"messages": [{"role": "user", "content": "a"}]}\n' * 2
    sessions = list(OpenAIConverter().read(io.BytesIO(data), ReadContext(problems)))
    assert [s.id for s in sessions] == ["stdin-L1", "stdin-L2"]


# -- detection --------------------------------------------------------------------------------
def test_sniff_cases():
    openai, sharegpt = OpenAIConverter(), ShareGPTConverter()
    for path in OPENAI.iterdir():
        if path.name == "bad_lines.jsonl":
            continue
        peek = peek_file(path)
        assert openai.sniff(peek) >= 0.6 > sharegpt.sniff(peek), path.name


# Corpus folder -> the converters that may read its files. A folder of a format with no
# converter yet is left out; whoever adds the converter adds its folder here.
CORPUS_FORMATS = {
    "openai": {"openai"},
    "sharegpt": {"sharegpt"},
    "hermes": {"openai", "sharegpt"},  # Hermes Agent records are the chat data they look like
    "claude-code": {"claude-code"},
    "codex": {"codex"},
    "pi": {"pi"},
    "github-copilot": {"github-copilot"},
    "cline": {"cline"},
    "droid": {"factory-droid"},
    "openclaw": {"openclaw"},
    "gemini-cli": {"gemini-cli"},  # logs.json too: recognised, to be refused as prompt history
    "opencode": {"opencode"},
    "cursor": {"cursor-cli"},  # the IDE's User folder is a store (test_cursor_ide)
}
#: Corpus files that are no session of their own: a Droid sidecar whose session file the corpus
#: names differently, and an OpenClaw fragment without its header (test_openclaw reports it).
CORPUS_SKIPPED = frozenset(("handmade__8534a502-106a-4227-a227-55fac3265fcd.settings.json",
                            "handmade__hypabolic__append-step-3.jsonl"))


def test_detect_on_every_corpus_file():
    corpus("openai")
    for path in sorted(CORPUS.rglob("*.json*")):
        folder = path.relative_to(CORPUS).parts[0]
        if folder not in CORPUS_FORMATS or is_companion(path) or path.name in CORPUS_SKIPPED:
            continue
        if any(store_converter(p) for p in path.parents if p.is_relative_to(CORPUS / folder)):
            continue  # a file of a store folder (OpenCode's JSON tree): read with the folder
        found = detect(peek_file(path))
        assert found is not None and found.name in CORPUS_FORMATS[folder], path


# -- corpus -----------------------------------------------------------------------------------
def test_corpus_drone_finetune():
    sessions, problems = read_sessions(
        corpus("openai", "openai_finetune_jsonl_tools_drone_4records_prefix.jsonl"), "openai"
    )
    assert problems == []
    assert [s.key for s in sessions] == ["L1", "L2", "L3", "L4"]
    for session in sessions:
        assert [m.role for m in session.messages] == ["system", "user", "assistant"]
        assert len(session.metadata["tools"]) == 16
        assert session.messages[2].text == ""  # no content key at all
    calls = [s.messages[2].tool_calls[0] for s in sessions]
    assert {c.id for c in calls} == {"call_id"}
    assert [c.name for c in calls] == ["takeoff_drone", "takeoff_drone", "land_drone", "land_drone"]
    assert [c.arguments for c in calls] == [
        {"altitude": 100}, {"altitude": 100}, {"location": "current"}, {"location": "current"}
    ]
    assert sessions[2].messages[1].text == "Can you safely bring the drone down to the ground here?"
    out = sts_messages(write_checked(sessions[3], "sts"))
    assert out[2]["toolCalls"][0]["function"]["arguments"] == '{"location":"current"}'
    write_checked(sessions[3], "pi")


def test_corpus_llamafactory_images():
    sessions, problems = read_sessions(
        corpus("openai", "llamafactory_json_array_messages_with_images.json"), "openai"
    )
    assert problems == []
    assert len(sessions) == 6
    assert all([m.role for m in s.messages] == ["user", "assistant"] * 2 for s in sessions)
    first = sessions[0].messages
    assert [type(p).__name__ for p in first[0].content] == ["ImagePart", "TextPart"]
    assert first[0].content[0].url == "mllm_demo_data/1.jpg" and first[0].text == "Who are they?"
    assert [type(p).__name__ for p in first[2].content] == ["TextPart", "ImagePart"]
    assert first[1].text == "They're Kane and Gretzka from Bayern Munich."
    assert sessions[3].messages[1].text == "他们是拜仁慕尼黑的凯恩和格雷茨卡。"
    for session in sessions:
        write_checked(session, "sts")
        write_checked(session, "pi")


def test_corpus_litellm_payload():
    (session,), problems = read_sessions(
        corpus("openai", "litellm_standard_logging_payload_request_response_record.json"), "openai"
    )
    assert problems == []
    assert session.id == "chatcmpl-2299b6a2-82a3-465a-b47c-04e685a2227f"
    user, answer = session.messages
    assert (user.role, user.text, user.timestamp) == ("user", "Hello, world!", 1737710446847)
    assert (answer.text, answer.model, answer.provider) == ("hi", "gpt-4o", "openai")
    assert (answer.timestamp, answer.stop_reason) == (1742855151000, "stop")
    assert (answer.usage.input, answer.usage.output, answer.usage.total_tokens) == (10, 20, 30)
    assert answer.tool_calls == []  # tool_calls: null
    assert lines(write_checked(session, "sts"))[0]["usage"]["cost"] == 0.000225
    write_checked(session, "pi")


def test_corpus_hermes_export_read_as_openai():
    sessions, problems = read_sessions(
        corpus("hermes", "hermes_sessions_export_2sessions_prefix.jsonl"), "openai"
    )
    assert problems == []
    assert [s.id for s in sessions] == ["20260219_201205_876b30", "20260219_200627_0bf46c"]
    assert {s.harness for s in sessions} == {"hermes-agent"}
    lone, second = sessions
    assert [m.role for m in lone.messages] == ["system", "user"]
    roles = [m.role for m in second.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "user"]
    call = second.messages[2].tool_calls[0]
    assert call.id == "toolu_bdrk_01TX67rXMKuA7ZSeuohykvxn"
    assert second.messages[3].tool_call_id == call.id
    assert second.messages[1].timestamp == 1771560403749
    assert second.messages[2].model == "anthropic/claude-opus-4.6"
    for session in sessions:
        write_checked(session, "sts")
        write_checked(session, "pi")


def test_real_pi_loads_corpus_output():
    sessions, _ = read_sessions(
        corpus("openai", "openai_finetune_jsonl_tools_drone_4records_prefix.jsonl"), "openai"
    )
    litellm, _ = read_sessions(
        corpus("openai", "litellm_standard_logging_payload_request_response_record.json"), "openai"
    )
    cases, _ = read("messages_array.json")
    logs, _ = read("log_records.jsonl")
    chosen = [sessions[2], litellm[0], cases[0], *logs]
    views = pi_view(*(write_checked(s, "pi") for s in chosen))
    for session, view in zip(chosen, views, strict=True):
        branch = [e["message"] for e in view["branch"] if e["type"] == "message"]
        ours = [m for m in session.messages if m.role != "system"]
        assert [b["role"] for b in branch] == [
            {"tool": "toolResult"}.get(m.role, m.role) for m in ours
        ]
        for mine, theirs in zip(ours, branch, strict=True):
            texts = [b["text"] for b in theirs["content"] if b["type"] == "text"]
            if mine.role == "assistant":
                calls = [b["id"] for b in theirs["content"] if b["type"] == "toolCall"]
                assert calls == [c.id for c in mine.tool_calls]
                assert texts == [p.text for p in mine.content if type(p) is TextPart]
            elif mine.role == "tool":
                assert theirs["toolCallId"] == mine.tool_call_id
                assert "".join(texts) == mine.text
        assert len(view["leaves"]) == 1


def test_sniff_big_document_head():
    head = b'[{"messages": [{"role": "user", "content": "' + b"x" * 300_000
    peek = Peek(head[:262_144], "big.json", complete=False)
    assert OpenAIConverter().sniff(peek) == 0.6
    assert ShareGPTConverter().sniff(peek) == 0.0


def test_case_files_are_small():
    assert all(p.stat().st_size < 8_000 for p in Path(OPENAI).iterdir())


# -- Hermes Agent -------------------------------------------------------------------------------
def test_hermes_export_lines():
    sessions, problems = read("hermes_export.jsonl")
    assert problems == []
    full, lone = sessions
    assert (full.id, full.harness, lone.id, lone.harness) == (
        "20260301_090000_a1b2c3", "hermes-agent", "20260301_100000_d4e5f6", "hermes-agent")
    assert full.started_at == 1772355600250  # epoch float seconds
    roles = [m.role for m in full.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "user"]
    call_turn, result, answer = full.messages[2:5]
    assert call_turn.text == ""
    assert call_turn.reasoning == "The user wants the size; wc -c gives it."
    assert [(c.id, c.name, c.arguments) for c in call_turn.tool_calls] == [
        ("toolu_bdrk_01ABC", "terminal", {"command": "wc -c README.md"})]
    assert (result.tool_call_id, result.tool_name) == ("toolu_bdrk_01ABC", "terminal")
    assert result.text == '{"output": "2048 README.md", "exit_code": 0}'
    assert answer.text == "\n\nREADME.md is 2048 bytes." and answer.timestamp == 1772355605000
    assert answer.model == "anthropic/claude-opus-4.6"
    assert [m.text for m in full.messages[5:]] == ["thanks", "bye"]  # two user turns, kept apart
    assert full.metadata["source"] == "cli" and full.metadata["tool_call_count"] == 1
    assert [m.role for m in lone.messages] == ["system", "user"]
    header = lines(write_checked(full, "sts"))[0]
    assert header["harness"] == "hermes-agent"
    write_checked(full, "pi")


def test_hermes_state_database_rows():
    """Rows as Hermes' state.db keeps them (issue 13 item 3): tool_calls as JSON text, archived
    rows (active 0, left after a rewind or compaction) left out and counted, multimodal content
    behind the NUL ``json:`` sentinel decoded into parts."""
    (session,), problems = read("hermes_state_rows.jsonl")
    assert [(p.code, p.severity) for p in problems] == [("archived-rows", "warning")]
    assert "2 archived row(s) (active: 0) left out" in problems[0].text
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "You are Hermes."), ("user", "list the repo"), ("assistant", ""),
        ("tool", "README.md\nsrc"), ("user", "and this image?"), ("assistant", "A tiny PNG."),
    ]
    call_turn, result = session.messages[2:4]
    assert [(c.id, c.name, c.arguments) for c in call_turn.tool_calls] == [
        ("toolu_01", "terminal", {"command": "ls"})]
    assert (result.tool_call_id, result.tool_name) == ("toolu_01", "terminal")
    image = session.messages[4].content[1]
    assert (type(image).__name__, image.media_type, image.data) == (
        "ImagePart", "image/png", "iVBORw0KGgo=")
    for target in ("sts", "pi"):
        write_checked(session, target)


def test_hermes_gateway_transcript_with_session_meta():
    (session,), problems = read("hermes_gateway.jsonl")
    assert problems == []
    assert session.harness == "hermes-agent"
    assert session.metadata["platform"] == "discord"
    assert session.metadata["tools"][0]["function"]["name"] == "terminal"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assert session.started_at == 1772362800000  # the session_meta line's time
    assert session.messages[0].timestamp == 1772362805120  # ISO with microseconds
    assert {m.model for m in session.messages if m.role == "assistant"} == {"nous/hermes-4-405b"}
    assert session.messages[2].tool_call_id == "call_1"


def test_hermes_cli_session_file():
    (session,), problems = read("hermes_cli_session.json")
    assert problems == []
    assert (session.id, session.harness) == ("20260301_120000_0a0b0c", "hermes-agent")
    assert session.started_at == 1772366400000
    roles = [m.role for m in session.messages]
    assert roles == ["system", "user", "assistant", "user"]  # the trailing session_meta: none
    assert session.messages[2].reasoning == "I read it earlier: one print call."
    assert session.messages[2].model == "nous/hermes-4-70b"


def test_corpus_hermes_cli_session_file():
    (session,), problems = read_sessions(
        corpus("hermes", "hermes_cli_session_json_fixture_tool_reasoning.json"), "openai"
    )
    assert problems == []
    assert session.harness == "hermes-agent"
    assert any(m.tool_calls for m in session.messages)
    assert any(m.reasoning for m in session.messages)


def test_plain_chat_records_keep_the_openai_harness():
    sessions, _ = read("finetune.jsonl")
    assert {s.harness for s in sessions} == {"openai"}
