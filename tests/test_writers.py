"""The STS and Pi writers on hand-built sessions and model fixtures: every model field lands
where the spec says.

The writers' snapshots live here, and only here: reader tests snapshot the model
(`tests.support.checked_model`), so a writer change rewrites these few files, not every reader
case's. The fixtures in tests/fixtures/model/ are models in `tests.model_json`'s rendering,
chosen so that together they hold every role, kind, part and field the readers produce.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from sts.model import (
    ImagePart,
    MediaPart,
    Message,
    Session,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCall,
    Usage,
)
from tests.model_json import load
from tests.support import ROOT, lines, pi_view, sts_messages, walk, write_checked

PNG = base64.b64encode(b"\x89PNG" + b"\0" * 2044).decode()


def rich_session() -> Session:
    """A session using every part of the model once."""
    return Session(
        id="sess-1",
        name="Fix the parser",
        source_format="test",
        source_version="1.2",
        harness="my-agent",
        cwd="/work/project",
        git={"branch": "main"},
        started_at=1772442840000,
        metadata={"originator": "unit-test", "id": "clashes-with-header"},
        messages=[
            Message("system", [TextPart("You are terse.")], kind="system_prompt"),
            Message(
                "user",
                [TextPart("What is in this picture?"), ImagePart("image/png", data=PNG)],
                timestamp=1772442871318,
                id="u1",
            ),
            Message(
                "assistant",
                [
                    ThinkingPart("Look at the bytes.", signature="c2lnbmF0dXJl"),
                    ThinkingPart("", signature="ZW5jcnlwdGVk"),
                    ThinkingPart("[Reasoning redacted]", signature="b3BhcXVl", redacted=True),
                    TextPart("Let me check."),
                ],
                tool_calls=[
                    ToolCall("call_1", "read", {"path": "a.png"}),
                    ToolCall("call_2|fc_2", "bash", None, "ls -la ("),
                    ToolCall("call_3", "grep", ["x", 1], None),
                ],
                timestamp=1772442872000,
                id="a1",
                model="claude-sonnet-4-5",
                provider="anthropic",
                api="anthropic-messages",
                usage=Usage(10, 20, 5, 1, cost_total=0.0012),
                stop_reason=StopReason.TOOL_USE,
            ),
            Message("tool", [TextPart("a PNG")], tool_call_id="call_1", tool_name="read",
                    timestamp=1772442873000),
            Message("tool", [TextPart("syntax error")], tool_call_id="call_2|fc_2",
                    is_error=True, timestamp=1772442873001),
            Message("tool", [MediaPart("audio", "audio/wav", size=4096)], tool_call_id="call_3"),
            Message("system", [TextPart("Earlier turns were summarised.")], kind="compaction",
                    tokens_before=1234, timestamp=1772442874000),
            Message(
                "assistant",
                [TextPart("It is a tiny PNG.\u2028Done.")],
                timestamp=1772442875000,
                model="claude-sonnet-4-5",
                usage=Usage(3, 4),
            ),
        ],
    )


def test_sts_output(snapshot_jsonl):
    data = write_checked(rich_session(), "sts")
    assert data == snapshot_jsonl
    header, *_ = lines(data)
    assert header["harness"] == "my-agent"
    assert header["toolErrors"] == ["call_2|fc_2"]
    assert header["usage"] == {
        "input": 13, "output": 24, "cacheRead": 5, "cacheWrite": 1, "cost": 0.0012
    }
    assert header["originator"] == "unit-test"
    assert header["metadata"] == {"id": "clashes-with-header"}
    messages = sts_messages(data)
    assert [m["role"] for m in messages] == [
        "system", "user", "assistant", "tool", "tool", "tool", "system", "assistant"
    ]
    assert messages[1]["content"] == "What is in this picture?\n\n[image: image/png, 2 KB]"
    assistant = messages[2]
    assert assistant["reasoningContent"] == "Look at the bytes."
    assert [c["function"]["arguments"] for c in assistant["toolCalls"]] == [
        '{"path":"a.png"}', '"ls -la ("', '["x",1]'
    ]
    assert messages[5]["content"] == "[audio: audio/wav, 4 KB]"
    assert "\u2028" in messages[7]["content"]


def test_harness_override():
    data = write_checked(rich_session(), "sts", harness="other")
    assert lines(data)[0]["harness"] == "other"
    data = write_checked(rich_session(), "pi", harness="other")
    assert lines(data)[0]["harness"] == "other"


def test_pi_output(snapshot_jsonl):
    data = write_checked(rich_session(), "pi")
    assert data == snapshot_jsonl
    header, info, *entries = lines(data)
    assert header["version"] == 3 and header["harness"] == "my-agent"
    assert header["timestamp"] == "2026-03-02T09:14:00.000Z"
    assert info == {"type": "session_info", "id": "00000001", "parentId": None,
                    "timestamp": "2026-03-02T09:14:00.000Z", "name": "Fix the parser"}
    assert [e["type"] for e in entries] == [
        "custom_message", "message", "message", "message", "message", "message",
        "compaction", "message",
    ]
    assert entries[1]["id"] == "u1" and entries[2]["id"] == "a1"
    assistant = entries[2]["message"]
    assert assistant["stopReason"] == "toolUse"
    assert [b["type"] for b in assistant["content"]] == [
        "thinking", "thinking", "thinking", "text", "toolCall", "toolCall", "toolCall"
    ]
    assert assistant["content"][5]["arguments"] == {"_raw": "ls -la ("}
    assert assistant["content"][6]["arguments"] == {"_value": ["x", 1]}
    assert entries[4]["message"]["isError"] is True
    assert entries[5]["message"]["toolName"] == "grep"
    compaction = entries[6]
    assert compaction["firstKeptEntryId"] == compaction["id"]
    assert compaction["tokensBefore"] == 1234
    last = entries[7]["message"]
    assert last["api"] == "unknown" and last["provider"] == "unknown"
    assert last["usage"]["totalTokens"] == 7 and last["usage"]["cost"]["total"] == 0


def test_real_pi_loads_pi_output():
    session = rich_session()
    view = pi_view(write_checked(session, "pi"))[0]
    assert view["name"] == "Fix the parser"
    assert view["header"]["harness"] == "my-agent"
    branch = view["branch"]
    assert view["leafId"] == branch[-1]["id"]
    messages = [e["message"] for e in branch if e["type"] == "message"]
    assert [m["role"] for m in messages] == [
        "user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"
    ]
    calls = [b["id"] for b in messages[1]["content"] if b["type"] == "toolCall"]
    assert calls == ["call_1", "call_2|fc_2", "call_3"]
    assert [m["toolCallId"] for m in messages[2:5]] == calls
    # After the compaction the model sees the summary and what follows it.
    assert view["context"][0]["role"] == "compactionSummary"
    assert view["context"][0]["summary"] == "Earlier turns were summarised."


def test_lone_surrogates_are_written_as_valid_utf8():
    session = Session("s", [Message("user", [TextPart("broken \ud83d emoji")])], harness="x")
    for target in ("sts", "pi"):
        data = write_checked(session, target)
        assert "broken \ufffd emoji" in data.decode("utf-8")


def test_empty_session_writes_header_only():
    session = Session("empty", harness="x")
    assert lines(write_checked(session, "sts")) == [
        {"type": "session", "harness": "x", "id": "empty"}
    ]
    assert len(lines(write_checked(session, "pi"))) == 1


MODEL_FIXTURES = sorted((ROOT / "tests" / "fixtures" / "model").glob("*.json"))


@pytest.mark.parametrize("target", ["sts", "pi"])
@pytest.mark.parametrize("fixture", MODEL_FIXTURES, ids=lambda p: p.stem)
def test_writer_snapshot(fixture: Path, target: str, snapshot_jsonl) -> None:
    sessions = load(fixture.read_bytes())
    assert b"".join(write_checked(s, target) for s in walk(sessions)) == snapshot_jsonl


def test_real_pi_loads_the_pi_output_of_every_model_fixture() -> None:
    """pi opens each output and its active branch is every entry we wrote, in order."""
    outputs = [write_checked(s, "pi") for f in MODEL_FIXTURES for s in walk(load(f.read_bytes()))]
    for data, view in zip(outputs, pi_view(*outputs), strict=True):
        header, *entries = lines(data)
        assert view["header"]["id"] == header["id"]
        assert [e["id"] for e in view["branch"]] == [e["id"] for e in entries]
        assert view["leaves"] == [entries[-1]["id"]]
