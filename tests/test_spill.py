"""Large texts held in a temporary file (`sts.spill`): the store itself, the budget policy, the
`TextPart` that wraps a stored text, and the guarantee that matters: every seed file converts to
byte-identical output whether its texts stay in memory or are all stored."""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import sts
from sts import spill
from sts.model import Message, Session, TextPart
from sts.spill import SpillFile, StoredText
from sts.validation import validate_bytes
from sts.writers import write_pi, write_sts
from tests.support import detected, seed_files, walk, write_checked

TRICKY = 'quote " backslash \\ newline \n tab \t nul \x00 é 中文 🙂 \u2028 end'


@pytest.fixture(autouse=True)
def store() -> Iterator[spill.TextStore]:
    """A store of its own current for each test, as a conversion's driver makes one."""
    with spill.TextStore().current() as store:
        yield store


@pytest.fixture
def store_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text of one character or more goes to the temporary file."""
    monkeypatch.setattr(spill, "BUDGET", 0)
    monkeypatch.setattr(spill, "MIN_CHARS", 1)


def test_texts_read_back_across_flushes(monkeypatch):
    monkeypatch.setattr(spill, "_FLUSH_AT", 64)
    store = SpillFile()
    texts = [f"{i}:{TRICKY * (i % 5)}".encode() for i in range(200)]
    offsets = [store.add(t) for t in texts]
    assert store._written > 0 and store._buffer  # some on disk, some still buffered
    assert [store.read(o, len(t)) for o, t in zip(offsets, texts, strict=True)] == texts


def test_short_texts_and_the_budget_stay_in_memory(monkeypatch, store):
    monkeypatch.setattr(spill, "BUDGET", 10_000)
    short = "x" * (spill.MIN_CHARS - 1)
    assert spill.keep(short) is short
    first = "a" * 9_000
    assert spill.keep(first) is first  # within the budget
    second = spill.keep("b" * 9_000)
    assert type(second) is StoredText and second.load() == "b" * 9_000
    store.reset()
    third = "c" * 9_000
    assert spill.keep(third) is third  # a new session counts from zero


def test_nothing_is_stored_while_paused(store_everything):
    with spill.paused():
        text = "streamed " * 100
        assert spill.keep(text) is text
    assert type(spill.keep(text)) is StoredText


def test_outside_a_conversion_texts_stay_in_memory(store_everything):
    import contextvars

    text = "no conversion " * 100
    assert contextvars.Context().run(spill.keep, text) is text  # no store current there
    assert type(spill.keep(text)) is StoredText


def test_interleaved_conversions_in_threads_keep_their_own_store(monkeypatch):
    """Two conversions in two threads, their steps interleaved: each session counts its own
    budget, one's pause (a streamed session) and one's reset at a session boundary leave the
    other alone, and every stored text reads back and is written as it was."""
    import sys
    import threading

    from sts.pipeline import one_behind
    from sts.problems import Problems

    big = [f"{n}: {TRICKY * 20}" for n in range(6)]
    monkeypatch.setattr(spill, "BUDGET", sys.getsizeof(big[0]) * 3 // 2)  # room for one
    began, made_0, paused, made_1, reset = (threading.Event() for _ in range(5))
    got: dict[str, list[Session]] = {}

    def session(name: str, parts: list[TextPart]) -> Session:
        return Session(name, [Message("user", [p]) for p in parts], started_at=1_751_385_600_000)

    def first() -> Iterator[Session]:  # one big session
        began.wait(10)
        parts = [TextPart(big[0])]  # within this session's budget
        made_0.set()
        paused.wait(10)
        parts.append(TextPart(big[1]))  # past it: stored, while the other conversion is paused
        made_1.set()
        reset.wait(10)
        parts.append(TextPart(big[2]))  # still past it, the other having started a new session
        yield session("first", parts)

    def second() -> Iterator[Session]:  # two sessions
        began.set()
        made_0.wait(10)
        parts = [TextPart(big[3])]  # within its own budget, whatever the first holds
        with spill.paused():  # this conversion's pause only
            parts.append(TextPart(big[4]))
            paused.set()
            made_1.wait(10)
        yield session("second", parts)
        yield session("third", [TextPart(big[5])])  # counted with "second", read before it is had
        reset.set()  # "second" was had: this conversion's store has started afresh

    def convert(name: str, sessions: Iterator[Session]) -> None:
        problems = Problems(name, sink=None)
        got[name] = [s for s, _ in one_behind(sessions, problems)]

    threads = [threading.Thread(target=convert, args=(name, made)) for name, made in
               (("a", first()), ("b", second()))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    kinds = {s.id: [type(m.content[0].value) for m in s.messages]
             for s in got["a"] + got["b"]}
    assert kinds == {"first": [str, StoredText, StoredText], "second": [str, str],
                     "third": [StoredText]}
    for made, texts in zip(got["a"] + got["b"], (big[0:3], big[3:5], big[5:]), strict=True):
        assert [m.text for m in made.messages] == texts
        with spill.paused():
            plain = session(made.id, [TextPart(t) for t in texts])
        assert type(plain.messages[0].content[0].value) is str
        for writer in (write_sts, write_pi):
            a, b = io.BytesIO(), io.BytesIO()
            writer(made, a)
            writer(plain, b)
            assert a.getvalue() == b.getvalue()


def test_stored_text_is_its_json_literal(store_everything):
    stored = spill.keep(TRICKY)
    assert type(stored) is StoredText
    assert stored.load() == TRICKY
    assert stored.json().startswith(b'"') and stored.json().endswith(b'"')


def test_lone_surrogates_stay_in_memory(store_everything):
    text = "broken \udcff half"
    assert spill.keep(text) is text


def test_a_failing_temporary_file_keeps_texts_in_memory(store_everything, monkeypatch):
    def full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(SpillFile, "add", full)
    assert spill.keep("one") == "one"
    assert spill.keep("two") == "two"


def test_text_part_wraps_a_stored_text(store_everything):
    part = TextPart(TRICKY)
    assert type(part.value) is StoredText
    assert part.text == TRICKY
    assert part == TextPart(TRICKY) and part != TextPart("other")
    assert repr(part) == f"TextPart(text={TRICKY!r})"
    restored = pickle.loads(pickle.dumps(part))
    assert restored.text == TRICKY
    part.text = "changed"
    assert part.value == "changed"


def test_writers_copy_a_stored_text_exactly(monkeypatch):
    def session() -> Session:
        # a recorded start: an undated session would take the time of each write
        return Session("s", [Message("user", [TextPart(TRICKY)]),
                             Message("assistant", [TextPart("ok")])], started_at=1_751_385_600_000)

    plain = session()
    assert type(plain.messages[0].content[0].value) is str
    monkeypatch.setattr(spill, "BUDGET", 0)
    monkeypatch.setattr(spill, "MIN_CHARS", 1)
    stored = session()
    assert all(type(m.content[0].value) is StoredText for m in stored.messages)
    for writer in (write_sts, write_pi):
        a, b = io.BytesIO(), io.BytesIO()
        writer(stored, a)
        writer(plain, b)
        assert a.getvalue() == b.getvalue()


def _convert_all(path: Path, fmt: str) -> tuple[bytes, int, int]:
    """Every session and sub-agent of `path` written to STS and Pi, joined; the number of
    non-empty text parts, and how many of them are stored."""
    out, texts, stored = io.BytesIO(), 0, 0
    for session in walk(list(sts.read(path, fmt, problems=lambda problem: None))):
        for message in session.messages:
            for part in message.content:
                if type(part) is TextPart and part.text:
                    texts += 1
                    stored += type(part.value) is StoredText
        out.write(write_checked(session, "sts"))
        out.write(write_checked(session, "pi"))
    return out.getvalue(), texts, stored


SEEDS = [(fmt, path) for path in seed_files() if (fmt := detected(path)) is not None]


@pytest.mark.parametrize(("fmt", "path"), SEEDS, ids=[f"{f}:{p.name}" for f, p in SEEDS])
def test_stored_texts_give_the_same_output(fmt, path, monkeypatch):
    monkeypatch.setattr(spill, "BUDGET", 1 << 40)
    in_memory, texts, none_stored = _convert_all(path, fmt)
    assert none_stored == 0
    monkeypatch.setattr(spill, "BUDGET", 0)
    monkeypatch.setattr(spill, "MIN_CHARS", 1)
    output, same_texts, stored = _convert_all(path, fmt)
    assert output == in_memory
    assert same_texts == texts
    assert stored > 0 or texts == 0


def test_the_cli_stores_texts_of_a_big_session(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sts.cli import main

    monkeypatch.setattr(spill, "BUDGET", 0)
    source = tmp_path / "big.sts.jsonl"
    rows = [{"type": "session", "harness": "h", "id": "big"}]
    rows += [{"type": "message", "message": {"role": "user", "content": f"{i} {TRICKY * 100}"}}
             for i in range(50)]
    source.write_bytes(b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["convert", str(source), "--to", "sts", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == source.read_bytes()


def test_texts_stored_from_several_threads_read_back(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(spill, "_FLUSH_AT", 4096)
    store = SpillFile()
    texts = [f"{i}:{TRICKY * (i % 7)}".encode() for i in range(4000)]

    def round_trip(text: bytes) -> bytes:  # each read races the other threads' adds and flushes
        return store.read(store.add(text), len(text))

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(round_trip, texts)) == texts


def _disk_filling_after(monkeypatch: pytest.MonkeyPatch, room: int, chunk: int) -> None:
    """`os.write` in the spill module writes at most `chunk` bytes at a time (short writes) and
    raises ENOSPC once `room` bytes are written, as on a small tmpfs."""
    import errno
    import os

    written = [0]
    real_write = os.write

    def write(fd: int, data) -> int:  # type: ignore[no-untyped-def]
        left = room - written[0]
        if left <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        count = real_write(fd, bytes(data[: min(chunk, left)]))
        written[0] += count
        return count

    monkeypatch.setattr(spill.os, "write", write)


@pytest.mark.parametrize("room", [0, 100, 1000, 5000])
def test_a_full_temporary_dir_never_corrupts_a_text(monkeypatch, room):
    monkeypatch.setattr(spill, "_FLUSH_AT", 600)
    _disk_filling_after(monkeypatch, room, chunk=37)
    store = SpillFile()
    texts = [f"{i}:{TRICKY * (i % 5 + 1)}".encode() for i in range(100)]
    offsets = []
    for text in texts:
        try:
            offsets.append(store.add(text))
        except OSError:
            break
    assert offsets, "the first texts fit in the buffer"
    assert [store.read(o, len(t)) for o, t in zip(offsets, texts, strict=False)] == texts[
        : len(offsets)
    ]


def test_the_cli_writes_whole_lines_when_the_temporary_dir_fills(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sts.cli import main

    monkeypatch.setattr(spill, "BUDGET", 0)
    monkeypatch.setattr(spill, "_FLUSH_AT", 5000)
    _disk_filling_after(monkeypatch, 7000, chunk=999)
    source = tmp_path / "big.sts.jsonl"
    rows = [{"type": "session", "harness": "h", "id": "big"}]
    rows += [{"type": "message", "message": {"role": "user", "content": f"{i} {TRICKY * 20}"}}
             for i in range(50)]
    source.write_bytes(b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows))
    for to in ("sts", "pi"):
        out = tmp_path / f"out.{to}.jsonl"
        result = CliRunner().invoke(main, ["convert", str(source), "--to", to, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert validate_bytes(out.read_bytes(), to, str(out)) == []
        if to == "sts":
            assert out.read_bytes() == source.read_bytes()
