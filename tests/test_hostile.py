"""Issue 12: inputs and environments a hostile user would try (full disks, odd names, special
files, closed pipes, pathological but legal inputs). Each test failed on the code before its fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.support import lines, read_sessions, write_checked


def sts(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None, **kw):
    """Run ``python -m sts ARGS``; return the completed process (stdout bytes, stderr text)."""
    done = subprocess.run(
        [sys.executable, "-m", "sts", *map(str, args)],
        input=stdin, capture_output=True, cwd=cwd, timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"}, **kw,
    )
    done.stderr = done.stderr.decode("utf-8")  # type: ignore[assignment]
    return done


def jsonl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records)


def pi_file(*entries: dict, stamp: str = "2026-03-02T09:14:05.112Z") -> bytes:
    """A Pi v3 session whose entries are chained by parentId in order."""
    records: list[dict] = [{"type": "session", "version": 3, "id": "s1", "timestamp": stamp}]
    parent = None
    for number, entry in enumerate(entries):
        record = {"type": "message", "id": f"e{number}", "parentId": parent,
                  "timestamp": stamp, **entry}
        records.append(record)
        parent = record["id"]
    return jsonl(*records)


def user(text: str, **extra: object) -> dict:
    return {"message": {"role": "user", "content": [{"type": "text", "text": text}], **extra}}


# --- item 4 and 6: timestamps a target cannot write -------------------------------------------


@pytest.mark.parametrize("stamp", ["0500-06-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z",
                                   "0999-12-31T23:59:59.999Z"])
def test_a_time_before_year_1000_is_written_with_four_year_digits(stamp):
    sessions, _ = read_sessions(pi_file(user("hi"), user("again"), stamp=stamp), "pi")
    data = write_checked(sessions[0], "pi")
    assert lines(data)[0]["timestamp"] == stamp
    assert {line["timestamp"] for line in lines(data)[1:]} == {stamp}


@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"])
def test_an_offset_past_the_year_range_is_a_bad_timestamp(stamp):
    data = pi_file(user("hi", timestamp=stamp), user("again"), stamp=stamp)
    sessions, problems = read_sessions(data, "pi")
    for to in ("sts", "pi"):
        write_checked(sessions[0], to)
    assert "bad-timestamp" in {p.code for p in problems}
