"""``sts convert``: inputs to STS or Pi, as many jobs as inputs, through `sts.pipeline`."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from sts.allocator import keep_freed_memory
from sts.commands import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    redaction_config,
    redaction_options,
    usage_error,
)
from sts.converters.registry import check_options, converters
from sts.pipeline import (
    JobResult,
    Settings,
    Target,
    UsageError,
    directory_target,
    output_path,
    plan_jobs,
    refuse_overwrite,
    resolve_cached,
    run_jobs,
)
from sts.problems import POLICIES, Problem, printable
from sts.writers import WRITERS
from sts.writers.common import DROP_CODES

# The Hub's harness registry spells ids like these: claude-code, gemini-cli, pi, hermes-agent.
HUB_ID = r"[a-z0-9][a-z0-9.-]*"  # compiled when --harness is given (re's cache): start-up
CLEAR_LINE = "\r\x1b[K"


@click.command()
@click.argument("inputs", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--to", "to", type=click.Choice(sorted(WRITERS)), default="sts", show_default=True,
              help="Target format.")
@click.option("--from", "source_format", metavar="FORMAT",
              help="Source format (see `sts formats`); detected when left out.")
@click.option("--harness", metavar="ID", help="Harness id for the output header "
              "(default: the source's own, e.g. claude-code, codex, pi).")
@click.option("-o", "--output", type=click.Path(), metavar="PATH",
              help="Output file, or directory for several sessions (default: stdout).")
@click.option("--on-error", "policy", type=click.Choice(POLICIES), default="skip",
              show_default=True, help="Bad input: skip it and go on, fail at once, or skip it "
              "and keep the raw line in the session header.")
@click.option("--no-subagents", is_flag=True, help="Leave sub-agent sessions out.")
@click.option("--all-branches", is_flag=True,
              help="Pi: also write every abandoned branch as its own session.")
@click.option("--drop-injected", is_flag=True,
              help="Codex and Gemini CLI: drop injected context (AGENTS.md, environment, "
              "<session_context>) instead of keeping it as system messages.")
@click.option("--keep-rolled-back", is_flag=True,
              help="Codex: keep turns undone by a rollback (marked) instead of dropping them.")
@click.option("--session", "sessions", multiple=True, metavar="ID",
              help="Only this session of a store (an OpenCode or Cursor database); repeatable.")
@click.option("-O", "--option", "extra_options", multiple=True, metavar="NAME=VALUE",
              help="A source option by name (plug-ins' too), e.g. -O all_branches=true.")
@click.option("-j", "--jobs", "workers", type=click.IntRange(min=0), default=1, show_default=True,
              help="Worker processes for many files (0: one per core).")
@click.option("--redact", is_flag=True, help="Replace secrets and personal data (see "
              "`Publishing to the Hub` in the README); flag high-entropy strings for review.")
@redaction_options
@click.option("--redact-report", type=click.Path(dir_okay=False), metavar="FILE",
              help="With --redact: write the JSON report of every finding to FILE.")
@click.option("--cluster", metavar="ADDRESS", help="Run the jobs on a Dask cluster: its "
              "scheduler (tcp://host:8786), or local:N for N worker processes here (needs the "
              "cluster extra). Outputs already there are kept: a re-run goes on where one "
              "stopped.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also list what each target cannot hold (media placeholders, flattened kinds, "
              "fields left out).")
def convert(
    inputs: tuple[str, ...],
    to: str,
    source_format: str | None,
    harness: str | None,
    output: str | None,
    policy: str,
    no_subagents: bool,
    all_branches: bool,
    drop_injected: bool,
    keep_rolled_back: bool,
    sessions: tuple[str, ...],
    extra_options: tuple[str, ...],
    workers: int,
    redact: bool,
    secrets: tuple[str, ...],
    secrets_file: str | None,
    allowed: tuple[str, ...],
    allowed_patterns: tuple[str, ...],
    user_names: tuple[str, ...],
    redact_report: str | None,
    cluster: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Convert INPUTS (files, directories, or - for stdin) to STS or Pi.

    One session goes to stdout or to -o FILE; several sessions (several inputs, a directory, an
    input holding several sessions, sub-agents) need -o DIR, where the input tree is mirrored.
    Exit codes: 0 all converted, 1 something was skipped or failed, 2 usage error.
    """
    if source_format and source_format not in converters():
        known = ", ".join(sorted(converters()))
        raise usage_error(f"unknown source format {source_format!r} (known: {known})")
    jobs, any_dir = plan_jobs(inputs)
    if _worth_tuning(jobs):
        keep_freed_memory()
    target = _target(output, jobs, any_dir)
    options: dict[str, Any] = {
        "all_branches": all_branches,
        "drop_injected": drop_injected,
        "keep_rolled_back": keep_rolled_back,
    }
    if sessions:
        options["sessions"] = sessions
    options.update(_parse_options(extra_options))
    redaction = None
    if redact:
        redaction = redaction_config(
            secrets, secrets_file, allowed, allowed_patterns, user_names
        )
    elif secrets or secrets_file or redact_report:
        raise click.UsageError("--secret, --secrets-file and --redact-report need --redact")
    settings = Settings(
        to, source_format, harness, policy, not no_subagents, options, redaction,  # type: ignore[arg-type]
        resume=cluster is not None,
    )
    report = Report(quiet, verbose)
    if harness is not None and not re.fullmatch(HUB_ID, harness):
        report.warn(f"harness id {harness!r} does not look like a Hub registry id (lowercase "
                    "letters, digits, hyphens, dots): written as given")
    progress = None
    if len(jobs) > 1 and not quiet and sys.stderr.isatty():
        progress = click.progressbar(length=len(jobs), label="converting", file=sys.stderr)
        progress.__enter__()
        report.progress_shown = True

    def on_result(result: JobResult) -> None:
        report.add(result)
        if progress is not None:
            progress.update(1)

    workers = workers or os.cpu_count() or 1
    try:
        if cluster is not None:
            _run_on_cluster(cluster, jobs, target, settings, report.print_problem, on_result)
        else:
            run_jobs(jobs, target, settings, workers, report.print_problem, on_result)
    finally:
        if progress is not None:
            progress.__exit__(None, None, None)
    report.finish(len(jobs) > 1)
    if redaction is not None:
        from sts.redact.report import summary, write_report

        if redact_report:
            write_report(Path(redact_report), report.findings)
        if not quiet:
            click.echo(f"sts: redaction: {summary(report.findings)}", err=True)
    sys.exit(report.exit_code)


#: From this size on, a single input gets the allocator settings (smaller: start-up matters more).
TUNED_FROM = 1 << 20


def _worth_tuning(jobs: list) -> bool:
    """Whether the allocator settings pay for their start-up cost (loading ctypes): a batch, a
    stream, or an input of `TUNED_FROM` bytes or more."""
    if len(jobs) != 1 or jobs[0].source is None:
        return True
    try:
        return bool(jobs[0].source.stat().st_size >= TUNED_FROM)
    except OSError:
        return False


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as options (VALUE read as JSON when it is JSON: ``true``, ``3``),
    checked against every converter's options."""
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        name, equals, text = pair.partition("=")
        if not equals or not name:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--option")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        options[name.replace("-", "_")] = value
    if not options:
        return options
    from sts.building.context import UnknownOption

    try:
        check_options(options)
    except UnknownOption as exc:
        raise click.BadParameter(str(exc), param_hint="--option") from None
    return options


def _run_on_cluster(spec: str, jobs: list, target: Target, settings: Settings, sink, on_result
                    ) -> None:
    from contextlib import ExitStack

    from sts import cluster

    with ExitStack() as stack:
        try:
            client = stack.enter_context(cluster.connect(spec))
        except (RuntimeError, OSError, ValueError) as exc:  # no distributed, no scheduler
            raise usage_error(f"--cluster {spec}: {exc}") from None
        cluster.run_jobs(client, jobs, target, settings, sink, on_result)


def _target(name: str | None, jobs: list, any_dir: bool) -> Target:
    if name is not None and "://" in name:
        from sts.store import is_url, local_path

        if is_url(name):  # a folder in an fsspec store
            return directory_target(name, jobs)
        name = local_path(name)
    folders: dict[Path, Path] = {}
    protected = frozenset(
        resolve_cached(job.source, folders) for job in jobs if job.source is not None
    )
    several = len(jobs) > 1 or any_dir
    if name == "":
        raise usage_error("-o needs a path (a file, DIR/ for a directory, - for stdout)")
    if name is None or name == "-":
        if several:
            raise usage_error("several inputs need -o DIR/ (stdout takes one session)")
        return Target("stdout", None, protected)
    output = Path(name)  # the name, not the Path, tells "out/" (a directory to create) apart
    new_dir = name.endswith(("/", os.sep))
    if new_dir and output.exists() and not output.is_dir():
        raise usage_error(f"-o {name}: exists and is not a directory")
    as_dir = new_dir or output.is_dir()
    if several and not as_dir:
        raise usage_error(
            f"several inputs need a directory: -o {name} is not one (-o {name}/ makes one)"
        )
    try:
        if not as_dir:
            refuse_overwrite(output, protected, folders)
        else:
            for job in jobs:
                refuse_overwrite(output_path(output, job.rel), protected, folders,
                                 f"{job.display}: choose another -o DIR")
    except UsageError as exc:
        raise usage_error(str(exc)) from None
    if not as_dir:
        return Target("file", output, protected)
    reserved = frozenset(output_path(output, job.rel) for job in jobs)
    return Target("dir", output, protected, reserved)


class Report:
    """Prints problems as they come and a summary at the end; decides the exit code."""

    def __init__(self, quiet: bool, verbose: bool = False) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.dropped = 0
        self.files = 0
        self.sessions = 0
        self.errors = 0
        self.warnings = 0
        self.skipped = 0
        self.failed = 0
        self.companions = 0
        self.usage_error = False
        self.progress_shown = False
        self.findings: list = []

    def print_problem(self, problem: Problem) -> None:
        if problem.code in DROP_CODES and not self.verbose:
            return  # what the target cannot hold: counted in the summary, listed with -v
        if problem.severity == "error" or not self.quiet:
            if self.progress_shown:  # clear the bar's line; it is drawn again on the next file
                click.echo(CLEAR_LINE, nl=False, err=True)
            click.echo(str(problem), err=True)

    def warn(self, text: str) -> None:
        """A warning about the command itself (not about an input)."""
        if not self.quiet:
            click.echo(f"sts: warning: {text}", err=True)

    def add(self, result: JobResult) -> None:
        if result.status == "companion":
            self.companions += 1
            return
        self.files += 1
        self.sessions += result.sessions
        self.findings += result.findings
        self.errors += result.errors
        codes = result.tally.codes
        dropped = sum(codes.get(code, 0) for code in DROP_CODES)
        self.dropped += dropped
        self.warnings += result.tally.warnings - dropped
        self.skipped += result.status == "skipped"
        self.failed += result.status == "failed"
        if result.usage_error:
            self.usage_error = True
            click.echo(printable(f"sts: {result.usage_error}"), err=True)

    def finish(self, batch: bool) -> None:
        if self.quiet or not (batch or self.errors or self.warnings or self.verbose):
            return
        dropped = (
            f"; {self.dropped} note(s) of what the target cannot hold"
            f"{'' if self.verbose else ' (-v lists them)'}"
            if self.dropped else ""
        )
        companions = (
            f" ({self.companions} companion file(s) read with their session or passed over)"
            if self.companions else ""
        )
        click.echo(
            f"sts: {self.sessions} session(s) written from {self.files} input(s){companions}; "
            f"{self.skipped} skipped, {self.failed} failed; "
            f"{self.errors} error(s), {self.warnings} warning(s){dropped}",
            err=True,
        )

    @property
    def exit_code(self) -> int:
        if self.usage_error:
            return EXIT_USAGE
        if self.errors or self.skipped or self.failed:
            return EXIT_PROBLEMS
        return EXIT_OK
