"""What detection needs to know of a SQLite database, without loading `sqlite3` (the light
half of `sts.converters.sqlite`, imported by the database converters' sniffers)."""

from __future__ import annotations

from pathlib import Path

HEADER = b"SQLite format 3\x00"
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")


def is_sqlite(data: bytes) -> bool:
    """Whether `data` (a file's head) starts with the SQLite header."""
    return data.startswith(HEADER)


def schema_mentions(data: bytes, *names: str) -> bool:
    """Whether the schema text in a database's head creates every table in `names` (quoted as
    SQLite and drizzle write them, or bare)."""
    for name in names:
        encoded = name.encode()
        if not any(
            f"CREATE TABLE {quote_char}".encode() + encoded + close in data
            for quote_char, close in (("`", b"`"), ('"', b'"'), ("", b" "), ("", b"("),
                                      ("IF NOT EXISTS `", b"`"), ('IF NOT EXISTS "', b'"'))
        ):
            return False
    return True


def is_companion_file(path: Path) -> bool:
    """A database's ``-wal``, ``-shm`` or ``-journal`` file beside it: read with the database."""
    for suffix in COMPANION_SUFFIXES:
        if path.name.endswith(suffix):
            main = path.with_name(path.name[: -len(suffix)])
            return main.is_file() and _starts_with_header(main)
    return False


def _starts_with_header(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(HEADER)) == HEADER
    except OSError:
        return False
