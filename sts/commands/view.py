"""``sts view``: one offline HTML page of sessions (`sts.view.cli` does the work)."""

from __future__ import annotations

import sys

import click

from sts.allocator import keep_freed_memory
from sts.commands import redaction_config, redaction_options
from sts.converters.registry import converters


@click.command()
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), metavar="FILE",
              help="The page to write (default: <first input>.html here; - for stdout).")
@click.option("--from", "source_format", metavar="FORMAT",
              help="Source format (see `sts formats`); detected when left out.")
@click.option("--open", "open_page", is_flag=True, help="Open the page in a web browser.")
@click.option("--redact", is_flag=True, help="Redact the sessions as `sts publish` does and "
              "highlight every replaced or flagged span with its rule, listed with links.")
@redaction_options
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
def view(
    inputs: tuple[str, ...],
    output: str | None,
    source_format: str | None,
    open_page: bool,
    redact: bool,
    secrets: tuple[str, ...],
    secrets_file: str | None,
    allowed: tuple[str, ...],
    allowed_patterns: tuple[str, ...],
    user_names: tuple[str, ...],
    quiet: bool,
) -> None:
    """Write one self-contained, offline HTML page showing the sessions of INPUTS.

    A file gives its session's page; several files or a directory give an index of sessions
    (sortable, filterable) with every session one click away. Exit codes: 0 all read, 1 an
    input was skipped or had problems, 2 usage error.
    """
    from sts.view.cli import run_view

    if source_format and source_format not in converters():
        known = ", ".join(sorted(converters()))
        raise click.UsageError(f"unknown source format {source_format!r} (known: {known})")
    redaction = None
    if redact:
        redaction = redaction_config(
            secrets, secrets_file, allowed, allowed_patterns, user_names
        )
    elif secrets or secrets_file:
        raise click.UsageError("--secret and --secrets-file need --redact")
    keep_freed_memory()
    sys.exit(run_view(list(inputs), output, source_format, open_page, redaction, quiet))
