"""The redaction report: one JSON document listing every finding, never a secret."""

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


def report(findings: Iterable[Finding], **extra: Any) -> dict[str, Any]:
    """The report document: counts by action and rule, then each finding."""
    findings = list(findings)
    by_rule = Counter(f.rule for f in findings)
    return {
        "version": REPORT_VERSION,
        "redacted": sum(f.action == "redacted" for f in findings),
        "flagged": sum(f.action == "flagged" for f in findings),
        "byRule": dict(sorted(by_rule.items())),
        "rules": {rule.name: rule.description for rule in RULES},
        **extra,
        "findings": [f.to_json() for f in findings],
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
