"""``sts publish --repo user/name``: upload a published folder as a Hub dataset.

With ``huggingface_hub`` (the ``hub`` extra): the dataset repository is created private unless
asked otherwise, then the folder is sent with ``upload_folder``, which (with ``hf_xet``, its
default) commits large folders in batches and resumes an interrupted upload when run again:
committed files are skipped and uploaded data is deduplicated. ``upload_large_folder`` is used
instead where the installed version has it. Hidden files (the staging folder) and the local
review page (``_sts/redaction-review.html``) are never sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sts.publish.folder import MANIFEST, REVIEW

#: Never sent: hidden files (the staging folder) and the local review page (a second copy of
#: every session, for the person publishing).
IGNORE = [".*", "**/.*", REVIEW]


@dataclass
class UploadPlan:
    """What an upload sends: the repository, its visibility and the files with their sizes."""

    repo: str
    private: bool
    folder: Path
    files: list[tuple[str, int]]

    def describe(self) -> str:
        """The plan as text, for ``--dry-run``."""
        total = sum(size for _, size in self.files)
        lines = [
            f"would upload {len(self.files)} file(s), {total / 1e6:.1f} MB, to the "
            f"{'private' if self.private else 'public'} dataset {self.repo}:"
        ]
        lines += [f"  {name}  ({size} bytes)" for name, size in self.files]
        return "\n".join(lines)


def plan(folder: str | Path, repo: str, private: bool = True) -> UploadPlan:
    """The upload of `folder` to `repo`, without touching the network."""
    root = Path(folder)
    if not (root / MANIFEST).exists():
        raise FileNotFoundError(f"{root} is not an sts publish folder (no {MANIFEST})")
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise ValueError(f"--repo wants user/name or org/name, not {repo!r}")
    files = sorted(
        (path.relative_to(root).as_posix(), path.stat().st_size)
        for path in root.rglob("*")
        if path.is_file() and not any(p.startswith(".") for p in path.relative_to(root).parts)
        and path.relative_to(root).as_posix() != REVIEW
    )
    return UploadPlan(repo, private, root, files)


def push(upload: UploadPlan, api: Any = None) -> str:
    """Create the dataset repository and send the files; return the repository's URL.

    `api` is an ``HfApi`` (made here when None; tests pass a stand-in)."""
    if api is None:
        try:
            from huggingface_hub import HfApi
        except ImportError:
            raise ImportError(
                "uploading needs huggingface_hub: pip install 'sts-convert[hub]'"
            ) from None
        api = HfApi()
    url = api.create_repo(upload.repo, repo_type="dataset", private=upload.private,
                          exist_ok=True)
    large = getattr(api, "upload_large_folder", None)
    if large is not None:
        large(repo_id=upload.repo, folder_path=str(upload.folder), repo_type="dataset",
              private=upload.private, ignore_patterns=IGNORE)
    else:
        api.upload_folder(repo_id=upload.repo, folder_path=str(upload.folder),
                          repo_type="dataset", ignore_patterns=IGNORE,
                          commit_message="Upload agent traces with sts-convert")
    return str(url)
