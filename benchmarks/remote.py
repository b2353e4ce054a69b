"""A long Pi session read from an fsspec store (as ``s3://``): how many ranges the store fetches,
how many bytes it fetches and hands out, as multiples of the file, and the time, next to the same
file converted from a local path. A session past 50,000 entries averaging under 1 KiB is read
again as it is written (`sts/converters/pi/entries.py`): one pass of the file each time.

    python benchmarks/remote.py                    # 60,000 entries, tiny ones and tool calls
    python benchmarks/remote.py --entries 200000

The store is `FetchingStore` (``fetching://PATH``): the local file PATH served in ranges by an
fsspec `AbstractBufferedFile`, as s3fs and gcsfs serve objects (readahead blocks of 5 MiB).
Nothing is asserted: it prints figures (tests/test_cluster.py checks the fetches).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import fsspec
import orjson
from fsspec.spec import AbstractBufferedFile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sts

STAMP = "2026-03-02T09:14:05.112Z"
MS = 1772442845112


class FetchingFile(AbstractBufferedFile):
    """A file of `FetchingStore`: every range it fetches, and every byte it hands out, counted
    on its store."""

    def _fetch_range(self, start: int, end: int) -> bytes:
        self.fs.fetched.append(end - start)
        with open(self.path, "rb") as local:
            local.seek(start)
            return local.read(end - start)

    def read(self, length: int = -1) -> bytes:
        data = super().read(length)
        self.fs.handed_out += len(data)
        return data


class FetchingStore(fsspec.AbstractFileSystem):
    """``fetching://PATH``: the local file PATH as an object of a remote store, fetched in
    blocks of `blocksize` (fsspec's default, 5 MiB). fsspec keeps one instance:
    ``FetchingStore()`` is the one a conversion opens files with."""

    protocol = "fetching"
    blocksize = 5 * 2**20

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.fetched: list[int] = []
        self.handed_out = 0

    def reset(self) -> None:
        """Count from nothing."""
        self.fetched.clear()
        self.handed_out = 0

    def _open(self, path, mode="rb", block_size=None, autocommit=True, cache_options=None,
              **options):
        return FetchingFile(self, path, mode, block_size or self.blocksize, autocommit,
                            cache_options=cache_options, **options)

    def info(self, path, **options):
        path = self._strip_protocol(path)
        return {"name": path, "size": os.path.getsize(path), "type": "file"}


fsspec.register_implementation("fetching", FetchingStore, clobber=True)


def entry(number: int, message: dict) -> dict:
    """A Pi message entry, the `number`th of a chain (ids of 8 hex digits, as pi makes them)."""
    return {"type": "message", "id": f"{number:08x}",
            "parentId": f"{number - 1:08x}" if number else None, "timestamp": STAMP,
            "message": {**message, "timestamp": MS}}


def tiny_entries(count: int) -> list[dict]:
    """`count` one-word user messages."""
    return [entry(n, {"role": "user", "content": [{"type": "text", "text": "x"}]})
            for n in range(count)]


def call_entries(count: int) -> list[dict]:
    """`count` entries: assistant tool calls and their results, in turn (every entry is read
    again for the tool-call ledger too)."""
    records = []
    for n in range(count):
        if n % 2 == 0:
            message = {"role": "assistant", "api": "a", "provider": "p", "model": "m",
                       "usage": {}, "stopReason": "toolUse",
                       "content": [{"type": "toolCall", "id": f"c{n}", "name": "read",
                                    "arguments": {"path": "a.py"}}]}
        else:
            message = {"role": "toolResult", "toolCallId": f"c{n - 1}", "toolName": "read",
                       "content": [{"type": "text", "text": f"result {n}"}], "isError": False}
        records.append(entry(n, message))
    return records


def write_session(path: Path, records: list[dict]) -> None:
    """A Pi v3 file: its header, then `records`."""
    with path.open("wb") as out:
        out.write(orjson.dumps({"type": "session", "version": 3, "id": "s",
                                "timestamp": STAMP}) + b"\n")
        for record in records:
            out.write(orjson.dumps(record) + b"\n")


def timed(source: str, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of converting `source` to Pi in this process (the store is
    registered here)."""
    wall, cpu = time.perf_counter(), time.process_time()
    results = sts.convert_many([source], out, to="pi", problems=lambda p: None)
    assert [r.status for r in results] == ["ok"], results
    return time.perf_counter() - wall, time.process_time() - cpu


def row(name: str, make: Callable[[int], list[dict]], count: int, folder: Path) -> str:
    path = folder / f"{make.__name__}.jsonl"
    write_session(path, make(count))
    size = path.stat().st_size
    local_wall, _ = timed(str(path), folder / "local")
    store = FetchingStore()
    store.reset()
    wall, cpu = timed(f"fetching://{path}", folder / "remote")
    return (f"| {name} | {count} | {size / 2**20:.1f} | {len(store.fetched)} | "
            f"{sum(store.fetched) / size:.2f}× | {store.handed_out / size:.2f}× | {wall:.2f} | "
            f"{cpu:.2f} | {local_wall:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=60_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| Pi session in a store | entries | MiB | fetches | fetched ÷ file | handed out ÷ file "
          "| wall s | CPU s | local wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    folder = Path(tempfile.mkdtemp(prefix="sts-remote-"))
    try:
        for name, make in (("tiny user entries", tiny_entries), ("tool calls", call_entries)):
            print(row(name, make, args.entries, folder), flush=True)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
