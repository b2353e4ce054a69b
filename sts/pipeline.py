"""The conversion engine behind the CLI: one job per input, sessions streamed to their outputs.

A job opens its input (a file or stdin), picks the converter (``--from`` or detection), and
hands every session the converter yields to an `Emitter`, which decides the output name and
writes it atomically. Jobs run one after another or in worker processes (``-j``); each returns a
`JobResult` with its problems, which the caller prints and counts.
"""

from __future__ import annotations

import errno
import io
import itertools
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import suppress
from dataclasses import field, replace
from functools import lru_cache, partial
from pathlib import Path
from stat import S_ISLNK
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

from sts import spill
from sts.converters.base import Converter, Peek, ReadContext
from sts.converters.registry import converters, pick
from sts.io import atomic_output, open_binary, peek_stream
from sts.model import Message, Session, StreamedSession
from sts.names import file_stem
from sts.problems import ConversionFailed, Policy, Problem, Problems, Tally
from sts.records import Record, record
from sts.undated import InputTime
from sts.writers import WRITERS

if TYPE_CHECKING:  # imported when used: a run without --redact or -j starts without them
    from sts.redact import Finding, RedactionConfig, Redactor
    from sts.store import Store

OUTPUT_SUFFIX = ".jsonl"
_UNSAFE = r"[^A-Za-z0-9._-]+"  # compiled when first needed (re's cache): start-up
#: The characters `_UNSAFE` keeps: a name of only these is not searched.
_SAFE_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class UsageError(ValueError):
    """The request cannot be carried out as asked (exit code 2)."""


class OutputFailed(Exception):
    """An output could not be written; the message names it."""

    def __init__(self, path: Path | str, error: OSError) -> None:
        super().__init__(f"cannot write {path}: {error.strerror or error}")


@record
class Settings(Record):
    """What to convert to and how; the same for every job of a run."""

    to: str = "sts"
    source_format: str | None = None
    harness: str | None = None
    policy: Policy = "skip"
    subagents: bool = True
    options: dict[str, Any] = field(default_factory=dict)
    redaction: RedactionConfig | None = None
    #: A session whose output exists already is not written again (a re-run goes on where an
    #: earlier one stopped; outputs are written whole or not at all, so one that exists is done).
    resume: bool = False


@record
class Target(Record):
    """Where sessions go: ``stdout``, one ``file``, or a ``dir`` mirroring the inputs."""

    mode: Literal["stdout", "file", "dir"]
    path: Path | None = None
    protected: frozenset[Path] = frozenset()
    #: ``dir``: every input's own output path, which no session or sub-agent name may take.
    reserved: frozenset[Path] = frozenset()
    #: ``dir`` in an fsspec store (`sts.store.Store`): `path` is then relative to its folder.
    store: Store | None = None


@record
class Job(Record):
    """One input: a file (`source`) or stdin (`source` None); `rel` names its output in a dir.

    `walked` marks a file found by walking a directory: it is passed over when it belongs to
    another file's session (a sub-agent file, say), which the job finds out itself, so that the
    check runs in the workers rather than before them.
    """

    source: Path | None
    display: str
    rel: Path
    walked: bool = False
    unreadable: str | None = None  # a folder of the walk that could not be listed: why
    root: Path | None = None  # the folder walked, for a walked file
    url: str | None = None  # an input in an fsspec store (`source` is then None)


@record
class JobResult(Record):
    """What one job did: sessions written, problems, and how it ended.

    Nothing per session is kept (an input may hold millions of sessions).
    """

    display: str
    status: Literal["ok", "skipped", "failed", "companion"] = "ok"
    sessions: int = 0
    tally: Tally = field(default_factory=Tally)
    usage_error: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        """The problems the job kept (the first `sts.problems.KEEP`; `tally` counts them all)."""
        return self.tally.sample

    @property
    def errors(self) -> int:
        """How many error problems (not warnings) the job had."""
        return self.tally.errors

    def replay(self, sink: Callable[[Problem], None]) -> None:
        """Pass the kept problems on to `sink`, and then how many more there were."""
        for problem in self.tally.sample:
            sink(problem)
        note = self.tally.note_not_kept(self.display)
        if note is not None:
            sink(note)


def run_job(job: Job, target: Target, settings: Settings, sink=None) -> JobResult:
    """Convert one input; never raises for bad input (problems go into the result)."""
    result = JobResult(job.display)
    if job.walked and job.source is not None and is_companion(job.source, job.root):
        result.status = "companion"
        return result
    problems = Problems(job.display, settings.policy, sink, result.tally)
    if job.unreadable is not None:
        result.status = "failed"
        _report_quietly(problems, "io-error", f"folder not read: {job.unreadable}")
        return result
    try:
        _convert(job, target, settings, problems, result)
    except ConversionFailed:
        result.status = "failed"
    except UsageError as exc:
        result.status = "failed"
        result.usage_error = str(exc)
    except BrokenPipeError:  # the reader of the output went away (| head): stop, as cat does
        raise
    except OutputFailed as exc:
        result.status = "failed"
        _report_quietly(problems, "io-error", str(exc))
    except OSError as exc:
        result.status = "failed"
        _report_quietly(problems, "io-error", f"{exc.strerror or exc}")
    except Exception as exc:  # a converter bug must not become a traceback for the user
        result.status = "failed"
        _report_quietly(problems, "internal-error", f"{type(exc).__name__}: {exc}")
    return result


def _report_quietly(problems: Problems, code: str, text: str) -> None:
    with suppress(ConversionFailed):
        problems.error(None, code, text)


def _convert(
    job: Job, target: Target, settings: Settings, problems: Problems, result: JobResult
) -> None:
    undated = InputTime.of(job.source)
    if job.url is not None:
        from sts.store import open_input, url_time

        peek, stream = peek_stream(open_input(job.url), job.rel.name)
        undated = InputTime(partial(url_time, job.url))
    elif job.source is None:
        if sys.stdin is None:
            raise OSError(errno.EBADF, "standard input is closed")
        peek, stream = peek_stream(sys.stdin.buffer)
    else:
        peek, stream = open_source(job.source)
    with stream:
        converter = converter_for(peek, job.source, settings.source_format)
        if converter is None:
            result.status = "skipped"
            if peek.complete and not peek.data.strip():
                problems.error(None, "empty", "empty input: nothing to convert")
            else:
                problems.error(None, "unknown-format", unknown_format_text(job.display))
            return
        options = {"subagents": settings.subagents, **settings.options}
        emitter = Emitter(job, target, settings, problems, result)
        # sessions only written (redaction changes them): a long one may be streamed
        context = ReadContext(problems, job.source, converter.Options.of(options),
                              deferred=emitter.redactor is None)
        try:
            for session, last in one_behind(converter.read(stream, context), problems, undated):
                emitter.add(session, last)
            emitter.finish()
        except ConversionFailed:
            emitter.withdraw()  # --on-error fail: nothing written for this input
            raise



def unknown_format_text(display: str, force: str = "`--from FORMAT`") -> str:
    """What to say of an input no converter recognises: what was tried and how to go on."""
    tried = ", ".join(sorted(converters()))
    where = "-" if display == "<stdin>" else display
    return (f"not a format sts reads (tried {tried}); `sts detect -v {where}` shows each "
            f"one's confidence, {force} forces one")


def store_converter(folder: Path) -> Converter | None:
    """The converter that reads `folder` as one store (`Converter.claims_folder`), if any."""
    for converter in converters().values():
        if converter.claims_folder(folder):
            return converter
    return None


def open_source(path: Path) -> tuple[Peek, BinaryIO]:
    """A file's peek and stream; a store folder's empty ones (its converter reads the path)."""
    if path.is_dir():
        return Peek(b"", path.name, True), io.BytesIO(b"")
    return peek_stream(open_binary(path), path.name)


def converter_for(peek: Peek, path: Path | None, source_format: str | None
                  ) -> Converter | None:
    """``--from``'s converter, else the store converter of a folder, else detection's."""
    if source_format is None and path is not None and path.is_dir():
        return store_converter(path)
    return pick_converter(peek, source_format)


def pick_converter(peek: Peek, source_format: str | None) -> Converter | None:
    """The converter named by ``--from``, else the one detection prefers."""
    return pick(peek, source_format)


class OutputNames:
    """Distinct paths ``<stem>.<key>.jsonl`` for the sessions and sub-agents of one input.

    The key becomes one name segment without dots, so that a derived name never equals another
    input's derived names; one that equals an input's own output (`reserved`: ``chats.L1.jsonl``
    beside ``chats.jsonl``'s session ``L1``) or a name given already (keys that read alike once
    made safe, names cut to the length limit) gets ``-2``, ``-3``, ... in order: the same names
    every run.
    """

    def __init__(self, reserved: frozenset[Path] = frozenset()) -> None:
        self.reserved = reserved
        self.reserved_names = names_of(reserved)
        self.given: set[str] = set()

    def derive(self, beside: Path, key: str) -> Path:
        """The path for the session `key` beside the output `beside`."""
        stem = beside.name.removesuffix(OUTPUT_SUFFIX)
        name = fitting_name(f"{stem}.{safe_name(key).replace('.', '_')}")
        candidate = name
        for number in itertools.count(2):
            if candidate not in self.given:
                file = candidate + OUTPUT_SUFFIX
                path = beside.with_name(file)
                # a path is hashed (slow: its parts) only when a reserved path has its name
                if file not in self.reserved_names or path not in self.reserved:
                    self.given.add(candidate)
                    return path
            candidate = f"{name}-{number}"
        raise AssertionError("unreachable")


@lru_cache(maxsize=8)
def names_of(paths: frozenset[Path]) -> frozenset[str]:
    """The file names of `paths`, found once for each set (a run's reserved outputs, which every
    job of the run asks for: a frozenset keeps its hash, so asking again costs a look-up)."""
    return frozenset(path.name for path in paths)


class Emitter:
    """Names and writes the sessions of one job, one session behind the converter.

    Holding one session back lets a single-session input keep its plain name while an input with
    several sessions gets a per-session suffix, and lets stdout refuse a second session before
    writing anything. Raw lines kept under ``--on-error keep`` go into the header of the session
    whose reading reported them.
    """

    def __init__(
        self, job: Job, target: Target, settings: Settings, problems: Problems, result: JobResult
    ) -> None:
        self.job = job
        self.target = target
        self.settings = settings
        self.problems = problems
        self.result = result
        self.writer = WRITERS[settings.to]
        self.pending: Session | None = None
        self.count = 0
        self.resolved_dirs: dict[Path, Path] = {}
        #: folders of outputs written so far: whether each stays inside the output directory
        self.inside: dict[str, bool] = {}
        self.plain: Path | None = None  # the input's own output path, found once
        self.redactor = redactor_for(settings.redaction)
        self.names = OutputNames(target.reserved)
        #: ``--on-error fail``: the files written so far, removed if the input then fails
        self.written: list[Path] | None = [] if settings.policy == "fail" else None

    def add(self, session: Session, last: bool) -> None:
        """Write `session` (`last`: no session follows it in this input; see `one_behind`)."""
        self.count += 1
        single = self.count == 1 and last
        if not single and self.target.mode != "dir":
            raise UsageError(
                f"{self.job.display} holds several sessions: write them to a directory with "
                "-o DIR/ (the trailing / makes a new directory)"
            )
        self._write(session, None if single else self.count)

    def finish(self) -> None:
        if self.count == 0 and self.problems.error_count == 0:
            self.problems.error(None, "no-sessions", "no session found in this input")

    def _write(self, session: Session, index: int | None) -> None:
        harness = self.settings.harness
        if self.target.mode == "stdout":
            if sys.stdout is None:
                raise OutputFailed("<stdout>", OSError(errno.EBADF, "standard output is closed"))
            out = sys.stdout.buffer
            self._redact(session, "<stdout>")
            self.writer(session, out, harness, messages=released(session),
                        problems=self.problems)
            out.flush()
            self._note_children(session)
        elif self.target.mode == "file":
            assert self.target.path is not None
            self._write_file(session, self.target.path)
            self._note_children(session)
        else:
            path = self._dir_path(session, index)
            self._write_file(session, path)
            if self.settings.subagents:
                self._write_children(session, path)
        self.result.sessions += 1

    def _write_file(self, session: Session, path: Path) -> None:
        if self.target.store is not None:
            self._write_object(session, path, self.target.store)
            return
        if self.settings.resume and path.is_file():
            return  # written by an earlier run
        absent = self._check_destination(path)
        directory = self.target.mode == "dir"
        self._redact(session, str(path))
        try:
            with atomic_output(path, streams=not directory, absent=absent) as out:
                self.writer(session, out, self.settings.harness, messages=released(session),
                            problems=self.problems)
            if self.written is not None and directory:
                self.written.append(path)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailed(path, exc) from exc

    def _write_object(self, session: Session, path: Path, store: Store) -> None:
        """Write one session to its object in `store` (`path` relative to its folder)."""
        if self.settings.resume and store.exists(path.as_posix()):
            return
        url = store.url(path.as_posix())
        self._redact(session, url)
        try:
            store.write(path.as_posix(), lambda out: self.writer(
                session, out, self.settings.harness, messages=released(session),
                problems=self.problems))
        except OSError as exc:
            raise OutputFailed(url, exc) from exc

    def withdraw(self) -> None:
        """Remove the files this input wrote (its sessions before a failure under ``fail``)."""
        for path in self.written or ():
            with suppress(OSError):
                path.unlink()
        self.result.sessions = 0

    def _check_destination(self, path: Path) -> bool:
        """Refuse to write over an input, or (``dir``) outside the output directory through a
        symlinked folder or file. A path where nothing is yet cannot be an input: one lstat,
        and each folder's resolution once, for the many outputs of a batch or a stream. True
        when nothing is at `path`."""
        try:
            mode: int | None = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            mode = None
        if mode is not None:
            refuse_overwrite(path, self.target.protected, self.resolved_dirs)
        if self.target.mode != "dir":
            return mode is None
        link = mode is not None and S_ISLNK(mode)
        folder = os.path.dirname(path)
        inside = None if link else self.inside.get(folder)
        if inside is None:
            resolved = resolve_cached(path, self.resolved_dirs)
            inside = resolved.parent.is_relative_to(self._root())
            if not link:
                self.inside[folder] = inside
        if not inside:
            raise UsageError(
                f"refusing to write {path}: a symlinked folder leads outside {self.target.path}"
            )
        return mode is None

    def _root(self) -> Path:
        """The output directory, resolved once."""
        assert self.target.path is not None
        return resolve_cached(self.target.path / "x", self.resolved_dirs).parent

    def _redact(self, session: Session, file: str) -> None:
        """Redact one session (not its sub-agents, which are written, and redacted, apart)."""
        if self.redactor is not None:
            from sts.redact import redact_session
            from sts.redact.walk import locate

            findings = redact_session(session, self.redactor, children=False)
            locate(findings, session, file, self.settings.to)
            self.result.findings += findings

    def _dir_path(self, session: Session, index: int | None) -> Path:
        assert self.target.path is not None
        plain = self.plain
        if plain is None:
            plain = self.plain = output_path(self.target.path, self.job.rel)
        if index is None:
            return plain
        return self.names.derive(plain, session.key or str(index))

    def _write_children(self, session: Session, path: Path) -> None:
        if not session.children:
            return
        stack = [(iter(session.children), path)]  # iterative: sub-agents may nest deeply
        while stack:
            child = next(stack[-1][0], None)
            if child is None:
                stack.pop()
                continue
            child_path = self.names.derive(stack[-1][1], child.key or child.id)
            self._write_file(child, child_path)
            self.result.sessions += 1
            stack.append((iter(child.children), child_path))

    def _note_children(self, session: Session) -> None:
        count = count_children(session)
        if count and self.settings.subagents:
            self.problems.warning(
                None, "subagents-not-written",
                f"{count} sub-agent session(s) not written: use -o DIR to write them beside it",
            )


_REDACTORS: dict[int, tuple[RedactionConfig, Redactor]] = {}


def redactor_for(config: RedactionConfig | None) -> Redactor | None:
    """The `Redactor` of `config`, built once per process (its patterns compile once)."""
    if config is None:
        return None
    cached = _REDACTORS.get(id(config))
    if cached is None or cached[0] is not config:
        from sts.redact import Redactor

        cached = _REDACTORS[id(config)] = (config, Redactor(config))
    return cached[1]


def directory_target(name: str, jobs: list[Job]) -> Target:
    """The ``dir`` target `name` (a folder, or an fsspec URL) for `jobs`: inputs protected,
    every input's own output name reserved; ValueError when an output would be an input."""
    if "://" in name:
        from sts.store import Store, is_url, local_path

        if is_url(name):
            return Target("dir", Path(), store=Store(name))
        name = local_path(name)
    folders: dict[Path, Path] = {}
    protected = frozenset(
        resolve_cached(job.source, folders) for job in jobs if job.source is not None
    )
    output = Path(name)
    try:
        for job in jobs:
            refuse_overwrite(output_path(output, job.rel), protected, folders, job.display)
    except UsageError as exc:
        raise ValueError(str(exc)) from None
    reserved = frozenset(output_path(output, job.rel) for job in jobs)
    return Target("dir", output, protected, reserved)


def resolve_cached(path: Path, folders: dict[Path, Path]) -> Path:
    """`path.resolve()`, with each folder's resolution remembered in `folders` (many files, few
    folders: one lstat per file instead of one per path component)."""
    if path.is_symlink():
        return path.resolve()
    folder = folders.get(path.parent)
    if folder is None:
        folder = folders[path.parent] = path.parent.resolve()
    return folder / path.name


def output_path(directory: Path, rel: Path, suffix: str | None = None) -> Path:
    """Where an input named `rel` goes in `directory` (``<stem>[.<suffix>].jsonl``)."""
    stem = file_stem(rel.name)
    if suffix is not None:
        stem = f"{stem}.{suffix}"
    return directory / rel.parent / f"{stem}{OUTPUT_SUFFIX}"


def one_behind(
    sessions: Iterable[Session], problems: Problems, undated: InputTime | None = None
) -> Iterator[tuple[Session, bool]]:
    """Each session a converter yields, with whether it is the last, held back until the next
    one has been read: raw lines kept under ``--on-error keep`` reach the header of the session
    whose reading reported them, and a caller knows before writing the first whether there are
    several. The owner of the conversion's store of large texts (`sts.spill.TextStore`):
    current while the converter makes each session (and a streamed session its messages), its
    count started afresh once the caller has had each session; and the one place a session
    without any recorded time gets its input's fallback time (`undated`; default: the time of
    conversion, see `sts.undated`)."""
    texts = spill.TextStore()
    undated = undated or InputTime()
    pending: Session | None = None
    for session in texts.within(iter(sessions)):
        keep_raw_lines(session, problems)
        undated.date(session)
        if isinstance(session, StreamedSession):  # its sub-agents come once it is written
            session.stream = texts.within(_children_dated(session, session.stream, undated))
        if pending is not None:
            yield pending, False
            texts.reset()
        pending = session
    problems.close()  # what was only counted while reading (unknown record types)
    if pending is not None:
        keep_raw_lines(pending, problems)
        yield pending, True


def _children_dated(session: Session, stream: Iterator[Message], undated: InputTime
                    ) -> Iterator[Message]:
    """`stream`, then the sub-agents it made given their fallback times (`one_behind`)."""
    yield from stream
    for child in session.children:
        undated.date(child)


def released(session: Session) -> Iterator[Message]:
    """The session's messages in order, each one's slot in `session.messages` set to None once
    the writer has taken the next: a large session's texts are freed as its output is written
    (the driver owns the session; writers only read what they are given). A
    `StreamedSession`'s messages are made as they are taken, and kept by nobody."""
    if isinstance(session, StreamedSession):
        yield from session.stream
        return
    messages = session.messages
    for index, message in enumerate(messages):
        yield message
        messages[index] = None  # type: ignore[call-overload]


def refuse_overwrite(
    path: Path, protected: frozenset[Path], folders: dict[Path, Path], what: str | None = None
) -> None:
    """The one check that no output is written over an input: `UsageError` when `path`
    resolves (symlinks and ``..`` included) to one of the `protected` inputs."""
    if resolve_cached(path, folders) in protected:
        raise UsageError(f"refusing to write over the input {what or path}")


def keep_raw_lines(session: Session, problems: Problems) -> None:
    """Move the raw lines kept so far (``--on-error keep``) into `session`'s header metadata."""
    kept = problems.take_kept()
    if kept:
        session.metadata.setdefault("unparsedLines", []).extend(kept)


def count_children(session: Session) -> int:
    """How many sub-agent sessions hang below `session`, at any depth."""
    return sum(1 + count_children(child) for child in session.children)


#: Bytes a file name may have (NAME_MAX), the ``.jsonl`` and a ``-N`` clash suffix left room.
_NAME_BYTES = 255 - len(OUTPUT_SUFFIX) - 8


def fitting_name(stem: str) -> str:
    """`stem` when it makes a legal file name, else its head and a digest of the whole (so that
    two long names sharing a head stay apart, the same way every run)."""
    encoded = stem.encode("utf-8", "surrogateescape")
    if len(encoded) <= _NAME_BYTES:
        return stem
    import hashlib  # long names are rare: not imported at start-up

    digest = hashlib.sha256(encoded).hexdigest()[:16]
    head = encoded[: _NAME_BYTES - len(digest) - 1].decode("utf-8", "ignore")
    return f"{head}~{digest}"


def safe_name(text: str) -> str:
    """A file-name-safe form of a session key or id."""
    if not _SAFE_CHARACTERS.issuperset(text):
        text = re.sub(_UNSAFE, "_", text)
    return text.strip("._")[:120] or "session"


def plan_jobs(inputs: Iterable[str]) -> tuple[list[Job], bool]:
    """Expand the inputs into jobs; also say whether any input was a directory."""
    names = list(inputs) or ["-"]
    several = len(names) > 1
    jobs: list[Job] = []
    any_dir = False
    for name in names:
        if name == "-":
            jobs.append(Job(None, "<stdin>", Path("stdin.jsonl")))
            continue
        if "://" in name:
            from sts.store import is_url, list_inputs, local_path

            if is_url(name):
                found = list_inputs(name)
                walked = len(found) != 1 or found[0][0] != name
                any_dir = any_dir or walked
                top = Path(name.rstrip("/").rsplit("/", 1)[-1]) if several and walked else Path()
                jobs += [Job(None, url, top / rel, url=url) for url, rel in found]
                continue
            name = local_path(name)
        path = Path(name)
        if path.is_dir() and store_converter(path) is not None:
            any_dir = True  # a store holds several sessions: they need a folder
            jobs.append(Job(path, str(path), Path(path.resolve().name)))
        elif path.is_dir():
            any_dir = True
            prefix = Path(path.resolve().name) if several else Path()
            unreadable: list[tuple[Path, str]] = []
            for file in walk(path, unreadable):
                jobs.append(Job(file, str(file), prefix / file.relative_to(path), walked=True,
                                root=path))
            jobs += [Job(folder, str(folder), prefix / folder.relative_to(path), unreadable=why)
                     for folder, why in unreadable]
        else:
            jobs.append(Job(path, str(path), Path(path.name)))
    return distinct_outputs(jobs), any_dir


def distinct_outputs(jobs: list[Job]) -> list[Job]:
    """The jobs with output names made distinct, so that no output of a run overwrites another.

    Inputs whose outputs would share a name (``a.jsonl`` and ``a.json`` in one folder, or two
    ``a.jsonl`` given from different folders): a ``.jsonl`` input keeps the plain name, others
    keep their whole name (``a.json.jsonl``), and what still clashes gets ``-2``, ``-3``, ...
    """
    taken: set[Path] = set()
    renamed: dict[int, Job] = {}
    order = sorted(range(len(jobs)), key=lambda i: not jobs[i].rel.name.endswith(OUTPUT_SUFFIX))
    for i in order:
        rel = jobs[i].rel
        for candidate in _output_names(rel):
            key = candidate.parent / file_stem(candidate.name)
            if key not in taken:
                taken.add(key)
                renamed[i] = jobs[i] if candidate == rel else replace(jobs[i], rel=candidate)
                break
    return [renamed[i] for i in range(len(jobs))]


def _output_names(rel: Path) -> Iterator[Path]:
    yield rel
    yield rel.with_name(rel.name + OUTPUT_SUFFIX)
    stem = file_stem(rel.name)
    for n in itertools.count(2):
        yield rel.with_name(f"{stem}-{n}{OUTPUT_SUFFIX}")


def walk(directory: Path, unreadable: list[tuple[Path, str]] | None = None) -> Iterator[Path]:
    """Every regular file below `directory` in sorted order, hidden files and folders left out;
    a folder some converter reads as one store (`Converter.claims_folder`) in place of its files.

    A folder is entered once, by its real path: a symlink to a folder already entered (``x -> .``)
    or to one outside `directory` (``up -> ..``) is passed over, so that a loop ends and nothing
    outside the given tree is read as part of it. A folder that cannot be listed goes into
    `unreadable` with the reason, and the walk goes on.
    """
    root = directory.resolve()
    entered = {root}
    stack = [iter(_listing(directory, unreadable))]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            real = entry.resolve()
            if real in entered or (entry.is_symlink() and not real.is_relative_to(root)):
                continue
            entered.add(real)
            if store_converter(entry) is not None:
                yield entry  # a store: one input, its files read together
                continue
            stack.append(iter(_listing(entry, unreadable)))
        elif entry.is_file():
            yield entry


def _listing(folder: Path, unreadable: list[tuple[Path, str]] | None) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError as exc:
        if unreadable is not None:
            unreadable.append((folder, exc.strerror or str(exc)))
        return []


def is_companion(path: Path, root: Path | None = None) -> bool:
    """True when some converter reads `path` as part of another file's session converted in
    the same run (its main session inside `root`, the folder walked)."""
    return any(
        converter.is_companion(path, root) if _takes_root(type(converter))
        else converter.is_companion(path)
        for converter in converters().values()
    )


_TAKES_ROOT: dict[type, bool] = {}


def _takes_root(kind: type[Converter]) -> bool:
    """Whether a converter's `is_companion` takes the walked folder (older ones take the path
    only); found once per class."""
    found = _TAKES_ROOT.get(kind)
    if found is None:
        import inspect  # only for a walk, once per converter class

        found = _TAKES_ROOT[kind] = "root" in inspect.signature(kind.is_companion).parameters
    return found


def run_jobs(
    jobs: list[Job],
    target: Target,
    settings: Settings,
    workers: int,
    sink: Callable[[Problem], None] | None,
    on_result: Callable[[JobResult], None],
) -> None:
    """Run every job, in order, calling `on_result` after each.

    With one worker, problems reach `sink` as they happen; with several, each job's problems
    are replayed to `sink` when it ends. Under ``--on-error fail`` the run stops after the first
    job that failed.
    """
    if workers <= 1 or len(jobs) <= 1:
        deliver((run_job(job, target, settings, sink) for job in jobs), settings, None,
                on_result)
        return
    from sts.workers import results_in_order

    run = partial(run_job, target=target, settings=settings)
    deliver(results_in_order(jobs, run, workers, _lost), settings, sink, on_result)


def deliver(
    results: Generator[JobResult, None, None],
    settings: Settings,
    sink: Callable[[Problem], None] | None,
    on_result: Callable[[JobResult], None],
) -> None:
    """Each job's result as it comes (the jobs run as `results` is taken): its problems replayed
    to `sink` (given when they happened elsewhere: a worker process, a cluster), then
    `on_result`. Under ``--on-error fail`` none is taken after the first failed job; `results`
    is closed at the end (what it still runs is stopped)."""
    stop_on_failure = settings.policy == "fail"
    try:
        for result in results:
            if sink is not None:
                result.replay(sink)
            on_result(result)
            if stop_on_failure and result.status == "failed":
                return
    finally:
        results.close()


def _lost(job: Job) -> JobResult:
    """The result of a job whose worker process died."""
    result = JobResult(job.display, "failed")
    result.tally.add(
        Problem(job.display, None, "worker-died", "the worker process converting it died")
    )
    return result
