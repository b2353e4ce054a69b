"""The commands of ``sts``, one module each, imported by `sts.cli` only when that command runs
(or when help lists them): start-up builds the options of one command, not of all. Here: what
several commands share (exit codes, usage errors, the redaction options and the configuration
they ask for; `sts.redact` itself is imported only when a command redacts)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sts.problems import printable

if TYPE_CHECKING:  # imported when used: `sts convert` without --redact starts without them
    from sts.redact import RedactionConfig

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2


def usage_error(text: str) -> click.UsageError:
    """A usage error whose text shows control characters escaped."""
    return click.UsageError(printable(text))


def stdout_open() -> None:
    """Exit 1 with a message when standard output is closed (``>&-``)."""
    if sys.stdout is None:
        click.echo("sts: error: standard output is closed", err=True)
        sys.exit(EXIT_PROBLEMS)


def redaction_options(command):
    """The options that configure redaction, shared by `convert`, `view` and `publish`."""
    options = [
        click.option("--secret", "secrets", multiple=True, metavar="VALUE",
                     help="Redact this exact value (repeatable)."),
        click.option("--secrets-file", type=click.Path(exists=True, dir_okay=False),
                     help="Redact each line of this file (blank lines and # comments skipped)."),
        click.option("--allow", "allowed", multiple=True, metavar="VALUE",
                     help="Never redact nor flag this exact value (repeatable)."),
        click.option("--allow-pattern", "allowed_patterns", multiple=True, metavar="REGEX",
                     help="Never redact nor flag a value this expression matches whole."),
        click.option("--user-name", "user_names", multiple=True, metavar="NAME",
                     help="A user name to replace wherever it stands as a word (default: "
                     "this machine's user); home paths are replaced whatever the name."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def redaction_config(
    secrets: tuple[str, ...],
    secrets_file: str | None,
    allowed: tuple[str, ...],
    allowed_patterns: tuple[str, ...],
    user_names: tuple[str, ...],
) -> RedactionConfig:
    """The `RedactionConfig` the redaction options ask for."""
    from sts.redact import RedactionConfig

    values = list(secrets)
    if secrets_file:
        for line in Path(secrets_file).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                values.append(line.strip())
    return RedactionConfig(
        secrets=tuple(values),
        environment=dict(os.environ),
        user_names=user_names or None,
        allow=allowed,
        allow_patterns=allowed_patterns,
    )
