"""The driver behind ``sts view``: inputs → sessions → one page, streamed to its file."""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import click

from sts.api import read
from sts.io import atomic_output
from sts.model import Session
from sts.pipeline import is_companion, plan_jobs
from sts.problems import ConversionFailed, Problem
from sts.redact import RedactionConfig
from sts.view.page import Marks, default_output, write_page
from sts.view.redaction import redaction_marks


class _Inputs:
    """Sessions of every input, one at a time; counts what went wrong."""

    def __init__(self, inputs: list[str], source_format: str | None, quiet: bool) -> None:
        self.jobs, _ = plan_jobs(inputs)
        self.source_format = source_format
        self.quiet = quiet
        self.errors = 0
        self.skipped = 0

    def problem(self, problem: Problem) -> None:
        self.errors += problem.severity == "error"
        if problem.severity == "error" or not self.quiet:
            click.echo(str(problem), err=True)

    def sources(self) -> Iterator[tuple[str, Iterator[Session]]]:
        for job in self.jobs:
            if job.source is None or (job.walked and is_companion(job.source)):
                continue
            name = str(job.rel) if job.walked else job.display
            yield name, self._sessions(job.source, job.display)

    def _sessions(self, path: Path, display: str) -> Iterator[Session]:
        try:
            yield from read(path, self.source_format, problems=self.problem)
        except ValueError:
            self.skipped += 1
            if not self.quiet:
                click.echo(f"{display}: skipped: no converter recognises it", err=True)
        except (OSError, ConversionFailed) as exc:
            self.skipped += 1
            click.echo(f"{display}: error: {exc}", err=True)


def run_view(
    inputs: list[str],
    output: str | None,
    source_format: str | None,
    open_page: bool,
    redaction: RedactionConfig | None,
    quiet: bool,
) -> int:
    """Write the page (redacted, with its findings marked, when `redaction` is given); return
    the exit code."""
    sources = _Inputs(inputs, source_format, quiet)
    marks: Marks | None = redaction_marks(redaction) if redaction is not None else None
    title = inputs[0] if len(inputs) == 1 else f"{len(inputs)} inputs"
    protected = {job.source.resolve() for job in sources.jobs if job.source is not None}
    if output == "-":
        count = write_page(sources.sources(), sys.stdout.buffer, title, marks)
        target = None
    else:
        target = Path(output) if output else default_output(inputs)
        if target.resolve() in protected:
            raise click.UsageError(f"refusing to write over the input {target}")
        with atomic_output(target) as out:
            count = write_page(sources.sources(), out, title, marks)
        if not quiet:
            click.echo(f"sts: {count} session(s) → {target}", err=True)
    if count == 0:
        click.echo("sts: no sessions found", err=True)
    if open_page and target is not None:
        webbrowser.open(target.resolve().as_uri())
    return 1 if sources.errors or sources.skipped or count == 0 else 0
