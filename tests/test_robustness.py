"""Bad input never crashes and never silently loses data, for every registered converter.

The core check is an equivalence: for a JSONL input, making line N unreadable (cut off, glued,
flipped bytes, nested too deep, ...) gives exactly the sessions of the same file with line N
blank, plus an error at line N (whose raw text ``--on-error keep`` keeps). A repairable defect
(a lone surrogate escape, an invalid UTF-8 byte) gives the sessions of the file with U+FFFD
written there, plus a warning. The seeds are the repo's samples and test cases and, when present,
the shared corpus; every converter that detects one of them is exercised.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import sts
from sts.converters.registry import converters
from sts.io import atomic_output
from sts.model import Message, Session, TextPart
from sts.pipeline import Job, Settings, Target, run_job
from sts.problems import ConversionFailed, Problem
from tests.support import (
    CASES,
    SAMPLES,
    assert_valid,
    detected,
    seed_files,
    walk,
    write_checked,
)

BIG = 300_000  # corpus files above this size get fewer corrupted lines


def jsonl_seeds() -> list[tuple[str, Path]]:
    """(format, file) for every seed that is JSONL (2+ lines, each a JSON object or blank)."""
    seeds = []
    for path in seed_files():
        lines = path.read_bytes().split(b"\n")
        try:
            objects = [orjson.loads(line) for line in lines if line.strip()]
        except orjson.JSONDecodeError:
            continue
        fmt = detected(path)
        if fmt is not None and len(objects) >= 2 and all(type(o) is dict for o in objects):
            seeds.append((fmt, path))
    return seeds


SEEDS = jsonl_seeds()
SEED_IDS = [f"{fmt}:{path.name}" for fmt, path in SEEDS]


def convert(data: bytes, fmt: str, policy: str = "skip") -> tuple[bytes, list[Problem]]:
    """Every session (children too) written as STS, joined, and the problems reported."""
    found: list[Problem] = []
    sessions = list(sts.read(data, fmt, on_error=policy, problems=found.append))  # type: ignore[arg-type]
    out = []
    for session in walk(sessions):
        out.append(write_checked(session, "sts"))
        write_checked(session, "pi")
    return b"".join(out), found


def problems_at(found: list[Problem], line: int) -> list[tuple[str, str]]:
    return [(p.code, p.severity) for p in found if p.line == line]


# These converters read JSONL or one JSON document, and look at the first line to tell which:
# a bad first line must cost that line only (tested on its own below too).
FIRST_LINE_DECIDES = frozenset(("codex", "openai", "sharegpt"))


def chosen_lines(path: Path, count: int) -> list[int]:
    picks = [1, 2, count // 2, count] if path.stat().st_size < BIG else [2, count]
    return sorted({n for n in picks if 1 <= n <= count})


def corruptions(line: bytes, last: bool) -> dict[str, bytes]:
    """Ways to make one line (without its newline) unreadable."""
    half = line[: max(1, len(line) // 2)]
    middle = len(line) // 2
    return {
        "cut": half,
        "flipped-byte": line[:middle] + b"\x00" + line[middle + 1 :],
        "no-closing-brace": line.rstrip()[:-1],
        "garbage": b"<<<not json>>>",
        "too-deep": b"[" * 100_000 + b"]" * 100_000,
        "not-an-object": b"[1, 2, 3]",
        **({"cut-no-newline": half} if last else {}),
    }


EXACT_CODES = {"cut-no-newline": "truncated-line", "too-deep": "too-deep",
               "garbage": "malformed-json", "flipped-byte": "malformed-json"}


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=SEED_IDS)
def test_an_unreadable_line_is_a_blank_line_plus_an_error(fmt, path):
    rows = path.read_bytes().split(b"\n")
    ends_with_newline = rows[-1] == b""
    count = len(rows) - 1 if ends_with_newline else len(rows)
    for number in chosen_lines(path, count):
        line = rows[number - 1]
        if not line.strip():
            continue
        blank = rows.copy()
        blank[number - 1] = b""
        expected, expected_problems = convert(b"\n".join(blank), fmt)
        for name, bad in corruptions(line, number == count).items():
            broken = rows.copy()
            broken[number - 1] = bad
            # the cut last line has no newline: the file ends there
            data = b"\n".join(broken[:number] if name == "cut-no-newline" else broken)
            got, found = convert(data, fmt)
            where = f"{path.name}:{number} {name}"
            assert got == expected, f"{where}: output differs from the blank-line file"
            assert [p for p in found if p.line != number] == [
                p for p in expected_problems if p.line != number
            ], where
            codes = problems_at(found, number)
            assert any(severity == "error" for _, severity in codes), f"{where}: {codes}"
            if name in EXACT_CODES:
                assert (EXACT_CODES[name], "error") in codes, f"{where}: {codes}"


FIRST_LINE_SEEDS = [(f, p) for f, p in SEEDS if f in FIRST_LINE_DECIDES]


@pytest.mark.parametrize(("fmt", "path"), FIRST_LINE_SEEDS,
                         ids=[f"{f}:{p.name}" for f, p in FIRST_LINE_SEEDS])
@pytest.mark.parametrize("defect", ["cut", "lone-surrogate"])
def test_a_bad_first_line_loses_only_that_line(fmt, path, defect):
    rows = path.read_bytes().split(b"\n")
    blank = [b"", *rows[1:]]
    expected, _ = convert(b"\n".join(blank), fmt)
    at = insertion_point(rows[0]) or 1
    first = rows[0][: len(rows[0]) // 2] if defect == "cut" else (
        rows[0][:at] + b"\\ud800" + rows[0][at:])
    got, found = convert(b"\n".join([first, *rows[1:]]), fmt)
    if defect == "cut":
        assert got == expected and problems_at(found, 1)
    else:
        fixed = rows[0][:at] + b"\\ufffd" + rows[0][at:]
        expected, expected_problems = convert(b"\n".join([fixed, *rows[1:]]), fmt)
        extra = [(p.line, p.code) for p in found if p not in expected_problems]
        assert got == expected and extra == [(1, "lone-surrogate")]


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=SEED_IDS)
def test_keep_puts_the_raw_line_in_the_header_and_fail_stops(fmt, path):
    rows = path.read_bytes().split(b"\n")
    number = 2
    rows[number - 1] = b'{"type": broken'
    data = b"\n".join(rows)
    found: list[Problem] = []
    sessions = list(sts.read(data, fmt, on_error="keep", problems=found.append))
    assert any(p.line == number and p.severity == "error" for p in found)
    kept = [
        entry for session in walk(sessions)
        for entry in session.metadata.get("unparsedLines", [])
    ]
    if sessions:
        assert {"line": number, "raw": '{"type": broken\n'} in kept
        for session in walk(sessions):
            write_checked(session, "sts")
            write_checked(session, "pi")
    with pytest.raises(ConversionFailed) as info:
        list(sts.read(data, fmt, on_error="fail", problems=lambda p: None))
    assert info.value.problem.severity == "error"


def insertion_point(line: bytes) -> int | None:
    """Just after the opening quote of the longest string value on the line (its content)."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    longest = ""
    stack = [record]
    while stack:
        value = stack.pop()
        if type(value) is str and len(value) > len(longest):
            longest = value
        elif type(value) is dict:
            stack.extend(value.values())
        elif type(value) is list:
            stack.extend(value)
    at = line.find(orjson.dumps(longest)) if longest else -1
    return at + 1 if at != -1 else None


REPAIRS = {
    "lone-surrogate": (b"\\ud800", b"\\ufffd"),
    "lone-low-surrogate": (b"\\udfff", b"\\ufffd"),
    "invalid-utf8": (b"\xff", b"\xef\xbf\xbd"),
    "encoded-surrogate": (b"\xed\xa0\x80", b"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
}


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=SEED_IDS)
def test_repairable_bytes_become_replacement_characters_with_a_warning(fmt, path):
    rows = path.read_bytes().split(b"\n")
    count = len(rows) - (rows[-1] == b"")
    for number in chosen_lines(path, count):
        line = rows[number - 1]
        at = insertion_point(line)
        if at is None:
            continue
        for name, (bad, good) in REPAIRS.items():
            fixed = rows.copy()
            fixed[number - 1] = line[:at] + good + line[at:]
            broken = rows.copy()
            broken[number - 1] = line[:at] + bad + line[at:]
            expected, expected_problems = convert(b"\n".join(fixed), fmt)
            got, found = convert(b"\n".join(broken), fmt)
            where = f"{path.name}:{number} {name}"
            assert got == expected, where
            extra = [(p.line, p.code, p.severity) for p in found if p not in expected_problems]
            code = "lone-surrogate" if "lone" in name else "invalid-utf8"
            assert extra == [(number, code, "warning")], where


def glue_point(rows: list[bytes]) -> int:
    """The line to glue its successor onto: from the middle on, the first of two non-blank
    neighbours (line 1 only when nothing later will do)."""
    count = len(rows) - (rows[-1] == b"")
    order = [*range(max(2, count // 2), count), *range(max(2, count // 2) - 1, 0, -1)]
    return next(n for n in order if rows[n - 1].strip() and rows[n].strip())


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=SEED_IDS)
def test_glued_lines_are_split_or_reported(fmt, path):
    rows = path.read_bytes().split(b"\n")
    number = glue_point(rows)
    glued = rows.copy()
    glued[number - 1] = rows[number - 1] + rows[number]
    glued[number] = b""
    both_blank = rows.copy()
    both_blank[number - 1] = both_blank[number] = b""
    got, found = convert(b"\n".join(glued), fmt)
    codes = problems_at(found, number)
    if ("glued-records", "warning") in codes:
        expected, _ = convert(b"\n".join(rows), fmt)
    else:
        assert ("malformed-json", "error") in codes
        expected, _ = convert(b"\n".join(both_blank), fmt)
    assert got == expected


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=SEED_IDS)
def test_blank_lines_crlf_and_bom_change_nothing(fmt, path):
    """(Blank lines inside keep their line numbers: some converters name sessions after them.)"""
    data = path.read_bytes()
    expected, expected_problems = convert(data, fmt)
    messy = b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n") + b"\n  \n\r\n"
    got, found = convert(messy, fmt)
    assert got == expected
    assert [(p.code, p.severity) for p in found] == [
        (p.code, p.severity) for p in expected_problems
    ]


def mutate_records(data: bytes) -> Iterator[tuple[str, bytes]]:
    """Wrong types, missing fields and unknown types in the records of a JSONL file."""
    rows = data.split(b"\n")
    for number, line in enumerate(rows[:12], 1):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if type(record) is not dict:
            continue
        for key in list(record)[:8]:
            for label, value in (("null", None), ("list", [1]), ("number", 7), ("object", {}),
                                 ("string", "x"), ("missing", ...)):
                changed = dict(record)
                if value is ...:
                    del changed[key]
                else:
                    changed[key] = value
                copy = rows.copy()
                copy[number - 1] = orjson.dumps(changed)
                yield f"line {number} {key}={label}", b"\n".join(copy)
        inner = record.get("message") or record.get("payload")
        if type(inner) is dict:
            for key in list(inner)[:8]:
                for value in (None, [], 3, {"x": 1}):
                    changed = {**record, "message" if "message" in record else "payload":
                               {**inner, key: value}}
                    copy = rows.copy()
                    copy[number - 1] = orjson.dumps(changed)
                    yield f"line {number} inner {key}={value!r}", b"\n".join(copy)


SMALL_SEEDS = [(f, p) for f, p in SEEDS if p.stat().st_size <= 50_000]


@pytest.mark.parametrize(("fmt", "path"), SMALL_SEEDS,
                         ids=[f"{f}:{p.name}" for f, p in SMALL_SEEDS])
def test_wrong_types_and_missing_fields_never_crash(fmt, path):
    for label, data in mutate_records(path.read_bytes()):
        try:
            convert(data, fmt)
        except Exception as exc:  # pragma: no cover - the message names the mutation
            raise AssertionError(f"{path.name} {label}: {type(exc).__name__}: {exc}") from exc


def last_typed_line(path: Path) -> int | None:
    """The last line (after the first) holding a record with a string ``type``, if any."""
    rows = path.read_bytes().split(b"\n")
    for number in range(len(rows) - (rows[-1] == b""), 1, -1):
        try:
            record = orjson.loads(rows[number - 1])
        except orjson.JSONDecodeError:
            continue
        if type(record) is dict and type(record.get("type")) is str:
            return number
    return None


# Formats whose records say their type (chat datasets have none: not generated for them).
TYPED_SEEDS = [(f, p) for f, p in SEEDS if last_typed_line(p) is not None]


@pytest.mark.parametrize("unknown", ["x-unheard-of", ["message"], {"type": "message"}],
                         ids=["string", "list", "object"])
@pytest.mark.parametrize(("fmt", "path"), TYPED_SEEDS,
                         ids=[f"{f}:{p.name}" for f, p in TYPED_SEEDS])
def test_an_unknown_record_type_is_reported(fmt, path, unknown):
    rows = path.read_bytes().split(b"\n")
    number = last_typed_line(path)
    assert number is not None
    record = orjson.loads(rows[number - 1])
    record["type"] = unknown
    rows[number - 1] = orjson.dumps(record)
    _, found = convert(b"\n".join(rows), fmt)
    assert problems_at(found, number), f"{path.name}:{number}: unknown type passed silently"


def names() -> list[str]:
    return sorted(converters())


WHOLE_FILE_DEFECTS = {
    "empty": b"",
    "blank-lines": b"\n\n   \r\n",
    "binary": bytes(range(256)) * 4,
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10",
    "deep-list": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "json-scalar": b"42\n",
    "json-string": b'"hello"\n',
    "json-null": b"null\n",
    "empty-object": b"{}\n",
    "empty-array": b"[]\n",
    "lone-surrogates-only": b'"\\ud800\\udc00\\ud800"\n',
    "cut-document": b'{"messages": [{"role": "user", "content": "hi"',
    "utf16": "{\"a\": 1}\n".encode("utf-16"),
}


@pytest.mark.parametrize("fmt", names())
@pytest.mark.parametrize("defect", sorted(WHOLE_FILE_DEFECTS))
@pytest.mark.parametrize("policy", ["skip", "keep", "fail"])
def test_hopeless_input_gives_a_message_never_a_crash(fmt, defect, policy, tmp_path):
    data = WHOLE_FILE_DEFECTS[defect]
    found: list[Problem] = []
    try:
        sessions = list(sts.read(data, fmt, on_error=policy, problems=found.append))
    except ConversionFailed as exc:
        assert policy == "fail" and exc.problem.severity == "error"
    else:
        for session in walk(sessions):
            write_checked(session, "sts")
            write_checked(session, "pi")
    assert all(len(p.text) <= 1000 for p in found)
    # what the user sees: the command's driver reports at least one error (a converter that
    # yields nothing without a word leaves it to the driver's "no-sessions")
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    out = tmp_path / "out"
    result = run_job(Job(source, str(source), Path("in.jsonl")),
                     Target("dir", out, frozenset({source.resolve()})),
                     Settings(source_format=fmt, policy=policy), sink=None)
    assert result.errors >= 1, [str(p) for p in result.problems]
    for written in out.rglob("*.jsonl") if out.exists() else []:
        assert_valid(written.read_bytes(), "sts")


FIRST_SEEDS = {fmt: path for fmt, path in reversed(SEEDS)}  # the first seed of each format


def visible_text(path: Path, fmt: str) -> tuple[int, int] | None:
    """(line, offset) of the longest string on a line that is prose the output shows."""
    data = path.read_bytes()
    baseline, _ = convert(data, fmt)
    rows = data.split(b"\n")
    for number in sorted(range(1, len(rows) + 1), key=lambda n: -len(rows[n - 1])):
        line = rows[number - 1]
        at = insertion_point(line)
        if at is None:
            continue
        end = line.index(b'"', at) if b'"' in line[at:] else at
        if b" " in line[at:end] and line[at:end] in baseline:  # prose, not an id
            return number, at
    return None


def first_seed_with_visible_text(fmt: str) -> Path:
    """The first seed of `fmt` holding visible text to grow."""
    return next(p for f, p in SEEDS if f == fmt and visible_text(p, fmt) is not None)


@pytest.mark.parametrize("fmt", sorted(FIRST_SEEDS))
def test_a_20_mb_line_is_read(fmt):
    """The longest visible text of a file grows by 20 MB and comes out whole."""
    path = first_seed_with_visible_text(fmt)
    number, at = visible_text(path, fmt)  # type: ignore[misc]
    rows = path.read_bytes().split(b"\n")
    line = rows[number - 1]
    filler = b"y" * (20 * 1024 * 1024)
    rows[number - 1] = line[:at] + filler + line[at:]
    got, found = convert(b"\n".join(rows), fmt)
    assert [p for p in found if p.severity == "error"] == []
    assert filler in got


@pytest.mark.parametrize("fmt", names())
def test_a_20_mb_line_never_crashes_any_converter(fmt):
    text = "z" * (20 * 1024 * 1024)
    data = orjson.dumps({"type": "message", "role": "user", "content": text,
                         "messages": [{"role": "user", "content": text}]}) + b"\n"
    found: list[Problem] = []
    sessions = list(sts.read(data, fmt, problems=found.append))
    if not sessions:  # a record this format does not read: skipped with an error, not silently
        assert [p for p in found if p.severity == "error"], f"{fmt}: nothing and no error"
    for session in walk(sessions):  # else the text comes out whole in both targets
        assert text.encode() in write_checked(session, "sts")
        assert text.encode() in write_checked(session, "pi")


# output safety ------------------------------------------------------------------------------


def test_atomic_output_leaves_nothing_when_the_writer_fails(tmp_path):
    target = tmp_path / "out.jsonl"
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write(b'{"type":"session"}\n' * 10_000)
        raise RuntimeError("killed half way")
    assert list(tmp_path.iterdir()) == []


def test_atomic_output_keeps_the_old_file_when_the_writer_fails(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old\n")
    with pytest.raises(KeyboardInterrupt), atomic_output(target) as out:
        out.write(b"new")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_a_writer_failing_mid_session_leaves_no_file(tmp_path, monkeypatch):
    import sts.writers.sts as sts_writer

    calls = {"n": 0}
    real = sts_writer.sts_message

    def failing(message: Message):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("disk on fire")
        return real(message)

    monkeypatch.setattr(sts_writer, "sts_message", failing)
    session = Session("s", [Message("user", [TextPart(str(i))]) for i in range(5)])
    with pytest.raises(RuntimeError):
        sts.write(session, tmp_path / "out.jsonl")
    assert list(tmp_path.iterdir()) == []


def test_a_converter_failing_mid_file_leaves_no_output(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_bytes((CASES / "sts" / "malformed-line.jsonl").read_bytes())
    out = tmp_path / "out"
    target = Target("dir", out, frozenset({source.resolve()}))
    result = run_job(Job(source, str(source), Path("in.jsonl")), target,
                     Settings(policy="fail"), sink=None)
    assert result.status == "failed"
    assert [(p.line, p.code) for p in result.problems] == [(3, "malformed-json")]
    assert not out.exists() or list(out.rglob("*")) == []


@pytest.mark.parametrize("to", ["sts", "pi"])
def test_outputs_are_valid_utf8_even_from_hostile_strings(to):
    hostile = "\ud800 \udfff \u2028 \u2029 \x00 \x1b[31m \ufeff " + "\U0001f600"
    session = Session(
        hostile, [Message("user", [TextPart(hostile)]), Message("assistant", [TextPart(hostile)])],
        name=hostile, metadata={hostile: hostile, "nested": {hostile: [hostile]}},
    )
    data = write_checked(session, to)
    text = data.decode("utf-8")
    assert "\ud800" not in text and text.count("\n") == data.count(b"\n") == (
        3 if to == "sts" else 4
    )


# the corruption suite: real files with defects, exact codes, lines and surviving content -------


def sts_texts(data: bytes, fmt: str, policy: str = "skip"):
    found: list[Problem] = []
    sessions = list(sts.read(data, fmt, on_error=policy, problems=found.append))
    [session] = sessions
    return session, [(m.role, m.text) for m in session.messages], [
        (p.line, p.code, p.severity) for p in found
    ]


HELLO = SAMPLES / "hello.sts.jsonl"


def hello_rows() -> list[bytes]:
    return HELLO.read_bytes().split(b"\n")


def test_sts_sample_intact():
    _, texts, found = sts_texts(HELLO.read_bytes(), "sts")
    assert texts == [("user", "what time is it?"), ("assistant", ""),
                     ("tool", "2026-07-01T15:00:00Z"), ("assistant", "It is 15:00 UTC.")]
    assert found == []


def test_sts_sample_with_a_cut_last_line():
    data = HELLO.read_bytes().rstrip(b"\n")
    _, texts, found = sts_texts(data[: len(data) - 20], "sts")
    assert found == [(5, "truncated-line", "error")]
    assert [t for _, t in texts] == ["what time is it?", "", "2026-07-01T15:00:00Z"]


def test_sts_sample_with_glued_lines_keeps_them_raw():
    rows = hello_rows()
    glued = [*rows[:2], rows[2] + rows[3], *rows[4:]]
    session, texts, found = sts_texts(b"\n".join(glued), "sts", "keep")
    assert found == [(3, "malformed-json", "error")]
    assert texts == [("user", "what time is it?"), ("assistant", "It is 15:00 UTC.")]
    assert session.metadata["unparsedLines"] == [
        {"line": 3, "raw": (rows[2] + rows[3] + b"\n").decode()}
    ]


def test_sts_sample_with_a_lone_surrogate_and_a_missing_role():
    rows = hello_rows()
    rows[1] = rows[1].replace(b'"role":"user",', b"")
    rows[4] = rows[4].replace(b"It is", b"It \\udfff is")
    _, texts, found = sts_texts(b"\n".join(rows), "sts")
    assert found == [(2, "unknown-role", "error"), (5, "lone-surrogate", "warning")]
    assert texts[-1] == ("assistant", "It \ufffd is 15:00 UTC.")
    assert len(texts) == 3


def test_sts_sample_with_a_repeated_tool_call_renames_the_copy():
    """Found by the damaged-file property: a duplicated call line wrote one call id twice."""
    rows = hello_rows()
    repeated = [*rows[:4], rows[2], rows[3], *rows[4:]]
    session, texts, found = sts_texts(b"\n".join(repeated), "sts")
    assert found == [(5, "duplicate-call-id", "warning")]
    calls = [c.id for m in session.messages for c in m.tool_calls]
    results = [m.tool_call_id for m in session.messages if m.role == "tool"]
    assert calls == results == ["t1", "t1~2"]
    assert len(texts) == 6
    write_checked(session, "sts")
    write_checked(session, "pi")


def test_sts_sample_with_calls_and_a_call_id_on_the_wrong_roles():
    """Found by the damaged-file property: a user line that swallowed the assistant's line
    kept its toolCalls, and the STS written back failed sts validate."""
    rows = hello_rows()
    rows[1] = rows[1][: rows[1].index(b"it?")] + rows[2][rows[2].index(b'assistant",'):]
    rows[4] = rows[4].replace(b'"role":"assistant",', b'"role":"assistant","toolCallId":"t1",')
    session, texts, found = sts_texts(b"\n".join([rows[0], rows[1], *rows[3:]]), "sts")
    assert found == [(2, "misplaced-tool-calls", "error"), (3, "orphan-result", "warning"),
                     (4, "misplaced-tool-call-id", "error")]
    assert [(m.role, m.tool_calls, m.tool_call_id) for m in session.messages] == [
        ("user", [], None), ("tool", [], "t1"), ("assistant", [], None)]
    assert texts[-1] == ("assistant", "It is 15:00 UTC.")
    write_checked(session, "sts")
    write_checked(session, "pi")


PI_CAPTURE = ("pi", "v3-real-pi0.74-fixture-provider-two-compactions.jsonl")


def pi_capture_rows() -> list[bytes]:
    from tests.support import corpus

    return corpus(*PI_CAPTURE).read_bytes().split(b"\n")


def test_pi_capture_intact():
    _, texts, found = sts_texts(b"\n".join(pi_capture_rows()), "pi")
    assert found == []
    assert [role for role, _ in texts] == [
        "user", "assistant", "system", "user", "assistant", "system"
    ]
    assert texts[3] == ("user", "Add one concise follow-up sentence.")


def test_pi_capture_with_a_lone_surrogate():
    rows = pi_capture_rows()
    rows[6] = rows[6].replace(b"Add one", b"Add \\ud800one")
    _, texts, found = sts_texts(b"\n".join(rows), "pi")
    assert found == [(7, "lone-surrogate", "warning")]
    assert texts[3] == ("user", "Add \ufffdone concise follow-up sentence.")


def test_pi_capture_with_a_cut_leaf_falls_back_to_the_previous_entry():
    rows = pi_capture_rows()
    data = b"\n".join(rows[:8]) + b"\n" + rows[8][:100]
    _, texts, found = sts_texts(data, "pi")
    assert found == [(9, "truncated-line", "error")]
    assert [role for role, _ in texts] == ["user", "assistant", "system", "user", "assistant"]


def test_pi_capture_with_glued_lines_keeps_them_raw():
    rows = pi_capture_rows()
    glued = [*rows[:6], rows[6] + rows[7], *rows[8:]]
    session, texts, found = sts_texts(b"\n".join(glued), "pi", "keep")
    assert (7, "malformed-json", "error") in found  # pi drops such a line whole; so do we
    assert all(line != 7 or code == "malformed-json" for line, code, _ in found)
    assert "Add one concise follow-up sentence." not in [t for _, t in texts]
    [kept] = session.metadata["unparsedLines"]
    assert kept["line"] == 7 and "Add one concise follow-up sentence." in kept["raw"]


def test_pi_capture_with_a_flipped_byte_and_a_dropped_role():
    rows = pi_capture_rows()
    rows[3] = rows[3][:50] + b"\x00" + rows[3][51:]
    rows[6] = rows[6].replace(b'"role":"user",', b"")
    _, texts, found = sts_texts(b"\n".join(rows), "pi")
    assert (4, "malformed-json", "error") in found
    assert any(line == 7 and severity == "error" for line, _, severity in found)
    survivors = [t for _, t in texts]
    assert "Read hello.py and summarize what it prints without editing files." not in survivors
    assert "Add one concise follow-up sentence." not in survivors
    assert survivors.count("hello.py prints a fixture greeting.") >= 2


def test_pi_corpus_glued_line_is_reported_at_its_line():
    """Corpus fact: line 1013 of this real v1 file holds two complete records glued together."""
    from tests.support import corpus

    path = corpus("pi", "v1-compaction-images-malformed-line.jsonl")
    rows = path.read_bytes().split(b"\n")
    assert b"}}{\"type\":\"compaction\"" in rows[1012]
    got, found = convert(path.read_bytes(), "pi")
    assert [(p.line, p.code, p.severity) for p in found if p.severity == "error"] == [
        (1013, "malformed-json", "error")
    ]
    rows[1012] = b""
    expected, _ = convert(b"\n".join(rows), "pi")
    assert got == expected


@pytest.mark.parametrize("value", ["1e20", "-1e15", "1e300", "253402300800000", '"99999-01-01"',
                                   "true", "[1]", '{"s": 1}'])
def test_hostile_timestamps_are_left_out_never_crash_a_writer(value):
    data = (b'{"type":"session","harness":"h","id":"x"}\n'
            b'{"type":"message","message":{"role":"user","content":"a","timestamp":'
            + value.encode() + b"}}\n")
    found: list[Problem] = []
    [session] = sts.read(data, "sts", problems=found.append)
    assert session.messages[0].timestamp is None
    write_checked(session, "sts")
    write_checked(session, "pi")
    assert found and all(p.line == 2 for p in found)


@pytest.mark.parametrize("depth", [300, 900])
def test_deeply_nested_tool_arguments_are_written(depth):
    nested = "[" * depth + "]" * depth
    data = (b'{"type":"session","harness":"h","id":"x"}\n'
            b'{"type":"message","message":{"role":"assistant","content":"","toolCalls":[{"id":"t",'
            b'"function":{"name":"f","arguments":' + orjson.dumps(nested) + b"}}]}}\n")
    [session] = sts.read(data, "sts", problems=lambda p: None)
    out = write_checked(session, "sts")
    assert orjson.loads(out.split(b"\n")[1])["message"]["toolCalls"][0]["function"][
        "arguments"] == nested
    write_checked(session, "pi")
