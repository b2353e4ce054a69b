"""Inputs and outputs named by fsspec URLs (``s3://``, ``gs://``, ``hf://``, ``memory://``).

Needs the ``cluster`` extra (fsspec; a store's own package, such as s3fs, for its scheme). A
``file://`` URL is a local path and goes through the ordinary local pipeline; any other URL is
read as a stream (`open_input`: the file object fsspec gives, read in blocks, never staged on
disk) and written through a `Store`, one object per session. An object store makes an object
visible only once its upload is complete, so an output is all there or not there at all; a
re-run with ``resume`` passes over outputs that exist.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO

from sts.io import BUFFER_SIZE

if TYPE_CHECKING:
    from collections.abc import Callable

    from sts.model import FallbackTime

#: Schemes read as local paths (the ordinary pipeline: companions, symlink checks, renames).
LOCAL_SCHEMES = ("file://", "local://")


def is_url(name: str) -> bool:
    """Whether `name` is a URL of a store other than the local file system."""
    scheme, sep, _ = name.partition("://")
    return bool(sep) and scheme.isidentifier() and not name.startswith(LOCAL_SCHEMES)


def local_path(name: str) -> str:
    """`name` with a ``file://`` (or ``local://``) scheme taken off."""
    for scheme in LOCAL_SCHEMES:
        if name.startswith(scheme):
            return name[len(scheme):]
    return name


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "URL inputs and outputs need fsspec: pip install 'sts-convert[cluster]'"
        ) from None
    return fsspec


def open_input(url: str) -> BinaryIO:
    """The object at `url`, opened for streamed binary reading: fsspec's file object behind a
    buffer of `sts.io.BUFFER_SIZE` (fsspec's own ``readline`` reads a whole block, 5 MiB, for
    every line; the buffer's finds the line end in what it holds)."""
    return io.BufferedReader(_fsspec().open(url, "rb").open(), buffer_size=BUFFER_SIZE)


def url_time(url: str) -> FallbackTime:
    """The modification time the store gives for the object at `url` (the fallback time of its
    sessions that recorded none, `sts.undated`); the time of conversion when it gives none."""
    from sts.undated import conversion_time, modified_time

    try:
        fs, path = _fsspec().core.url_to_fs(url)
        modified = fs.modified(path)
    except Exception:  # many stores have no modified(): any failure means "none"
        return conversion_time()
    if modified.tzinfo is None:
        modified = modified.replace(tzinfo=UTC)
    return modified_time(int(modified.timestamp() * 1000))


def list_inputs(url: str) -> list[tuple[str, PurePosixPath]]:
    """Every object below `url` (a file gives itself) as ``(url, path relative to url)``, in
    name order, hidden names (a part starting with ``.``) left out."""
    fs, root = _fsspec().core.url_to_fs(url)
    root = root.rstrip("/")
    if not fs.isdir(root):
        return [(url, PurePosixPath(PurePosixPath(root).name))]
    found: list[tuple[str, PurePosixPath]] = []
    for name in sorted(fs.find(root)):
        rel = PurePosixPath(name[len(root):].lstrip("/"))
        if any(part.startswith(".") for part in rel.parts):
            continue
        found.append((fs.unstrip_protocol(name), rel))
    return found


def is_dir(url: str) -> bool:
    """Whether `url` names a folder (a prefix holding objects) of its store."""
    fs, root = _fsspec().core.url_to_fs(url)
    return bool(fs.isdir(root.rstrip("/")))


@dataclass(frozen=True)
class Store:
    """An output folder in an fsspec store: session files go to ``<base>/<relative path>``."""

    base: str

    def url(self, rel: PurePosixPath | str) -> str:
        """The URL of the output at `rel` (a path relative to the folder)."""
        return f"{self.base.rstrip('/')}/{PurePosixPath(rel).as_posix()}"

    def exists(self, rel: PurePosixPath | str) -> bool:
        """Whether the output at `rel` is there already (written by an earlier run)."""
        fs, path = _fsspec().core.url_to_fs(self.url(rel))
        return bool(fs.exists(path))

    def write(self, rel: PurePosixPath | str, fill: Callable[[BinaryIO], None]) -> None:
        """Write the output at `rel` with ``fill(stream)``, committed only once complete where
        the store allows it (local files: a temporary file renamed; S3, GCS: a multipart upload
        completed at the end); a failed write is discarded (or removed, where the store shows an
        object from the start, such as ``memory://``)."""
        fs, path = _fsspec().core.url_to_fs(self.url(rel))
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        if parent:
            fs.makedirs(parent, exist_ok=True)
        stream = fs.open(path, "wb", autocommit=False)
        try:
            fill(stream)
            stream.close()
            commit = getattr(stream, "commit", None)
            if commit is not None:
                commit()
        except BaseException:
            discard = getattr(stream, "discard", None)
            if discard is not None:
                discard()
            if fs.exists(path):
                fs.rm(path)
            raise
