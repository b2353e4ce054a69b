"""The ``sts`` command: convert, detect, validate, formats. No conversion logic lives here."""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sts.allocator import keep_freed_memory
from sts.converters.registry import check_options, converters, examine
from sts.io import peek_file, peek_stream
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
    store_converter,
)
from sts.problems import POLICIES, Problem, printable
from sts.writers import WRITERS
from sts.writers.common import DROP_CODES

if TYPE_CHECKING:  # imported when used: `sts convert` without --redact starts without them
    from sts.redact import RedactionConfig

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
# The Hub's harness registry spells ids like these: claude-code, gemini-cli, pi, hermes-agent.
HUB_ID = r"[a-z0-9][a-z0-9.-]*"  # compiled when --harness is given (re's cache): start-up
CLEAR_LINE = "\r\x1b[K"
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a command that SIGPIPE stopped


class _Group(click.Group):
    """The command group: a reader that goes away (``sts convert big | head -1``) stops the
    command quietly, as it stops ``cat``."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            with suppress(OSError):  # nothing more reaches the closed pipe, not even at exit
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)


def _usage_error(text: str) -> click.UsageError:
    return click.UsageError(printable(text))


def _stdout_open() -> None:
    """Exit 1 with a message when standard output is closed (``>&-``)."""
    if sys.stdout is None:
        click.echo("sts: error: standard output is closed", err=True)
        sys.exit(EXIT_PROBLEMS)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sts-convert")
def main() -> None:
    """Convert AI agent session traces to STS-Format or Pi sessions for the Hugging Face Hub."""


def redaction_options(command):
    """The options that configure redaction, shared by `convert` and `publish`."""
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


@main.command()
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
        raise _usage_error(f"unknown source format {source_format!r} (known: {known})")
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
    report = _Report(quiet, verbose)
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
            raise _usage_error(f"--cluster {spec}: {exc}") from None
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
        raise _usage_error("-o needs a path (a file, DIR/ for a directory, - for stdout)")
    if name is None or name == "-":
        if several:
            raise _usage_error("several inputs need -o DIR/ (stdout takes one session)")
        return Target("stdout", None, protected)
    output = Path(name)  # the name, not the Path, tells "out/" (a directory to create) apart
    new_dir = name.endswith(("/", os.sep))
    if new_dir and output.exists() and not output.is_dir():
        raise _usage_error(f"-o {name}: exists and is not a directory")
    as_dir = new_dir or output.is_dir()
    if several and not as_dir:
        raise _usage_error(
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
        raise _usage_error(str(exc)) from None
    if not as_dir:
        return Target("file", output, protected)
    reserved = frozenset(output_path(output, job.rel) for job in jobs)
    return Target("dir", output, protected, reserved)


class _Report:
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


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("-v", "--verbose", is_flag=True, help="Show every converter's confidence.")
def detect(files: tuple[str, ...], verbose: bool) -> None:
    """Print the detected source format of each FILE (- for stdin)."""
    _stdout_open()
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


@main.command()
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


@main.command()
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


@main.command()
def formats() -> None:
    """List the source formats (with default harness ids) and the target formats."""
    _stdout_open()
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


@main.command()
@click.argument("inputs", nargs=-1, type=click.Path(exists=True))
@click.option("-o", "--output", type=click.Path(file_okay=False), metavar="DIR",
              help="The folder to write (new, or an earlier publish folder, which is replaced).")
@click.option("--to", "to", type=click.Choice(sorted(WRITERS)), default="pi", show_default=True,
              help="Target format: pi (complete rows in the Hub's loader) or sts.")
@click.option("--from", "source_format", metavar="FORMAT",
              help="Source format (see `sts formats`); detected when left out.")
@click.option("--harness", metavar="ID", help="Harness id for every session's header.")
@click.option("--no-subagents", is_flag=True, help="Leave sub-agent sessions out.")
@click.option("--no-redact", is_flag=True,
              help="Publish without redaction (not advised: traces hold secrets and names).")
@redaction_options
@click.option("--allow-findings", is_flag=True,
              help="Publish although high-entropy strings or scanner findings await review "
              "(after reviewing _sts/redaction-report.json).")
@click.option("--no-scanner", is_flag=True,
              help="Skip the final trufflehog scan (run when trufflehog is installed).")
@click.option("--drop-images", is_flag=True,
              help="Replace inline images by a placeholder (keeps sessions small).")
@click.option("--max-tool-output", type=click.IntRange(min=100), metavar="N",
              help="Cut tool outputs longer than N characters (head and tail kept, a marker "
              "between).")
@click.option("--license", "license_", default="other", show_default=True,
              help="License in the dataset card (e.g. cc-by-4.0, mit).")
@click.option("--pretty-name", help="The dataset's display name (default from the harnesses).")
@click.option("--tag", "tags", multiple=True, help="An extra tag for the card (repeatable).")
@click.option("--check", "run_check", is_flag=True,
              help="Load the folder with the Hub's loader (datasets + teich, the hub extra) "
              "and compare each file's row with what was written.")
@click.option("--repo", metavar="USER/NAME", help="Upload the folder to this Hub dataset.")
@click.option("--public", is_flag=True, help="With --repo: make a new repository public "
              "(default private).")
@click.option("--dry-run", is_flag=True, help="With --repo: print what would be sent, send "
              "nothing.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but problems.")
def publish(
    inputs: tuple[str, ...],
    output: str | None,
    to: str,
    source_format: str | None,
    harness: str | None,
    no_subagents: bool,
    no_redact: bool,
    secrets: tuple[str, ...],
    secrets_file: str | None,
    allowed: tuple[str, ...],
    allowed_patterns: tuple[str, ...],
    user_names: tuple[str, ...],
    allow_findings: bool,
    no_scanner: bool,
    drop_images: bool,
    max_tool_output: int | None,
    license_: str,
    pretty_name: str | None,
    tags: tuple[str, ...],
    run_check: bool,
    repo: str | None,
    public: bool,
    dry_run: bool,
    quiet: bool,
) -> None:
    """Turn INPUTS (files, folders) into a folder ready for the Hub: one redacted session per
    file, a dataset card, a manifest and a redaction report; optionally check it with the
    Hub's loader (--check) and upload it (--repo).

    Given one earlier publish folder and no -o, checks and/or uploads that folder.
    Exit codes: 0 published, 1 findings await review, a check failed or some input could not be
    read (the rest is published and uploaded), 2 usage error.
    """
    from sts.publish.folder import MANIFEST

    if source_format and source_format not in converters():
        raise click.UsageError(f"unknown source format {source_format!r}")
    existing = (
        output is None and len(inputs) == 1 and (Path(inputs[0]) / MANIFEST).is_file()
    )
    if not existing and not output:
        raise click.UsageError("publish needs -o DIR (or one earlier publish folder)")
    if not inputs:
        raise click.UsageError("nothing to publish: give files or folders")
    code = EXIT_OK
    folder = Path(inputs[0]) if existing else Path(output)  # type: ignore[arg-type]
    if not existing:
        code, refused = _publish_folder(
            inputs, folder, quiet,
            to=to, source_format=source_format, harness=harness, subagents=not no_subagents,
            redaction=None if no_redact else redaction_config(
                secrets, secrets_file, allowed, allowed_patterns, user_names),
            allow_findings=allow_findings, no_scanner=no_scanner, drop_images=drop_images,
            max_tool_output=max_tool_output, license=license_, pretty_name=pretty_name,
            tags=tags,
        )
        if code == EXIT_USAGE or refused or not (folder / MANIFEST).is_file():
            sys.exit(code)
    if run_check:
        checked = _check_folder(folder, quiet)
        if checked != EXIT_OK and repo:
            click.echo("sts: not uploading: the check found the differences above", err=True)
            sys.exit(checked)
        code = max(code, checked)
    if repo:
        code = max(code, _push_folder(folder, repo, not public, dry_run))
    sys.exit(code)


def _publish_folder(
    inputs: tuple[str, ...], folder: Path, quiet: bool, **settings
) -> tuple[int, bool]:
    """Publish; the exit code, and whether it refused (findings await review)."""
    from sts.pipeline import UsageError
    from sts.publish import PublishOptions, publish
    from sts.publish.folder import REPORT, REVIEW
    from sts.publish.scanners import trufflehog
    from sts.redact.report import summary

    no_scanner = settings.pop("no_scanner")
    options = PublishOptions(**settings, scanner=None if no_scanner else trufflehog(),
                             problems=lambda problem: click.echo(str(problem), err=True))
    try:
        result = publish(inputs, folder, options)
    except UsageError as exc:
        click.echo(f"sts: {exc}", err=True)
        return EXIT_USAGE, False
    for warning in result.warnings:
        click.echo(f"sts: warning: {warning}", err=True)
    for entry in result.left_out:
        click.echo(f"sts: left out {entry['path']} ({entry['source']}): {entry['reason']}",
                   err=True)
    for entry in result.files:
        for warning in entry["warnings"]:
            click.echo(f"sts: warning: {entry['path']}: {warning}", err=True)
    for line in result.scanner_findings:
        click.echo(f"sts: scanner: {line}", err=True)
    if options.redaction is not None and not quiet:
        click.echo(f"sts: redaction: {summary(result.findings)}", err=True)
    if result.refused:
        click.echo(
            f"sts: refusing to publish: {len(result.flagged)} flagged string(s) and "
            f"{len(result.scanner_findings)} scanner finding(s) await review in "
            f"{folder / REPORT} (see them in place: {folder / REVIEW}); redact them "
            "(--secret), allow them (--allow), or pass --allow-findings once reviewed", err=True)
        return EXIT_PROBLEMS, True
    if not quiet:
        click.echo(f"sts: {len(result.files)} session file(s) written to {folder} "
                   f"({len(result.left_out)} left out)", err=True)
    return (EXIT_PROBLEMS if result.tally.errors else EXIT_OK), False


def _check_folder(folder: Path, quiet: bool) -> int:
    from sts.publish.check import MissingLoader, check

    try:
        result = check(folder)
    except MissingLoader as exc:
        click.echo(f"sts: {exc}", err=True)
        return EXIT_PROBLEMS
    for found in result.files:
        for problem in found.problems:
            click.echo(f"{folder / found.path}: check: {problem}", err=True)
    for problem in result.folder_problems:
        click.echo(f"{folder}: check: {problem}", err=True)
    if not quiet:
        traces = sum(f.trace and f.rows == 1 for f in result.files)
        click.echo(f"sts: check: {traces} of {len(result.files)} file(s) read as one trace each; "
                   f"the folder gives {result.folder_rows} row(s); "
                   f"{'all match' if result.ok else 'differences above'}", err=True)
    return EXIT_OK if result.ok else EXIT_PROBLEMS


def _push_folder(folder: Path, repo: str, private: bool, dry_run: bool) -> int:
    from sts.publish.push import plan, push

    try:
        upload = plan(folder, repo, private)
    except (ValueError, FileNotFoundError) as exc:
        click.echo(f"sts: {exc}", err=True)
        return EXIT_USAGE
    if dry_run:
        click.echo(upload.describe())
        return EXIT_OK
    try:
        url = push(upload)
    except ImportError as exc:
        click.echo(f"sts: {exc}", err=True)
        return EXIT_PROBLEMS
    click.echo(f"sts: uploaded to {url}", err=True)
    return EXIT_OK
