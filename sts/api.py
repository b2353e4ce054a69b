"""The Python API: read, write, convert, detect, validate, publish."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from sts.converters.base import ReadContext
from sts.converters.registry import check_options
from sts.converters.registry import detect as detect_converter
from sts.io import atomic_output, open_binary, peek_stream
from sts.model import Session
from sts.names import file_stem
from sts.pipeline import (
    JobResult,
    OutputNames,
    Settings,
    converter_for,
    directory_target,
    one_behind,
    open_source,
    plan_jobs,
    refuse_overwrite,
    run_jobs,
    unknown_format_text,
)
from sts.problems import Policy, Problem, Problems, print_to_stderr
from sts.undated import InputTime
from sts.validation import validate_bytes
from sts.writers import WRITERS

if TYPE_CHECKING:
    from sts.publish import PublishResult

Source = str | Path | BinaryIO | bytes


def read(
    source: Source,
    format: str | None = None,
    *,
    on_error: Policy = "skip",
    problems: Callable[[Problem], None] | None = None,
    **options: Any,
) -> Iterator[Session]:
    """Yield the sessions of `source` (a path, a binary file object or bytes).

    `format` names the source format (detected when None). Problems in the input are passed to
    `problems` (default: printed to stderr) and handled by `on_error` (``skip``, ``fail``:
    raise `ConversionFailed`, ``keep``: keep raw lines in the header). Extra keyword arguments
    are source options such as ``all_branches=True`` or ``subagents=False``; a name no converter
    takes (``all_branchs``) raises `sts.UnknownOption` (a TypeError) before anything is read.
    """
    check_options(options)
    return _read(source, format, on_error, problems, options)


def _read(
    source: Source,
    format: str | None,
    on_error: Policy,
    problems: Callable[[Problem], None] | None,
    options: dict[str, Any],
) -> Iterator[Session]:
    path, stream, name = _open(source)
    sink = problems if problems is not None else print_to_stderr
    report = Problems(name, on_error, sink)
    with stream:
        if path is not None and path.is_dir():
            peek, stream = open_source(path)
        else:
            peek, stream = peek_stream(stream, path.name if path is not None else None)
        converter = converter_for(peek, path, format)
        if converter is None:
            raise ValueError(f"{name}: {unknown_format_text(name, 'format=NAME')}")
        context = ReadContext(report, path, converter.Options.of(options))
        found = False
        undated = InputTime.of(path)
        for session, _ in one_behind(converter.read(stream, context), report, undated):
            found = True
            yield session
        if not found and report.error_count == 0:  # as the command says: never gone silently
            report.error(None, "no-sessions", "no session found in this input")


def write(
    session: Session,
    destination: str | Path | BinaryIO,
    to: str = "sts",
    harness: str | None = None,
) -> None:
    """Write one session as ``sts`` or ``pi`` to a path (atomically) or a binary file object.

    `harness` overrides the session's own harness id.
    """
    writer = WRITERS[to]
    if isinstance(destination, (str, Path)):
        with atomic_output(Path(destination)) as out:
            writer(session, out, harness)
    else:
        writer(session, destination, harness)


def convert(
    source: Source,
    destination: str | Path,
    to: str = "sts",
    format: str | None = None,
    harness: str | None = None,
    **options: Any,
) -> list[Path]:
    """Convert every session of `source` into the directory `destination`; return the files.

    Files are named after the source (``<stem>.jsonl``; ``<stem>.<key>.jsonl`` for each session
    when there are several, and for sub-agents). Sessions are converted one at a time, so an
    input holding millions of them needs no more memory than one. Raises ValueError rather than
    write over the source.
    """
    directory = Path(destination)
    path = Path(source) if isinstance(source, (str, Path)) else None
    stem = file_stem(path.name) if path is not None else "session"
    protected = frozenset((path.resolve(),)) if path is not None else frozenset()
    folders: dict[Path, Path] = {}
    plain = directory / f"{stem}.jsonl"
    names = OutputNames(frozenset((plain,)))
    written: list[Path] = []

    def emit(session: Session, path: Path) -> None:
        refuse_overwrite(path, protected, folders)  # a ValueError
        write(session, path, to, harness)
        written.append(path)
        for child in session.children:
            emit(child, names.derive(path, child.key or child.id))

    def suffixed(session: Session, index: int) -> Path:
        return names.derive(plain, session.key or str(index))

    sessions = read(source, format, **options)
    first = next(sessions, None)
    second = next(sessions, None)
    if second is None:
        if first is not None:
            emit(first, plain)
        return written
    emit(first, suffixed(first, 1))  # type: ignore[arg-type]
    emit(second, suffixed(second, 2))
    for index, session in enumerate(sessions, 3):
        emit(session, suffixed(session, index))
    return written


def convert_many(
    inputs: Iterable[str | Path],
    destination: str | Path,
    to: str = "sts",
    format: str | None = None,
    harness: str | None = None,
    *,
    on_error: Policy = "skip",
    problems: Callable[[Problem], None] | None = None,
    client: Any = None,
    resume: bool | None = None,
    **options: Any,
) -> list[JobResult]:
    """Convert files and folders (paths or fsspec URLs such as ``s3://bucket/sessions/``) into
    the folder `destination` (a path or URL), as ``sts convert INPUTS -o DIR/`` does; return one
    `JobResult` per input, in input order.

    With a Dask `client` (``distributed.Client``), the inputs are converted on its cluster (each
    worker must reach them: a shared folder or URLs) and outputs already written are kept
    (`resume`, on by default there): a re-run goes on where an earlier one stopped. Problems from
    every worker reach `problems` (default: printed to stderr) with their file and line.
    """
    check_options(options)
    subagents = options.pop("subagents", True)
    jobs, _ = plan_jobs([str(name) for name in inputs])
    target = directory_target(str(destination), jobs)
    settings = Settings(to, format, harness, on_error, subagents, options,
                        resume=client is not None if resume is None else resume)
    sink = problems if problems is not None else print_to_stderr
    results: list[JobResult] = []
    if client is None:
        run_jobs(jobs, target, settings, 1, sink, results.append)
    else:
        from sts import cluster

        cluster.run_jobs(client, jobs, target, settings, sink, results.append)
    return results


def publish(
    inputs: str | Path | Session | Iterable[str | Path | Session],
    directory: str | Path,
    **options: Any,
) -> PublishResult:
    """Publish sessions to a folder ready for ``hf upload`` (see ``sts publish``).

    `inputs` are files, folders or `Session` objects (one or an iterable of them). Keyword
    arguments are `sts.publish.PublishOptions` fields: ``to="pi"``, ``harness``,
    ``redaction=RedactionConfig(...)`` (None: no redaction), ``allow_findings``,
    ``drop_images``, ``max_tool_output``, ``license``, ``pretty_name``, ``tags``. Returns the
    `PublishResult` (files, left-out sessions, findings, ``refused``).
    """
    from sts.publish import PublishOptions
    from sts.publish import publish as run

    if isinstance(inputs, (str, Path, Session)):
        inputs = [inputs]
    return run(inputs, directory, PublishOptions(**options))


def detect(source: Source) -> str | None:
    """The detected source format name of `source`, or None."""
    path, stream, _ = _open(source)
    with stream:
        peek, _ = peek_stream(stream, path.name if path is not None else None)
    converter = converter_for(peek, path, None) if path is not None else detect_converter(peek)
    return converter.name if converter is not None else None


def validate(source: str | Path | bytes, format: str | None = None) -> list[Problem]:
    """Check an STS or Pi file (path or bytes) against its spec; [] when valid."""
    if isinstance(source, bytes):
        return validate_bytes(source, format)
    return validate_bytes(Path(source).read_bytes(), format, str(source))


def _open(source: Source) -> tuple[Path | None, BinaryIO, str]:
    if isinstance(source, bytes):
        return None, io.BytesIO(source), "<bytes>"
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():  # a store folder: its converter reads the path
            return path, io.BytesIO(b""), str(path)
        return path, open_binary(path), str(path)
    return None, source, getattr(source, "name", "<stream>")


