"""Reading a harness's SQLite database safely: read-only, never beside the user's files, never a
table that holds secrets.

A database is an input like a file, recognised by content: the SQLite header in the peek, then
the names of its tables in the schema, which SQLite keeps at the start of the file (page 1 and
the pages after it). `open_database` opens it for reading only:

- A rollback-journal database is opened in place with ``mode=ro``: readers take shared locks,
  a reader never writes a journal.
- A WAL database whose ``-wal`` and ``-shm`` files exist (the harness is running, or did not
  close cleanly with its index) is opened in place with ``mode=ro`` too: the ``-wal`` file is
  part of the database, and SQLite reads it through the shared index like any reader.
- A WAL database without both files would make SQLite create them next to the user's database,
  even read-only; it is copied (with its ``-wal`` when there is one) to a private temporary
  folder, the copy checked against the original's size and time so that a write in between is
  noticed (and the copy retried), and the copy is read: ``immutable=1`` is used only there,
  where nothing else can write.

Every connection gets an authorizer that allows reading the tables a converter names and
nothing else (no write of any kind, no ``account``/``credential``/``session_share`` tables
however a query is written). A locked or busy database is retried briefly (`BUSY_SECONDS`),
then reported as ``database-busy``; a damaged one as ``bad-database``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from sts.converters.sqlite_head import (  # noqa: F401 (importable from here too)
    COMPANION_SUFFIXES,
    HEADER,
    is_companion_file,
    is_sqlite,
    schema_mentions,
)
from sts.problems import Problems

#: Tables no reader may ever read: they hold credentials, share secrets, account tokens.
SECRET_TABLES = frozenset((
    "account", "account_state", "control_account", "credential", "session_share", "auth",
))
#: How long a busy or locked database is retried, in seconds, before it is reported.
BUSY_SECONDS = 2.0
#: How many times a copy of a database that changed while it was copied is tried again.
COPY_ATTEMPTS = 3

T = TypeVar("T")


class DatabaseError(Exception):
    """A database that cannot be read: the message says why; `code` is the problem code."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(text)
        self.code = code


def wal_mode(path: Path) -> bool:
    """Whether the database at `path` is in WAL mode (header bytes 18 and 19 are 2)."""
    with open(path, "rb") as handle:
        head = handle.read(20)
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def needs_path(path: Path | None, problems: Problems, what: str) -> Path | None:
    """The database's path, or None after reporting that a database cannot come from a pipe."""
    if path is None or not path.is_file():
        problems.error(None, "needs-path",
                       f"{what} is a SQLite database, which cannot be read from standard input or "
                       "a pipe: give its path")
        return None
    return path


def wanted_sessions(value: Any) -> tuple[str, ...]:
    """The ``sessions`` option (``--session``) as a tuple of ids (a list from ``-O`` too)."""
    if type(value) is str:
        return (value,) if value else ()
    if isinstance(value, (list, tuple)):
        return tuple(v for v in value if type(v) is str and v)
    return ()


def report_missing(problems: Problems, wanted: tuple[str, ...], seen: set[str]) -> None:
    """Report each `--session` id that the input did not hold."""
    for session_id in wanted:
        if session_id not in seen:
            problems.error(None, "unknown-session", f"no session {session_id!r} here")


def _authorizer(allowed: Collection[str]) -> Callable[..., int]:
    tables = {name.lower() for name in allowed} | {"sqlite_master", "sqlite_schema"}

    def check(action: int, first: str | None, second: str | None, *_: Any) -> int:
        if action == sqlite3.SQLITE_SELECT or action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            table = (first or "").lower()
            return sqlite3.SQLITE_OK if table in tables and table not in SECRET_TABLES else (
                sqlite3.SQLITE_DENY)
        if action == sqlite3.SQLITE_PRAGMA and (first or "").lower() in ("table_info",
                                                                           "table_xinfo"):
            return sqlite3.SQLITE_OK if (second or "").lower() in tables else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_TRANSACTION:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    return check


@contextmanager
def open_database(path: Path, tables: Collection[str]) -> Iterator[Reader]:
    """A `Reader` of the database at `path` that may read only `tables` (see the module)."""
    wal = wal_mode(path)
    companions = [path.with_name(path.name + s) for s in ("-wal", "-shm")]
    if not wal or all(c.exists() for c in companions):
        connection = _connect(f"file:{quote(str(path.absolute()))}?mode=ro", tables)
        try:
            yield Reader(connection, snapshot=wal)
        finally:
            connection.close()
        return
    with tempfile.TemporaryDirectory(prefix="sts-db-") as folder:
        copy = _stable_copy(path, Path(folder))
        immutable = not copy.with_name(copy.name + "-wal").exists()
        query = "?mode=ro&immutable=1" if immutable else ""
        connection = _connect(f"file:{quote(str(copy))}{query}", tables)
        try:
            yield Reader(connection, snapshot=True)
        finally:
            connection.close()


def _connect(uri: str, tables: Collection[str]) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None,
                                     check_same_thread=False)
    except sqlite3.Error as exc:
        raise DatabaseError("io-error", f"cannot open the database: {exc}") from exc
    connection.set_authorizer(_authorizer(tables))
    return connection


def _stable_copy(path: Path, folder: Path) -> Path:
    """Copy the database and its ``-wal`` into `folder`, again when either changed meanwhile."""
    wal = path.with_name(path.name + "-wal")
    copy = folder / path.name
    for _ in range(COPY_ATTEMPTS):
        before = _stamps(path, wal)
        shutil.copyfile(path, copy)
        if wal.exists():
            shutil.copyfile(wal, folder / wal.name)
        if _stamps(path, wal) == before:
            return copy
        time.sleep(0.05)
    raise DatabaseError("database-busy",
                        "the database kept changing while it was copied for reading")


def _stamps(*paths: Path) -> list[tuple[int, int] | None]:
    stamps: list[tuple[int, int] | None] = []
    for item in paths:
        try:
            info = os.stat(item)
        except FileNotFoundError:
            stamps.append(None)
        else:
            stamps.append((info.st_size, info.st_mtime_ns))
    return stamps


class Reader:
    """Queries on one read-only connection, retried while the database is busy.

    With `snapshot` (WAL, or a private copy) every query of the read sees one state of the
    database (one read transaction, which never blocks a WAL writer). A rollback-journal
    database is read in short transactions instead, one per query, so that the harness can
    still write between them.
    """

    def __init__(self, connection: sqlite3.Connection, snapshot: bool) -> None:
        self.connection = connection
        self.snapshot = snapshot
        self._begun = False

    def tables(self) -> set[str]:
        """The names of the database's tables."""
        rows = self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in rows if type(row[0]) is str}

    def columns(self, table: str) -> set[str]:
        """The column names of `table` (empty when it does not exist)."""
        return {row[1] for row in self.rows(f"PRAGMA table_info({quote_name(table)})")}

    def rows(self, sql: str, parameters: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, fetched as they are iterated (memory bounded by one batch)."""
        cursor = self._retry(lambda: self._execute(sql, parameters))
        while True:
            batch = self._retry(lambda: cursor.fetchmany(256))
            if not batch:
                return
            yield from batch

    def _execute(self, sql: str, parameters: tuple[Any, ...]) -> sqlite3.Cursor:
        if self.snapshot and not self._begun:
            self.connection.execute("BEGIN")
            self._begun = True
        return self.connection.execute(sql, parameters)

    def _retry(self, action: Callable[[], T]) -> T:
        deadline = time.monotonic() + BUSY_SECONDS
        delay = 0.02
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                text = str(exc)
                if "locked" not in text and "busy" not in text:
                    raise _failure(exc) from exc
                if time.monotonic() >= deadline:
                    raise DatabaseError(
                        "database-busy",
                        f"the database stayed locked for {BUSY_SECONDS:g} s (another program "
                        f"is writing it): {text}; try again") from exc
                time.sleep(delay)
                delay = min(delay * 2, 0.2)
            except sqlite3.Error as exc:
                raise _failure(exc) from exc


def _failure(exc: sqlite3.Error) -> DatabaseError:
    text = str(exc)
    if "not authorized" in text:
        return DatabaseError("internal-error", f"a query the reader may not run: {text}")
    return DatabaseError("bad-database", f"the database cannot be read: {text}")


def quote_name(name: str) -> str:
    """`name` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
