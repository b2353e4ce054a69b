"""``sts validate``: STS and Pi files checked against their specs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from sts.commands import EXIT_OK, EXIT_PROBLEMS
from sts.problems import Problem


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["sts", "pi"]),
              help="Check as this format (detected from the header when left out).")
def validate(paths: tuple[str, ...], fmt: str | None) -> None:
    """Check STS and Pi files against their specs; print each problem as file:line: what.

    A directory is checked whole: every .jsonl file below it. Exit 0 when every file is valid
    (warnings allowed), 1 when any has an error.
    """
    from sts.validation import validate_stream

    invalid = False

    def report(problem: Problem) -> None:
        nonlocal invalid
        click.echo(str(problem), err=True)
        invalid = invalid or problem.severity == "error"

    for path in _files_to_validate(paths):
        with open(path, "rb") as stream:  # read line by line: any size in flat memory
            validate_stream(stream, report, fmt, str(path))
    sys.exit(EXIT_PROBLEMS if invalid else EXIT_OK)


def _files_to_validate(paths: tuple[str, ...]) -> Iterator[Path]:
    """The files named, and the .jsonl files below the directories named."""
    from sts.pipeline import walk

    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from (file for file in walk(path) if file.suffix == ".jsonl")
        else:
            yield path
