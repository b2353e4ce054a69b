"""Scale behaviour made checkable by counting (issue 18): what start-up imports, how often a
folder of many files is listed, what a big session keeps in memory. No wall-clock asserts."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import SAMPLES

#: Modules a plain `sts convert` of one small file has no use for: each costs start-up time.
NOT_AT_START = (
    "importlib.metadata",  # entry points: only when no built-in converter is sure
    "ctypes",  # the allocator settings: batches, streams and big inputs only
    "hashlib",  # long output names only
    "sts.redact",  # --redact only
    "sts.workers",  # -j only
    "sts.publish",
    "sts.view",
    "sts.cluster",  # --cluster only
    "sts.store",  # URL inputs and outputs only
    "distributed",
    "fsspec",
)


def imported_by(*args: str) -> set[str]:
    """The modules ``python -m sts ARGS`` imports (from ``-X importtime``)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sts", *args],
        capture_output=True, timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    lines = done.stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_converting_a_small_file_imports_only_what_the_job_needs() -> None:
    modules = imported_by("convert", str(SAMPLES / "hello.sts.jsonl"), "-q")
    assert "sts.pipeline" in modules  # the measurement sees our own imports
    loaded = sorted(m for m in modules
                    if any(m == n or m.startswith(n + ".") for n in NOT_AT_START))
    assert loaded == []
