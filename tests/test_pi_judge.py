"""The long-lived real-pi judge answers as a fresh node process would, and survives node dying."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import ORACLE_DIR, PI_JUDGE, SAMPLES, node_available, pi_view

pytestmark = pytest.mark.skipif(not node_available(), reason="node or the pi package missing")

SAMPLE = SAMPLES / "pi-v3-session.jsonl"


def test_the_judge_answers_as_a_fresh_process_does(tmp_path: Path) -> None:
    copies = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for copy in copies:
        shutil.copyfile(SAMPLE, copy)
    fresh = subprocess.run(
        ["node", str(ORACLE_DIR / "judge.mjs"), *map(str, copies)],
        capture_output=True, text=True, check=True, timeout=120,
    )
    served = PI_JUDGE.views([str(c) for c in copies])
    assert served == [json.loads(line) for line in fresh.stdout.splitlines()]
    assert served[0]["branch"] and served[0]["name"] == "Fix the flaky forecast test"


def test_a_dead_judge_is_started_again() -> None:
    before = pi_view(SAMPLE)[0]
    del before["file"]  # a temporary copy's name
    assert PI_JUDGE.process is not None
    PI_JUDGE.process.kill()
    PI_JUDGE.process.wait()
    starts = PI_JUDGE.starts
    after = pi_view(SAMPLE)[0]
    del after["file"]
    assert after == before
    assert PI_JUDGE.starts == starts + 1


def test_a_file_pi_cannot_open_is_an_error_not_a_view() -> None:
    (view,) = PI_JUDGE.views([str(SAMPLES)])  # a directory: pi's open throws
    assert set(view) == {"file", "error"} and "EISDIR" in view["error"]
