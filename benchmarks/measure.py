"""What one benchmark process cost: wall time, CPU time and peak memory (from wait4)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Run:
    """One process (or several started together): wall seconds, CPU seconds (user + system),
    peak RSS in MiB and exit status (for several, the first that is not 0)."""

    wall: float
    cpu: float
    rss_mib: float
    status: int


def measure(command: list[str]) -> Run:
    """Run `command`, its output discarded; an exit other than 0 or 1 is reported on stderr with
    the end of what the command wrote there."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            errors.seek(0)
            said = errors.read().decode(errors="replace")[-500:]
            print(f"  ! {' '.join(command)} exited {code}: {said}", file=sys.stderr)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)


def together(commands: list[list[str]]) -> Run:
    """`commands` started together: wall time until the last ends, CPU summed, the largest
    peak."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for c in commands]
    cpu = rss = 0.0
    for process in processes:
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
        rss = max(rss, usage.ru_maxrss / 1024)
    failed = next((p.returncode for p in processes if p.returncode), 0)
    return Run(time.perf_counter() - start, cpu, rss, failed)
