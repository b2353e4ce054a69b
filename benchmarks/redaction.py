"""Throughput of the redaction stage, on its own and inside ``sts convert --redact``.

    python benchmarks/redaction.py --size-mb 50 --runs 3     # or as part of benchmarks/run.py

For each input (generated as for `run.py`): the sessions are read once into memory, then
`redact_session` runs over all of them (timed alone: MiB of input per second of CPU time, which
other processes on a shared machine disturb far less than wall time), and ``sts convert --to pi``
runs with and without ``--redact`` (median CPU seconds, user + system, of each process,
alternated). The redactor is configured as ``sts publish`` does, with one user name and one
secret of our own, and an empty environment so that the figures do not depend on the shell.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.run import MIB, make_inputs, output_root, sts_command
from sts.api import read
from sts.redact import RedactionConfig, Redactor, redact_session


def stage_seconds(path: Path, runs: int) -> tuple[float, int]:
    """Median seconds `redact_session` takes over every session of `path`, and findings."""
    sessions = list(read(path, problems=lambda _: None))
    config = RedactionConfig(secrets=("bench-secret-value-1",), environment={},
                             user_names=("benchuser",))
    times = []
    found = 0
    for _ in range(runs):
        fresh = copy.deepcopy(sessions)
        redactor = Redactor(config)
        start = time.process_time()
        found = sum(len(redact_session(session, redactor)) for session in fresh)
        times.append(time.process_time() - start)
    return statistics.median(times), found


def cpu_seconds(command: list[str]) -> float:
    """User + system CPU seconds of `command` (from wait4)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime


def rows(inputs: dict[str, Path], runs: int) -> list[str]:
    """Markdown rows: input, stage MiB/s, convert → Pi with and without --redact."""
    result = []
    target = output_root() / "redaction"
    for name, path in inputs.items():
        size = path.stat().st_size / MIB
        seconds, found = stage_seconds(path, runs)
        plain, redacted = [], []
        for _ in range(runs):
            plain.append(cpu_seconds(sts_command(str(path), "--to", "pi", "-o", f"{target}/a/")))
            redacted.append(cpu_seconds(sts_command(str(path), "--to", "pi", "-o",
                                                    f"{target}/b/", "--redact")))
        base = statistics.median(plain)
        slow = statistics.median(redacted)
        result.append(f"| {name} ({size:.1f} MiB) | {seconds:.2f} | {size / seconds:.1f} | "
                      f"{found} | {base:.2f} | {slow:.2f} | {size / slow:.1f} |")
    return result


HEADER = (
    "| input | redaction stage CPU s | stage MiB/s | findings | convert → Pi CPU s | "
    "convert → Pi --redact CPU s | --redact MiB/s |\n|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description="sts-convert redaction throughput")
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    inputs = make_inputs(args.size_mb)
    print(HEADER)
    for row in rows(inputs, args.runs):
        print(row, flush=True)


if __name__ == "__main__":
    main()
