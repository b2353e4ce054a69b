"""Every bundled sample read and snapshotted as the model, its outputs validated (the README
converts these)."""

from __future__ import annotations

import pytest

import sts
from tests.support import SAMPLES, checked_model, lines, sts_messages, write_checked

SAMPLE_FILES = sorted(p.name for p in SAMPLES.glob("*.jsonl"))


def fail_on_error(problem: sts.Problem) -> None:
    """Samples are well-formed: any error is a bug (warnings, such as other branches, are fine)."""
    if problem.severity == "error":
        pytest.fail(str(problem))


@pytest.mark.parametrize("sample", SAMPLE_FILES)
def test_sample_snapshot(sample, snapshot_model):
    [session] = sts.read(SAMPLES / sample, problems=fail_on_error)
    assert checked_model(session) == snapshot_model


def test_the_readme_sample_reads_as_its_active_branch():
    [session] = sts.read(SAMPLES / "pi-v3-session.jsonl")
    data = write_checked(session, "sts")
    header = lines(data)[0]
    assert header["harness"] == "pi" and header["name"]
    messages = sts_messages(data)
    calls = {c["id"] for m in messages for c in m.get("toolCalls", [])}
    results = [m["toolCallId"] for m in messages if m["role"] == "tool"]
    assert results and set(results) <= calls
    assert any(m.get("reasoningContent") for m in messages)
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"]
