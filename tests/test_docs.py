"""The README documents every command, option and format (sqlite-utils' test_docs idea)."""

from __future__ import annotations

import re

import click
import pytest

from sts import codes
from sts.cli import main
from sts.converters.registry import converters
from sts.writers import WRITERS
from tests.support import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Every command by name (the group imports each one when it is asked for it).
COMMANDS = {name: main.get_command(click.Context(main), name)
            for name in main.list_commands(click.Context(main))}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_is_documented(command):
    assert re.search(rf"\bsts {command}\b", README), f"`sts {command}` missing from README"


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (name, opt)
        for name, command in sorted(COMMANDS.items())
        for param in command.params
        if isinstance(param, click.Option)
        for opt in param.opts
        if opt.startswith("--")
    ],
)
def test_every_option_is_documented(command, option):
    assert option in README, f"{command} {option} missing from README"


@pytest.mark.parametrize("name", sorted(set(converters()) | set(WRITERS)))
def test_every_format_is_documented(name):
    assert f"`{name}`" in README


def test_readme_starts_with_the_two_commands():
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert "pip install . && sts convert samples/" in block[0]
    assert "python -m pytest" in block[1]
    sample = block[0].split("sts convert ", 1)[1].split()[0]
    assert (ROOT / sample).is_file(), f"the README's sample {sample} is missing"


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = README.split("```sh\n", 1)[1].splitlines()[1]
    assert test_command in ci.splitlines()


def readme_block(name: str) -> str:
    """The README's text between ``<!-- name -->`` and ``<!-- /name -->``."""
    return README.split(f"<!-- {name} -->\n", 1)[1].split(f"<!-- /{name} -->", 1)[0]


@pytest.mark.parametrize("channel", ["reading", "validating"])
def test_the_readme_code_tables_are_the_registry(channel):
    assert readme_block(f"codes:{channel}") == codes.markdown_table(channel), (
        "README code table out of date: run python -m sts.codes README.md"
    )


def test_the_bad_input_table_names_registered_codes_with_their_severity():
    table = README.split("| Bad input | What happens | Code |", 1)[1].split("\n\n", 1)[0]
    named = 0
    for row in table.splitlines()[2:]:
        cell = row.rstrip(" |").rsplit("|", 1)[1]
        # "`a` / `b` (error)": both errors; "`a` (warning) / `b` (error)": each its own
        for part in re.split(r"(?<=\))\s*/\s*", cell):
            severity = re.search(r"\((error|warning)\)", part)
            for code in re.findall(r"`([a-z0-9-]+)`", part):
                assert code in codes.CODES, f"README names unregistered code {code!r}"
                if severity:
                    assert codes.CODES[code].reading == severity.group(1), code
                named += 1
    assert named >= 20
