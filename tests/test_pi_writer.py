"""Pi output judged by the real pi, and round trips through the Pi and STS readers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sts.converters.base import ReadContext
from sts.converters.pi import PiConverter
from sts.converters.sts import StsConverter
from sts.model import Message, MessageKind, Session, TextPart
from sts.problems import Problems
from tests.pi_compare import expected, ours
from tests.support import CASES, SAMPLES, corpus, lines, pi_view, write_checked
from tests.test_pi import CASE_FILES, CORPUS_FILES, PI_SAMPLES


def read(data: bytes, converter=None, **options) -> list[Session]:
    problems = Problems("<test>", "skip", None)
    context = ReadContext(problems, None, options)
    return list((converter or PiConverter()).read(io.BytesIO(data), context))


def check_pi_loads(session: Session) -> None:
    """pi opens our Pi output and its active branch is our session, message by message."""
    data = write_checked(session, "pi")
    (view,) = pi_view(data)
    entries = lines(data)
    assert view["leafId"] == entries[-1]["id"] if len(entries) > 1 else view["leafId"] is None
    assert view["header"]["harness"] == session.harness
    assert view["header"]["version"] == 3
    assert view["name"] == session.name
    assert isinstance(view["context"], list)
    with_id = all(m.id for m in session.messages)  # else the writer numbers the entries
    want = expected(view["branch"], with_id)
    got = [ours(m, with_id) for m in session.messages]
    assert len(got) == len(want)
    for index, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        assert mine == theirs, f"message {index}"
    thinking = [
        [(b.get("thinking"), b.get("thinkingSignature"), b.get("redacted", False))
         for b in e["message"]["content"] if b.get("type") == "thinking"]
        for e in view["branch"] if e["type"] == "message" and e["message"]["role"] == "assistant"
    ]
    assert thinking == [
        [(p.text, p.signature, p.redacted) for p in m.content if type(p).__name__ == "ThinkingPart"]
        for m in session.messages if m.role == "assistant"
    ]


@pytest.mark.parametrize("path", [*PI_SAMPLES, *CASE_FILES], ids=lambda p: p.stem)
def test_pi_loads_our_output(path: Path) -> None:
    for session in read(path.read_bytes(), all_branches=True):
        check_pi_loads(session)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_pi_loads_our_output_of_the_corpus(name: str) -> None:
    (session,) = read(corpus("pi", name).read_bytes())
    check_pi_loads(session)


def test_pi_loads_our_output_of_an_sts_file() -> None:
    (session,) = read((SAMPLES / "hello.sts.jsonl").read_bytes(), StsConverter())
    check_pi_loads(session)
    assert session.harness == "my-agent"


# round trips ----------------------------------------------------------------------------------


def sts_round_trip(data: bytes) -> bytes:
    (session,) = read(data, StsConverter())
    return write_checked(session, "sts")


def test_sts_to_sts_is_byte_identical() -> None:
    data = (SAMPLES / "hello.sts.jsonl").read_bytes()
    assert sts_round_trip(data) == data


def test_sts_to_sts_is_byte_identical_for_our_output_of_a_case() -> None:
    (session,) = read((CASES / "pi" / "compaction.jsonl").read_bytes())
    data = write_checked(session, "sts")
    assert sts_round_trip(data) == data


def same_message(a: Message, b: Message) -> None:
    assert (a.role, a.kind if a.role == "system" else None, a.text, a.id) == (
        b.role, b.kind if b.role == "system" else None, b.text, b.id
    )
    assert [(c.id, c.name, c.arguments) for c in a.tool_calls] == [
        (c.id, c.name, c.arguments) for c in b.tool_calls
    ]
    assert (a.tool_call_id, a.tool_name, a.is_error) == (b.tool_call_id, b.tool_name, b.is_error)
    assert a.content == b.content  # text, images, thinking with signatures, in order
    assert (a.timestamp, a.usage, a.stop_reason, a.error_message) == (
        b.timestamp, b.usage, b.stop_reason, b.error_message
    )
    if a.role == "assistant":
        assert (a.model, a.provider) == (b.model, b.provider)


@pytest.mark.parametrize("path", PI_SAMPLES, ids=lambda p: p.stem)
def test_pi_to_pi_keeps_the_active_branch(path: Path) -> None:
    (before,) = read(path.read_bytes())
    (after,) = read(write_checked(before, "pi"))
    assert (after.id, after.name, after.cwd, after.started_at) == (
        before.id, before.name, before.cwd, before.started_at
    )
    assert len(after.messages) == len(before.messages)
    for a, b in zip(after.messages, before.messages, strict=True):
        same_message(a, b)
    compactions = [(m.tokens_before, m.first_kept_id) for m in after.messages
                   if m.kind == "compaction"]
    assert compactions == [(m.tokens_before, m.first_kept_id) for m in before.messages
                           if m.kind == "compaction"]


def test_pi_to_pi_on_the_real_capture() -> None:
    (before,) = read(corpus("pi", CORPUS_FILES[4]).read_bytes())
    (after,) = read(write_checked(before, "pi"))
    for a, b in zip(after.messages, before.messages, strict=True):
        same_message(a, b)


def test_system_messages_of_every_kind_survive_pi_write_and_read() -> None:
    """pi has no system role: the writer stores one as a ``custom_message`` whose customType is
    ``system`` or ``system:<kind>``, and the Pi reader turns exactly those back into system
    messages (an extension's own customType, even one starting with "system", stays a user
    message); the real pi sees them where they were."""
    start = 1_767_225_600_000
    kinds = [None, "system_prompt", "developer", "injected_context", "inter_agent", "meta"]
    messages = [
        Message("system", [TextPart(f"rule {n}")], kind=kind, id=f"s{n}", timestamp=start + n)
        for n, kind in enumerate(kinds)
    ]
    messages[2:2] = [Message("user", [TextPart("hi")], id="u1", timestamp=start + 10),
                     Message("assistant", [TextPart("hello")], id="a1", timestamp=start + 11)]
    messages += [
        Message("user", [TextPart("from an extension")], kind=MessageKind.CUSTOM, id="c1",
                custom_type="systemd-watch"),
        Message("system", [TextPart("summary of earlier turns")], kind="compaction", id="k1"),
        Message("assistant", [TextPart("done")], id="a2"),
    ]
    session = Session("system-kinds", messages, harness="my-agent")
    check_pi_loads(session)
    custom_types = [e.get("customType") for e in lines(write_checked(session, "pi"))[1:]]
    assert custom_types[:3] == ["system", "system:system_prompt", None]
    (after,) = read(write_checked(session, "pi"))
    assert [(m.role, m.kind, m.text, m.id) for m in after.messages] == [
        (m.role, m.kind, m.text, m.id) for m in messages
    ]
    assert [m.timestamp for m in after.messages[:8]] == [m.timestamp for m in messages[:8]]
    assert after.messages[8].custom_type == "systemd-watch"


def test_sts_output_of_the_v3_sample() -> None:
    (session,) = read((SAMPLES / "pi-v3-session.jsonl").read_bytes())
    header, *messages = lines(write_checked(session, "sts"))
    assert header["name"] == "Fix the flaky forecast test"
    assert header["toolErrors"] == ["toolu_01Pq7ZrW2vN5kLm8TbXe3sYa"]
    assert [m["message"]["role"] for m in messages] == [
        "user", "assistant", "tool", "assistant", "tool", "system", "system", "user",
        "assistant", "tool", "assistant",
    ]
    edit = messages[8]["message"]
    assert edit["toolCalls"][0]["function"]["arguments"] == (
        '{"path":"tests/test_forecast.py","oldText":"forecast(random.randint(1, 7))",'
        '"newText":"forecast(3)"}'
    )
    assert "reasoningContent" not in edit  # encrypted reasoning has no readable text
    assert messages[-1]["message"]["reasoningContent"].startswith("The edit removed")


def test_a_system_kind_the_model_does_not_know_round_trips() -> None:
    """A ``custom_message`` stored as ``system:<kind>`` by a newer writer keeps its type."""
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"}
    entry = {"type": "custom_message", "id": "e1", "parentId": None,
             "timestamp": "2026-01-01T00:00:01.000Z", "customType": "system:weather",
             "content": "a weather report", "display": True}
    data = b"".join(json.dumps(x).encode() + b"\n" for x in (header, entry))
    (session,) = read(data)
    (message,) = session.messages
    assert (message.role, message.kind, message.custom_type) == ("system", None, "system:weather")
    entries = lines(write_checked(session, "pi"))
    assert entries[-1]["customType"] == "system:weather"


def test_the_ids_written_are_remembered_as_numbers_when_pi_made_them():
    # millions of tiny entries are mostly ids: pi's own (a few hex digits) are kept as ints
    from sts.writers.pi import PiEntries

    session = Session("s", [Message("user", [TextPart("a")], id="0a1b2c3d"),
                            Message("assistant", [TextPart("b")], id="not-hex")])
    writer = PiEntries(session, None)
    written = [writer.new_id(m.id) for m in session.messages] + [writer.new_id("0a1b2c3d")]
    assert written == ["0a1b2c3d", "not-hex", "00000001"]
    assert writer.used_ids == {0x10A1B2C3D, "not-hex", 0x100000001}


def test_a_time_no_target_can_hold_is_skipped_for_the_start_and_each_entry():
    # a session built by hand: ms of 1970-01-12 read as seconds, no output can hold them
    unheld, first, later = 1_000_000_000, 1_767_225_600_000, 1_767_225_660_000
    session = Session("s", [Message("user", [TextPart("a")], timestamp=unheld),
                            Message("assistant", [TextPart("b")], timestamp=first),
                            Message("tool", [TextPart("c")], tool_call_id="x", timestamp=unheld),
                            Message("user", [TextPart("d")], timestamp=later)])
    header, *entries = lines(write_checked(session, "pi"))
    assert header["timestamp"] == "2026-01-01T00:00:00.000Z"
    assert [e["timestamp"] for e in entries] == [
        "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:01:00.000Z"]
    assert [e["message"]["timestamp"] for e in entries] == [first, first, first, later]
