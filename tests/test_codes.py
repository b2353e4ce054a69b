"""The registry of problem codes (sts/codes.py) is exact: every code the source emits is in it,
every code in it is emitted somewhere, and strict mode (on for the test suite) rejects others."""

from __future__ import annotations

import ast

import pytest

from sts import codes
from sts.problems import Problem, Problems
from sts.validation import _Checker
from tests.support import ROOT

# (call name, index of the code among its positional arguments)
EMITTERS = {"error": 1, "warning": 1, "add": 1, "_report_quietly": 1, "Problem": 2,
            "DatabaseError": 0}


def emitted_codes() -> dict[str, list[str]]:
    """Each code literal passed to an emitting call in sts/, with where it is."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "sts").rglob("*.py")):
        if path.name == "codes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            index = EMITTERS.get(name)  # type: ignore[arg-type]
            if index is None or len(node.args) <= index:
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and type(arg.value) is str:
                found.setdefault(arg.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def diagnosed_codes() -> set[str]:
    """Codes chosen indirectly: returned by sts/lines.py's diagnosis, or assigned to ``code``."""
    tree = ast.parse((ROOT / "sts" / "lines.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            first = node.value.elts[0]
            if isinstance(first, ast.Constant) and type(first.value) is str:
                found.add(first.value)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "code" for t in node.targets
        ) and isinstance(node.value, ast.Constant):
            found.add(node.value.value)
    return found


EMITTED = emitted_codes()
INDIRECT = diagnosed_codes()


def test_the_scan_finds_the_codes() -> None:
    assert {"malformed-json", "duplicate-call-id", "orphan-result", "worker-died"} <= set(EMITTED)
    assert {"too-deep", "truncated-line", "malformed-json", "truncated-document"} == INDIRECT


@pytest.mark.parametrize("code", sorted(EMITTED))
def test_every_emitted_code_is_registered(code: str) -> None:
    assert code in codes.CODES, f"{code!r} emitted at {EMITTED[code]} but not in sts/codes.py"


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_every_registered_code_is_emitted(code: str) -> None:
    assert code in EMITTED or code in INDIRECT, f"{code!r} registered but never emitted"


def test_every_code_has_a_severity_and_a_one_line_meaning() -> None:
    for code in codes.CODES.values():
        assert code.reading or code.validating, code.name
        assert code.meaning and "\n" not in code.meaning and "|" not in code.meaning, code.name


def test_strict_mode_rejects_an_unregistered_code_or_a_wrong_severity() -> None:
    assert codes.STRICT  # turned on by tests/conftest.py
    problems = Problems("<test>", "skip", None)
    with pytest.raises(codes.UnknownCode, match="not registered"):
        problems.error(1, "made-up-code", "x")
    with pytest.raises(codes.UnknownCode, match="registered as warning"):
        problems.error(1, "orphan-result", "x")
    with pytest.raises(codes.UnknownCode, match="registered as not used"):
        problems.warning(1, "no-harness", "x")  # a validator code
    with pytest.raises(codes.UnknownCode, match="not registered"):
        Problem("<test>", None, "made-up-code", "x")
    with pytest.raises(codes.UnknownCode, match="not registered"):
        _Checker("<test>", print).add(1, "made-up-code", "x")
    problems.warning(1, "orphan-result", "x")
    assert [p.code for p in problems.problems] == ["orphan-result"]


def test_outside_strict_mode_an_unknown_code_is_reported_as_is(monkeypatch) -> None:
    monkeypatch.setattr(codes, "STRICT", False)
    problems = Problems("<test>", "skip", None)
    problems.error(1, "made-up-code", "x")
    assert [(p.code, p.severity) for p in problems.problems] == [("made-up-code", "error")]
