"""OpenCode databases of growing session counts, same session size: time and peak memory of
``sts convert DB -o out/``. Memory should stay flat as the database grows (one query per
session, rows streamed), while the time grows with it.

    python benchmarks/stores.py                   # 100 and 1000 sessions of ~40 messages
    python benchmarks/stores.py --sessions 100,4000 --messages 80
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE session (id text PRIMARY KEY, parent_id text, title text, directory text,
  version text, time_created integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text);
CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,
  data text);
CREATE INDEX message_session ON message (session_id, time_created, id);
CREATE INDEX part_message ON part (message_id, id);
"""
WORDS = "the session tool call result file path value error test build read write".split()


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def build(path: Path, sessions: int, messages: int, seed: int = 7) -> None:
    """A WAL database of `sessions` sessions of `messages` messages (user/assistant + a tool)."""
    rng = random.Random(seed)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.executescript(SCHEMA)
    clock = 1_790_000_000_000
    for s in range(sessions):
        sid = f"ses_{s:08d}"
        connection.execute("INSERT INTO session VALUES (?, NULL, ?, '/w', '1.18.33', ?)",
                           (sid, f"session {s}", clock))
        rows_m, rows_p = [], []
        for m in range(messages):
            clock += 1000
            mid = f"msg_{s:08d}{m:05d}"
            if m % 2 == 0:
                data = {"role": "user", "time": {"created": clock}}
                parts = [{"type": "text", "text": text(rng, 40)}]
            else:
                data = {"role": "assistant", "modelID": "m", "providerID": "p",
                        "time": {"created": clock}, "finish": "tool-calls",
                        "tokens": {"input": 100, "output": 20, "reasoning": 0,
                                   "cache": {"read": 0, "write": 0}}, "cost": 0.001}
                parts = [{"type": "text", "text": text(rng, 60)},
                         {"type": "tool", "callID": f"call_{s}_{m}", "tool": "read",
                          "state": {"status": "completed", "input": {"filePath": "/w/a.py"},
                                    "output": text(rng, 200), "title": "a.py",
                                    "time": {"start": clock, "end": clock + 5}}}]
            rows_m.append((mid, sid, clock, json.dumps(data)))
            rows_p += [(f"prt_{s:08d}{m:05d}{i}", mid, sid, clock, json.dumps(p))
                       for i, p in enumerate(parts)]
        connection.executemany("INSERT INTO message VALUES (?, ?, ?, ?)", rows_m)
        connection.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?)", rows_p)
    connection.commit()
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def measure(path: Path, out: Path) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of one conversion in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "sts", "convert", str(path), "-o", f"{out}/", "-q"],
                   check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return cpu, after.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="100,1000")
    parser.add_argument("--messages", type=int, default=40)
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",")]
    print("| sessions | database MB | CPU s | MB/s (CPU) | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for count in counts:  # ru_maxrss of children is a maximum: measure the small ones first
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "opencode.db"
            started = time.perf_counter()
            build(path, count, args.messages)
            built = time.perf_counter() - started
            size = path.stat().st_size / 1e6
            cpu, rss = measure(path, Path(folder) / "out")
            shutil.rmtree(Path(folder) / "out")
            print(f"| {count} | {size:.1f} | {cpu:.2f} | {size / cpu:.1f} | {rss:.0f} |"
                  f"  (built in {built:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
