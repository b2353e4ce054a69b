"""The redaction report: one JSON document listing every finding, never a secret.

Secrets, e-mails and flagged strings are listed one by one (`findings`); home-path and
user-name replacements once per file and value (`grouped`: count and first lines)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from sts.io import atomic_output
from sts.redact.rules import RULES
from sts.redact.walk import Finding

REPORT_VERSION = 1
#: Rules whose replacements are listed once per file and value (with a count and the lines):
#: a home path can stand in every tool call of every session.
GROUPED = frozenset(("home-path", "user-name"))
MAX_LINES = 20


def report(findings: Iterable[Finding], **extra: Any) -> dict[str, Any]:
    """The report document: counts by action and rule, each finding, and the grouped ones."""
    findings = list(findings)
    by_rule = Counter(f.rule for f in findings)
    groups: dict[tuple[str | None, str, str], dict[str, Any]] = {}
    for finding in findings:
        if finding.rule not in GROUPED:
            continue
        key = (finding.file, finding.rule, finding.fingerprint)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "file": finding.file, "rule": finding.rule, "fingerprint": finding.fingerprint,
                "preview": finding.preview, "count": 0, "lines": [],
            }
        group["count"] += 1
        lines = group["lines"]
        if finding.line is not None and len(lines) < MAX_LINES and finding.line not in lines:
            lines.append(finding.line)
    return {
        "version": REPORT_VERSION,
        "redacted": sum(f.action == "redacted" for f in findings),
        "flagged": sum(f.action == "flagged" for f in findings),
        "byRule": dict(sorted(by_rule.items())),
        "rules": {rule.name: rule.description for rule in RULES},
        **extra,
        "findings": [f.to_json() for f in findings if f.rule not in GROUPED],
        "grouped": list(groups.values()),
    }


def write_report(path: Path, findings: Iterable[Finding], **extra: Any) -> None:
    """Write the report to `path` atomically."""
    with atomic_output(path) as out:
        out.write(orjson.dumps(report(findings, **extra), option=orjson.OPT_INDENT_2))
        out.write(b"\n")


def summary(findings: Iterable[Finding]) -> str:
    """One line: ``12 redacted (email 3, openai-api-key 9); 2 flagged for review``."""
    findings = list(findings)
    done = Counter(f.rule for f in findings if f.action == "redacted")
    flagged = sum(f.action == "flagged" for f in findings)
    rules = ", ".join(f"{rule} {count}" for rule, count in sorted(done.items()))
    text = f"{sum(done.values())} redacted" + (f" ({rules})" if rules else "")
    return f"{text}; {flagged} flagged for review"
