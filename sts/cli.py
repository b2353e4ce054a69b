"""The ``sts`` command group: convert, detect, validate, view, formats, publish. Each command is
a module of `sts.commands`, imported when it runs (help imports them all to list them): the
options of the others are never built. No conversion logic lives here."""

from __future__ import annotations

import os
import sys
from contextlib import suppress

import click

from sts.imports import load_target

EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a command that SIGPIPE stopped

#: Each command's name and the ``"module:attribute"`` that defines it.
COMMANDS = {
    "convert": "sts.commands.convert:convert",
    "detect": "sts.commands.detect:detect",
    "formats": "sts.commands.formats:formats",
    "publish": "sts.commands.publish:publish",
    "validate": "sts.commands.validate:validate",
    "view": "sts.commands.view:view",
}


def command(name: str) -> click.Command | None:
    """The command called `name` (its module imported when first asked for), or None."""
    target = COMMANDS.get(name)
    if target is None:
        return None
    found: click.Command = load_target(target)
    return found


class _Group(click.Group):
    """The command group: its commands loaded by name (click's lazy subcommands), and a reader
    that goes away (``sts convert big | head -1``) stops the command quietly, as it stops
    ``cat``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return command(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.NoSuchCommand as error:  # click suggests names from `commands`: none here
            raise click.NoSuchCommand(error.command_name, possibilities=COMMANDS, ctx=ctx) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            with suppress(OSError):  # nothing more reaches the closed pipe, not even at exit
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sts-convert")
def main() -> None:
    """Convert AI agent session traces to STS-Format or Pi sessions for the Hugging Face Hub."""
