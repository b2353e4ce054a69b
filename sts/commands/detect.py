"""``sts detect``: the source format of each file."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import click

from sts.commands import EXIT_OK, EXIT_PROBLEMS, stdout_open
from sts.converters.registry import examine
from sts.io import peek_file, peek_stream
from sts.pipeline import store_converter
from sts.problems import printable


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("-v", "--verbose", is_flag=True, help="Show every converter's confidence.")
def detect(files: tuple[str, ...], verbose: bool) -> None:
    """Print the detected source format of each FILE (- for stdin)."""
    stdout_open()
    unknown = 0
    for name in files:
        try:
            if name == "-":
                if sys.stdin is None:
                    raise OSError(errno.EBADF, "standard input is closed")
                peek, _ = peek_stream(sys.stdin.buffer)
            elif Path(name).is_dir():
                store = store_converter(Path(name))
                click.echo(f"{printable(name)}\t{store.name if store else 'unknown'}"
                           + ("\t(a store folder)" if verbose and store else ""))
                unknown += store is None
                continue
            else:
                peek = peek_file(Path(name))
        except OSError as exc:
            shown = "<stdin>" if name == "-" else name
            click.echo(printable(f"{shown}: error: {exc.strerror or exc}"), err=True)
            unknown += 1
            continue
        found = examine(peek, everything=verbose)
        label = found.converter.name if found.converter is not None else "unknown"
        unknown += label == "unknown"
        if verbose:
            details = ", ".join(f"{c.name}={s:.2f}" for s, c in found.scores)
            click.echo(f"{printable(name)}\t{label}\t{details}")
        else:
            click.echo(f"{printable(name)}\t{label}")
    sys.exit(EXIT_PROBLEMS if unknown else EXIT_OK)
