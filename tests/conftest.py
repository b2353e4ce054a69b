"""Shared fixtures: a syrupy extension that stores each snapshot as a reviewable .jsonl file, the
one real-pi judge process of the run, and strict problem codes."""

from __future__ import annotations

import os

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from sts import codes
from tests.support import PI_JUDGE


def pytest_configure(config: pytest.Config) -> None:
    """Strict problem codes for the whole run (and the `sts` commands it starts): a code that is
    not registered in sts/codes.py, or emitted with another severity, raises."""
    os.environ["STS_STRICT_CODES"] = "1"
    codes.STRICT = True


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


# The Hub's loader (datasets, teich, huggingface_hub: the hub extra) never goes online in tests.
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
