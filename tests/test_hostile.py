"""Issue 12: inputs and environments a hostile user would try (full disks, odd names, special
files, closed pipes, pathological but legal inputs). Each test failed on the code before its fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.support import assert_valid, lines, read_sessions, write_checked


def sts(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None, **kw):
    """Run ``python -m sts ARGS``; return the completed process (stdout bytes, stderr text)."""
    done = subprocess.run(
        [sys.executable, "-m", "sts", *map(str, args)],
        input=stdin, capture_output=True, cwd=cwd, timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"}, **kw,
    )
    done.stderr = done.stderr.decode("utf-8")  # type: ignore[assignment]
    return done


def jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records)


STAMP = "2026-03-02T09:14:05.112Z"


def pi_file(*entries: dict, stamp: str = STAMP) -> bytes:
    """A Pi v3 session whose entries are chained by parentId in order."""
    records: list[dict] = [{"type": "session", "version": 3, "id": "s1", "timestamp": stamp}]
    parent = None
    for number, entry in enumerate(entries):
        record = {"type": "message", "id": f"e{number}", "parentId": parent,
                  "timestamp": stamp, **entry}
        records.append(record)
        parent = record["id"]
    return jsonl(*records)


def user(text: str, **extra: object) -> dict:
    return {"message": {"role": "user", "content": [{"type": "text", "text": text}], **extra}}


# --- item 4 and 6: timestamps a target cannot write -------------------------------------------


@pytest.mark.parametrize("stamp", ["0500-06-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z",
                                   "0999-12-31T23:59:59.999Z"])
def test_a_time_before_year_1000_is_written_with_four_year_digits(stamp):
    sessions, _ = read_sessions(pi_file(user("hi"), user("again"), stamp=stamp), "pi")
    data = write_checked(sessions[0], "pi")
    assert lines(data)[0]["timestamp"] == stamp
    assert {line["timestamp"] for line in lines(data)[1:]} == {stamp}


@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_an_offset_past_the_year_range_is_a_bad_timestamp(stamp):
    data = pi_file(user("hi", timestamp=stamp), user("again"), stamp=stamp)
    sessions, problems = read_sessions(data, "pi")
    for to in ("sts", "pi"):
        write_checked(sessions[0], to)
    assert "bad-timestamp" in {p.code for p in problems}


# --- item 5 and the -o messages: where outputs may go ---------------------------------------

EXAMPLE = Path(__file__).parent / "cases" / "sts" / "spec-example.jsonl"


def test_a_fifo_named_by_o_is_written_into_as_a_stream(tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = sts("convert", EXAMPLE, "-o", fifo)
    assert done.returncode == 0, done.stderr
    assert fifo.is_fifo()
    if not got:
        with open(fifo, "wb"):  # no longer needed, unless the FIFO was left unopened
            reader.join(30)
    assert got == [EXAMPLE.read_bytes()]


def test_a_symlink_to_a_device_is_written_through_never_replaced(tmp_path):
    null = tmp_path / "null"
    null.symlink_to("/dev/null")
    done = sts("convert", EXAMPLE, "-o", null)
    assert done.returncode == 0, done.stderr
    assert null.is_symlink() and Path("/dev/null").is_char_device()
    assert not list(tmp_path.glob(".*"))  # no temporary file left beside it


def test_o_dash_is_stdout():
    done = sts("convert", EXAMPLE, "-o", "-")
    assert done.returncode == 0 and done.stdout == EXAMPLE.read_bytes()


def test_o_empty_is_refused(tmp_path):
    done = sts("convert", EXAMPLE, "-o", "", cwd=tmp_path)
    assert done.returncode == 2 and "-o" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_one_output_file_for_several_inputs_is_refused(tmp_path):
    second = tmp_path / "second.jsonl"
    second.write_bytes(EXAMPLE.read_bytes())
    done = sts("convert", EXAMPLE, second, "-o", tmp_path / "one.jsonl")
    assert done.returncode == 2, done.stderr
    assert not (tmp_path / "one.jsonl").exists()
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "x.jsonl").write_bytes(EXAMPLE.read_bytes())
    done = sts("convert", folder, "-o", tmp_path / "two.jsonl")
    assert done.returncode == 2, done.stderr
    assert not (tmp_path / "two.jsonl").exists()


def test_o_a_file_with_a_slash_is_one_usage_error(tmp_path):
    afile = tmp_path / "afile"
    afile.write_bytes(b"keep")
    second = tmp_path / "second.jsonl"
    second.write_bytes(EXAMPLE.read_bytes())
    done = sts("convert", EXAMPLE, second, "-o", f"{afile}/")
    assert done.returncode == 2
    assert done.stderr.count("afile") == 1, done.stderr
    assert afile.read_bytes() == b"keep"


def test_a_write_failure_names_the_output_path(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "x.jsonl").write_bytes(EXAMPLE.read_bytes())
    done = sts("convert", EXAMPLE, "-o", blocker / "out.jsonl")
    assert done.returncode == 1
    assert str(blocker / "out.jsonl") in done.stderr, done.stderr


def test_an_output_name_near_the_length_limit_is_written(tmp_path):
    source = tmp_path / ("x" * 249 + ".jsonl")
    source.write_bytes(EXAMPLE.read_bytes())
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / source.name).read_bytes() == EXAMPLE.read_bytes()


def test_a_symlinked_folder_inside_the_output_dir_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    source = tmp_path / "in"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "x.jsonl").write_bytes(EXAMPLE.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    (out / "sub").symlink_to(outside)
    done = sts("convert", source, "-o", out)
    assert done.returncode == 2, done.stderr
    assert list(outside.iterdir()) == []


# --- item 9 and closed pipes -------------------------------------------------------------------


def test_detect_with_stdin_closed_is_an_error_not_a_traceback():
    done = subprocess.run(
        f"{sys.executable} -m sts detect - <&-", shell=True, capture_output=True, text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "<stdin>" in done.stderr or "-" in done.stderr


@pytest.mark.parametrize("command", ["convert {example}", "detect {example}", "convert - <&-"])
def test_a_closed_stdout_is_an_error_not_a_traceback(command):
    done = subprocess.run(
        f"{sys.executable} -m sts {command.format(example=EXAMPLE)} >&-", shell=True,
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr


def test_a_reader_that_stops_early_stops_the_run_quietly(tmp_path):
    big = tmp_path / "big.jsonl"
    rows = [{"type": "session", "harness": "h", "id": "big"}]
    rows += [{"type": "message", "message": {"role": "user", "content": "x" * 1000}}] * 2000
    big.write_bytes(jsonl(*rows))
    process = subprocess.Popen([sys.executable, "-m", "sts", "convert", str(big)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.wait(60)
    assert stderr == ""
    assert process.returncode in (0, 141, -13)  # as cat: quiet, killed by SIGPIPE or not


def test_an_unreadable_folder_is_reported_and_the_rest_converted(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sts.cli import main

    source = tmp_path / "in"
    (source / "locked").mkdir(parents=True)
    (source / "locked" / "y.jsonl").write_bytes(EXAMPLE.read_bytes())
    (source / "x.jsonl").write_bytes(EXAMPLE.read_bytes())
    real = Path.iterdir

    def iterdir(self):  # chmod 000 does not stop root: refuse as the kernel would
        if self.name == "locked":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(source), "-o", f"{out}/"])
    assert result.exit_code == 1, result.output
    assert (out / "x.jsonl").read_bytes() == EXAMPLE.read_bytes()
    assert "locked" in result.output and "Permission denied" in result.output


# --- messages ---------------------------------------------------------------------------------


def test_control_characters_in_file_names_and_data_are_escaped(tmp_path):
    name = "evil\x1b]0;title\x07\x1b[31m\nerror: fake.jsonl"
    source = tmp_path / name
    source.write_bytes(b"not json\n")
    done = sts("convert", "--from", "sts", source)
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert not any(line.startswith("error: fake") for line in done.stderr.splitlines())
    record = {"parentUuid": "p\x1b[2J\nerror: x", "sessionId": "s", "uuid": "u", "type": "user",
              "timestamp": "2026-01-01T00:00:00Z",
              "message": {"role": "user", "content": "hi"}}
    done = sts("convert", "-", stdin=jsonl(record))
    assert "\x1b" not in done.stderr and "error: x" not in done.stderr.splitlines(), done.stderr


def test_symlink_loops_are_walked_once_and_never_out_of_the_tree(tmp_path):
    from sts.pipeline import walk

    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.jsonl").write_bytes(b"{}\n")
    (tree / "sub" / "b.jsonl").write_bytes(b"{}\n")
    (tmp_path / "outside.jsonl").write_bytes(b"{}\n")
    (tree / "x").symlink_to(".")
    (tree / "sub" / "y").symlink_to("..")
    (tree / "up").symlink_to("..")
    assert [p.relative_to(tree) for p in walk(tree)] == [Path("a.jsonl"), Path("sub/b.jsonl")]


# --- item 2: every output path of a run is its own ---------------------------------------------


def chat(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]}


def written(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.jsonl"))}


def summary_sessions(stderr: str) -> int:
    line = next(line for line in stderr.splitlines() if "session(s) written" in line)
    return int(line.split("sts: ")[1].split(" ")[0])


def test_a_session_name_and_an_input_name_never_share_an_output(tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    (source / "chats.jsonl").write_bytes(jsonl(chat("one"), chat("two")))
    (source / "chats.L1.jsonl").write_bytes(jsonl(chat("three")))
    out = tmp_path / "out"
    done = sts("convert", source, "-o", f"{out}/")
    assert done.returncode == 0, done.stderr
    files = written(out)
    assert len(files) == 3 == summary_sessions(done.stderr)
    texts = sorted(lines(data)[1]["message"]["content"] for data in files.values())
    assert texts == ["one", "three", "two"]
    assert sts("convert", source, "-o", f"{tmp_path / 'again'}/").returncode == 0
    assert written(tmp_path / "again") == files  # the same names every run


def test_sub_agent_files_whose_names_read_alike_are_all_written(tmp_path):
    layout = Path(__file__).parent / "cases" / "claude-code" / "layout-2.1" / "project"
    stem = "22222222-3333-4444-8555-666666666666"
    source = tmp_path / "project"
    (source / stem / "subagents").mkdir(parents=True)
    (source / f"{stem}.jsonl").write_bytes((layout / f"{stem}.jsonl").read_bytes())
    agent = (layout / stem / "subagents" / "agent-abc1234.jsonl").read_bytes()
    for name in ("agent-x y", "agent-x_y", "agent-x\\y"):
        (source / stem / "subagents" / f"{name}.jsonl").write_bytes(agent)
    out = tmp_path / "out"
    done = sts("convert", source, "-o", f"{out}/")
    assert done.returncode == 0, done.stderr
    files = written(out)
    assert len(files) == 4 == summary_sessions(done.stderr), files.keys()


def test_branch_names_cut_to_the_length_limit_stay_apart(tmp_path):
    base = "b" * 300
    records: list[dict] = [{"type": "session", "version": 3, "id": "s1",
                            "timestamp": "2026-03-02T09:14:05.112Z"}]
    stamp = "2026-03-02T09:14:05.112Z"
    records.append({"type": "message", "id": "root", "parentId": None, "timestamp": stamp,
                    **user("root")})
    for leaf in ("1", "2", "3"):
        records.append({"type": "message", "id": base + leaf, "parentId": "root",
                        "timestamp": stamp, **user(f"branch {leaf}")})
    source = tmp_path / "p.jsonl"
    source.write_bytes(jsonl(*records))
    out = tmp_path / "out"
    done = sts("convert", source, "--all-branches", "-o", f"{out}/")
    assert done.returncode == 0, done.stderr
    files = written(out)
    assert len(files) == 3, files.keys()
    assert all(len(name.encode()) <= 255 for name in files)


# --- item 3 and 8: sub-agent files are converted, never passed over ---------------------------

CC = Path(__file__).parent / "cases" / "claude-code"
MAIN_20 = "33333333-4444-4555-8666-777777777777"
MAIN_21 = "22222222-3333-4444-8555-666666666666"


def messages_of(data: bytes) -> list[dict]:
    return [line for line in lines(data)[1:] if line.get("type") == "message"]


def test_an_agent_file_no_main_session_claims_is_its_own_session(tmp_path):
    source = tmp_path / "project"
    source.mkdir()
    agent = (CC / "layout-2.0" / "project" / "agent-deadbeef.jsonl").read_bytes()
    (source / "agent-deadbeef.jsonl").write_bytes(agent.replace(MAIN_20.encode(), b"orphan-id"))
    (source / "other.jsonl").write_bytes(
        (CC / "layout-2.1" / "project" / f"{MAIN_21}.jsonl").read_bytes())
    out = tmp_path / "out"
    done = sts("convert", source, "-o", f"{out}/")
    assert done.returncode == 0, done.stderr
    files = written(out)
    assert set(files) == {"agent-deadbeef.jsonl", "other.jsonl"}
    assert messages_of(files["agent-deadbeef.jsonl"])


def test_a_subagents_folder_given_alone_is_converted(tmp_path):
    folder = CC / "layout-2.1" / "project" / MAIN_21 / "subagents"
    out = tmp_path / "out"
    done = sts("convert", folder, "-o", f"{out}/")
    assert done.returncode == 0, done.stderr
    assert "agent-abc1234.jsonl" in written(out)


@pytest.mark.parametrize("agent", [
    CC / "layout-2.1" / "project" / MAIN_21 / "subagents" / "agent-abc1234.jsonl",
    CC / "layout-2.0" / "project" / "agent-deadbeef.jsonl",
])
def test_an_agent_file_converted_alone_is_one_whole_session(agent, tmp_path):
    done = sts("convert", agent)
    assert done.returncode == 0, done.stderr
    header = lines(done.stdout)[0]
    assert header["id"] == agent.name.removeprefix("agent-").removesuffix(".jsonl")
    assert messages_of(done.stdout) and "subagents" not in header
    out = tmp_path / "out"
    assert sts("convert", agent, "-o", f"{out}/").returncode == 0
    assert list(written(out)) == [agent.name]


def test_an_unreadable_sub_agent_file_fails_only_itself(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sts.cli import main

    source = tmp_path / "project"
    source.mkdir()
    for file in (CC / "layout-2.0" / "project").iterdir():
        (source / file.name).write_bytes(file.read_bytes())
    (source / "agent-feedface.jsonl").write_bytes((source / "agent-deadbeef.jsonl").read_bytes())
    real_open = Path.open

    def open_(self, *args, **kwargs):  # chmod 000 does not stop root: refuse as the kernel would
        if self.name == "agent-deadbeef.jsonl" and self.parent == source:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", str(source / f"{MAIN_20}.jsonl"),
                                       "-o", f"{out}/"])
    assert result.exit_code == 1, result.output
    assert "agent-deadbeef.jsonl" in result.output and "Permission denied" in result.output
    names = set(written(out))
    assert names == {f"{MAIN_20}.jsonl", f"{MAIN_20}.agent-feedface.jsonl"}


# --- item 7: any depth the parser accepts is written ------------------------------------------


@pytest.mark.parametrize("depth", [300, 990, 1015, 1023])
@pytest.mark.parametrize("to", ["sts", "pi"])
def test_tool_arguments_as_deep_as_the_parser_reads_are_written(tmp_path, depth, to):
    arguments = "[" * depth + "1" + "]" * depth
    chat_file = tmp_path / "chat.json"
    chat_file.write_bytes(orjson.dumps({"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]}))
    out = tmp_path / "out.jsonl"
    done = sts("convert", chat_file, "--from", "openai", "--to", to, "-o", out)
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert_valid(data, to)
    assert arguments.encode() in data.replace(b"\\", b"") or b'"_raw"' in data


# --- --on-error fail on a stream of sessions ---------------------------------------------------


def test_fail_on_a_streamed_jsonl_writes_nothing_for_that_input(tmp_path):
    source = tmp_path / "chats.jsonl"
    source.write_bytes(jsonl(chat("one"), chat("two")) + b"{broken\n" + jsonl(chat("three")))
    out = tmp_path / "out"
    done = sts("convert", source, "--from", "openai", "--on-error", "fail", "-o", f"{out}/")
    assert done.returncode == 1, done.stderr
    assert list(out.rglob("*.jsonl")) == [] if out.exists() else True
    assert "0 session(s) written" in done.stderr or "session(s) written" not in done.stderr


# --- detection on a first line past the head --------------------------------------------------


@pytest.mark.parametrize("size", [300_000, 3_000_000])
def test_a_first_line_longer_than_the_head_is_detected(tmp_path, size):
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": STAMP,
              "cwd": "/x" + "y" * size}
    source = tmp_path / "big-header.jsonl"
    source.write_bytes(jsonl(header, {"type": "message", "id": "e0", "parentId": None,
                                      "timestamp": STAMP, **user("hi")}))
    done = sts("detect", source)
    assert done.stdout.decode().split("\t")[-1].strip() == "pi", done.stderr
    done = sts("detect", "-", stdin=source.read_bytes())
    assert done.stdout.decode().split("\t")[-1].strip() == "pi", done.stderr
    done = sts("convert", source)
    assert done.returncode == 0, done.stderr


# --- numbers too large for a double -------------------------------------------------------------


@pytest.mark.parametrize("document", [False, True])
def test_a_huge_number_keeps_its_line_and_is_reported(tmp_path, document):
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    messages = [{"role": "user", "content": "go", "score": "HUGE"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    data = orjson.dumps({"messages": messages}).replace(b'"HUGE"', b"1e400") + b"\n"
    source = tmp_path / ("chat.json" if document else "chats.jsonl")
    source.write_bytes(data)
    out = tmp_path / "out.jsonl"
    done = sts("convert", source, "--from", "openai", "-o", out)
    assert done.returncode == 0, done.stderr
    assert "1e400" in done.stderr and "[number-out-of-range]" in done.stderr
    assert [m["message"]["role"] for m in lines(out.read_bytes())[1:]] == [
        "user", "assistant", "tool"]


# --- the super-linear inputs, in small: counts, never clocks ------------------------------------


def test_malformed_lines_leave_no_reference_cycles_while_the_collector_is_paused():
    import gc
    import io

    from sts.lines import iter_records
    from sts.problems import Problems

    data = b'{"a": 1}\n' + b"{not json\n" * 200 + b'{"cut": \n'
    gc.collect()
    gc.disable()
    try:
        records = list(iter_records(io.BytesIO(data), Problems(sink=None)))
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert len(records) == 1
    assert unreachable < 20  # one cycle per bad line before (an exception kept with its frame)


def test_a_line_of_glued_records_is_split_in_one_pass(monkeypatch):
    import sts.lines

    decoded: list[int] = []
    real = sts.lines._DECODER.raw_decode

    class Counting:
        def raw_decode(self, text: str, index: int):  # type: ignore[no-untyped-def]
            decoded.append(index)
            return real(text, index)

    monkeypatch.setattr(sts.lines, "_DECODER", Counting())
    n = 2000
    line = b"".join(b'{"type":"message","id":"e%d"}' % i for i in range(n))
    values = sts.lines._split_glued(line)
    assert values is not None and len(values) == n
    assert len(decoded) == n  # each record decoded once, where it starts


def test_abandoned_pi_branches_are_counted_visiting_each_entry_once(monkeypatch):
    from sts.converters.pi.tree import Tree

    walked = [0]
    real = Tree.path_to

    def path_to(self, position):  # type: ignore[no-untyped-def]
        path = real(self, position)
        walked[0] += len(path)
        return path

    monkeypatch.setattr(Tree, "path_to", path_to)
    n = 400
    entries = []
    parent = None
    for i in range(n):  # a trunk, and off each trunk entry an abandoned one-entry branch
        entries.append({"id": f"t{i}", "parentId": parent, **user(f"trunk {i}")})
        entries.append({"id": f"b{i}", "parentId": f"t{i}", **user(f"branch {i}")})
        parent = f"t{i}"
    entries.append({"id": "leaf", "parentId": parent, **user("last")})
    records = [{"type": "session", "version": 3, "id": "s1", "timestamp": STAMP}]
    records += [{"type": "message", "timestamp": STAMP, **entry} for entry in entries]
    _, problems = read_sessions(jsonl(*records), "pi")
    assert [p.text for p in problems if p.code == "other-branches"] == [
        f"{n} abandoned branch(es) left out (--all-branches writes them)"]
    assert walked[0] <= 4 * n  # each abandoned leaf walked back to the root: n²/2 before


def test_calls_sharing_one_id_are_renamed_without_retrying_every_suffix(monkeypatch):
    from benchmarks.pathological import shared_call_id_chat
    from sts.building import calls

    tried = [0]

    class Names(dict):
        def __contains__(self, key: object) -> bool:
            tried[0] += 1
            return super().__contains__(key)

    real_init = calls.CallLedger.__init__

    def init(self, problems):  # type: ignore[no-untyped-def]
        real_init(self, problems)
        self.names = Names()

    monkeypatch.setattr(calls.CallLedger, "__init__", init)
    n = 600
    sessions, _ = read_sessions(shared_call_id_chat(n), "openai")
    ids = [c.id for m in sessions[0].messages for c in m.tool_calls]
    assert ids == ["call_id"] + [f"call_id~{k}" for k in range(2, n + 1)]
    assert tried[0] <= 10 * n  # each rename tried every suffix from ~2 up before: n²/2


def test_every_parent_missing_looks_up_positions_once(monkeypatch):
    import builtins

    from sts.converters.claude_code import thread

    calls = [0]
    real_enumerate = builtins.enumerate

    def counting(iterable, start=0):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real_enumerate(iterable, start)

    monkeypatch.setattr(thread, "enumerate", counting, raising=False)
    n = 300
    rows = [orjson.dumps({"type": "user", "uuid": f"u{i}", "parentUuid": f"gone{i}",
                          "sessionId": "s", "timestamp": STAMP,
                          "message": {"role": "user", "content": f"m{i}"}}) for i in range(n)]
    sessions, problems = read_sessions(b"\n".join(rows) + b"\n", "claude-code")
    assert len(sessions[0].messages) == n
    assert sum(p.code == "dangling-parent" for p in problems) == n
    assert calls[0] <= 5  # the file was scanned once per missing parent before


def test_jsonl_with_a_damaged_first_line_is_streamed_not_read_whole(tmp_path):
    import io

    from sts.converters.chat.containers import open_input
    from sts.problems import Problems

    class NoWholeReads(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            assert size is not None and size >= 0, "the input was read whole"
            return super().read(size)

    good = jsonl(chat("hi"))
    data = good[:30] + b"\n" + good * 500
    opened = open_input(NoWholeReads(data), Problems(sink=None))
    assert opened.lines is not None
    assert sum(1 for _ in opened.lines) == 500


# --- the property: whatever the input, every file written with exit 0 is valid ------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.test_properties import SEEDS, apply, damage  # noqa: E402

# times no target can hold, or that read as another unit: past year 9999 or before year 1 with
# their offset, before year 1000, ms of 1970-01-11..02-17 (seconds of 2000-2100), seconds
times = (
    st.sampled_from(["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00",
                     "0500-06-01T00:00:00.000Z", "1970-01-15T00:00:00Z", "2026-02-30T10:00:00Z",
                     "2026-03-02T09:14:05.123456789Z", "2026-03-02 09:14:05", "1e20", ""])
    | st.integers(864_000_000, 4_102_444_800) | st.integers(253_402_300_000_000, 10**17)
    | st.floats(1e9, 1e13) | st.datetimes().map(lambda when: when.isoformat() + "Z")
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False) | st.text(max_size=20) | times,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "role", "content", "id", "parentId", "message", "messages",
                         "timestamp", "tool_calls", "name", "arguments", "uuid", "parentUuid",
                         "sessionId", "payload", "text", "version", "created_at", "createdAt",
                         "startTime", "time", "create_time", "startedAt"]) | st.text(max_size=8),
        inner, max_size=6),
    max_leaves=30,
)


def _convert_and_validate(tmp_path: Path, data: bytes, to: str, source_format: str | None) -> None:
    import shutil

    from sts.pipeline import Job, Settings, Target, run_job
    from sts.validation import validate_bytes

    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    source = tmp_path / "input.jsonl"
    source.write_bytes(data)
    target = Target("dir", out, frozenset({source.resolve()}),
                    frozenset({out / "input.jsonl"}))
    result = run_job(Job(source, str(source), Path("input.jsonl")), target,
                     Settings(to=to, source_format=source_format), sink=None)
    if result.status != "ok" or result.errors or result.usage_error:
        return  # not an exit-0 run
    written = sorted(out.rglob("*.jsonl")) if out.exists() else []
    assert len(written) == result.sessions
    for path in written:
        errors = [str(p) for p in validate_bytes(path.read_bytes(), to, str(path))
                  if p.severity == "error"]
        assert not errors, errors


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(seed=st.sampled_from(SEEDS),
       edits=st.lists(st.tuples(damage, st.integers(0, 10**7), st.integers(1, 64),
                                st.integers(0, 255)), max_size=3),
       to=st.sampled_from(["sts", "pi"]))
def test_every_file_written_with_exit_0_from_a_damaged_input_is_valid(tmp_path, seed, edits, to):
    _, data = seed
    for edit in edits:
        data = apply(data, *edit)
    _convert_and_validate(tmp_path, data, to, None)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(records=st.lists(json_values, min_size=1, max_size=6),
       to=st.sampled_from(["sts", "pi"]),
       fmt=st.sampled_from([None, "openai", "sharegpt", "pi", "claude-code", "codex", "sts"]))
def test_every_file_written_with_exit_0_from_a_random_input_is_valid(tmp_path, records, to, fmt):
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    _convert_and_validate(tmp_path, data, to, fmt)


def test_problems_kept_are_bounded_and_counted_exactly(monkeypatch):
    from sts import problems as module

    monkeypatch.setattr(module, "KEEP", 5)
    seen: list = []
    problems = module.Problems("f.jsonl", "skip", seen.append)
    companion = problems.for_file("agent.jsonl")  # shares the tally
    for line in range(7):
        problems.error(line + 1, "malformed-json", "line is not valid JSON")
    for line in range(4):
        companion.warning(line + 1, "lone-surrogate", "replaced")
    tally = problems.tally
    assert len(seen) == 11  # every problem reached the sink as it happened
    assert [p.line for p in problems.problems] == [1, 2, 3, 4, 5]  # only the first 5 kept
    assert (tally.errors, tally.warnings, problems.error_count, problems.count) == (7, 4, 7, 11)
    assert tally.codes == {"malformed-json": 7, "lone-surrogate": 4}
    note = tally.note_not_kept("f.jsonl")
    assert note is not None and (note.code, note.severity) == ("problems-not-kept", "warning")
    assert note.text == "6 more problem(s) (2 error(s)) not listed: only the first 5 are kept"


def test_a_worker_passes_on_the_first_problems_and_how_many_more(tmp_path):
    from sts.problems import KEEP

    bad = KEEP + 3
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_bytes(
            jsonl({"type": "session", "version": 3, "id": name, "timestamp": STAMP},
                  {"type": "message", "id": "e", "parentId": None, "timestamp": STAMP,
                   "message": {"role": "user", "content": "hi"}}) + b"{not json\n" * bad)
    done = sts("convert", "-j", "2", tmp_path / "a.jsonl", tmp_path / "b.jsonl",
               "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 1
    report = done.stderr.splitlines()
    for name in ("a", "b"):
        listed = [line for line in report
                  if f"{name}.jsonl:" in line and line.endswith("[malformed-json]")]
        assert len(listed) == KEEP
        assert f"{tmp_path / name}.jsonl: warning: 3 more problem(s) (3 error(s)) not listed: " \
            f"only the first {KEEP} are kept [problems-not-kept]" in report
    assert report[-1].endswith(f"; {2 * bad} error(s), 0 warning(s)")  # counted, all of them
