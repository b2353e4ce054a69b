"""An outside secret scanner as a last check of the folder: ``trufflehog``, when installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path


def trufflehog() -> Callable[[Path], list[str]] | None:
    """A scanner running ``trufflehog filesystem`` (without verification: nothing leaves the
    machine) that returns one line per finding, ``file:line: detector`` (never the secret);
    None when trufflehog is not on PATH."""
    executable = shutil.which("trufflehog")
    if executable is None:
        return None

    def scan(folder: Path) -> list[str]:
        done = subprocess.run(
            [executable, "filesystem", str(folder), "--json", "--no-update", "--no-verification"],
            capture_output=True, text=True, timeout=3600, check=False,
        )
        findings = []
        for line in done.stdout.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or "DetectorName" not in record:
                continue
            where = record.get("SourceMetadata", {}).get("Data", {}).get("Filesystem", {})
            file = str(where.get("file", "?"))
            file = Path(file).relative_to(folder).as_posix() if file.startswith(str(folder)) \
                else file
            findings.append(f"{file}:{where.get('line', '?')}: trufflehog {record['DetectorName']}")
        if done.returncode not in (0, 183) and not findings:
            findings.append(f"trufflehog failed (exit {done.returncode}): {done.stderr[-300:]}")
        return findings

    return scan
