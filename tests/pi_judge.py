"""The real pi as one long-lived judge for the whole test run.

Starting node and loading pi's package costs about a second; the tests ask pi about hundreds of
files. `PiJudge` keeps one ``node tests/pi_oracle/judge.mjs`` process and talks to it in JSON
lines over its stdin and stdout (request ``{"id", "files"}``, answer ``{"id", "views"}``). It is
started on first use, started again if it dies (the request is retried once on the new process),
and closed by the session fixture in ``tests/conftest.py``. The checks are the ones the script
runs per file: a fresh pi ``SessionManager`` opens each file, with a fresh session directory per
request.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import tempfile
from pathlib import Path
from typing import IO, Any

TIMEOUT = 120.0  # seconds one request may take before the judge is killed


class JudgeDied(RuntimeError):
    """The node process exited, closed its output or did not answer in time."""


class PiJudge:
    """One node process running ``judge.mjs`` in server mode, started lazily."""

    def __init__(self, script: Path) -> None:
        self.script = script
        self.process: subprocess.Popen[bytes] | None = None
        self.stderr: IO[bytes] | None = None
        self.buffer = b""
        self.next_id = 0
        self.starts = 0

    def views(self, files: list[str]) -> list[dict[str, Any]]:
        """pi's view of each file, in order; retried once on a new process if node died."""
        try:
            return self._ask(files)
        except JudgeDied:
            self.close()
            return self._ask(files)

    def close(self) -> None:
        """Stop the node process (closing its stdin ends it; kill it if it lingers)."""
        process, self.process = self.process, None
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None
        self.buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - open while node runs
        self.process = subprocess.Popen(
            ["node", str(self.script)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            cwd=self.script.parent,
        )
        self.starts += 1
        return self.process

    def _ask(self, files: list[str]) -> list[dict[str, Any]]:
        process = self.process if self.process is not None else self._start()
        assert process.stdin is not None
        self.next_id += 1
        request = json.dumps({"id": self.next_id, "files": files}).encode() + b"\n"
        try:
            process.stdin.write(request)
            process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise JudgeDied(f"pi judge stopped taking requests: {exc}") from exc
        answer = json.loads(self._read_line(process))
        if answer.get("id") != self.next_id or "views" not in answer:
            raise AssertionError(f"pi judge answered out of turn: {str(answer)[:2000]}")
        return answer["views"]

    def _read_line(self, process: subprocess.Popen[bytes]) -> bytes:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                if not selector.select(TIMEOUT):
                    process.kill()
                    self.close()
                    raise AssertionError(f"pi judge gave no answer in {TIMEOUT:.0f} s")
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise JudgeDied(f"pi judge exited ({process.wait()}): {self._stderr_tail()}")
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.seek(0)
        return self.stderr.read()[-4000:].decode("utf-8", "replace")
