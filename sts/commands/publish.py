"""``sts publish``: a folder ready for the Hub, checked with its loader and uploaded on request
(`sts.publish` does the work)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sts.commands import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, redaction_config, redaction_options
from sts.converters.registry import converters
from sts.writers import WRITERS


@click.command()
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
