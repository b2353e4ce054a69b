"""Inputs on which time or memory could grow faster than the input (issue 12): each is converted
at two sizes, n and 2n, and the ratio of the times and of peak memory is printed, with the peak
as a multiple of the input's size at 2n. Linear is about 2.0 for time; a ratio past ~2.2 means
super-linear work. Memory that does not grow with the input has a ratio near 1.0.

    python benchmarks/pathological.py                # every case, default sizes
    python benchmarks/pathological.py --scale 0.25   # smaller sizes (a quick look)
    python benchmarks/pathological.py --only pi-abandoned-branches

Inputs go to a temporary folder that is removed at the end. Nothing is asserted: it prints
figures (median of --runs runs per size).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import orjson

STAMP = "2026-03-02T09:14:05.112Z"


def line(record: object) -> bytes:
    return orjson.dumps(record) + b"\n"


def pi_header() -> bytes:
    return line({"type": "session", "version": 3, "id": "s", "timestamp": STAMP})


def pi_user(entry_id: str, parent: str | None, text: str) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP,
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def pi_abandoned_branches(folder: Path, n: int) -> list[str]:
    """One trunk of n entries, each with an abandoned one-entry branch: n leaves."""
    rows = [pi_header()]
    parent = None
    for i in range(n):
        rows.append(line(pi_user(f"t{i}", parent, f"trunk {i}")))
        rows.append(line(pi_user(f"b{i}", f"t{i}", f"branch {i}")))
        parent = f"t{i}"
    rows.append(line(pi_user("leaf", parent, "last")))
    path = folder / "pi.jsonl"
    path.write_bytes(b"".join(rows))
    return [str(path)]


def claude_line(uuid: str, parent: str | None, session: str, text: str, **extra: object) -> bytes:
    return line({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": session,
                 "timestamp": STAMP, "isSidechain": extra.pop("sidechain", False),
                 "message": {"role": "user", "content": text}, **extra})


def claude_folder(folder: Path, n: int) -> list[str]:
    """Claude Code 2.0: n sessions, each with four agent-*.jsonl siblings."""
    project = folder / "project"
    project.mkdir()
    for s in range(n):
        session = f"s{s:06d}"
        (project / f"{session}.jsonl").write_bytes(claude_line(f"u{s}", None, session, "hi"))
        for a in range(4):
            (project / f"agent-{s:06d}{a}.jsonl").write_bytes(
                claude_line(f"a{s}-{a}", None, session, "task", sidechain=True))
    return [str(project), "-o", f"{folder / 'out'}/"]


def shared_call_id_chat(n: int) -> bytes:
    """One OpenAI conversation of n tool calls that all use the id "call_id" (tests/test_hostile
    reads it too)."""
    messages: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(n):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_id", "type": "function",
             "function": {"name": "f", "arguments": f'{{"i": {i}}}'}}]})
        messages.append({"role": "tool", "tool_call_id": "call_id", "content": f"r{i}"})
    return orjson.dumps({"messages": messages})


def shared_call_ids(folder: Path, n: int) -> list[str]:
    """`shared_call_id_chat` as a file."""
    path = folder / "chat.json"
    path.write_bytes(shared_call_id_chat(n))
    return [str(path), "--from", "openai"]


def glued_pi(folder: Path, n: int) -> list[str]:
    """A Pi file whose second line holds n records glued together."""
    glued = b"".join(line(pi_user(f"e{i}", f"e{i - 1}" if i else None, f"m{i}"))[:-1]
                     for i in range(n))
    path = folder / "pi.jsonl"
    path.write_bytes(pi_header() + glued + b"\n")
    return [str(path), "--from", "pi"]


def cut_off_glued(folder: Path, n: int) -> list[str]:
    """Claude Code: a cut-off record followed by n small glued objects on one line."""
    cut = claude_line("u0", None, "s", "x" * 100)[:60]
    glued = b"".join(orjson.dumps({"k": i, "v": "y"}) for i in range(n))
    path = folder / "cc.jsonl"
    path.write_bytes(claude_line("u1", None, "s", "first") + cut + glued + b"\n")
    return [str(path), "--from", "claude-code"]


def missing_parents(folder: Path, n: int) -> list[str]:
    """Claude Code: n lines whose parents are all missing."""
    path = folder / "cc.jsonl"
    path.write_bytes(b"".join(claude_line(f"u{i}", f"gone{i}", "s", f"m{i}") for i in range(n)))
    return [str(path), "--from", "claude-code"]


def malformed_lines(folder: Path, n: int) -> list[str]:
    """Pi: a header, one message, then n lines that are not JSON (n problems reported)."""
    path = folder / "pi.jsonl"
    path.write_bytes(pi_header() + line(pi_user("e0", None, "hi")) + b"{not json\n" * n)
    return [str(path), "--from", "pi"]


def malformed_lines_in_workers(folder: Path, n: int) -> list[str]:
    """Two such files of n/2 bad lines, ``-j 2``: each worker's problems are passed on at the
    end rather than printed as they happen."""
    paths = []
    for name in ("a", "b"):
        paths += malformed_lines(folder / name, n // 2)[:1]
    return [*paths, "--from", "pi", "-j", "2", "-o", f"{folder / 'out'}/"]


def tiny_pi_entries(folder: Path, n: int) -> list[str]:
    """Pi: n tiny chained entries (ids of 8 hex digits, as pi makes them)."""
    path = folder / "pi.jsonl"
    with path.open("wb") as out:
        out.write(pi_header())
        for i in range(n):
            out.write(line(pi_user(f"{i:08x}", f"{i - 1:08x}" if i else None, "x")))
    return [str(path)]


def tiny_pi_entries_to_pi(folder: Path, n: int) -> list[str]:
    """The same, written as Pi."""
    return [*tiny_pi_entries(folder, n), "--to", "pi"]


def damaged_openai(folder: Path, n: int) -> list[str]:
    """OpenAI JSONL of n conversations whose first line is cut off."""
    chat = line({"messages": [{"role": "user", "content": "q" * 200},
                              {"role": "assistant", "content": "a" * 200}]})
    path = folder / "chats.jsonl"
    path.write_bytes(chat[:40] + b"\n" + chat * n)
    return [str(path), "--from", "openai", "-o", f"{folder / 'out'}/"]


def symlink_loops(folder: Path, n: int) -> list[str]:
    """A tree of n files with loops: x -> . in every folder and up -> .. at the top."""
    tree = folder / "tree"
    for i in range(n):
        sub = tree / f"d{i % 50}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i}.jsonl").write_bytes(pi_header() + line(pi_user("e", None, "hi")))
    for sub in [tree, *tree.iterdir()]:
        (sub / "x").symlink_to(".")
        (sub / "y").symlink_to(".")
    (tree / "up").symlink_to("..")
    return [str(tree), "-o", f"{folder / 'out'}/"]


CASES: dict[str, tuple[Callable[[Path, int], list[str]], int]] = {
    "pi-abandoned-branches": (pi_abandoned_branches, 20_000),
    "claude-code-2.0-folder": (claude_folder, 500),
    "shared-call-ids": (shared_call_ids, 10_000),
    "glued-pi-records": (glued_pi, 20_000),
    "cut-off-then-glued": (cut_off_glued, 5_000),
    "every-parent-missing": (missing_parents, 20_000),
    "malformed-lines": (malformed_lines, 1_000_000),
    "malformed-lines-j2": (malformed_lines_in_workers, 1_000_000),
    "tiny-pi-entries": (tiny_pi_entries, 1_000_000),
    "tiny-pi-entries-to-pi": (tiny_pi_entries_to_pi, 1_000_000),
    "damaged-openai-first-line": (damaged_openai, 100_000),
    "symlink-loops": (symlink_loops, 2_000),
}


def run(arguments: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one ``sts convert`` run."""
    command = [sys.executable, "-m", "sts", "convert", *arguments]
    if "-o" not in arguments:
        command += ["-o", os.devnull]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def measure(
    make: Callable[[Path, int], list[str]], n: int, runs: int
) -> tuple[float, float, float]:
    """Median seconds, peak RSS (MiB) and the input's size (MiB) of `runs` runs at size n."""
    with tempfile.TemporaryDirectory(prefix="sts-patho-") as tmp:
        folder = Path(tmp)
        for sub in ("a", "b"):
            (folder / sub).mkdir()
        # made in a child process: a forked `sts` run starts with this process's pages, which
        # its peak (ru_maxrss) would count, so this process must not grow with the input
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            arguments = pool.submit(make, folder, n).result()
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20
        results = []
        for _ in range(runs):
            out = folder / "out"
            shutil.rmtree(out, ignore_errors=True)
            results.append(run(arguments))
    return statistics.median(r[0] for r in results), max(r[1] for r in results), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", action="append", choices=sorted(CASES))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'case':<28} {'n':>9} {'s (n)':>8} {'s (2n)':>8} {'ratio':>6} "
          f"{'MiB (n)':>8} {'MiB (2n)':>8} {'ratio':>6} {'input 2n':>9} {'peak/in':>7}")
    for name in args.only or CASES:
        make, size = CASES[name]
        n = max(1, int(size * args.scale))
        small, small_mib, _ = measure(make, n, args.runs)
        large, large_mib, large_input = measure(make, 2 * n, args.runs)
        print(f"{name:<28} {n:>9} {small:>8.2f} {large:>8.2f} {large / small:>6.2f} "
              f"{small_mib:>8.0f} {large_mib:>8.0f} {large_mib / small_mib:>6.2f} "
              f"{large_input:>9.0f} {relative(large_mib, large_input):>7}", flush=True)


def relative(peak: float, size: float) -> str:
    """The peak as a multiple of the input's size (``-`` for inputs under 1 MiB)."""
    return f"{peak / size:.2f}" if size >= 1 else "-"


if __name__ == "__main__":
    main()
