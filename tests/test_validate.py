"""The spec validator (sts.validate, `sts validate`): each defect gives its code at its line."""

from __future__ import annotations

import io
import json

import pytest

import sts
from sts.validation import detect_target_format, validate_bytes, validate_stream

HEADER = {"type": "session", "harness": "my-agent", "id": "s1"}
USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def jsonl(*records) -> bytes:
    """JSONL bytes; a `bytes` item is written as it is (for malformed lines)."""
    out = []
    for record in records:
        out.append(record if isinstance(record, bytes) else json.dumps(record).encode())
    return b"\n".join(out) + b"\n"


def msg(**message) -> dict:
    return {"type": "message", "message": message}


def call(call_id="t1", name="f", arguments="{}") -> dict:
    return {"id": call_id, "function": {"name": name, "arguments": arguments}}


def found(data: bytes, fmt: str | None = None) -> list[tuple[int | None, str, str]]:
    return [(p.line, p.code, p.severity) for p in validate_bytes(data, fmt, "x.jsonl")]


def errors(data: bytes, fmt: str | None = None) -> list[tuple[int | None, str]]:
    return [(line, code) for line, code, severity in found(data, fmt) if severity == "error"]


GOOD_STS = jsonl(
    {**HEADER, "name": "what time is it"},
    msg(role="system", content="be brief"),
    msg(role="user", content="what time is it?", timestamp=1_772_442_871_318),
    msg(role="assistant", content="", reasoningContent="use the tool", model="m",
        toolCalls=[call("t1", "get_time", "{}")]),
    msg(role="tool", toolCallId="t1", content="15:00"),
    msg(role="assistant", content="it is 15:00"),
)


def test_the_spec_example_is_valid():
    assert found(GOOD_STS) == []
    assert found(GOOD_STS, "sts") == []


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        # header
        ([{"type": "sessio", "harness": "h", "id": "s"}], [(1, "bad-header")]),
        ([{"type": "session", "id": "s"}], [(1, "bad-header")]),
        ([{"type": "session", "harness": "", "id": "s"}], [(1, "bad-header")]),
        ([{"type": "session", "harness": "h", "id": 7}], [(1, "bad-header")]),
        ([{**HEADER, "name": ["x"]}], [(1, "bad-header")]),
        ([HEADER, HEADER], [(2, "second-header")]),
        # message lines
        ([HEADER, {"type": "msg", "message": {"role": "user", "content": ""}}], [(2, "bad-line")]),
        ([HEADER, {"type": "message", "message": "hi"}], [(2, "bad-line")]),
        ([HEADER, msg(role="human", content="hi")], [(2, "unknown-role")]),
        ([HEADER, msg(role=["user"], content="hi")], [(2, "unknown-role")]),
        ([HEADER, msg(content="hi")], [(2, "unknown-role")]),
        ([HEADER, msg(role="user", content=None)], [(2, "content-not-string")]),
        ([HEADER, msg(role="user", content=[{"type": "text", "text": "hi"}])],
         [(2, "content-not-string")]),
        ([HEADER, msg(role="user")], [(2, "content-not-string")]),
        ([HEADER, msg(role="user", content="", extra=1)], [(2, "extra-field")]),
        ([HEADER, msg(role="assistant", content="", reasoningContent=["x"])],
         [(2, "bad-reasoning")]),
        ([HEADER, msg(role="assistant", content="", model=5)], [(2, "bad-model")]),
        # timestamps: integer epoch ms
        ([HEADER, msg(role="user", content="", timestamp="2026-03-02T09:14:05Z")],
         [(2, "bad-timestamp")]),
        ([HEADER, msg(role="user", content="", timestamp=1_772_442_871_318.5)],
         [(2, "bad-timestamp")]),
        ([HEADER, msg(role="user", content="", timestamp=True)], [(2, "bad-timestamp")]),
        ([HEADER, msg(role="user", content="", timestamp=None)], [(2, "bad-timestamp")]),
        # tool calls
        ([HEADER, msg(role="assistant", content="", toolCalls=call())], [(2, "bad-tool-calls")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=None)], [(2, "bad-tool-calls")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[{"id": "t1"}])],
         [(2, "bad-tool-call")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=["t1"])], [(2, "bad-tool-call")]),
        ([HEADER, msg(role="assistant", content="",
                      toolCalls=[{"id": "t", "function": {"arguments": "{}"}}])],
         [(2, "bad-tool-call")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[call(arguments={"a": 1})])],
         [(2, "bad-arguments")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[call(arguments="{'a': 1}")])],
         [(2, "bad-arguments")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[call(arguments="")])],
         [(2, "bad-arguments")]),
        ([HEADER, msg(role="user", content="", toolCalls=[call()])],
         [(2, "misplaced-tool-calls")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[call("t1"), call("t1")])],
         [(2, "duplicate-id")]),
        ([HEADER, msg(role="assistant", content="", toolCalls=[call("t1")]),
          msg(role="assistant", content="", toolCalls=[call("t1")])], [(3, "duplicate-id")]),
        # tool results
        ([HEADER, msg(role="user", content="", toolCallId="t1")],
         [(2, "misplaced-tool-call-id")]),
        ([HEADER, msg(role="tool", content="", toolCallId=1)], [(2, "bad-tool-call-id")]),
        ([HEADER, msg(role="tool", content="", toolCallId={"id": "t1"})],
         [(2, "bad-tool-call-id")]),
    ],
)
def test_sts_defects(lines, expected):
    assert errors(jsonl(*lines), "sts") == expected


def test_orphan_result_is_a_warning_with_its_line():
    data = jsonl(HEADER, msg(role="user", content="x"), msg(role="tool", content="",
                                                             toolCallId="t9"))
    assert found(data, "sts") == [(3, "orphan-result", "warning")]
    # a result before its call is an orphan too: the viewer stitches results to earlier calls
    data = jsonl(HEADER, msg(role="tool", content="", toolCallId="t1"),
                 msg(role="assistant", content="", toolCalls=[call("t1")]))
    assert found(data, "sts") == [(2, "orphan-result", "warning")]


@pytest.mark.parametrize("value", [0, -5, 7, 99_999_999_999_999])
def test_an_implausible_integer_time_is_a_warning(value):
    """Epoch ms outside 2000-2100, and not seconds in those years: a fixture's fake times."""
    data = jsonl(HEADER, msg(role="user", content="", timestamp=value))
    assert found(data, "sts") == [(2, "implausible-timestamp", "warning")]
    data = jsonl(PI_HEADER, entry("a", None, message={**user(), "timestamp": value}))
    assert found(data, "pi") == [(2, "implausible-timestamp", "warning")]


@pytest.mark.parametrize("value", [1_751_385_600, 946_684_800, 4_102_444_800])
def test_a_time_in_seconds_is_an_error(value):
    """Seconds where STS wants milliseconds: the viewer would show January 1970."""
    data = jsonl(HEADER, msg(role="user", content="", timestamp=value))
    assert found(data, "sts") == [(2, "timestamp-in-seconds", "error")]
    data = jsonl(PI_HEADER, entry("a", None, message={**user(), "timestamp": value}))
    assert found(data, "pi") == [(2, "timestamp-in-seconds", "error")]


def test_several_defects_on_several_lines_are_all_reported():
    data = jsonl(
        {"type": "session", "harness": "h"},
        msg(role="robot", content=3),
        b'{"type": "message", "message": ',
        b"[1, 2]",
        msg(role="assistant", content="", toolCalls=[call(arguments="not json")]),
        msg(role="user", content="ok", timestamp=12.5),
    )
    assert errors(data, "sts") == [
        (1, "bad-header"), (2, "unknown-role"), (2, "content-not-string"), (3, "malformed-json"),
        (4, "not-an-object"), (5, "bad-arguments"), (6, "bad-timestamp"),
    ]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", [(None, "empty")]),
        (b"\n\n  \n", [(None, "empty")]),
        (jsonl(HEADER)[:-1], [(None, "no-final-newline")]),
        (b"\xef\xbb\xbf" + jsonl(HEADER), [(1, "malformed-json"), (None, "empty")]),
        (jsonl(HEADER) + b'{"type":"message","message":{"role":"user","content":"\\ud83d"}}\n',
         [(2, "malformed-json")]),
        (jsonl(HEADER) + b'{"type":"message","message":{"role":"user","content":"\xff"}}\n',
         [(2, "malformed-json")]),
        (jsonl(HEADER) + b"[" * 100_000 + b"]" * 100_000 + b"\n", [(2, "malformed-json")]),
        (b"\x89PNG\r\n\x1a\n", [(1, "malformed-json"), (2, "malformed-json"), (None, "empty")]),
    ],
)
def test_unreadable_files(data, expected):
    assert sorted(errors(data, "sts"), key=str) == sorted(expected, key=str)


def test_blank_lines_and_crlf_are_allowed_and_counted():
    data = jsonl(HEADER).replace(b"\n", b"\r\n") + b"\n" + jsonl(msg(role="robot", content=""))
    assert errors(data, "sts") == [(3, "unknown-role")]


# Pi -----------------------------------------------------------------------------------------

PI_HEADER = {"type": "session", "version": 3, "id": "p1", "timestamp": "2026-03-02T09:14:05.112Z",
             "cwd": "/p", "harness": "my-agent"}


ENTRY_TIME = "2026-03-02T09:14:31.322Z"


def entry(entry_id, parent, **fields) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ENTRY_TIME,
            **fields}


def user(text="hi") -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1772442871318}


def assistant(*blocks, **fields) -> dict:
    return {"role": "assistant", "content": list(blocks), "api": "a", "provider": "p",
            "model": "m", "usage": USAGE, "stopReason": "stop", "timestamp": 1772442871632,
            **fields}


def result(call_id="c1", **fields) -> dict:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "f",
            "content": [{"type": "text", "text": "ok"}], "isError": False,
            "timestamp": 1772442871700, **fields}


TOOL_CALL = {"type": "toolCall", "id": "c1", "name": "f", "arguments": {"a": 1}}

GOOD_PI = jsonl(
    PI_HEADER,
    {"type": "session_info", "id": "i0", "parentId": None, "timestamp": ENTRY_TIME, "name": "x"},
    entry("a1", "i0", message=user()),
    entry("a2", "a1", message=assistant({"type": "thinking", "thinking": "hm"}, TOOL_CALL,
                                        stopReason="toolUse")),
    entry("a3", "a2", message=result()),
    {"type": "compaction", "id": "a4", "parentId": "a3", "timestamp": ENTRY_TIME, "summary": "s",
     "firstKeptEntryId": "a1", "tokensBefore": 10},
    {"type": "custom_message", "id": "a5", "parentId": "a4", "timestamp": ENTRY_TIME,
     "customType": "system", "content": "sys", "display": True},
    entry("a6", "a5", message=assistant({"type": "text", "text": "done"})),
)


def test_a_faithful_pi_file_is_valid():
    assert found(GOOD_PI) == []
    assert found(GOOD_PI, "pi") == []


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([{**PI_HEADER, "type": "sesion"}], [(1, "bad-header")]),
        ([{**PI_HEADER, "id": None}], [(1, "bad-header")]),
        ([{**PI_HEADER, "version": 2}], [(1, "bad-version")]),
        ([{k: v for k, v in PI_HEADER.items() if k != "version"}], [(1, "bad-version")]),
        ([{**PI_HEADER, "timestamp": 1772442871318}], [(1, "bad-timestamp")]),
        ([{**PI_HEADER, "harness": 3}], [(1, "bad-header")]),
        ([PI_HEADER, {"id": "a", "parentId": None, "timestamp": ENTRY_TIME}], [(2, "bad-entry")]),
        ([PI_HEADER, entry(None, None, message=user())], [(2, "bad-entry")]),
        ([PI_HEADER, entry("a", None, message=user()), entry("a", "a", message=user())],
         [(3, "duplicate-id")]),
        ([PI_HEADER, entry("a", "zz", message=user())], [(2, "broken-chain")]),
        ([PI_HEADER, entry("a", "b", message=user()), entry("b", None, message=user())],
         [(2, "broken-chain")]),
        ([PI_HEADER, {k: v for k, v in entry("a", None, message=user()).items()
                      if k != "parentId"}], [(2, "broken-chain")]),
        ([PI_HEADER, entry("a", ["x"], message=user())], [(2, "broken-chain")]),
        ([PI_HEADER, entry("a", None, message=user(), timestamp=1772442871318)],
         [(2, "bad-timestamp")]),
        ([PI_HEADER, entry("a", None, message={**user(), "timestamp": "2026-03-02"})],
         [(2, "bad-timestamp")]),
        ([PI_HEADER, entry("a", None, message={**user(), "timestamp": 1772442871.5})],
         [(2, "bad-timestamp")]),
        ([PI_HEADER, entry("a", None)], [(2, "bad-message")]),
        ([PI_HEADER, entry("a", None, message={"role": "human", "content": "x"})],
         [(2, "unknown-role")]),
        ([PI_HEADER, entry("a", None, message={"role": {"x": 1}, "content": "x"})],
         [(2, "unknown-role")]),
        ([PI_HEADER, entry("a", None, message={**user(), "content": {"text": "x"}})],
         [(2, "bad-content")]),
        ([PI_HEADER, entry("a", None, message={**user(),
                                               "content": [{"type": "audio"}]})],
         [(2, "bad-block")]),
        ([PI_HEADER, entry("a", None, message={**user(),
                                               "content": [{"type": "text", "text": 3}]})],
         [(2, "bad-block")]),
        ([PI_HEADER, entry("a", None, message={**user(),
                                               "content": [{"type": "image", "data": "x"}]})],
         [(2, "bad-block")]),
        ([PI_HEADER, entry("a", None, message={**assistant(), "content": "text"})],
         [(2, "bad-content")]),
        ([PI_HEADER, entry("a", None, message=assistant({"type": "image", "data": "x",
                                                         "mimeType": "image/png"}))],
         [(2, "bad-block")]),
        ([PI_HEADER, entry("a", None, message=assistant({**TOOL_CALL, "arguments": "{}"}))],
         [(2, "bad-arguments")]),
        ([PI_HEADER, entry("a", None, message=assistant({**TOOL_CALL, "id": 5}))],
         [(2, "bad-tool-call")]),
        ([PI_HEADER, entry("a", None, message=assistant(TOOL_CALL, TOOL_CALL))],
         [(2, "duplicate-id")]),
        ([PI_HEADER, entry("a", None, message={**assistant(), "usage": None})],
         [(2, "bad-usage")]),
        ([PI_HEADER, entry("a", None, message={**assistant(), "usage": {**USAGE, "cost": {}}})],
         [(2, "bad-usage")]),
        ([PI_HEADER, entry("a", None, message={**assistant(), "stopReason": "end_turn"})],
         [(2, "bad-stop-reason")]),
        ([PI_HEADER, entry("a", None, message={**assistant(), "stopReason": ["stop"]})],
         [(2, "bad-stop-reason")]),
        ([PI_HEADER, entry("a", None, message=assistant(TOOL_CALL)),
          entry("b", "a", message=result(toolName=None))], [(3, "bad-tool-result")]),
        ([PI_HEADER, entry("a", None, message=assistant(TOOL_CALL)),
          entry("b", "a", message=result(isError="no"))], [(3, "bad-tool-result")]),
        ([PI_HEADER, entry("a", None, message=assistant(TOOL_CALL)),
          entry("b", "a", message=result(content="ok"))], [(3, "bad-content")]),
        ([PI_HEADER, entry("b", None, message=result(toolCallId=["c1"]))],
         [(2, "bad-tool-result")]),
        ([PI_HEADER, {"type": "compaction", "id": "a", "parentId": None, "timestamp": ENTRY_TIME,
                      "summary": None, "firstKeptEntryId": "a"}], [(2, "bad-compaction")]),
        ([PI_HEADER, {"type": "compaction", "id": "a", "parentId": None, "timestamp": ENTRY_TIME,
                      "summary": ""}], [(2, "bad-compaction")]),
        ([PI_HEADER, {"type": "custom_message", "id": "a", "parentId": None,
                      "timestamp": ENTRY_TIME, "content": None}], [(2, "bad-content")]),
        # what pi's types require and tools that list, sort or continue sessions read
        ([{k: v for k, v in PI_HEADER.items() if k != "timestamp"}], [(1, "no-timestamp")]),
        ([{k: v for k, v in PI_HEADER.items() if k != "cwd"}], [(1, "bad-header")]),
        ([{**PI_HEADER, "cwd": None}], [(1, "bad-header")]),
        ([PI_HEADER, {k: v for k, v in entry("a", None, message=user()).items()
                      if k != "timestamp"}], [(2, "no-timestamp")]),
        ([PI_HEADER, {"type": "session_info", "id": "a", "parentId": None, "name": "x"}],
         [(2, "no-timestamp")]),
        ([PI_HEADER, entry("a", None, message={"role": "user", "content": "hi"})],
         [(2, "no-timestamp")]),
        ([PI_HEADER, entry("a", None, message={k: v for k, v in assistant().items()
                                               if k != "timestamp"})], [(2, "no-timestamp")]),
    ],
)
def test_pi_defects(lines, expected):
    assert errors(jsonl(*lines), "pi") == expected


def test_pi_warnings():
    no_harness = {k: v for k, v in PI_HEADER.items() if k != "harness"}
    assert found(jsonl(no_harness), "pi") == [(1, "no-harness", "warning")]
    orphan = jsonl(PI_HEADER, entry("a", None, message=result("c9")))
    assert found(orphan, "pi") == [(2, "orphan-result", "warning")]


def test_format_detection():
    assert detect_target_format(PI_HEADER) == "pi"
    assert detect_target_format(HEADER) == "sts"
    # an old Pi header (v1, no version, no harness) is checked as Pi, and fails on its version
    v1 = {"type": "session", "id": "x", "timestamp": "2025-11-20T10:00:00.000Z", "cwd": "/p"}
    assert detect_target_format(v1) == "pi"
    assert errors(jsonl(v1)) == [(1, "bad-version")]
    assert detect_target_format([1]) == "sts"


def test_forced_format_overrides_detection():
    assert (2, "bad-line") in errors(GOOD_PI, "sts")  # a Pi header is a valid STS header
    assert (1, "bad-version") in errors(GOOD_STS, "pi")
    with pytest.raises(ValueError, match="unknown format"):
        validate_bytes(GOOD_STS, "json")


def test_api_validate_takes_paths_and_bytes(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(jsonl(HEADER, msg(role="robot", content="")))
    problems = sts.validate(path)
    assert [(p.line, p.code) for p in problems] == [(2, "unknown-role")]
    assert str(problems[0]) == f"{path}:2: error: unknown role 'robot' [unknown-role]"
    assert sts.validate(GOOD_STS) == []


class LineByLine(io.BytesIO):
    """A file that counts the lines taken from it and refuses to be read whole."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.taken = 0

    def __next__(self) -> bytes:
        self.taken += 1
        return super().__next__()

    def read(self, size: int | None = -1) -> bytes:
        assert size is not None and size >= 0, "the whole file was read at once"
        return super().read(size)


@pytest.mark.parametrize("fmt", ["sts", None])
def test_a_file_is_validated_line_by_line_each_problem_as_it_is_found(fmt):
    header = b'{"type":"session","harness":"h","id":"s"}\n'
    good = b'{"type":"message","message":{"role":"user","content":"hi"}}\n'
    bad = b'{"type":"message","message":{"role":"user","content":1}}\n'
    stream = LineByLine(header + bad + good * 1000 + bad + b"{")
    seen: list[tuple[str, int | None, int]] = []
    validate_stream(stream, lambda p: seen.append((p.code, p.line, stream.taken)), fmt)
    assert seen == [("content-not-string", 2, 2), ("content-not-string", 1003, 1003),
                    ("malformed-json", 1004, 1004), ("no-final-newline", None, 1005)]
    # the bytes API lists the same problems, file-level ones first
    assert [(p.code, p.line) for p in validate_bytes(stream.getvalue(), fmt)] == [
        ("no-final-newline", None), ("content-not-string", 2), ("content-not-string", 1003),
        ("malformed-json", 1004)]


def test_a_source_file_is_named_from_its_head_without_reading_it_whole():
    rollout = (b'{"timestamp":"2025-07-01T10:00:00.000Z","type":"session_meta","payload":'
               b'{"id":"r","timestamp":"2025-07-01T10:00:00.000Z","cwd":"/w",'
               b'"originator":"codex_cli_rs","cli_version":"0.20.0"}}\n')
    seen: list[str] = []
    validate_stream(LineByLine(rollout * 3), lambda p: seen.append(p.code))
    assert seen == ["source-format"]
