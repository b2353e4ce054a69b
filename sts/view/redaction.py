"""Redaction review in the page: each span the redaction replaced (or flagged) becomes a `Mark`.

`marks_from_findings` reads findings by their fields only (``message``, ``path``, ``start``,
``end``, ``rule``, ``action``), the shape of `sts.redact.Finding`: ``path`` names the string in
the model (``messages[3].content[0].text``, ``messages[2].tool_calls[0].arguments.command``,
``name``) and ``start``/``end`` the span in that string after redaction. The page highlights that
text wherever it stands in the message, whatever the page does to the string (tool arguments are
re-indented).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from sts.api import read
from sts.io import atomic_output
from sts.model import Session
from sts.redact import RedactionConfig, Redactor, redact_session
from sts.view.page import Mark, Marks, write_page

_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\.([^.\[]+)")


def resolve(root: Any, path: str) -> Any:
    """The value at a model path such as ``messages[3].tool_calls[0].arguments.command``."""
    value = root
    for match in _STEP.finditer(path):
        name, index, key = match.groups()
        if index is not None:
            value = value[int(index)]
        elif type(value) is dict:
            value = value[name if name is not None else key]
        else:
            value = getattr(value, name if name is not None else key)
    return value


def marks_from_findings(session: Session, findings: Iterable[Any]) -> list[Mark]:
    """One mark per finding: the text that now stands where the secret was, with its rule."""
    marks = []
    for finding in findings:
        try:
            text = resolve(session, finding.path)
        except (AttributeError, IndexError, KeyError, TypeError):
            text = None
        span = text[finding.start:finding.end] if type(text) is str else ""
        action = getattr(finding, "action", "redacted")
        rule = finding.rule if action == "redacted" else f"{finding.rule} ({action})"
        message = finding.message if finding.message is not None else -1
        marks.append(Mark(message, span, rule))
    return marks


def redaction_marks(config: RedactionConfig) -> Marks:
    """Redact each session in place as the page is written; mark what was replaced."""
    redactor = Redactor(config)

    def marks(session: Session) -> list[Mark]:
        return marks_from_findings(session, redact_session(session, redactor, children=False))

    return marks


def write_review(
    folder: Path, files: Iterable[dict[str, Any]], findings: Iterable[Any], page: Path
) -> int:
    """The review page of a publish run: every written file of `folder` (already redacted),
    with each finding marked on its message; return how many sessions it shows.

    `files` are the run's manifest entries (``path`` relative to `folder`), `findings` carry the
    ``file`` they were written to.
    """
    by_file: dict[str, list[Any]] = {}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding)
    owner: dict[int, str] = {}

    def sessions(name: str) -> Iterator[Session]:
        for session in read(folder / name, problems=lambda problem: None):
            owner[id(session)] = name
            yield session

    def marks(session: Session) -> list[Mark]:
        return marks_from_findings(session, by_file.get(owner.get(id(session), ""), []))

    sources = ((entry["path"], sessions(entry["path"])) for entry in files)
    with atomic_output(page) as out:
        return write_page(sources, out, "redaction review", marks)
