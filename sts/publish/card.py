"""The dataset card (``README.md``) of a published folder: YAML metadata and a summary."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from sts.redact.walk import Finding

if TYPE_CHECKING:
    from sts.publish.folder import PublishOptions

TARGET_NAMES = {"pi": "Pi session format (with a `harness` header)", "sts": "STS-Format"}


def dataset_card(
    files: list[dict[str, Any]], options: PublishOptions, findings: list[Finding]
) -> str:
    """The card: ``configs`` whose ``data_files`` select ``data/`` only, the license, tags
    (``agent-traces`` and each harness), a pretty name, and a table of harnesses, sessions,
    messages, tool calls and dates."""
    harnesses = sorted({f["harness"] for f in files})
    tags = ["agent-traces", *harnesses, *options.tags]
    tags = list(dict.fromkeys(tags))
    pretty = options.pretty_name or _default_name(harnesses)
    lines = [
        "---",
        f"license: {_yaml(options.license)}",
        f"pretty_name: {_yaml(pretty)}",
        "tags:",
        *[f"- {_yaml(tag)}" for tag in tags],
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        '    path: "data/**/*.jsonl"',
        "---",
        "",
        f"# {pretty}",
        "",
        f"Agent session traces, one session per file, in the {TARGET_NAMES[options.to]}, "
        "written by [sts-convert](https://pypi.org/project/sts-convert/) for the Hub's "
        "agent-trace viewer.",
        "",
        "| harness | sessions | sub-agents | messages | tool calls | first | last |",
        "|---|---|---|---|---|---|---|",
        *_rows(files),
        "",
        "## Files",
        "",
        "- `data/<harness>/<session id>.jsonl`: one session per file; a sub-agent is "
        "`<parent file stem>.<agent>.jsonl` beside the session that started it, and the "
        "parent's header lists it under `subagents`.",
        "- `_sts/manifest.json`: every file with its session id, parent, counts and size.",
        "- `_sts/redaction-report.json`: what was redacted, by rule, file, line and path "
        "(never the secret itself).",
        "",
        "## Redaction",
        "",
        _redaction_text(options, findings),
        "",
    ]
    return "\n".join(lines)


def _rows(files: list[dict[str, Any]]) -> list[str]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in files:
        groups[entry["harness"]].append(entry)
    rows = []
    for harness in sorted(groups):
        group = groups[harness]
        times = sorted(e["firstUserAt"] for e in group
                       if e["firstUserAt"] and "timestampFallback" not in e)
        rows.append(
            f"| {harness} | {sum(e['parent'] is None for e in group)} "
            f"| {sum(e['parent'] is not None for e in group)} "
            f"| {sum(e['messages'] for e in group)} | {sum(e['toolCalls'] for e in group)} "
            f"| {times[0][:10] if times else ''} | {times[-1][:10] if times else ''} |"
        )
    return rows


def _redaction_text(options: PublishOptions, findings: list[Finding]) -> str:
    if options.redaction is None:
        return "These traces were published without redaction."
    done = Counter(f.rule for f in findings if f.action == "redacted")
    flagged = sum(f.action == "flagged" for f in findings)
    rules = ", ".join(f"{rule} ({count})" for rule, count in sorted(done.items())) or "none"
    text = (
        "Secrets (vendor key patterns, private keys, tokens, credentials in URLs, values of "
        "secret environment variables and given secrets), e-mail addresses, home paths and "
        "the user's name were replaced by placeholders such as `[REDACTED:github-token]` and "
        f"`<user>` before publishing. Replaced: {rules}."
    )
    if flagged:
        text += f" {flagged} high-entropy string(s) were flagged and released after review."
    return text


def _default_name(harnesses: list[str]) -> str:
    return f"{', '.join(harnesses) or 'Agent'} sessions"


def _yaml(value: str) -> str:
    """A YAML scalar: JSON's double-quoted string is valid YAML."""
    return json.dumps(value, ensure_ascii=False)
