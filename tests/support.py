"""Helpers every test uses: reading inputs, writing both targets through the shared validator,
the shared corpus, and the real pi as an oracle."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sts.converters.base import Peek, ReadContext
from sts.converters.registry import detect, get_converter
from sts.model import ImagePart, MediaPart, Message, Session, TextPart
from sts.problems import Problem, Problems
from sts.validation import validate_bytes
from sts.writers import write_pi, write_sts
from sts.writers.common import placeholder
from tests.model_json import render
from tests.pi_judge import PiJudge

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases"
SAMPLES = ROOT / "samples"
CORPUS = ROOT.parent / "shared" / "corpus"
ORACLE_DIR = ROOT / "tests" / "pi_oracle"
PI_JUDGE = PiJudge(ORACLE_DIR / "judge.mjs")  # started on first use, closed by conftest


def corpus(*parts: str) -> Path:
    """A path inside ../shared/corpus; skips the test when the corpus is not there."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (a user's clone has no ../shared)")
    path = CORPUS.joinpath(*parts)
    assert path.exists(), f"corpus file missing: {path}"
    return path


def seed_files() -> list[Path]:
    """The samples, the test cases and (when present) the shared corpus: every JSON(L) file."""
    files = [*sorted(SAMPLES.glob("*")), *sorted(CASES.rglob("*"))]
    if CORPUS.is_dir():
        files += sorted(CORPUS.rglob("*"))
    return [f for f in files if f.is_file() and f.suffix in (".jsonl", ".json", ".ndjson")]


def detected(path: Path) -> str | None:
    """The format detection picks for the file (None when no converter recognises it)."""
    data = path.read_bytes()
    converter = detect(Peek(data[: 256 * 1024], path.name, len(data) <= 256 * 1024))
    return converter.name if converter is not None else None


def read_sessions(
    source: Path | bytes, fmt: str, policy: str = "skip", **options: Any
) -> tuple[list[Session], list[Problem]]:
    """Read every session of a file or bytes with converter `fmt`; return sessions and problems."""
    found: list[Problem] = []
    name = str(source) if isinstance(source, Path) else "<case>"
    problems = Problems(name, policy, found.append)  # type: ignore[arg-type]
    data = source if not isinstance(source, Path) else (  # a store folder: read through its path
        b"" if source.is_dir() else source.read_bytes())
    path = source if isinstance(source, Path) else None
    context = ReadContext(problems, path, {"subagents": True, **options})
    sessions = list(get_converter(fmt).read(io.BytesIO(data), context))
    problems.close()
    return sessions, found


def walk(sessions: list[Session]) -> Iterator[Session]:
    """Every session and, after each, its sub-agent sessions (depth first)."""
    for session in sessions:
        yield session
        yield from walk(session.children)


def linked_results(session: Session) -> list[tuple[str, str]]:
    """``(call id, result text)`` of each tool message, asserting that it answers a call made
    before it (the facts tests check about tool calls and their results)."""
    called: set[str] = set()
    pairs = []
    for message in session.messages:
        called.update(c.id for c in message.tool_calls)
        if message.role == "tool":
            assert message.tool_call_id in called, message
            pairs.append((message.tool_call_id or "", message.text))
    return pairs


def line_codes(problems: list[Problem]) -> list[tuple[int | None, str]]:
    """``(line, code)`` of each problem, in order: what tests assert about bad input."""
    return [(p.line, p.code) for p in problems]


def write_checked(session: Session, to: str, harness: str | None = None) -> bytes:
    """Write `session` as `to` and assert the output passes the shared validator."""
    out = io.BytesIO()
    (write_sts if to == "sts" else write_pi)(session, out, harness)
    data = out.getvalue()
    assert_valid(data, to)
    return data


def checked_model(sessions: Session | list[Session]) -> bytes:
    """What a reader snapshot holds: the sessions' model as JSON (`tests.model_json`), once
    every session and sub-agent has been written as both targets through the validator.

    Reader tests snapshot the model, not the writers' bytes, so that a writer change touches
    only the writer snapshots (tests/test_writers.py)."""
    sessions = [sessions] if isinstance(sessions, Session) else sessions
    for session in walk(sessions):
        write_checked(session, "sts")
        write_checked(session, "pi")
    return render(sessions)


def assert_valid(data: bytes, fmt: str) -> None:
    """Fail with every validator error when `data` is not a valid `fmt` file."""
    errors = [str(p) for p in validate_bytes(data, fmt) if p.severity == "error"]
    assert not errors, "invalid output:\n" + "\n".join(errors)


def lines(data: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL byte string."""
    return [json.loads(line) for line in data.split(b"\n") if line.strip()]


def sts_messages(data: bytes) -> list[dict[str, Any]]:
    """The ``message`` objects of an STS file."""
    return [line["message"] for line in lines(data)[1:]]


def node_available() -> bool:
    return shutil.which("node") is not None and (ORACLE_DIR / "node_modules").is_dir()


def pi_view(*files: Path | bytes) -> list[dict[str, Any]]:
    """What the real pi sees in each Pi file: header, name, branch (getBranch()), leaves, context.

    Each file is copied first, because pi rewrites old-version files in place. The one judge
    process of the run answers (`tests/pi_judge.py`). Skips the test when node or the npm
    package is missing (run `npm ci` in tests/pi_oracle).
    """
    if not node_available():
        pytest.skip("node or tests/pi_oracle/node_modules missing: the real pi cannot run")
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for index, item in enumerate(files):
            copy = Path(tmp) / f"{index}.jsonl"
            if isinstance(item, bytes):
                copy.write_bytes(item)
            else:
                shutil.copyfile(item, copy)
            copies.append(str(copy))
        views = PI_JUDGE.views(copies)
    assert len(views) == len(files)
    for view in views:
        assert "error" not in view, view.get("error")
    return views


def pi_agrees(session: Session) -> None:
    """Write both targets; the real pi's branch matches our messages one by one: roles, texts,
    tool-call ids, the ids results answer and their error flags."""
    write_checked(session, "sts")
    view = pi_view(write_checked(session, "pi"))[0]
    entries = [e for e in view["branch"] if e["type"] != "session_info"]
    assert len(entries) == len(session.messages)
    for entry, message in zip(entries, session.messages, strict=True):
        if message.role == "system":
            continue
        body = entry["message"]
        assert body["role"] == {"tool": "toolResult"}.get(message.role, message.role)
        if message.role == "assistant":
            calls = [b["id"] for b in body["content"] if b["type"] == "toolCall"]
            assert calls == [c.id for c in message.tool_calls]
        elif message.role == "tool":
            assert body["toolCallId"] == message.tool_call_id
            assert body["isError"] == bool(message.is_error)
        if message.role != "tool":
            assert pi_texts(body, message) == [
                p.text for p in message.content if type(p) is TextPart]


def pi_texts(body: dict[str, Any], message: Message) -> list[str]:
    """The text blocks of a pi message, less the placeholders written for its media parts."""
    stand_ins = {placeholder(p) for p in message.content if type(p) in (ImagePart, MediaPart)}
    texts = [b["text"] for b in body["content"] if b["type"] == "text"]
    return [t for t in texts if t not in stand_ins]
