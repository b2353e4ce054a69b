"""The workloads of issue 18, each at two sizes, in paired rounds against an orjson floor.

    python benchmarks/scale.py                  # every workload, 5 rounds
    python benchmarks/scale.py --rounds 3 --only folder,startup

- ``folder``: a folder of many 20 KB Claude Code sessions (``~/.claude/projects/<dir>``), 1000
  and 2000 files, against the floor (orjson read+write of every line of every file, one output
  file each) and against the same bytes as one session;
- ``startup``: `sts convert` of a tiny sample against a plain orjson script on it, with this
  checkout (editable) and with a regular install of it (``bench-out/regular-venv``), in time and
  in instructions (callgrind, when valgrind is installed);
- ``stream``: one OpenAI JSONL of many sessions (one output file each), two sizes, against a
  floor that also writes one file per line; the µs per session beyond the floor;
- ``big``: one Claude Code session from ``../shared/bench/make_big_trace.py``, two sizes: time
  against the floor and peak memory;
- ``cursor``, ``cline``: one Cursor CLI transcript and one Cline task history from
  ``benchmarks/make_inputs.py``, two sizes each, to STS and to Pi: time against the floor and
  peak memory;
- ``jobs``: the folder with ``-j 1``, ``-j 2`` and two ``-j 1`` halves side by side (the
  ceiling).

Rounds alternate the commands (A B A B ...); the tables give medians of wall time and of CPU time
(user + system, the better figure on a loaded machine), ratios taken round by round, and peak
memory (max RSS of the process). Nothing is asserted: it prints figures.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.measure import Run, measure, together

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = ROOT / "bench-out"
SHARED_GENERATOR = ROOT.parent / "shared" / "bench" / "make_big_trace.py"
MIB = 1024 * 1024
#: The floor: every non-blank line parsed and written again with orjson; a folder's files and a
#: stream's lines each to an output file of their own (as sts writes one file per session).
FLOOR = """
import orjson, os, sys
source, target, per_line = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
os.makedirs(target, exist_ok=True)
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(source) for f in fs) \\
    if os.path.isdir(source) else [source]
for number, path in enumerate(files):
    with open(path, "rb") as src:
        if per_line:
            for index, line in enumerate(src):
                if line.strip():
                    with open(os.path.join(target, f"{index}.jsonl"), "wb") as dst:
                        dst.write(orjson.dumps(orjson.loads(line)) + b"\\n")
        else:
            with open(os.path.join(target, f"{number}.jsonl"), "wb") as dst:
                for line in src:
                    if line.strip():
                        dst.write(orjson.dumps(orjson.loads(line)) + b"\\n")
"""


def scratch(name: str) -> Path:
    """An empty output folder (on a RAM disk when there is one: no writeback in the figures)."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else OUT
    path = base / f"sts-scale-{os.getpid()}" / name
    shutil.rmtree(path, ignore_errors=True)
    return path


def sts(*args: str, python: str = sys.executable) -> list[str]:
    return [python, "-m", "sts", "convert", *args, "-q"]


def floor(source: Path, target: Path, per_line: bool, python: str = sys.executable) -> list[str]:
    return [python, "-c", FLOOR, str(source), str(target), "1" if per_line else "0"]


def paired(commands: dict[str, list[str]], rounds: int, clean: list[Path] = ()) -> dict:
    """Run the commands alternately `rounds` times; every run of each, by label."""
    runs: dict[str, list[Run]] = {label: [] for label in commands}
    for _ in range(rounds):
        for label, command in commands.items():
            for folder in clean:
                shutil.rmtree(folder, ignore_errors=True)
            runs[label].append(measure(command))
    return runs


def med(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs)


def ratio(a: list[Run], b: list[Run], attr: str) -> float:
    """Median of the round-by-round ratios a/b."""
    return statistics.median(getattr(x, attr) / getattr(y, attr) for x, y in zip(a, b, strict=True))


def generate(kind: str, path: Path, *args: str) -> Path:
    if not path.exists():
        subprocess.run([sys.executable, str(HERE / "make_inputs.py"), kind, *args, "-o",
                        str(path)], check=True)
    return path


def folder_rows(rounds: int) -> list[str]:
    rows = ["| Claude Code folder | files | sts wall s | sts CPU s | floor CPU s | ms/file (CPU) | "
            "beyond floor ms/file | × floor (CPU) | the same bytes as one file: CPU s, "
            "folder ÷ it |",
            "|---|---|---|---|---|---|---|---|---|"]
    for count in (1000, 2000):
        folder = generate("claude-folder", OUT / f"claude-folder-{count}", "--count", str(count))
        size = sum(f.stat().st_size for f in folder.iterdir())
        one = generate("claude-code", OUT / f"claude-one-{count}.jsonl", "--size-mb",
                       f"{size / 1e6:.3f}")
        out = scratch("folder")
        runs = paired({"sts": sts(str(folder), "-o", f"{out}/sts/"),
                       "floor": floor(folder, out / "floor", False),
                       "one": sts(str(one), "-o", f"{out}/one/")}, rounds, [out])
        cpu = med(runs["sts"], "cpu")
        rows.append(
            f"| {size / MIB:.0f} MiB | {count} | {med(runs['sts'], 'wall'):.2f} | {cpu:.2f} | "
            f"{med(runs['floor'], 'cpu'):.2f} | {cpu / count * 1000:.2f} | "
            f"{(cpu - med(runs['floor'], 'cpu')) / count * 1000:.2f} | "
            f"{ratio(runs['sts'], runs['floor'], 'cpu'):.2f}× | "
            f"{med(runs['one'], 'cpu'):.2f}, {ratio(runs['sts'], runs['one'], 'cpu'):.2f}× |")
    return rows


def regular_install() -> str | None:
    """The Python of a virtual environment (``bench-out/regular-venv``) with this tree installed
    as users install it, not editable: an editable install's finder imports `pathlib` at every
    start, the floor's included. None (and why, on stderr) when pip cannot install it."""
    venv = OUT / "regular-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        dependencies: list[str] = []
    else:
        dependencies = ["--force-reinstall", "--no-deps"]  # this tree again, as it is now
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", *dependencies, str(ROOT)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(f"(startup: pip could not install the tree: {done.stderr.strip()[-300:]})",
              file=sys.stderr)
        return None
    return str(python)


def instructions(command: list[str]) -> int | None:
    """The instructions `command` executes, counted by callgrind (steadier than any clock on a
    shared machine; hash seed fixed); None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           *command], capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    counted = [line for line in done.stderr.splitlines() if "Collected :" in line]
    return int(counted[-1].split(":")[-1]) if counted else None


def startup_rows(rounds: int) -> list[str]:
    """This checkout (an editable install) and a regular install of it, each against the floor
    run by the same Python: paired times, and instructions when valgrind is there."""
    sample = ROOT / "samples" / "hello.sts.jsonl"
    rows = ["| start-up, tiny sample | install | sts wall ms | floor wall ms | sts CPU ms | "
            "floor CPU ms | × floor (CPU) | sts M instr. | floor M instr. | × floor (instr.) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for install, python in (("editable", sys.executable), ("regular", regular_install())):
        if python is None:
            continue
        out = scratch("startup")
        out.mkdir(parents=True)
        commands = {"sts": sts(str(sample), "-o", str(out / "sts.jsonl"), python=python),
                    "floor": floor(sample, out / "floor", False, python=python)}
        runs = paired(commands, max(rounds, 15))
        counts = {label: instructions(command) for label, command in commands.items()}
        if counts["sts"] and counts["floor"]:
            counted = (f"{counts['sts'] / 1e6:.0f} | {counts['floor'] / 1e6:.0f} | "
                       f"{counts['sts'] / counts['floor']:.2f}×")
        else:
            counted = "| |"
        rows.append(
            f"| `sts convert samples/hello.sts.jsonl` | {install} | "
            f"{med(runs['sts'], 'wall') * 1000:.0f} | {med(runs['floor'], 'wall') * 1000:.0f} | "
            f"{med(runs['sts'], 'cpu') * 1000:.0f} | {med(runs['floor'], 'cpu') * 1000:.0f} | "
            f"{ratio(runs['sts'], runs['floor'], 'cpu'):.2f}× | {counted} |")
    return rows


def stream_rows(rounds: int, sizes: tuple[float, float]) -> list[str]:
    rows = ["| OpenAI JSONL | sessions | target | sts wall s | sts CPU s | floor CPU s | "
            "µs/session beyond floor (CPU) | × floor (CPU) | peak RSS MiB |",
            "|---|---|---|---|---|---|---|---|---|"]
    slopes: dict[str, list[tuple[int, float]]] = {"sts": [], "pi": [], "floor": []}
    for size in sizes:
        path = generate("openai", OUT / f"openai-{size:g}mb.jsonl", "--size-mb", f"{size:g}")
        sessions = sum(1 for line in path.open("rb") if line.strip())
        out = scratch("stream")
        runs = paired({"sts": sts(str(path), "-o", f"{out}/sts/"),
                       "pi": sts(str(path), "--to", "pi", "-o", f"{out}/pi/"),
                       "floor": floor(path, out / "floor", True)}, rounds, [out])
        for label, points in slopes.items():
            points.append((sessions, med(runs[label], "cpu")))
        for target in ("sts", "pi"):
            beyond = (med(runs[target], "cpu") - med(runs["floor"], "cpu")) / sessions * 1e6
            rows.append(f"| {path.stat().st_size / MIB:.0f} MiB | {sessions} | {target} | "
                        f"{med(runs[target], 'wall'):.2f} | {med(runs[target], 'cpu'):.2f} | "
                        f"{med(runs['floor'], 'cpu'):.2f} | {beyond:.0f} | "
                        f"{ratio(runs[target], runs['floor'], 'cpu'):.2f}× | "
                        f"{med(runs[target], 'rss_mib'):.1f} |")
    marginal = {label: (b[1] - a[1]) / (b[0] - a[0]) * 1e6 for label, (a, b) in slopes.items()}
    rows.append("")
    rows.append("Between the two sizes (start-up left out): " + ", ".join(
        f"{target} {marginal[target] - marginal['floor']:.0f} µs a session beyond the floor's "
        f"{marginal['floor']:.0f}" for target in ("sts", "pi")))
    return rows


def big_rows(rounds: int, sizes: tuple[float, float]) -> list[str]:
    rows = ["| one Claude Code session | sts wall s | sts CPU s | × floor (CPU) | peak RSS MiB | "
            "peak ÷ input |", "|---|---|---|---|---|---|"]
    if not SHARED_GENERATOR.exists():
        return [f"(big: {SHARED_GENERATOR} not found)"]
    for size in sizes:
        path = OUT / f"claude-code-{size:g}mb.jsonl"
        if not path.exists():
            subprocess.run([sys.executable, str(SHARED_GENERATOR), "--format", "claude",
                            "--size-mb", f"{size:g}", "-o", str(path)], check=True)
        out = scratch("big")
        runs = paired({"sts": sts(str(path), "-o", f"{out}/sts/"),
                       "floor": floor(path, out / "floor", False)}, rounds, [out])
        mib = path.stat().st_size / MIB
        rss = med(runs["sts"], "rss_mib")
        times = ratio(runs["sts"], runs["floor"], "cpu")
        rows.append(f"| {mib:.0f} MiB | {med(runs['sts'], 'wall'):.2f} | "
                    f"{med(runs['sts'], 'cpu'):.2f} | {times:.2f}× | {rss:.0f} | "
                    f"{rss / mib:.2f} |")
    return rows


def one_session_rows(kind: str, rounds: int, sizes: tuple[float, float]) -> list[str]:
    """One session of `benchmarks/make_inputs.py`'s `kind` at two sizes, to STS and to Pi:
    time against the floor and peak memory (how it grows with the input)."""
    rows = [f"| one {kind} session | target | sts wall s | sts CPU s | × floor (CPU) | "
            "peak RSS MiB | peak ÷ input |", "|---|---|---|---|---|---|---|"]
    for size in sizes:
        suffix = "json" if kind == "cline" else "jsonl"
        path = generate(kind, OUT / f"{kind}-{size:g}mb.{suffix}", "--size-mb", f"{size:g}")
        out = scratch(kind)
        runs = paired({"sts": sts(str(path), "-o", f"{out}/sts/"),
                       "pi": sts(str(path), "--to", "pi", "-o", f"{out}/pi/"),
                       "floor": floor(path, out / "floor", False)}, rounds, [out])
        mib = path.stat().st_size / MIB
        for target in ("sts", "pi"):
            rss = med(runs[target], "rss_mib")
            rows.append(f"| {mib:.0f} MiB | {target} | {med(runs[target], 'wall'):.2f} | "
                        f"{med(runs[target], 'cpu'):.2f} | "
                        f"{ratio(runs[target], runs['floor'], 'cpu'):.2f}× | {rss:.0f} | "
                        f"{rss / mib:.2f} |")
    return rows


def jobs_rows(rounds: int) -> list[str]:
    folder = generate("claude-folder", OUT / "claude-folder-2000", "--count", "2000")
    files = sorted(str(f) for f in folder.iterdir())
    out = scratch("jobs")
    labels = ("-j 1", "-j 2", "2 × -j 1 side by side")
    walls: dict[str, list[float]] = {label: [] for label in labels}
    for _ in range(rounds):
        for label in labels:
            shutil.rmtree(out, ignore_errors=True)
            if label == "-j 1":
                walls[label].append(measure(sts(str(folder), "-o", f"{out}/")).wall)
            elif label == "-j 2":
                walls[label].append(measure(sts(str(folder), "-o", f"{out}/", "-j", "2")).wall)
            else:
                halves = [sts(*files[i::2], "-o", f"{out}/{i}/") for i in range(2)]
                walls[label].append(together(halves).wall)
    serial = walls["-j 1"]
    rows = ["| 2000 Claude Code files | jobs | median wall s | speed-up over -j 1 (paired) |",
            "|---|---|---|---|"]
    for label in labels:
        speed = statistics.median(s / x for s, x in zip(serial, walls[label], strict=True))
        rows.append(f"| | {label} | {statistics.median(walls[label]):.2f} | {speed:.2f}× |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="folder,startup,stream,big,cursor,cline,jobs")
    parser.add_argument("--stream-mb", default="35,70", help="the two OpenAI JSONL sizes")
    parser.add_argument("--big-mb", default="100,200", help="the two Claude Code sizes")
    parser.add_argument("--session-mb", default="50,100",
                        help="the two sizes of the cursor and cline sessions")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "sts", quiet=2)  # as an installed package has it
    OUT.mkdir(exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    stream = tuple(float(x) for x in args.stream_mb.split(","))
    big = tuple(float(x) for x in args.big_mb.split(","))
    one = tuple(float(x) for x in args.session_mb.split(","))
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    tables = {"startup": lambda: startup_rows(args.rounds),
              "folder": lambda: folder_rows(args.rounds),
              "stream": lambda: stream_rows(args.rounds, stream),  # type: ignore[arg-type]
              "big": lambda: big_rows(args.rounds, big),  # type: ignore[arg-type]
              "cursor": lambda: one_session_rows("cursor", args.rounds, one),  # type: ignore[arg-type]
              "cline": lambda: one_session_rows("cline", args.rounds, one),  # type: ignore[arg-type]
              "jobs": lambda: jobs_rows(args.rounds)}
    try:
        for name, rows in tables.items():
            if only and name not in only:
                continue
            print()
            for row in rows():
                print(row, flush=True)
    finally:
        shutil.rmtree(scratch("x").parent, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
