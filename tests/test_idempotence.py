"""Converting a converted file changes nothing (issue 13): for every seed file of every source,
``--to sts`` twice gives the same bytes, ``--to pi`` then ``--from pi --to pi`` gives the same
bytes, and an STS file read and written again is byte-identical."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import sts
from sts.model import Session
from sts.problems import Problem
from tests.support import CASES, seed_files, walk

SEEDS = [path for path in seed_files() if "redact" not in path.parts]


def ids(path: Path) -> str:
    return "/".join(path.parts[-3:])


def converted(data: bytes | Path, fmt: str | None, to: str) -> list[bytes]:
    """Every session (sub-agents too) of `data` written as `to`; [] when nothing converts."""
    found: list[Problem] = []
    try:
        sessions: list[Session] = list(sts.read(data, fmt, problems=found.append))
    except ValueError:  # no converter reads it (a companion file, a note)
        return []
    outputs = []
    for session in walk(sessions):
        out = io.BytesIO()
        sts.write(session, out, to)
        outputs.append(out.getvalue())
    return outputs


@pytest.mark.parametrize("path", SEEDS, ids=ids)
@pytest.mark.parametrize("to", ["sts", "pi"])
def test_converting_twice_changes_nothing(path: Path, to: str) -> None:
    first = converted(path, None, to)
    for output in first:
        again = converted(output, to, to)
        assert again == [output]


def test_small_integer_times_and_a_metadata_object_survive_many_passes() -> None:
    """The two drifts found: a header ``metadata`` object nested one level deeper per pass, and
    small integer times multiplied by 1000 per pass (1 -> 1000 -> 10**6)."""
    data = (b'{"type":"session","harness":"h","id":"x","foo":2,"metadata":{"k":1}}\n'
            b'{"type":"message","message":{"role":"user","content":"hi","timestamp":1}}\n')
    for to in ("sts", "pi"):
        output = converted(data, "sts", to)[0]
        for _ in range(3):
            assert converted(output, to, to) == [output]
    (sts_out,) = converted(data, "sts", "sts")
    assert sts_out == data


def test_the_spec_example_is_byte_identical_through_sts() -> None:
    data = (CASES / "sts" / "spec-example.jsonl").read_bytes()
    assert converted(data, "sts", "sts") == [data]
