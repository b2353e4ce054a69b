"""The sharegpt converter: function_call/observation turns, Hermes text conventions, the corpus
and the real pi."""

from __future__ import annotations

import pytest

from sts.converters.registry import detect
from sts.io import peek_file
from sts.model import ThinkingPart
from tests.support import (
    CASES,
    checked_model,
    corpus,
    line_codes,
    pi_view,
    read_sessions,
    sts_messages,
    write_checked,
)

SHAREGPT = CASES / "sharegpt"
GLAIVE = "sharegpt_glaive_toolcall_function_call_observation_6records_prefix.json"
CASE_NAMES = sorted(p.name for p in SHAREGPT.iterdir())


def read(name: str):
    return read_sessions(SHAREGPT / name, "sharegpt")


@pytest.mark.parametrize("case", CASE_NAMES)
def test_snapshot(case, snapshot_model):
    sessions, _ = read(case)
    assert sessions
    assert checked_model(sessions) == snapshot_model


def test_glaive_function_call_and_observation():
    sessions, problems = read("glaive.json")
    assert problems == []
    first, plain = sessions
    assert (first.id, first.key, first.harness) == ("glaive-item1", "item1", "sharegpt")
    assert (plain.id, plain.key) == ("plain-2", "item2")
    roles = [m.role for m in first.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert first.messages[0].text == "You may call functions."
    call = first.messages[2].tool_calls[0]
    assert (call.id, call.name) == ("call_3_0", "calculate_area")
    assert call.arguments == {"shape": "rectangle", "dimensions": [5, 3]}
    assert (first.messages[3].tool_call_id, first.messages[3].text) == ("call_3_0", '{"area": 15}')
    assert first.messages[3].tool_name == "calculate_area"
    assert first.metadata["tools"] == [{"name": "calculate_area", "parameters": {"type": "object"}}]


def test_hermes_think_tool_call_and_tool_response():
    sessions, problems = read("hermes.jsonl")
    assert line_codes(problems) == [(2, "bad-tool-call-text")]
    hermes, bad = sessions
    turn = hermes.messages[2]
    assert (turn.reasoning, turn.text) == ("Two cities, two calls.", "Checking both.")
    assert turn.model == "k2p5"
    assert [(c.id, c.arguments) for c in turn.tool_calls] == [
        ("call_2_0", {"city": "Oslo"}),
        ("call_2_1", {"city": "Rome"}),
    ]
    results = [(m.tool_call_id, m.tool_name, m.text) for m in hermes.messages if m.role == "tool"]
    assert results == [
        ("call_2_0", "weather", "Oslo: -3 C"),
        ("call_2_1", "weather", '{"temp":21}'),
    ]
    final = hermes.messages[-1]
    assert final.text == "Oslo is -3 C, Rome 21 C."
    assert not any(type(p) is ThinkingPart for p in final.content)  # empty <think> dropped
    assert hermes.metadata == {"timestamp": "2026-04-13T21:38:56.194348", "completed": True}
    assert (hermes.harness, bad.harness) == ("hermes-agent", "sharegpt")  # bad: no trajectory keys
    assert bad.messages[1].text == "<tool_call>\n{'name': 'x', 'arguments': {}}\n</tool_call>"
    assert bad.messages[1].tool_calls == []


def test_parallel_function_calls_orphans_and_bad_turns():
    (session,), problems = read("parallel_function_call.jsonl")
    assert line_codes(problems) == [
        (1, "orphan-result"), (1, "unknown-role"), (1, "bad-tool-call-text")
    ]
    texts = [(m.role, m.text) for m in session.messages]
    assert texts == [
        ("user", "Time in two zones"),
        ("assistant", "Let me check."),
        ("tool", "10:00"),
        ("tool", "11:00"),
        ("tool", "extra result"),
        ("assistant", "not json"),
        ("assistant", "UTC 10:00, CET 11:00."),
    ]
    assert [c.id for c in session.messages[1].tool_calls] == ["call_2_0", "call_2_1"]
    assert [m.tool_call_id for m in session.messages[2:5]] == ["call_2_0", "call_2_1", None]


def test_corpus_glaive_demo():
    path = corpus("sharegpt", GLAIVE)
    assert detect(peek_file(path)).name == "sharegpt"
    sessions, problems = read_sessions(path, "sharegpt")
    assert problems == []
    assert [s.key for s in sessions] == [f"item{n}" for n in range(1, 7)]
    counts = [len(s.messages) for s in sessions]
    assert counts == [8, 10, 8, 12, 4, 4]
    recipes = sessions[0]
    assert [m.role for m in recipes.messages] == [
        "user", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant"
    ]
    call = recipes.messages[3].tool_calls[0]
    assert (call.id, call.name) == ("call_4_0", "search_recipes")  # message 4, call 0
    assert call.arguments == {"ingredients": ["chicken", "bell peppers", "rice"]}
    assert recipes.messages[4].tool_call_id == "call_4_0"
    assert recipes.messages[-1].text.startswith("I'm sorry, but as an AI, I don't have")
    area = sessions[3]
    calls = [c.id for m in area.messages for c in m.tool_calls]
    assert calls == ["call_2_0", "call_6_0", "call_10_0"]
    assert [m.tool_call_id for m in area.messages if m.role == "tool"] == calls
    final = "The area of the square with side length 7 units is 49 square units."
    assert area.messages[-1].text == final
    assert [len(s.metadata.get("tools", [])) for s in sessions] == [1, 0, 0, 2, 0, 0]
    for session in sessions:
        out = sts_messages(write_checked(session, "sts"))
        assert len(out) == len(session.messages)
        write_checked(session, "pi")


def test_corpus_hermes_trajectory():
    path = corpus("hermes", "hermes_trajectory_sharegpt_2records_prefix.jsonl")
    sessions, problems = read_sessions(path, "sharegpt")
    assert problems == []
    assert len(sessions) == 2
    for session in sessions:
        assert [m.role for m in session.messages] == ["system", "user", "assistant"]
        assert session.messages[2].model == "k2p5"
        assert session.messages[2].reasoning
    assert sessions[0].messages[2].text == "Hello from HermesWith!"
    assert sessions[1].messages[2].text == "HermesWith is working!"


def test_real_pi_loads_output():
    path = corpus("sharegpt", GLAIVE)
    sessions, _ = read_sessions(path, "sharegpt")
    cases, _ = read("hermes.jsonl")
    chosen = [sessions[0], sessions[3], cases[0]]
    views = pi_view(*(write_checked(s, "pi") for s in chosen))
    for session, view in zip(chosen, views, strict=True):
        branch = [e["message"] for e in view["branch"] if e["type"] == "message"]
        ours = [m for m in session.messages if m.role != "system"]
        assert [b["role"] for b in branch] == [
            {"tool": "toolResult"}.get(m.role, m.role) for m in ours
        ]
        for mine, theirs in zip(ours, branch, strict=True):
            texts = "".join(b["text"] for b in theirs["content"] if b["type"] == "text")
            assert texts == mine.text
            if mine.role == "assistant":
                calls = [b["id"] for b in theirs["content"] if b["type"] == "toolCall"]
                assert calls == [c.id for c in mine.tool_calls]
                thinking = [b["thinking"] for b in theirs["content"] if b["type"] == "thinking"]
                assert thinking == ([mine.reasoning] if mine.reasoning else [])
            elif mine.role == "tool":
                assert theirs["toolCallId"] == mine.tool_call_id
