"""Shared fixtures: a syrupy extension that stores each snapshot as a reviewable .jsonl file, and
the one real-pi judge process of the run."""

from __future__ import annotations

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from tests.support import PI_JUDGE


class JSONLSnapshot(SingleFileSnapshotExtension):
    """One snapshot file per test, holding the output bytes as they are (UTF-8 JSONL)."""

    file_extension = "jsonl"
    _write_mode = WriteMode.BINARY


@pytest.fixture
def snapshot_jsonl(snapshot):
    """Snapshot fixture for JSONL bytes."""
    return snapshot.use_extension(JSONLSnapshot)


@pytest.fixture(scope="session", autouse=True)
def pi_judge():
    """The one node process that judges Pi files for the whole run: closed when the run ends."""
    yield PI_JUDGE
    PI_JUDGE.close()
