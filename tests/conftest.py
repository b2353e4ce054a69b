"""Shared fixtures: syrupy extensions that store each snapshot as one reviewable file (a writer's
JSONL output, a reader's model as JSON), the one real-pi judge process of the run, and strict
problem codes."""

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


class ModelSnapshot(JSONLSnapshot):
    """One snapshot file per test, holding a reader's `Session` model (tests/model_json.py)."""

    file_extension = "json"


@pytest.fixture
def snapshot_jsonl(snapshot):
    """Snapshot fixture for JSONL bytes (a writer's output)."""
    return snapshot.use_extension(JSONLSnapshot)


@pytest.fixture
def snapshot_model(snapshot):
    """Snapshot fixture for a reader's sessions rendered by `tests.support.checked_model`."""
    return snapshot.use_extension(ModelSnapshot)


@pytest.fixture(scope="session", autouse=True)
def pi_judge():
    """The one node process that judges Pi files for the whole run: closed when the run ends."""
    yield PI_JUDGE
    PI_JUDGE.close()


# The Hub's loader (datasets, teich, huggingface_hub: the hub extra) never goes online in tests.
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
