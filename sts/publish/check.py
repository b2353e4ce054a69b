"""``sts publish --check``: load a published folder with the Hub's own loader and compare.

The Hub builds a dataset's rows with ``datasets``' JSON loader, which hands trace files to
``teich`` (both from the ``hub`` extra). Each file is loaded on its own, as the loader would
treat it were it the first file of a config (the trace detection looks at the first file only),
and must give one row whose tool calls, user messages and first-prompt time equal what the
manifest says was written; then the folder is loaded through its card's ``configs``, as the Hub
does, and must give one row per file. Runs offline: nothing here needs the network.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sts.publish.folder import MANIFEST

COMPARED = (("toolCalls", "num_tool_calls"), ("userMessages", "num_user_messages"),
            ("firstUserAt", "sent_at"))


class MissingLoader(Exception):
    """``datasets`` or ``teich`` is not installed."""


@dataclass
class FileCheck:
    """The loader's view of one file and how it differs from what was written."""

    path: str
    rows: int
    trace: bool
    problems: list[str] = field(default_factory=list)
    loaded: dict[str, Any] = field(default_factory=dict)


@dataclass
class CheckResult:
    """Every file's check, and the whole folder's (loaded through the card)."""

    files: list[FileCheck] = field(default_factory=list)
    folder_rows: int | None = None
    folder_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.folder_problems and all(not f.problems for f in self.files)


def check(directory: str | Path, per_file: bool = True) -> CheckResult:
    """Load `directory` (an ``sts publish`` folder) with the real loader and compare."""
    folder = Path(directory)
    manifest = orjson.loads((folder / MANIFEST).read_bytes())
    datasets = _load_datasets()
    result = CheckResult()
    with tempfile.TemporaryDirectory(prefix="sts-check-") as cache:
        if per_file:
            for entry in manifest["files"]:
                result.files.append(_check_file(datasets, folder, entry, cache))
        _check_folder(datasets, folder, manifest, cache, result)
    return result


def _load_datasets() -> Any:
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import datasets
        import teich  # noqa: F401  (the loader needs it for trace files)
    except ImportError as exc:
        raise MissingLoader(
            f"the check needs the Hub's loader ({exc.name} is missing): "
            "pip install 'sts-convert[hub]'"
        ) from None
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    return datasets


def _check_file(datasets: Any, folder: Path, entry: dict[str, Any], cache: str) -> FileCheck:
    path = folder / entry["path"]
    try:
        table = datasets.load_dataset(
            "json", data_files=str(path), split="train", cache_dir=cache
        )
    except Exception as exc:  # the loader failing on a file is what the check reports
        return FileCheck(entry["path"], 0, False, [f"the loader failed: {type(exc).__name__}: "
                                                   f"{str(exc)[:200]}"])
    rows = len(table)
    trace = "num_tool_calls" in table.column_names
    found = FileCheck(entry["path"], rows, trace)
    if not trace:
        found.problems.append(
            f"not read as a trace: {rows} row(s) of columns {', '.join(table.column_names[:6])} "
            "(the loader infers the `message` column as JSON only when messages differ in shape)"
        )
        return found
    if rows != 1:
        found.problems.append(f"{rows} rows instead of 1")
        return found
    row = table[0]
    found.loaded = {ours: row.get(theirs) for ours, theirs in COMPARED}
    for ours, theirs in COMPARED:
        if row.get(theirs) != entry.get(ours):
            found.problems.append(f"{theirs} is {row.get(theirs)!r}, {entry.get(ours)!r} written")
    return found


def _check_folder(
    datasets: Any, folder: Path, manifest: dict[str, Any], cache: str, result: CheckResult
) -> None:
    try:
        table = datasets.load_dataset(str(folder), split="train", cache_dir=cache)
    except Exception as exc:
        result.folder_problems.append(f"the loader failed on the folder: {type(exc).__name__}: "
                                      f"{str(exc)[:200]}")
        return
    result.folder_rows = len(table)
    expected = len(manifest["files"])
    if "file_path" not in table.column_names:
        result.folder_problems.append(
            f"the folder is not read as traces: {len(table)} rows of columns "
            f"{', '.join(table.column_names[:6])}"
        )
        return
    if len(table) != expected:
        result.folder_problems.append(f"{len(table)} rows for {expected} files")
    written = {entry["path"] for entry in manifest["files"]}
    seen = {_relative(p, folder) for p in table["file_path"]}
    extra = sorted(seen - written)
    missing = sorted(written - seen)
    if extra:
        result.folder_problems.append(f"rows from files not in the manifest: {', '.join(extra)}")
    if missing:
        result.folder_problems.append(f"files without a row: {', '.join(missing[:10])}")


def _relative(path: str, folder: Path) -> str:
    """A loader `file_path` as a path relative to the folder."""
    text = str(path).replace("\\", "/")
    base = str(folder.resolve()).replace("\\", "/").rstrip("/") + "/"
    if text.startswith(base):
        return text[len(base):]
    marker = "/data/"
    return "data/" + text.split(marker, 1)[1] if marker in text else text
