"""The model's JSON rendering (tests/model_json.py) holds everything the writers read: what
reader snapshots show is what the writers get."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sts.model import Session
from sts.undated import InputTime
from sts.writers import write_pi, write_sts
from tests.model_json import load, render
from tests.support import CASES, SAMPLES, detected, read_sessions, walk
from tests.test_writers import MODEL_FIXTURES, rich_session

READER_CASES = [
    (fmt, path)
    for path in [*sorted(SAMPLES.glob("*")), *sorted(CASES.rglob("*"))]
    if path.is_file() and (fmt := detected(path)) is not None
]


def outputs(sessions: list[Session]) -> list[bytes]:
    found = []
    for session in walk(sessions):
        for writer in (write_sts, write_pi):
            out = io.BytesIO()
            writer(session, out)
            found.append(out.getvalue())
    return found


def test_the_fixtures_and_cases_are_there() -> None:
    assert len(MODEL_FIXTURES) >= 5 and len(READER_CASES) >= 50


@pytest.mark.parametrize(("fmt", "path"), READER_CASES,
                         ids=[f"{f}:{p.relative_to(p.parents[1])}" for f, p in READER_CASES])
def test_a_rendered_model_loads_back_to_the_same_outputs(fmt: str, path: Path) -> None:
    sessions, _ = read_sessions(path, fmt)
    undated = InputTime.of(path)  # as the drivers do: else each write takes its own time
    for session in sessions:
        undated.date(session)
    rendered = render(sessions)
    again = load(rendered)
    assert outputs(again) == outputs(sessions)
    assert render(again) == rendered


def test_the_hand_built_session_survives_rendering() -> None:
    session = rich_session()
    assert outputs(load(render([session]))) == outputs([session])


@pytest.mark.parametrize("fixture", MODEL_FIXTURES, ids=lambda p: p.stem)
def test_the_fixtures_are_in_canonical_form(fixture: Path) -> None:
    assert render(load(fixture.read_bytes())) == fixture.read_bytes()


def test_defaults_are_left_out_and_parts_say_their_type() -> None:
    from sts.model import Message, TextPart

    data = render([Session("s", [Message("user", [TextPart("hi")])])])
    assert data == (b'[\n {\n  "id": "s",\n  "messages": [\n   {\n    "role": "user",\n'
                    b'    "content": [\n     {\n      "type": "text",\n      "text": "hi"\n'
                    b'     }\n    ]\n   }\n  ]\n }\n]\n')
