"""``sts publish``: inputs → a folder ready for ``hf upload``.

Layout (the card's ``configs`` select ``data/`` only, so the loader sees nothing but traces)::

    OUT/README.md                          dataset card: YAML (configs, license, tags), summary
    OUT/data/<harness>/<session>.jsonl     one session per file, named after the session id
    OUT/data/<harness>/<session>.<agent>.jsonl   a sub-agent, beside the session that ran it
    OUT/_sts/manifest.json                 every file: session, parent, counts, size, warnings
    OUT/_sts/redaction-report.json         every finding: file, line, path, rule, preview
    OUT/_sts/redaction-review.html         `sts view` of the redacted sessions, findings marked

Every session is prepared (images dropped and long tool outputs cut when asked), redacted, and
written to a staging folder inside OUT; a file the Hub's loader would not read as one trace is
left out and listed. The staging folder replaces ``data/`` only when no finding is left for
review (or `allow_findings`): otherwise only the report is written, so that nothing unreviewed
can be uploaded from OUT.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from sts.converters.base import ReadContext
from sts.io import atomic_output
from sts.model import ImagePart, MediaPart, Session, TextPart
from sts.pipeline import (
    UsageError,
    converter_for,
    is_companion,
    one_behind,
    open_source,
    plan_jobs,
    safe_name,
)
from sts.problems import Problem, Problems, Tally
from sts.publish.card import dataset_card
from sts.publish.shape import stats
from sts.redact import Finding, RedactionConfig, Redactor, redact_session
from sts.redact.report import write_report
from sts.redact.walk import locate
from sts.undated import InputTime
from sts.writers import WRITERS

DATA = "data"
META = "_sts"
MANIFEST = f"{META}/manifest.json"
REPORT = f"{META}/redaction-report.json"
REVIEW = f"{META}/redaction-review.html"
#: Above this a session may not render in the Hub's session view (its first-rows budget).
SIZE_WARNING = 1_000_000
STS_WARNING = (
    "STS target: the Hub's dataset loader reads STS files as Pi today, so its rows show no "
    "tool calls and no times (the trace viewer itself renders STS); publish Pi (the default) "
    "for complete rows"
)


@dataclass
class PublishOptions:
    """How to publish. `redaction` None turns redaction off (not advised)."""

    to: str = "pi"
    harness: str | None = None
    source_format: str | None = None
    subagents: bool = True
    options: dict[str, Any] = field(default_factory=dict)
    redaction: RedactionConfig | None = field(default_factory=RedactionConfig)
    allow_findings: bool = False
    drop_images: bool = False
    max_tool_output: int | None = None
    license: str = "other"
    pretty_name: str | None = None
    tags: tuple[str, ...] = ()
    scanner: Callable[[Path], list[str]] | None = None
    #: where each input problem goes as it happens (the command prints it); the result's
    #: `tally` counts them all and keeps the first `sts.problems.KEEP` of the whole run
    problems: Callable[[Problem], None] | None = None


@dataclass
class PublishResult:
    """What a publish run did. `refused` is True when findings await review (nothing written
    but the report). `tally` counts the inputs' problems and keeps the first ones."""

    directory: Path
    files: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    warnings: list[str] = field(default_factory=list)
    scanner_findings: list[str] = field(default_factory=list)
    refused: bool = False

    @property
    def problems(self) -> list[Problem]:
        """The input problems kept (the first `sts.problems.KEEP`; `tally` counts them all)."""
        return self.tally.sample

    @property
    def flagged(self) -> list[Finding]:
        """Findings only flagged (not rewritten): what a person must review."""
        return [f for f in self.findings if f.action == "flagged"]


def publish(
    inputs: Iterable[str | Path | Session],
    directory: str | Path,
    options: PublishOptions | None = None,
) -> PublishResult:
    """Convert, redact and lay out `inputs` as a Hub dataset in `directory`.

    An input is a file or folder to convert, or a `Session` an export script built."""
    options = options or PublishOptions()
    if options.to not in WRITERS:
        raise UsageError(f"unknown target {options.to!r}")
    inputs = list(inputs)
    out = Path(directory)
    _check_destination(out, [Path(i) for i in inputs if not isinstance(i, Session)])
    result = PublishResult(out)
    if options.to == "sts":
        result.warnings.append(STS_WARNING)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".sts-staging-", dir=out))
    try:
        _Publisher(options, result, staging).run(inputs)
        if options.redaction is not None and result.files:
            from sts.view.redaction import write_review  # the page to review findings on

            write_review(staging, result.files, result.findings, out / REVIEW)
        if options.scanner is not None and result.files:
            result.scanner_findings = options.scanner(staging)
        result.refused = bool(
            (result.flagged or result.scanner_findings) and not options.allow_findings
        )
        _finish(out, staging, result, options)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return result


def _check_destination(out: Path, inputs: list[Path]) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file: publish writes a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / META).is_dir():
        raise UsageError(f"{out} is not empty and holds no earlier publish: choose a new folder")
    resolved = out.resolve()
    for source in inputs:
        source = source.resolve()
        if source == resolved or resolved in source.parents or source in resolved.parents:
            raise UsageError(f"{out} overlaps the input {source}: choose another folder")


class _Publisher:
    def __init__(self, options: PublishOptions, result: PublishResult, staging: Path) -> None:
        self.options = options
        self.result = result
        self.staging = staging
        self.writer = WRITERS[options.to]
        self.redactor = Redactor(options.redaction) if options.redaction is not None else None
        self.taken: set[str] = set()

    def run(self, inputs: list[str | Path | Session]) -> None:
        for session in inputs:
            if isinstance(session, Session):
                self.add(session, session.id, None)
        paths = [str(i) for i in inputs if not isinstance(i, Session)]
        if not paths:
            return
        jobs, _ = plan_jobs(paths)
        for job in jobs:
            if job.source is None:
                raise UsageError("publish reads files and folders, not stdin")
            if job.walked and is_companion(job.source, job.root):
                continue  # read with the session that claims it (a sub-agent file)
            self.read(job.source, job.display)

    def read(self, path: Path, display: str) -> None:
        problems = Problems(display, "skip", self.options.problems, self.result.tally)
        peek, stream = open_source(path)
        with stream:
            converter = converter_for(peek, path, self.options.source_format)
            if converter is None:
                problems.error(None, "unknown-format", "no converter recognises this input")
                return
            context = ReadContext(
                problems, path, {"subagents": self.options.subagents, **self.options.options}
            )
            try:
                sessions = converter.read(stream, context)
                for session, _ in one_behind(sessions, problems, InputTime.of(path)):
                    self.add(session, display, None)
            except Exception as exc:  # a converter bug: report it, publish the rest
                problems.error(None, "internal-error", f"{type(exc).__name__}: {exc}")

    def add(self, session: Session, source: str, parent: dict[str, Any] | None) -> None:
        harness = self.options.harness or session.harness or "unknown"
        prepare(session, self.options.drop_images, self.options.max_tool_output)
        findings: list[Finding] = []
        if self.redactor is not None:  # first: the file is named after the redacted id
            findings = redact_session(session, self.redactor, children=False)
        if parent is None:
            stem = f"{DATA}/{safe_name(harness)}/{safe_name(session.id)}"
        else:
            stem = f"{parent['path'].removesuffix('.jsonl')}.{safe_name(session.key or session.id)}"
        name = self.unique(stem)
        locate(findings, session, name, self.options.to)
        children = session.children
        buffer = io.BytesIO()
        self.writer(session, buffer, self.options.harness)
        data = buffer.getvalue()
        facts = stats(data)
        entry: dict[str, Any] = {
            "path": name,
            "session": session.id,
            "name": session.name,
            "harness": harness,
            "source": self.source_label(source),
            "parent": parent["path"] if parent else None,
            "messages": facts["messages"],
            "userMessages": facts["userMessages"],
            "toolCalls": facts["toolCalls"],
            "firstUserAt": facts["firstUserAt"],
            "startedAt": session.started_at,
            "bytes": len(data),
            "warnings": [],
        }
        if facts["timestampFallback"] is not None:  # its times are no record: no dates from it
            entry["timestampFallback"] = facts["timestampFallback"]
        if facts["shapeProblem"] is not None:
            entry["reason"] = facts["shapeProblem"]
            self.result.left_out.append(entry)
            self.taken.discard(name)
        else:
            if len(data) > SIZE_WARNING:
                entry["warnings"].append(
                    f"{len(data) / 1e6:.1f} MB: the Hub's session view may not render a session "
                    "above ~1 MB (--drop-images, --max-tool-output N)"
                )
            with atomic_output(self.staging / name) as out:
                out.write(data)
            self.result.files.append(entry)
            self.result.findings += findings
        for child in children:
            self.add(child, source, entry)

    def unique(self, stem: str) -> str:
        name = f"{stem}.jsonl"
        number = 2
        while name in self.taken:
            name = f"{stem}-{number}.jsonl"
            number += 1
        self.taken.add(name)
        return name

    def source_label(self, source: str) -> str:
        label = Path(source).name
        if self.redactor is not None:
            label, _ = self.redactor.text(label)
        return label


def prepare(session: Session, drop_images: bool, max_tool_output: int | None) -> None:
    """Shrink a session for the Hub: inline images become placeholders (`drop_images`), tool
    outputs longer than `max_tool_output` characters keep their head and tail around a marker."""
    for message in session.messages:
        if message is None:
            continue
        if drop_images:
            message.content = [
                MediaPart("image", part.media_type, None, part.size)
                if type(part) is ImagePart and part.data else part
                for part in message.content
            ]
        if max_tool_output is not None and message.role == "tool":
            message.content = [
                TextPart(cut(part.text, max_tool_output))
                if type(part) is TextPart and len(part.text) > max_tool_output else part
                for part in message.content
            ]


def cut(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters: head, a marker saying how much went, tail."""
    half = max(limit // 2, 1)
    removed = len(text) - 2 * half
    return f"{text[:half]}\n[… {removed} characters cut by sts publish …]\n{text[-half:]}"


def _finish(out: Path, staging: Path, result: PublishResult, options: PublishOptions) -> None:
    meta = out / META
    meta.mkdir(exist_ok=True)
    summary = {
        "refused": result.refused,
        "allowFindings": options.allow_findings,
        "scanner": result.scanner_findings,
    }
    write_report(out / REPORT, result.findings, **summary)
    if result.refused:
        return
    data = out / DATA
    if data.exists():
        shutil.rmtree(data)
    if (staging / DATA).exists():
        (staging / DATA).rename(data)
    manifest = {
        "version": 1,
        "tool": f"sts-convert {_version()}",
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "target": options.to,
        "dataFiles": f"{DATA}/**/*.jsonl",
        "redaction": options.redaction is not None,
        "files": result.files,
        "leftOut": result.left_out,
    }
    with atomic_output(out / MANIFEST) as handle:
        handle.write(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
    card = dataset_card(result.files, options, result.findings)
    with atomic_output(out / "README.md") as handle:
        handle.write(card.encode("utf-8"))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sts-convert")
    except PackageNotFoundError:
        return "unknown"
