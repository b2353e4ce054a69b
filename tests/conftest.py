"""Shared fixtures: a syrupy extension that stores each snapshot as a reviewable .jsonl file."""

from __future__ import annotations

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


class JSONLSnapshot(SingleFileSnapshotExtension):
    """One snapshot file per test, holding the output bytes as they are (UTF-8 JSONL)."""

    file_extension = "jsonl"
    _write_mode = WriteMode.BINARY


@pytest.fixture
def snapshot_jsonl(snapshot):
    """Snapshot fixture for JSONL bytes."""
    return snapshot.use_extension(JSONLSnapshot)
