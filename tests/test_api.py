"""The Python API for export scripts: read, write, convert, detect, validate."""

from __future__ import annotations

import io

import pytest

import sts
from tests.support import SAMPLES, assert_valid, lines


def test_read_detects_and_yields_sessions():
    [session] = sts.read(SAMPLES / "hello.sts.jsonl")
    assert isinstance(session, sts.Session)
    assert session.id == "hello-1" and session.harness == "my-agent"
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]


def test_read_accepts_bytes_and_file_objects():
    data = (SAMPLES / "hello.sts.jsonl").read_bytes()
    assert next(sts.read(data)).id == "hello-1"
    assert next(sts.read(io.BytesIO(data), format="sts")).id == "hello-1"


def test_read_reports_problems_to_the_callback():
    found: list[sts.Problem] = []
    data = b'{"type":"session","harness":"x","id":"s"}\n{not json\n'
    [session] = sts.read(data, format="sts", problems=found.append)
    assert [(p.line, p.code) for p in found] == [(2, "malformed-json")]
    assert session.messages == []


def test_read_fail_policy_raises():
    data = b'{"type":"session","harness":"x","id":"s"}\n{not json\n'
    with pytest.raises(sts.ConversionFailed) as caught:
        list(sts.read(data, format="sts", on_error="fail", problems=lambda p: None))
    assert caught.value.problem.line == 2


def test_read_keep_policy_keeps_raw_lines():
    data = b'{"type":"session","harness":"x","id":"s"}\n{not json\n'
    [session] = sts.read(data, format="sts", on_error="keep", problems=lambda p: None)
    assert session.metadata["unparsedLines"] == [{"line": 2, "raw": "{not json\n"}]


def test_read_unknown_input_raises_a_clear_error():
    with pytest.raises(ValueError, match=r"not a format sts reads .*format=NAME forces one"):
        list(sts.read(b"hello\n"))


def test_write_to_a_path_and_to_a_file_object(tmp_path):
    session = sts.Session(
        "s1", [sts.Message("user", [sts.TextPart("hi")], timestamp=1772442871318)]
    )
    target = tmp_path / "deep" / "out.jsonl"
    sts.write(session, target, to="pi", harness="my-agent")
    assert_valid(target.read_bytes(), "pi")
    assert lines(target.read_bytes())[0]["harness"] == "my-agent"
    buffer = io.BytesIO()
    sts.write(session, buffer)
    assert lines(buffer.getvalue())[1] == {
        "type": "message",
        "message": {"role": "user", "content": "hi", "timestamp": 1772442871318},
    }


def test_convert_writes_one_file_per_session(tmp_path):
    written = sts.convert(SAMPLES / "pi-v3-session.jsonl", tmp_path, to="sts")
    assert written == [tmp_path / "pi-v3-session.jsonl"]
    written = sts.convert(
        SAMPLES / "pi-v3-session.jsonl", tmp_path / "all", to="pi", all_branches=True
    )
    assert len(written) == 2
    assert written[0].name == "pi-v3-session.main.jsonl"
    assert written[1].name.startswith("pi-v3-session.branch-")
    for path in written:
        assert_valid(path.read_bytes(), "pi")


def test_detect_and_validate():
    assert sts.detect(SAMPLES / "pi-v1-session.jsonl") == "pi"
    assert sts.detect(b"not a trace") is None
    assert sts.validate(SAMPLES / "hello.sts.jsonl") == []
    problems = sts.validate(b'{"type":"session","id":"x"}\n')
    assert [p.code for p in problems] == ["bad-header"]


def test_convert_streams_and_names_each_session(tmp_path):
    chats = b"".join(
        b'{"id":"c%d","messages":[{"role":"user","content":"hi %d"}]}\n' % (i, i) for i in range(3)
    )
    source = tmp_path / "chats.jsonl"
    source.write_bytes(chats)
    written = sts.convert(source, tmp_path / "out")
    assert [p.name for p in written] == ["chats.L1.jsonl", "chats.L2.jsonl", "chats.L3.jsonl"]
    assert [lines(p.read_bytes())[1]["message"]["content"] for p in written] == [
        "hi 0", "hi 1", "hi 2"
    ]


def test_convert_refuses_to_write_over_its_source(tmp_path):
    source = tmp_path / "session.jsonl"
    source.write_bytes((SAMPLES / "hello.sts.jsonl").read_bytes())
    before = source.read_bytes()
    with pytest.raises(ValueError, match="refusing to write over the input"):
        sts.convert(source, tmp_path)
    assert source.read_bytes() == before
