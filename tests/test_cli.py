"""The `sts` command through a real subprocess: inputs, outputs, exit codes, messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.support import CASES, assert_valid, lines, sts_messages

EXAMPLE = CASES / "sts" / "spec-example.jsonl"
MALFORMED = CASES / "sts" / "malformed-line.jsonl"
MALFORMED_MESSAGE = "malformed-line.jsonl:3: error: not valid JSON"


def sts(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None):
    """Run ``python -m sts ARGS``; return the completed process (stdout bytes, stderr text)."""
    done = subprocess.run(
        [sys.executable, "-m", "sts", *map(str, args)],
        input=stdin, capture_output=True, cwd=cwd, timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    done.stderr = done.stderr.decode("utf-8")  # type: ignore[assignment]
    return done


def copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return target


def test_formats_lists_sources_and_targets():
    done = sts("formats")
    assert done.returncode == 0
    out = done.stdout.decode()
    assert "sources (--from):" in out and "targets (--to):" in out
    assert "  sts " in out and "  pi " in out
    assert "Hermes Agent exports and sessions (harness hermes-agent)" in out
    assert "Hermes Agent trajectories (harness hermes-agent)" in out


@pytest.mark.parametrize("harness", ["My Agent/1", "Claude-Code", "-x", ""])
def test_a_harness_id_unlike_the_registry_is_warned_and_kept(harness):
    done = sts("convert", EXAMPLE, "--harness", harness)
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        f"sts: warning: harness id {harness!r} does not look like a Hub registry id (lowercase "
        "letters, digits, hyphens, dots): written as given"
    ]
    assert lines(done.stdout)[0]["harness"] == (harness or "my-agent")


def test_a_registry_like_harness_id_is_not_warned():
    done = sts("convert", EXAMPLE, "--harness", "gemini-cli.v2")
    assert (done.returncode, done.stderr) == (0, "")


def test_the_progress_bar_line_is_cleared_before_a_problem_line(tmp_path):
    """On a terminal, a problem line starts on a line of its own, not after the bar."""
    import pty

    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    (source / "b.jsonl").write_text('{"type":"session","harness":"h","id":"x"}\n{bad\n')
    copy(EXAMPLE, source / "c.jsonl")
    main, child = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "sts", "convert", str(source), "-o", f"{tmp_path / 'out'}/"],
        stdout=subprocess.DEVNULL, stderr=child, timeout=120,
    )
    os.close(child)
    screen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    os.close(main)
    assert done.returncode == 1
    assert b"converting" in screen
    problem = f"{source / 'b.jsonl'}:2: error:".encode()
    before = screen[: screen.index(problem)]
    assert before.endswith(b"\r\x1b[K") or before.endswith(b"\n")


def test_help_and_version():
    done = sts("--help")
    assert done.returncode == 0
    assert b"Usage: sts " in done.stdout
    assert all(f"  {command} ".encode() in done.stdout for command in ("convert", "validate"))
    done = sts("--version")
    assert done.returncode == 0
    assert done.stdout.decode().strip() == f"sts, version {version('sts-convert')}"


def test_detect_files_and_stdin(tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    done = sts("detect", EXAMPLE, garbage, empty)
    assert done.stdout.decode().splitlines() == [
        f"{EXAMPLE}\tsts", f"{garbage}\tunknown", f"{empty}\tunknown"
    ]
    assert done.returncode == 1
    done = sts("detect", "-", stdin=EXAMPLE.read_bytes())
    assert (done.returncode, done.stdout) == (0, b"-\tsts\n")
    assert sts("detect", EXAMPLE).returncode == 0


def test_detect_missing_file_is_reported_not_raised(tmp_path):
    done = sts("detect", tmp_path / "nope.jsonl")
    assert done.returncode == 1
    assert "nope.jsonl: error:" in done.stderr and "Traceback" not in done.stderr


def test_convert_file_to_stdout_is_the_same_session():
    done = sts("convert", EXAMPLE)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert lines(done.stdout) == lines(EXAMPLE.read_bytes())


def test_convert_stdin_to_stdout_as_pi():
    done = sts("convert", "-", "--to", "pi", "--harness", "other", stdin=EXAMPLE.read_bytes())
    assert done.returncode == 0, done.stderr
    assert_valid(done.stdout, "pi")
    records = lines(done.stdout)
    assert records[0]["harness"] == "other" and records[0]["id"] == "abc123"
    roles = [r["message"]["role"] for r in records if r["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


def test_convert_to_a_file(tmp_path):
    out = tmp_path / "new" / "out.jsonl"
    done = sts("convert", EXAMPLE, "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    assert lines(out.read_bytes()) == lines(EXAMPLE.read_bytes())
    assert [p.name for p in out.parent.iterdir()] == ["out.jsonl"]  # no temp file left


def test_convert_directory_mirrors_the_tree(tmp_path):
    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    copy(EXAMPLE, source / "deep" / "er" / "b.ndjson")
    copy(EXAMPLE, source / ".hidden" / "c.jsonl")
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/", "--to", "pi")
    assert done.returncode == 0, done.stderr
    written = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*"))
    assert written == ["a.jsonl", "deep", "deep/er", "deep/er/b.jsonl"]
    for path in (tmp_path / "out").rglob("*.jsonl"):
        assert_valid(path.read_bytes(), "pi")
    assert "2 session(s) written from 2 input(s)" in done.stderr


def test_several_inputs_go_to_a_directory_named_after_each(tmp_path):
    first = copy(EXAMPLE, tmp_path / "one.jsonl")
    second = copy(EXAMPLE, tmp_path / "two.json")
    done = sts("convert", first, second, "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["one.jsonl", "two.jsonl"]


def test_several_inputs_to_stdout_are_a_usage_error(tmp_path):
    done = sts("convert", EXAMPLE, EXAMPLE)
    assert done.returncode == 2
    assert done.stdout == b"" and "-o DIR" in done.stderr
    done = sts("convert", CASES / "sts")
    assert done.returncode == 2 and done.stdout == b""


def test_an_input_with_several_sessions_needs_a_directory(tmp_path):
    """OpenAI chat JSONL holds one conversation per line: several sessions from one input."""
    chat = tmp_path / "chats.jsonl"
    chat.write_text(
        '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}\n'
        '{"messages":[{"role":"user","content":"c"},{"role":"assistant","content":"d"}]}\n'
    )
    done = sts("convert", chat, "--from", "openai")
    assert done.returncode == 2
    assert done.stdout == b"" and "several sessions" in done.stderr
    done = sts("convert", chat, "--from", "openai", "-o", tmp_path / "out.jsonl")
    assert done.returncode == 2 and "-o DIR/" in done.stderr
    assert not (tmp_path / "out.jsonl").exists()
    done = sts("convert", chat, "--from", "openai", "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(names) == 2 and all(n.startswith("chats.") for n in names)
    contents = sorted(sts_messages((tmp_path / "out" / n).read_bytes())[0]["content"]
                      for n in names)
    assert contents == ["a", "c"]


def test_malformed_line_under_skip(tmp_path):
    out = tmp_path / "out.jsonl"
    done = sts("convert", MALFORMED, "-o", out)
    assert done.returncode == 1
    assert MALFORMED_MESSAGE in done.stderr and "[malformed-json]" in done.stderr
    assert "1 session(s) written from 1 input(s); 0 skipped, 0 failed; 1 error(s)" in done.stderr
    assert [m["content"] for m in sts_messages(out.read_bytes())] == ["first", "last"]
    assert "unparsedLines" not in lines(out.read_bytes())[0]


def test_malformed_line_under_fail_writes_nothing(tmp_path):
    out = tmp_path / "out.jsonl"
    done = sts("convert", MALFORMED, "-o", out, "--on-error", "fail")
    assert done.returncode == 1
    assert MALFORMED_MESSAGE in done.stderr and "1 failed" in done.stderr
    assert list(tmp_path.iterdir()) == []
    done = sts("convert", MALFORMED, "--on-error", "fail")
    assert done.returncode == 1 and done.stdout == b""


def test_malformed_line_under_keep_is_kept_raw_in_the_header(tmp_path):
    out = tmp_path / "out.jsonl"
    done = sts("convert", MALFORMED, "-o", out, "--on-error", "keep")
    assert done.returncode == 1
    assert MALFORMED_MESSAGE in done.stderr
    data = out.read_bytes()
    assert_valid(data, "sts")
    header = lines(data)[0]
    assert header["unparsedLines"] == [{"line": 3, "raw": '{"type":"message","message": nope}\n'}]
    assert [m["content"] for m in sts_messages(data)] == ["first", "last"]


def test_keep_says_kept_not_skipped(tmp_path):
    glued = tmp_path / "glued.jsonl"
    glued.write_text('{"type":"session","harness":"h","id":"x"}\n[1]\n{"a":1}{"b":2}\n')
    done = sts("convert", glued, "-o", tmp_path / "out.jsonl", "--on-error", "keep")
    assert done.stderr.splitlines()[:2] == [
        f"{glued}:2: error: line is JSON but not an object; kept raw in the session header "
        "(unparsedLines) [not-an-object]",
        f"{glued}:3: error: 2 JSON records glued on one line; kept raw in the session header "
        "(unparsedLines) [malformed-json]",
    ]
    done = sts("convert", glued, "-o", tmp_path / "out2.jsonl")
    assert "glued on one line: line skipped [malformed-json]" in done.stderr


def test_keep_also_works_for_pi_output_and_stdin():
    done = sts("convert", "-", "--to", "pi", "--on-error", "keep", stdin=MALFORMED.read_bytes())
    assert done.returncode == 1
    assert "<stdin>:3: error:" in done.stderr
    assert_valid(done.stdout, "pi")
    assert lines(done.stdout)[0]["unparsedLines"][0]["line"] == 3


def test_fail_stops_a_batch_at_the_first_bad_file(tmp_path):
    source = tmp_path / "in"
    copy(MALFORMED, source / "a.jsonl")
    copy(EXAMPLE, source / "b.jsonl")
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/", "--on-error", "fail")
    assert done.returncode == 1
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_batch_summary_counts_every_kind(tmp_path):
    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    copy(MALFORMED, source / "b.jsonl")
    (source / "c.bin").write_bytes(b"\x00\x01\x02\xff")
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 1
    assert "c.bin: error: not a format sts reads (tried claude-code, " in done.stderr
    assert "--from FORMAT` forces one [unknown-format]" in done.stderr
    summary = done.stderr.strip().splitlines()[-1]
    assert summary == ("sts: 2 session(s) written from 3 input(s); 1 skipped, 0 failed; "
                       "2 error(s), 0 warning(s)")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.jsonl", "b.jsonl"]


def test_quiet_prints_only_errors(tmp_path):
    done = sts("convert", MALFORMED, "-o", tmp_path / "o.jsonl", "-q")
    assert done.returncode == 1
    [message] = done.stderr.strip().splitlines()
    assert message.startswith(f"{MALFORMED}:3: error: not valid JSON: ")
    assert message.endswith(" at column 30 [malformed-json]")


def test_warnings_alone_exit_zero(tmp_path):
    surrogate = tmp_path / "s.jsonl"
    surrogate.write_bytes(EXAMPLE.read_bytes().replace(b"what time", b"\\ud83d time", 1))
    done = sts("convert", surrogate)
    assert done.returncode == 0
    assert "s.jsonl:1: warning:" in done.stderr and "[lone-surrogate]" in done.stderr
    assert lines(done.stdout)[0]["name"] == "\ufffd time is it"


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--on-error", "bogus", "IN"],
        ["convert", "--from", "nope", "IN"],
        ["convert", "--to", "xml", "IN"],
        ["nope"],
        ["validate"],
        ["validate", "--format", "xml", "IN"],
    ],
)
def test_usage_errors_exit_2(args):
    done = sts(*[str(EXAMPLE) if a == "IN" else a for a in args])
    assert done.returncode == 2, done.stderr
    assert done.stdout == b"" and "Traceback" not in done.stderr


def test_missing_input_is_an_error_not_a_traceback(tmp_path):
    done = sts("convert", tmp_path / "nope.jsonl", "--from", "sts")
    assert done.returncode in (1, 2)
    assert "nope.jsonl" in done.stderr and "Traceback" not in done.stderr


# never writing over an input ----------------------------------------------------------------


def test_output_equal_to_input_is_refused(tmp_path):
    source = copy(EXAMPLE, tmp_path / "a.jsonl")
    before = source.read_bytes()
    for output in ("a.jsonl", "./a.jsonl", "sub/../a.jsonl", str(source)):
        done = sts("convert", "a.jsonl", "-o", output, cwd=tmp_path)
        assert done.returncode == 2, (output, done.stderr)
        assert "refusing to write over the input" in done.stderr
    assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_output_through_a_symlink_to_the_input_is_refused(tmp_path):
    source = copy(EXAMPLE, tmp_path / "a.jsonl")
    (tmp_path / "link.jsonl").symlink_to(source)
    done = sts("convert", source, "-o", tmp_path / "link.jsonl")
    assert done.returncode == 2
    assert source.read_bytes() == EXAMPLE.read_bytes()
    assert (tmp_path / "link.jsonl").is_symlink()


def test_output_dir_equal_to_the_input_dir_is_refused(tmp_path):
    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    copy(MALFORMED, source / "b.jsonl")
    for output in (source, source / ".", tmp_path / "in" / ".." / "in"):
        done = sts("convert", source, "-o", output)
        assert done.returncode == 2, done.stderr
        assert "refusing to write over the input" in done.stderr
    assert (source / "a.jsonl").read_bytes() == EXAMPLE.read_bytes()
    assert (source / "b.jsonl").read_bytes() == MALFORMED.read_bytes()
    assert sorted(p.name for p in source.iterdir()) == ["a.jsonl", "b.jsonl"]
    done = sts("convert", "a.jsonl", "-o", ".", cwd=source)
    assert done.returncode == 2
    assert (source / "a.jsonl").read_bytes() == EXAMPLE.read_bytes()


def test_output_dir_inside_the_input_dir_is_fine(tmp_path):
    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    done = sts("convert", source, "-o", f"{source / 'converted'}/", "--to", "pi")
    assert done.returncode == 0, done.stderr
    assert_valid((source / "converted" / "a.jsonl").read_bytes(), "pi")
    assert (source / "a.jsonl").read_bytes() == EXAMPLE.read_bytes()


# validate ---------------------------------------------------------------------------------


def test_validate_good_files_exit_0(tmp_path):
    pi = tmp_path / "p.jsonl"
    pi.write_bytes(sts("convert", EXAMPLE, "--to", "pi").stdout)
    done = sts("validate", EXAMPLE, pi)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", "")


def test_validate_reports_every_problem_as_file_line_what(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"type":"session","harness":"h","id":"x"}\n'
        '{"type":"message","message":{"role":"robot","content":[]}}\n'
        '{"type":"message","message":{"role":"tool","toolCallId":"t9","content":""}}\n'
    )
    done = sts("validate", bad, EXAMPLE)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{bad}:2: error: unknown role 'robot' [unknown-role]",
        f"{bad}:2: error: content must be a string [content-not-string]",
        f"{bad}:3: warning: tool result answers no earlier call 't9' [orphan-result]",
    ]


def test_validate_with_a_forced_format(tmp_path):
    done = sts("validate", "--format", "pi", EXAMPLE)
    assert done.returncode == 1
    assert f"{EXAMPLE}:1: error: a Pi version-1 session, not version 3" in done.stderr


def test_validate_walks_a_directory_and_its_sub_folders(tmp_path):
    out = tmp_path / "out"
    (out / "deep" / "er").mkdir(parents=True)
    (out / "good.jsonl").write_bytes(EXAMPLE.read_bytes())
    bad = out / "deep" / "er" / "bad.jsonl"
    bad.write_text('{"type":"session","harness":"h","id":"x"}\n'
                   '{"type":"message","message":{"role":"robot","content":""}}\n')
    (out / "deep" / "notes.txt").write_text("not a session, not checked")
    done = sts("validate", out)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"{bad}:2: error: unknown role 'robot' [unknown-role]"]
    bad.unlink()
    assert sts("validate", out).returncode == 0


@pytest.mark.parametrize(
    ("case", "name"),
    [("codex/envelope_basic.jsonl", "codex"), ("claude-code/split-reply.jsonl",
                                               "claude-code")],
)
def test_validate_names_a_source_file_in_one_line(case, name):
    path = CASES / case
    done = sts("validate", path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{path}: error: this is a {name} file, not STS or Pi: convert it first "
        f"(sts convert {path}) [source-format]"
    ]


def test_validate_names_an_old_pi_session_in_one_line():
    path = CASES / "pi" / "v1-compaction.jsonl"
    done = sts("validate", path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{path}:1: error: a Pi version-1 session, not version 3: pi migrates it when it opens "
        f"it; convert it first (sts convert {path} --to pi) [bad-version]"
    ]


def test_validate_missing_file_is_a_usage_error(tmp_path):
    done = sts("validate", tmp_path / "nope.jsonl")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_validate_output_of_every_command_is_utf8_json(tmp_path):
    weird = tmp_path / "w.jsonl"
    weird.write_bytes(
        b'{"type":"session","harness":"h","id":"x\\ud800"}\n'
        b'{"type":"message","message":{"role":"user","content":"a\\u2028b\xff \\udc00"}}\n'
    )
    for target in ("sts", "pi"):
        out = tmp_path / f"out-{target}.jsonl"
        done = sts("convert", weird, "--to", target, "-o", out)
        assert done.returncode == 0, done.stderr
        data = out.read_bytes()
        data.decode("utf-8")
        assert_valid(data, target)
        assert sts("validate", out).returncode == 0
    message = sts_messages((tmp_path / "out-sts.jsonl").read_bytes())[0]
    assert message["content"] == "a\u2028b\ufffd \ufffd"
    assert json.loads((tmp_path / "out-sts.jsonl").read_bytes().split(b"\n")[0])["id"] == "x\ufffd"


def test_keep_puts_a_bad_last_line_into_the_last_session_of_many(tmp_path):
    chat = tmp_path / "chats.jsonl"
    chat.write_text(
        '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}\n'
        '{"messages":[{"role":"user","content":"c"},{"role":"assistant","content":"d"}]}\n'
        '{"messages": broken\n'
    )
    done = sts("convert", chat, "--from", "openai", "--on-error", "keep", "-o", f"{tmp_path}/out/")
    assert done.returncode == 1
    assert "chats.jsonl:3: error: not valid JSON" in done.stderr
    headers = {p.name: lines(p.read_bytes())[0] for p in (tmp_path / "out").iterdir()}
    kept = [h.get("unparsedLines") for _, h in sorted(headers.items())]
    assert kept == [None, [{"line": 3, "raw": '{"messages": broken\n'}]]


def registered() -> list[str]:
    from sts.converters.registry import converters

    return sorted(converters())


@pytest.mark.parametrize("fmt", [None, *registered()])
def test_an_empty_file_is_reported(tmp_path, fmt):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    done = sts("convert", empty, *(["--from", fmt] if fmt else []))
    assert done.returncode == 1 and done.stdout == b""
    assert f"{empty}: error:" in done.stderr


def first_seeds() -> list[tuple[str, Path]]:
    from tests.test_robustness import FIRST_SEEDS

    return sorted(FIRST_SEEDS.items())


@pytest.mark.parametrize(("fmt", "seed"), first_seeds(), ids=[f for f, _ in first_seeds()])
@pytest.mark.parametrize("policy", ["skip", "fail", "keep"])
def test_a_malformed_line_in_every_format(tmp_path, fmt, seed, policy):
    rows = seed.read_bytes().split(b"\n")
    rows.insert(1, b'{"this is": not json')
    source = tmp_path / f"input{seed.suffix}"
    source.write_bytes(b"\n".join(rows))
    out = tmp_path / "out"
    done = sts("convert", source, "--from", fmt, "--on-error", policy, "-o", f"{out}/")
    assert done.returncode == 1, done.stderr
    assert f"{source}:2: error: not valid JSON" in done.stderr
    assert "Traceback" not in done.stderr
    written = sorted(out.rglob("*.jsonl")) if out.exists() else []
    if policy == "fail":
        assert written == []
        return
    assert written, done.stderr
    for path in written:
        assert_valid(path.read_bytes(), "sts")
    kept = [entry for path in written for entry in lines(path.read_bytes())[0].get(
        "unparsedLines", [])]
    expected = [{"line": 2, "raw": '{"this is": not json\n'}]
    assert kept == (expected if policy == "keep" else [])


def test_sub_agents_are_written_beside_their_parent(tmp_path):
    layout = CASES / "claude-code" / "layout-2.1"
    stem = "22222222-3333-4444-8555-666666666666"
    done = sts("convert", layout, "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (tmp_path / "out" / "project").iterdir())
    assert f"{stem}.jsonl" in names and f"{stem}.agent-abc1234.jsonl" in names
    assert all(n.startswith(stem) for n in names)
    parent = lines((tmp_path / "out" / "project" / f"{stem}.jsonl").read_bytes())[0]
    assert "agent-abc1234" in json.dumps(parent["subagents"])
    done = sts("convert", layout, "-o", f"{tmp_path / 'lean'}/", "--no-subagents")
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "lean" / "project").iterdir()] == [f"{stem}.jsonl"]
    done = sts("convert", layout / "project" / f"{stem}.jsonl")
    assert done.returncode == 0 and lines(done.stdout)[0]["id"]
    assert "[subagents-not-written]" in done.stderr


def test_outputs_that_would_share_a_name_all_get_written(tmp_path):
    source = tmp_path / "in"
    copy(EXAMPLE, source / "a.jsonl")
    copy(MALFORMED, source / "a.json")
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 1  # the malformed line
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["a.json.jsonl", "a.jsonl"]
    assert lines((out / "a.jsonl").read_bytes())[0]["id"] == "abc123"
    assert lines((out / "a.json.jsonl").read_bytes())[0]["id"] == "bad1"
    other = copy(MALFORMED, tmp_path / "other" / "a.jsonl")
    done = sts("convert", source / "a.jsonl", other, "-o", f"{tmp_path / 'out2'}/")
    ids = sorted(lines(p.read_bytes())[0]["id"] for p in (tmp_path / "out2").iterdir())
    assert ids == ["abc123", "bad1"]


def test_what_a_target_cannot_hold_is_counted_and_listed_with_verbose(tmp_path):
    """Writers report media placeholders, flattened kinds and fields with no place: not on
    stderr by default (only counted when a summary is printed), one line each with -v."""
    case = CASES / "claude-code" / "tool-results-images.jsonl"
    quiet = sts("convert", case, "--to", "sts", "-o", tmp_path / "a.jsonl")
    assert quiet.returncode == 0 and quiet.stderr == ""
    loud = sts("convert", case, "--to", "sts", "-o", tmp_path / "b.jsonl", "-v")
    assert loud.returncode == 0
    listed = [line for line in loud.stderr.splitlines() if line.endswith("[media-placeholder]")]
    assert len(listed) == 1 and "STS cannot hold" in listed[0]
    assert "[field-dropped]" in loud.stderr  # stop reasons and providers have no place in STS
    assert "0 warning(s); " in loud.stderr and "note(s) of what the target cannot hold" in (
        loud.stderr
    )
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
