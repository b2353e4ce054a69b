"""Speed and memory of `sts convert`, next to a plain orjson read+write of the same file.

    python benchmarks/run.py                 # 50 MB inputs, 3 runs each
    python benchmarks/run.py --size-mb 10 --runs 1
    python benchmarks/run.py --only copilot       # one input's table only (no batch, no stream)

Inputs are generated once into ``bench-out/`` (git-ignored): Claude Code and Codex sessions by
``../shared/bench/make_big_trace.py`` (left out, with a note, when ../shared is absent), Pi,
OpenAI-JSONL and STS inputs by ``benchmarks/make_inputs.py``. For each input the baseline and
the conversions to STS and to Pi run alternately; the table gives the median wall time, MiB/s,
the ratio to the baseline and the peak memory (max RSS, MiB) of each process, also as a multiple
of the input's size. Then a directory of many small sessions is converted with ``-j 1``, with
``-j N`` and, as the machine's ceiling, split between N independent ``-j 1`` processes; and a
multi-session stream is checked for output that begins before the input ends; last, the
redaction stage's throughput (`benchmarks/redaction.py`). Nothing here is asserted: it prints
figures.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.measure import Run, measure, together

MIB = 1024 * 1024
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED_GENERATOR = ROOT.parent / "shared" / "bench" / "make_big_trace.py"
OUT = ROOT / "bench-out"
BASELINE = (
    "import orjson, sys\n"
    "with open(sys.argv[-1], 'wb') as dst:\n"
    "    for name in sys.argv[1:-1]:\n"
    "        with open(name, 'rb') as src:\n"
    "            for line in src:\n"
    "                if line.strip():\n"
    "                    dst.write(orjson.dumps(orjson.loads(line)) + b'\\n')\n"
)
#: Files a converter reads with the input it is given (a Kimi CLI context.jsonl's wire.jsonl):
#: the baseline reads and writes them too, and the input's size counts them.
COMPANIONS = {"context.jsonl": ("wire.jsonl",)}


def sts_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "sts", "convert", *args, "-q"]


def make_inputs(size_mb: float, only: frozenset[str] = frozenset()) -> dict[str, Path]:
    """Generate (once) every benchmark input of about `size_mb` MB (those in `only`, if given)."""
    OUT.mkdir(exist_ok=True)
    inputs: dict[str, Path] = {}
    tag = f"{size_mb:g}mb"
    for kind, fmt in (("claude-code", "claude"), ("codex", "codex")):
        if only and kind not in only:
            continue
        path = OUT / f"{kind}-{tag}.jsonl"
        if not SHARED_GENERATOR.exists():
            print(f"note: {SHARED_GENERATOR} not found, {kind} input left out")
            continue
        if not path.exists():
            subprocess.run([sys.executable, str(SHARED_GENERATOR), "--format", fmt,
                            "--size-mb", str(size_mb), "-o", str(path)], check=True)
        inputs[kind] = path
    for kind in ("pi", "openai", "sts", "copilot", "cursor", "cline", "factory-droid",
                 "openclaw", "gemini-cli"):
        if only and kind not in only:
            continue
        path = OUT / f"{kind}-{tag}.{'json' if kind == 'cline' else 'jsonl'}"
        if not path.exists():
            subprocess.run([sys.executable, str(HERE / "make_inputs.py"), kind,
                            "--size-mb", str(size_mb), "-o", str(path)], check=True)
        inputs[kind] = path
    if not only or "kimi-cli" in only:
        folder = OUT / f"kimi-cli-{tag}"
        if not folder.exists():
            subprocess.run([sys.executable, str(HERE / "make_inputs.py"), "kimi-cli",
                            "--size-mb", str(size_mb), "-o", str(folder)], check=True)
        inputs["kimi-cli"] = folder / "context.jsonl"
    return inputs


def bench_file(name: str, path: Path, runs: int) -> list[str]:
    """Table rows for one input: baseline, → STS, → Pi."""
    companions = [path.with_name(n) for n in COMPANIONS.get(path.name, ())
                  if path.with_name(n).is_file()]
    size_mb = sum(p.stat().st_size for p in (path, *companions)) / MIB
    target_dir = output_root() / "converted"
    shutil.rmtree(target_dir, ignore_errors=True)
    target_dir.mkdir(parents=True)
    commands = {
        "orjson read+write": [sys.executable, "-c", BASELINE, str(path), *map(str, companions),
                              str(target_dir / "baseline.out")],
        "sts convert → STS": sts_command(str(path), "--to", "sts", "-o", f"{target_dir}/sts/"),
        "sts convert → Pi": sts_command(str(path), "--to", "pi", "-o", f"{target_dir}/pi/"),
    }
    results: dict[str, list[Run]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            results[label].append(measure(command))
    base = statistics.median(r.wall for r in results["orjson read+write"])
    rows = []
    for label, measured in results.items():
        seconds = statistics.median(r.wall for r in measured)
        rss = statistics.median(r.rss_mib for r in measured)
        statuses = sorted({r.status for r in measured})
        rows.append(
            f"| {name} ({size_mb:.1f} MiB) | {label} | {seconds:.2f} | {size_mb / seconds:.0f} | "
            f"{seconds / base:.2f}× | {rss:.1f} | {rss / size_mb:.2f} | "
            f"{','.join(map(str, statuses))} |"
        )
    return rows


def bench_batch(count: int, workers: int, runs: int) -> list[str]:
    """-j 1 against -j `workers` on a directory of `count` Pi sessions of 400 KB, run alternately;
    and, as the machine's own ceiling, the files split between `workers` independent -j 1
    processes started together (no parallel scheme can beat that)."""
    directory = OUT / f"batch-{count}"
    if not directory.exists():
        subprocess.run([sys.executable, str(HERE / "make_inputs.py"), "batch", "--count",
                        str(count), "-o", str(directory)], check=True)
    os.sync()  # freshly generated inputs: their writeback must not overlap the first runs
    files = sorted(str(f) for f in directory.iterdir())
    shares = [files[i::workers] for i in range(workers)]
    out = output_root() / "batch"
    measure(sts_command(str(directory), "-o", f"{out}/"))  # unmeasured: inputs into the cache
    labels = ("-j 1", f"-j {workers}", f"{workers} × -j 1 side by side")
    times: dict[str, list[float]] = {label: [] for label in labels}
    for _ in range(runs):
        for label in labels:
            shutil.rmtree(out, ignore_errors=True)
            if label == "-j 1":
                times[label].append(measure(sts_command(str(directory), "-o", f"{out}/")).wall)
            elif label.startswith("-j"):
                command = sts_command(str(directory), "-o", f"{out}/", "-j", str(workers))
                times[label].append(measure(command).wall)
            else:
                commands = [sts_command(*share, "-o", f"{out}/{n}/") for n, share in
                            enumerate(shares)]
                times[label].append(together(commands).wall)
    shutil.rmtree(out, ignore_errors=True)
    serial = statistics.median(times["-j 1"])
    rows = []
    for label in labels:
        seconds = statistics.median(times[label])
        rows.append(f"| {count} Pi sessions of 400 KB | {label} | {seconds:.2f} s | "
                    f"{serial / seconds:.2f}× |")
    return rows


def output_root() -> Path:
    """Where outputs go: a RAM disk when there is one, so that the kernel flushing one run's
    output to disk does not take CPU from the next run (on 2 cores it shows), and creating
    thousands of files right after deleting thousands does not hit ext4's slow path."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return shm / f"sts-bench-{os.getpid()}"
    return OUT / "out"


def first_output_delay(path: Path) -> str:
    """How far into a multi-session conversion the first output file appears."""
    out = output_root() / "stream"
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    process = subprocess.Popen(sts_command(str(path), "-o", f"{out}/"), stderr=subprocess.DEVNULL)
    first = None
    while process.poll() is None:
        if first is None and out.exists() and any(out.iterdir()):
            first = time.perf_counter() - start
        time.sleep(0.005)
    total = time.perf_counter() - start
    if first is None:
        return f"first output only at the end ({total:.2f} s)"
    return f"first output file after {first:.2f} s of {total:.2f} s"


def memory_scaling(small_mb: float, big_mb: float) -> list[str]:
    """Peak memory converting a small and a big OpenAI JSONL of many sessions."""
    rows = []
    for size in (small_mb, big_mb):
        path = OUT / f"openai-{size:g}mb.jsonl"
        if not path.exists():
            subprocess.run([sys.executable, str(HERE / "make_inputs.py"), "openai",
                            "--size-mb", str(size), "-o", str(path)], check=True)
        out = output_root() / "scaling"
        shutil.rmtree(out, ignore_errors=True)
        run = measure(sts_command(str(path), "-o", f"{out}/"))
        sessions = sum(1 for _ in out.iterdir()) if out.exists() else 0
        shutil.rmtree(out, ignore_errors=True)
        rows.append(f"| OpenAI JSONL {size:g} MB | {sessions} | {run.wall:.1f} | "
                    f"{run.rss_mib:.0f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="sts-convert speed and memory benchmark")
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch", default="500,1000",
                        help="sessions in each batch test, comma-separated")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--scaling-mb", type=float, default=0,
                        help="also convert an OpenAI JSONL of this size (e.g. 1000) and a 10 MB "
                        "one, to compare peak memory")
    parser.add_argument("--only", default="",
                        help="comma-separated inputs to measure (claude-code, codex, pi, openai, "
                        "sts, copilot, cursor, cline, factory-droid, openclaw, gemini-cli, "
                        "kimi-cli); only their table, no batch or streaming test")
    args = parser.parse_args()
    # An installed package has its bytecode compiled (pip does it); an editable checkout run with
    # PYTHONDONTWRITEBYTECODE would compile every module at each start instead.
    compileall.compile_dir(ROOT / "sts", quiet=2)
    only = frozenset(filter(None, args.only.split(",")))
    inputs = make_inputs(args.size_mb, only)
    try:
        report(inputs, args)
    finally:
        shutil.rmtree(output_root(), ignore_errors=True)


def report(inputs: dict[str, Path], args: argparse.Namespace) -> None:
    """Run every measurement and print the tables."""
    print("| input | pipeline | median s | MiB/s | × orjson | peak RSS MiB | peak ÷ input | exit |")
    print("|---|---|---|---|---|---|---|---|")
    for name, path in inputs.items():
        for row in bench_file(name, path, args.runs):
            print(row, flush=True)
    if args.only:
        return
    print()
    print("| batch | jobs | median wall time | speed-up over -j 1 |")
    print("|---|---|---|---|")
    for count in args.batch.split(","):
        for row in bench_batch(int(count), args.workers, args.runs):
            print(row, flush=True)
    print()
    print(f"streaming (OpenAI JSONL, many sessions): {first_output_delay(inputs['openai'])}")
    print()
    from benchmarks.redaction import HEADER, rows

    print(HEADER)
    for row in rows(inputs, args.runs):
        print(row, flush=True)
    if args.scaling_mb:
        print()
        print("| memory scaling | sessions | s | peak RSS MiB |")
        print("|---|---|---|---|")
        for row in memory_scaling(10, args.scaling_mb):
            print(row, flush=True)


if __name__ == "__main__":
    main()
