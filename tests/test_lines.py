"""sts.lines: every kind of bad JSONL line gives a stable code and line number, never a crash."""

from __future__ import annotations

import io

import pytest

from sts.lines import MAX_DEPTH, clean_text, iter_records, loads_document
from sts.problems import ConversionFailed, Problem, Problems


def read(data: bytes, policy: str = "skip", **options):
    """Records, problems as (line, code, severity), and the raw lines kept."""
    found: list[Problem] = []
    problems = Problems("f.jsonl", policy, found.append)  # type: ignore[arg-type]
    records = list(iter_records(io.BytesIO(data), problems, **options))
    return records, [(p.line, p.code, p.severity) for p in found], problems.kept


def test_plain_lines_blank_lines_bom_and_crlf():
    data = b'\xef\xbb\xbf{"a":1}\r\n\r\n   \n{"b":"x\xe2\x80\xa8y"}\r\n\n'
    records, problems, _ = read(data)
    assert records == [(1, {"a": 1}), (4, {"b": "x\u2028y"})]  # U+2028 is not a line break
    assert problems == []


def test_empty_input_yields_nothing():
    assert read(b"") == ([], [], [])
    assert read(b"\n\n \n") == ([], [], [])


def test_malformed_line_is_reported_and_kept_raw_under_keep():
    records, problems, kept = read(b'{"a":1}\n{"b": nope}\n{"c":3}\n', "keep")
    assert [n for n, _ in records] == [1, 3]
    assert problems == [(2, "malformed-json", "error")]
    assert kept == [{"line": 2, "raw": '{"b": nope}\n'}]


def test_skip_policy_keeps_nothing_raw():
    _, problems, kept = read(b'{"b": nope}\n', "skip")
    assert problems == [(1, "malformed-json", "error")] and kept == []


def test_fail_policy_raises_at_first_error_with_line():
    with pytest.raises(ConversionFailed) as info:
        read(b'{"a":1}\n{oops\n{"c":3}\n', "fail")
    assert info.value.problem.line == 2
    assert str(info.value).startswith("f.jsonl:2: error:")


def test_cut_off_last_line():
    records, problems, kept = read(b'{"a":1}\n{"b":"half', "keep")
    assert records == [(1, {"a": 1})]
    assert problems == [(2, "truncated-line", "error")]
    assert kept[0]["raw"] == '{"b":"half'


def test_cut_off_line_in_the_middle_is_malformed_not_truncated():
    _, problems, _ = read(b'{"b":"half\n{"a":1}\n')
    assert problems == [(1, "malformed-json", "error")]


@pytest.mark.parametrize("glue", [b"", b" ", b"\t"])
def test_glued_records_split_when_asked(glue):
    data = b'{"a":1}' + glue + b'{"b":2}\n'
    records, problems, _ = read(data, split_glued=True)
    assert records == [(1, {"a": 1}), (1, {"b": 2})]
    assert problems == [(1, "glued-records", "warning")]


def test_glued_records_are_an_error_otherwise():
    records, problems, kept = read(b'{"a":1}{"b":2}\n', "keep")
    assert records == [] and problems == [(1, "malformed-json", "error")]
    assert kept[0]["raw"] == '{"a":1}{"b":2}\n'


def test_glued_record_followed_by_garbage_is_not_split():
    records, problems, _ = read(b'{"a":1}{"b":\n', split_glued=True)
    assert records == [] and problems == [(1, "malformed-json", "error")]


def test_lone_surrogate_escapes_become_replacement_chars():
    data = b'{"t":"a\\ud83d b\\udc00 \\ud83d\\ude00 \\\\ud800"}\n'
    records, problems, _ = read(data)
    assert records == [(1, {"t": "a\ufffd b\ufffd \U0001f600 \\ud800"})]
    assert problems == [(1, "lone-surrogate", "warning")]


def test_invalid_utf8_is_replaced_with_a_warning():
    records, problems, _ = read(b'{"t":"caf\xe9"}\n')
    assert records == [(1, {"t": "caf\ufffd"})]
    assert problems == [(1, "invalid-utf8", "warning")]


def test_encoded_surrogate_bytes_are_invalid_utf8():
    records, problems, _ = read(b'{"t":"\xed\xa0\xbd"}\n')
    assert records == [(1, {"t": "\ufffd\ufffd\ufffd"})]
    assert problems == [(1, "invalid-utf8", "warning")]


def test_json_that_is_not_an_object():
    records, problems, _ = read(b'[1,2]\n"text"\n3\nnull\n')
    assert records == []
    assert problems == [(n, "not-an-object", "error") for n in (1, 2, 3, 4)]
    records, problems, _ = read(b"[1,2]\n", objects_only=False)
    assert records == [(1, [1, 2])] and problems == []


def test_binary_garbage_is_reported_line_by_line():
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\n"
    records, problems, kept = read(data, "keep")
    assert records == []
    errors = [p for p in problems if p[2] == "error"]
    assert [p[0] for p in errors] == [1, 2, 3]
    assert len(kept) == 3


@pytest.mark.parametrize("opening", [b"[", b'{"a":'])
def test_deep_nesting_never_raises(opening):
    closing = b"]" if opening == b"[" else b"}"
    deep = opening * 100_000 + b"1" + closing * 100_000
    records, problems, kept = read(b'{"a":1}\n' + deep + b'\n{"b":2}\n', "keep")
    assert [n for n, _ in records] == [1, 3]
    assert problems == [(2, "too-deep", "error")]
    assert len(kept[0]["raw"]) == len(deep) + 1


def test_deep_nesting_with_a_lone_surrogate_or_glue_never_raises():
    deep = b'{"s":"\\ud800","x":' + b"[" * 5000 + b"]" * 5000 + b"}"
    records, problems, _ = read(deep + b"\n" + deep + deep + b"\n", split_glued=True)
    assert records == []
    assert {p[1] for p in problems} == {"lone-surrogate", "too-deep"}


def test_nesting_up_to_the_limit_with_a_lone_surrogate_is_read():
    depth = MAX_DEPTH - 2
    data = b'{"s":"\\ud800","x":' + b"[" * depth + b"]" * depth + b"}\n"
    records, problems, _ = read(data)
    assert records[0][1]["s"] == "\ufffd"
    assert problems == [(1, "lone-surrogate", "warning")]


def test_enormous_line_is_read_and_enormous_bad_line_is_kept():
    text = "x" * (20 * 1024 * 1024)
    good = b'{"t":"' + text.encode() + b'"}\n'
    bad = b'{"t":"' + text.encode() + b'\\ud800"\n'
    records, problems, kept = read(good + bad, "keep")
    assert len(records) == 1 and len(records[0][1]["t"]) == len(text)
    assert problems == [(2, "lone-surrogate", "warning"), (2, "malformed-json", "error")]
    assert len(kept[0]["raw"]) == len(bad)


def test_line_numbers_count_blank_and_bad_lines():
    data = b'\n{"a":1}\nbad\n\n{"b":2}\n'
    records, problems, _ = read(data)
    assert [n for n, _ in records] == [2, 5]
    assert problems == [(3, "malformed-json", "error")]


def test_loads_document_repairs_and_reports():
    problems = Problems("d.json", "skip", None)
    assert loads_document(b'\xef\xbb\xbf{"t":"\\udc00"}', problems) == {"t": "\ufffd"}
    assert [p.code for p in problems.problems] == ["lone-surrogate"]


@pytest.mark.parametrize(
    ("data", "code", "line"),
    [
        (b'{\n "a": 1,\n "b": oops\n}', "malformed-json", 3),
        (b"[" * 100_000 + b"]" * 100_000, "too-deep", 1),
        (b'[{"a": 1},\n {"b": ', "truncated-document", 2),
        (b" \n", "empty", None),
    ],
)
def test_loads_document_errors(data, code, line):
    problems = Problems("d.json", "skip", None)
    assert loads_document(data, problems) is None
    assert [(p.line, p.code) for p in problems.problems] == [(line, code)]


def test_clean_text():
    assert clean_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert clean_text("\U0001f600") == "\U0001f600"


def test_loads_repaired_is_silent_and_strict():
    from sts.lines import loads_repaired

    assert loads_repaired(b'{"a":"\\ud800\xff"}') == {"a": "\ufffd\ufffd"}
    with pytest.raises(ValueError):
        loads_repaired(b'{"a":')


def test_problem_texts_quoting_huge_values_are_shortened():
    problems = Problems("f", "skip", None)
    problems.error(1, "unknown-role", f"unknown role {'x' * 10_000_000!r}")
    text = problems.problems[0].text
    assert len(text) < 400 and text.startswith("unknown role 'xxx") and text.endswith("xx'")


def test_a_record_glued_after_a_cut_off_one_is_recovered():
    # Claude Code's race: a record cut mid-write, the next record appended on the same line.
    line = (
        b'{"type":"pr-link","prNu{"parentUuid":"a","type":"user","uuid":"b",'
        b'"message":{"role":"user","content":"hi"}}\n'
    )
    records, problems = _read_glued(line + b'{"type":"user","uuid":"c"}\n')
    assert [(n, r["uuid"]) for n, r in records] == [(1, "b"), (2, "c")]
    assert [(p.line, p.code, p.severity) for p in problems] == [(1, "truncated-record", "error")]


def test_a_nested_block_ending_a_cut_line_is_not_taken_for_a_record():
    line = b'{"type":"assistant","uuid":"a","message":{"content":[{"type":"text","text":"hi"}\n'
    records, problems = _read_glued(line)
    assert records == []
    assert [p.code for p in problems] == ["malformed-json"]


def _read_glued(data: bytes):
    found = []
    problems = Problems("x.jsonl", "skip", found.append)
    records = list(iter_records(io.BytesIO(data), problems, split_glued=True))
    return records, found


def test_glued_records_with_non_ascii_text_are_split():
    # orjson reports error positions in characters: slicing bytes by them would cut mid-record.
    data = '{"uuid":"a","type":"user","text":"été — 日本語"}{"uuid":"b","type":"user"}\n'
    records, problems = _read_glued(data.encode())
    assert [r["uuid"] for _, r in records] == ["a", "b"]
    assert [p.code for p in problems] == ["glued-records"]
