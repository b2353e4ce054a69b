"""Names derived from file names: one rule for output files and for session ids."""

from __future__ import annotations

#: Input endings a file stem leaves out.
ENDINGS = (".jsonl", ".ndjson", ".json")


def file_stem(name: str) -> str:
    """A file name without its .jsonl/.ndjson/.json ending (``a.jsonl`` → ``a``)."""
    for ending in ENDINGS:
        if name.endswith(ending) and len(name) > len(ending):
            return name[: -len(ending)]
    return name
