"""Scale behaviour made checkable by counting (issue 18): what start-up imports, how often a
folder of many files is listed, what a big session keeps in memory. No wall-clock asserts."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import sts
from tests.support import SAMPLES

#: Modules a plain `sts convert` of one small file has no use for: each costs start-up time.
NOT_AT_START = (
    "importlib.metadata",  # entry points: only when no built-in converter is sure
    "ctypes",  # the allocator settings: batches, streams and big inputs only
    "hashlib",  # long output names only
    "sqlite3",  # database inputs only (their sniffers read the header bytes)
    "tempfile",
    "sts.redact",  # --redact only
    "sts.workers",  # -j only
    "sts.publish",
    "sts.view",
    "sts.cluster",  # --cluster only
    "sts.store",  # URL inputs and outputs only
    "distributed",
    "fsspec",
    # detection loads every converter, but not its options (built when its input is read) nor
    # more than the checks its sniff makes
    *(f"sts.converters.{name}.options"
      for name in ("pi", "codex", "cline", "gemini_cli", "opencode", "cursor_ide")),
    "sts.converters.gemini_cli.records",
    "sts.writers.pi",  # --to pi only
    # the other commands: only the one that runs is imported, its options built
    *(f"sts.commands.{name}" for name in ("detect", "formats", "publish", "validate", "view")),
)


def at_exit(expression: str, *args: str) -> Any:
    """The value of `expression` when ``sts ARGS`` exits, run as the ``sts`` command runs."""
    code = ("import atexit, gc, re, sys\n"
            f"atexit.register(lambda: print('\\nAT EXIT', repr({expression})))\n"
            "from sts.__main__ import run\n"
            "run()")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return ast.literal_eval(done.stdout.decode().rsplit("AT EXIT ", 1)[1])


def test_converting_a_small_file_imports_only_what_the_job_needs() -> None:
    modules = at_exit("sorted(sys.modules)", "convert", str(SAMPLES / "hello.sts.jsonl"), "-q")
    assert "sts.pipeline" in modules and "sts.converters.pi" in modules  # it sees all imports
    loaded = sorted(m for m in modules
                    if any(m == n or m.startswith(n + ".") for n in NOT_AT_START))
    assert loaded == []


#: Patterns compiled at import by a module a tiny run loads, which that run then uses; any other
#: pattern is compiled when first needed (``re.sub(PATTERN, ...)``: re's cache).
COMPILED_AT_START = ["sts.converters.opencode.EXPORT_HEAD", "sts.timestamps._CANONICAL"]


def test_converting_a_small_file_compiles_only_the_patterns_it_uses() -> None:
    compiled = at_exit("sorted(f'{name}.{attr}' for name, module in list(sys.modules.items()) "
                       "if name.startswith('sts') for attr, value in vars(module).items() "
                       "if isinstance(value, re.Pattern))",
                       "convert", str(SAMPLES / "hello.sts.jsonl"), "-q")
    assert compiled == COMPILED_AT_START


def test_converting_a_small_file_runs_no_dataclass_machinery() -> None:
    """The value classes a tiny run imports are `sts.records.record`s (their ``__init__`` the
    one method compiled) and nothing asks for their dataclass metadata: ``@dataclass`` cost 3-5 M
    instructions a class at import, a third of the run beyond a plain orjson script."""
    classes = at_exit(
        "sorted((f'{name}.{cls.__qualname__}', '__record_fields__' in vars(cls),"
        " '__dataclass_params__' in vars(cls)) for name, module in list(sys.modules.items())"
        " if name.startswith('sts') for cls in vars(module).values() if isinstance(cls, type)"
        " and cls.__module__ == name and '__dataclass_fields__' in vars(cls))",
        "convert", str(SAMPLES / "hello.sts.jsonl"), "-q")
    assert ("sts.model.Message", True, False) in classes
    assert [name for name, is_record, described in classes if described or not is_record] == []


def test_the_command_freezes_what_its_imports_built() -> None:
    """`sts` imports with the collector paused, then freezes those objects out of collections
    (the one at exit included); the collector itself runs again for the conversion."""
    frozen, enabled = at_exit("(gc.get_freeze_count(), gc.isenabled())", "formats")
    assert frozen > 10_000 and enabled
    # the command's own module is imported before the freeze, not when click asks for it
    collected = at_exit("[name for name in ('sts.cli', 'sts.commands.convert') if id(vars(sys."
                        "modules[name])) in {id(o) for g in range(3) for o in gc.get_objects(g)}]",
                        "convert", str(SAMPLES / "hello.sts.jsonl"), "-q")
    assert collected == []


def _folder_of_sessions(folder: Path, count: int) -> None:
    """`count` small Claude Code sessions side by side, as ~/.claude/projects/<dir> holds them."""
    from benchmarks.make_inputs import write_claude_folder

    write_claude_folder(folder, count, 3000, 7)


def _count_calls(monkeypatch, run) -> Counter:
    """How often `run()` lists a folder and stats a path."""
    import sts.converters.claude_code.subagents as subagents

    calls: Counter = Counter()

    def counting(name, real):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(Path, "iterdir", counting("list", Path.iterdir))
    monkeypatch.setattr(Path, "glob", counting("list", Path.glob))
    monkeypatch.setattr(os, "scandir", counting("list", os.scandir))
    monkeypatch.setattr(os, "listdir", counting("list", os.listdir))
    monkeypatch.setattr(os, "lstat", counting("stat", os.lstat))
    monkeypatch.setattr(os, "stat", counting("stat", os.stat))
    subagents._AGENTS.clear()
    subagents._MAINS.clear()
    run()
    return calls


def test_a_folder_of_sessions_is_listed_a_fixed_number_of_times(tmp_path, monkeypatch):
    def listings(count: int) -> int:
        folder = tmp_path / f"project-{count}"
        _folder_of_sessions(folder, count)
        out = tmp_path / f"out-{count}"

        def run() -> None:
            results = sts.convert_many([folder], out, problems=lambda p: None)
            assert [r.status for r in results] == ["ok"] * count

        calls = _count_calls(monkeypatch, run)
        assert len(list(out.iterdir())) == count
        return calls["list"]

    listings(3)  # first use: plug-in entry points looked up once per process
    # the walk, the agent files and the main sessions of the folder: not once per file
    assert listings(10) == listings(30) <= 6  # (Path.glob and iterdir count their scandir too)


def test_each_session_of_a_stream_costs_a_fixed_number_of_stats(tmp_path, monkeypatch):
    def chats(count: int) -> Path:
        path = tmp_path / f"chats-{count}.jsonl"
        lines = [json.dumps({"id": f"c{i}", "messages": [{"role": "user", "content": "hi"},
                                                         {"role": "assistant", "content": "yo"}]})
                 for i in range(count)]
        path.write_text("\n".join(lines) + "\n")
        return path

    def stats(count: int) -> int:
        source = chats(count)
        calls = _count_calls(monkeypatch, lambda: sts.convert_many(
            [source], tmp_path / f"out-{count}", problems=lambda p: None))
        return calls["stat"]

    assert stats(60) - stats(30) <= 30  # one lstat for each output, nothing else


def test_a_time_read_as_iso_text_is_written_with_that_text():
    from sts.timestamps import iso_from_ms, iso_to_ms

    text = "2026-03-02T09:00:01.250Z"
    ms = iso_to_ms(text)
    assert ms is not None and iso_from_ms(ms) is text  # reused, not formatted again
    assert iso_from_ms(ms + 1) == "2026-03-02T09:00:01.251Z"  # others are formatted
    assert iso_to_ms("2026-03-02T09:00:01.25+00:00") == ms  # another spelling is not kept
    assert iso_from_ms(ms) is text


def _claude_session(path: Path, turns: int) -> int:
    """A Claude Code session of `turns` turns (a prompt, a reply with thinking, text and a tool
    call, a 16 KB tool result), chained by parentUuid; its size in bytes."""
    parent = None
    with path.open("w", encoding="utf-8") as out:
        for turn in range(turns):
            for kind, content in (
                ("user", f"prompt {turn}"),
                ("assistant", [{"type": "thinking", "thinking": "ö" * 4000, "signature": "s"},
                               {"type": "text", "text": f"reply {turn} " + "é" * 2000},
                               {"type": "tool_use", "id": f"toolu_{turn}", "name": "Write",
                                "input": {"content": "ä" * 8000}}]),
                ("user", [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                           "content": f"result {turn} " + "ü" * 16000}]),
            ):
                uuid = f"{kind}-{turn}-{len(content)}"
                message = {"role": kind, "content": content}
                if kind == "assistant":
                    message |= {"id": f"msg_{turn}", "model": "claude-sonnet-4-5"}
                out.write(json.dumps({"parentUuid": parent, "isSidechain": False,
                                      "sessionId": "big", "type": kind, "message": message,
                                      "uuid": uuid, "timestamp": "2026-01-01T00:00:00.000Z"}))
                out.write("\n")
                parent = uuid
    return path.stat().st_size


def _peak_converting(path: Path) -> int:
    """Peak traced memory (bytes) of converting `path` to STS as `sts convert` does."""
    import tracemalloc

    from sts.converters.base import ReadContext
    from sts.converters.claude_code import ClaudeCodeConverter
    from sts.pipeline import one_behind, released
    from sts.problems import Problems
    from sts.writers import write_sts

    problems = Problems(str(path), sink=None)
    tracemalloc.start()
    try:
        with path.open("rb") as stream, open(os.devnull, "wb") as out:
            context = ReadContext(problems, path, {"subagents": True}, deferred=True)
            for session, _ in one_behind(ClaudeCodeConverter().read(stream, context), problems):
                write_sts(session, out, messages=released(session))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_big_claude_code_session_keeps_an_index_not_its_lines(tmp_path, monkeypatch):
    """Memory grows with the number of lines (the first pass's index), not with their content:
    the bytes four times as many turns add cost under 5% of their size in memory (0.8% measured);
    holding the records, or the messages until the end, costs 15% and more (what is neither
    spilled nor streamed: thinking and tool-call arguments)."""
    from sts.converters.claude_code import session as assembly

    monkeypatch.setattr(assembly, "STREAMED_FROM", 0)
    small = _claude_session(tmp_path / "small.jsonl", 30)
    big = _claude_session(tmp_path / "big.jsonl", 120)
    grown = _peak_converting(tmp_path / "big.jsonl") - _peak_converting(tmp_path / "small.jsonl")
    assert grown < 0.05 * (big - small), (grown, big - small)
