"""``sts formats``: the source and target formats."""

from __future__ import annotations

import click

from sts.commands import stdout_open
from sts.converters.registry import converters


@click.command()
def formats() -> None:
    """List the source formats (with default harness ids) and the target formats."""
    stdout_open()
    found = sorted(converters().items())
    width = max(12, *(len(name) for name, _ in found))  # columns fit the longest name
    harness_width = max(14, *(len(c.harness) for _, c in found))
    click.echo("sources (--from):")
    for name, converter in found:
        click.echo(f"  {name:<{width}} harness {converter.harness:<{harness_width}} "
                   f"{converter.description}")
    click.echo("targets (--to):")
    click.echo(f"  {'sts':<{width}} STS-Format (Session Trace Simple Format)")
    click.echo(f"  {'pi':<{width}} Pi session format, version 3, with a harness field")
