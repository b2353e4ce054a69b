"""Reading an OpenCode input: a database file, the data folder or ``storage`` tree, or an export
document (see the package's docstring)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from sts.building.context import ReadContext
from sts.converters.opencode.stores import (
    TABLES,
    Database,
    Export,
    FileTree,
    assemble,
)
from sts.converters.sqlite import (
    HEADER,
    DatabaseError,
    needs_path,
    open_database,
    report_missing,
    wanted_sessions,
)
from sts.lines import loads_document
from sts.model import Session


def read(stream: BinaryIO, context: ReadContext, options: Any) -> Iterator[Session]:
    """Every session of the input, sub-agents as children."""
    wanted = wanted_sessions(options.sessions)
    seen: set[str] = set()
    path = context.path
    if path is not None and path.is_dir():
        yield from _folder(path, context, wanted, options.subagents, seen)
        report_missing(context.problems, wanted, seen)
        return
    head = stream.read(len(HEADER))
    if head == HEADER:
        database = needs_path(path, context.problems, "this input")
        if database is not None:
            yield from _database(database, context, wanted, options.subagents, seen)
    else:
        data = head + stream.read()
        document = loads_document(data, context.problems)
        if document is None:
            return
        if type(document) is not dict:
            context.problems.error(None, "not-an-object", "an export document is a JSON object")
            return
        yield from assemble(Export(document), context, wanted, options.subagents, seen)
    report_missing(context.problems, wanted, seen)


def _database(path: Path, context: ReadContext, wanted: tuple[str, ...], subagents: bool,
              seen: set[str]) -> Iterator[Session]:
    try:
        with open_database(path, TABLES) as reader:
            yield from assemble(Database(reader), context, wanted, subagents, seen)
    except DatabaseError as exc:
        context.problems.error(None, exc.code, f"{path.name}: {exc}")


def _folder(folder: Path, context: ReadContext, wanted: tuple[str, ...], subagents: bool,
            seen: set[str]) -> Iterator[Session]:
    if (folder / "session").is_dir() and (folder / "message").is_dir():
        yield from assemble(FileTree(folder, context), context, wanted, subagents, seen)
        return
    from sts.converters.opencode import DATABASE_NAME

    for path in sorted(folder.iterdir()):
        if re.fullmatch(DATABASE_NAME, path.name) and path.is_file():
            yield from _database(path, context, wanted, subagents, seen)
    tree = folder / "storage"
    if (tree / "session").is_dir():
        yield from assemble(FileTree(tree, context), context, wanted, subagents, seen)
