"""Every problem code the project emits: its severity and what it means.

Two channels report problems: reading (converters and the convert driver, through
`sts.problems.Problems`) and checking (`sts validate`, `sts.validation`). A code has a severity
in each channel it is used in: ``bad-timestamp`` is a warning when a reader leaves a bad time
out, and an error when the validator finds one in a file. The README's problem-code tables are
generated from this registry (``python -m sts.codes README.md`` rewrites them) and checked
against it by ``tests/test_docs.py``.

A new code is added here, in one line, before it is emitted. The test suite turns on strict
mode (`STRICT`, or ``STS_STRICT_CODES=1`` in the environment), in which a `Problem` with an
unregistered code, or with a severity its channel does not give that code, raises.
"""

from __future__ import annotations

import os
from typing import Literal

from sts.records import Record, record

Severity = Literal["error", "warning"]

STRICT = os.environ.get("STS_STRICT_CODES") == "1"


@record(slots=True)
class Code(Record):
    """One problem code: its severity when reading input and when validating a file (None
    when that channel never reports it), and a one-line meaning."""

    name: str
    reading: Severity | None
    validating: Severity | None
    meaning: str


E: Severity = "error"
W: Severity = "warning"

_CODES = (
    # the input as bytes and JSON ------------------------------------------------------------
    Code("empty", E, E, "the input holds no JSON at all (empty, or only blank lines)"),
    Code("malformed-json", E, E, "a line (or a whole-JSON document) is not valid JSON"),
    Code("truncated-line", E, None, "the last line is cut off: the JSON ends early"),
    Code("truncated-document", E, None, "a whole-JSON document is cut off"),
    Code("truncated-record", E, None,
         "a record cut off mid-write with the next record glued to it: the cut part skipped"),
    Code("glued-records", W, None, "two or more records on one line, split apart"),
    Code("number-out-of-range", W, None,
         "a number too large for a double (1e400): the line kept, the number as its text"),
    Code("not-an-object", E, E, "a line is JSON but not an object where the format wants one"),
    Code("too-deep", E, None, "JSON nested deeper than the parser's limit: cannot be read"),
    Code("invalid-utf8", W, None, "invalid UTF-8 bytes replaced by U+FFFD"),
    Code("lone-surrogate", W, None, "lone surrogate escapes replaced by U+FFFD"),
    Code("no-final-newline", None, E, "the file does not end with a newline"),
    Code("source-format", None, E, "a source-format file (Codex, Claude Code, Pi v1/v2...), not "
         "STS or Pi: convert it first"),
    # the input as a whole ---------------------------------------------------------------------
    Code("unknown-format", E, None, "no converter recognises the input"),
    Code("no-sessions", E, None, "the input held no session"),
    Code("io-error", E, None, "the input could not be opened or read"),
    Code("input-changed", E, None, "a line read again (a big session is read in two passes) no "
         "longer holds what it did: the file changed while it was converted"),
    Code("internal-error", E, None, "a converter bug (an unexpected exception): the input failed"),
    Code("worker-died", E, None, "the worker process converting the input died"),
    Code("problems-not-kept", W, None,
         "problems passed on after an input is read (from a worker process) are the first 1000 "
         "only: how many more there were"),
    Code("not-a-session", E, None,
         "a file a harness keeps beside its sessions that holds none (Gemini CLI logs.json, "
         "Kimi CLI wire.jsonl): nothing written"),
    Code("subagents-not-written", W, None,
         "sub-agent sessions left out: they are only written with -o DIR"),
    Code("other-branches", W, None,
         "Pi: abandoned branches not written (--all-branches writes them)"),
    Code("not-a-history", E, None,
         "a Cline task history that is not a JSON array of messages: nothing converted"),
    Code("bad-companion", W, None, "a companion file read with its session (Cline ui_messages"
         ".json, a Droid .settings.json) is unreadable: what it adds (times, models) left out"),
    # headers ----------------------------------------------------------------------------------
    Code("no-header", E, None,
         "no session header (a line before it is skipped; without one nothing is converted)"),
    Code("second-header", E, E, "a second session header in one file: skipped"),
    Code("bad-header", E, E, "the header lacks a field it needs, or has one of the wrong type"),
    Code("bad-version", None, E, "a Pi header whose version is not 3 (pi would migrate the file)"),
    Code("no-harness", None, W, "no harness in the header: the Hub cannot tell the harness"),
    Code("no-session-id", W, None, "an empty session id: the file name is used"),
    Code("unknown-fields", W, None, "STS message fields outside the spec: left out"),
    # records, entries, lines ------------------------------------------------------------------
    Code("unknown-record", E, None, "a record that is not one of the format's (not an object of "
         "its shape, or without a type): skipped"),
    Code("unknown-type", W, None, "a well-formed record of a type this version does not know (a "
         "newer harness version): skipped and counted"),
    Code("bad-line", None, E, 'an STS line that is not {"type": "message", "message": {...}}'),
    Code("bad-entry", None, E, "a Pi entry without a type or a string id"),
    Code("no-entry-id", E, None, "a Pi entry without a string id: not in the tree"),
    Code("duplicate-id", W, E,
         "an id used twice (reading: a Pi entry id, the later entry kept; "
         "validating: an entry or tool-call id)"),
    Code("unchained-lines", W, None, "Claude Code lines that name no parent at all: kept in "
         "file order"),
    Code("dangling-parent", W, None,
         "a parent id not in the file: linked to the previous line"),
    Code("parent-cycle", E, None, "a parent-id chain that loops: the walk stops"),
    Code("broken-chain", None, E, "a Pi entry whose parentId is missing or not an earlier entry"),
    Code("bad-compaction", E, E, "a compaction without its summary (Pi: or firstKeptEntryId)"),
    Code("extra-choices", E, None, "a logged response with several choices: the others left out"),
    Code("rewind-unknown", W, None,
         "a Gemini CLI $rewindTo naming no message (its line was lost): nothing dropped"),
    Code("bad-token-count", W, None,
         "a Kimi CLI _usage line whose token_count is not a number: left out"),
    # messages ---------------------------------------------------------------------------------
    Code("bad-message", E, E, "a message record that is missing or not an object: skipped"),
    Code("bad-turn", E, None, "a ShareGPT turn that is not an object: skipped"),
    Code("bad-item", E, None, "a Responses API item that is not an object: skipped"),
    Code("unknown-role", E, E, "an unknown or missing role: the message is skipped"),
    Code("bad-timestamp", W, E,
         "a timestamp that is not a time (reading: left out; validating: wrong type or unit)"),
    Code("implausible-timestamp", None, W, "a timestamp outside the years 2000-2100"),
    Code("no-timestamp", None, E, "a Pi header, entry or message without the time pi's types "
         "require (ISO on the header and entries, epoch ms on messages)"),
    Code("timestamp-in-seconds", W, E,
         "a time in epoch seconds where milliseconds are due (a viewer would show 1970); "
         "reading STS, Pi message times or OpenCode, it is scaled"),
    Code("bad-model", None, E, "an STS model that is not a string"),
    Code("bad-reasoning", None, E, "STS reasoningContent that is not a string"),
    Code("extra-field", None, E, "STS message fields outside the spec"),
    Code("bad-usage", None, E, "Pi assistant usage without all four counts and cost.total"),
    Code("bad-stop-reason", None, E, "a Pi stopReason pi does not know"),
    # content ----------------------------------------------------------------------------------
    Code("content-not-string", W, E,
         "content that is not text (reading: converted, a list's texts joined; "
         "validating: STS content must be a string)"),
    Code("bad-content", E, E, "content that is neither text nor a list of blocks: left out"),
    Code("unknown-block", E, None, "an unknown content block or part type: skipped"),
    Code("unknown-part", W, None, "an unknown content part type: read as text when it holds "
         "text, else kept as a placeholder ([type])"),
    Code("misplaced-block", E, None,
         "a content block in a turn that cannot hold it (a tool call in a user turn): skipped"),
    Code("bad-block", None, E, "a Pi content block of a type or shape not allowed there"),
    Code("unplaced-media", W, None,
         "images or media with no token in the text to place them at: added to the last message"),
    Code("unclosed-think", W, None, "a `<think>` never closed: the rest is reasoning"),
    # tool calls and results -------------------------------------------------------------------
    Code("bad-tool-calls", E, E, "tool calls that are not a list: skipped"),
    Code("bad-tool-call", E, E, "a tool call that is not an object or lacks its id or function"),
    Code("bad-tool-call-text", W, None,
         "a tool call written as text (`<tool_call>`, `function_call`) that is not a JSON call: "
         "kept as text"),
    Code("bad-arguments", None, E,
         "tool-call arguments that are not valid JSON (STS) or an object (Pi)"),
    Code("bad-tool-call-id", None, E, "an STS toolCallId that is not a string"),
    Code("misplaced-tool-calls", E, E, "STS toolCalls on a message that is not the assistant's"),
    Code("misplaced-tool-call-id", E, E, "an STS toolCallId on a message that is not a tool's"),
    Code("bad-tool-result", None, E, "a Pi toolResult without toolCallId, toolName or isError"),
    Code("duplicate-call-id", W, None,
         "one tool-call id used by two calls: the later call renamed (id~2)"),
    Code("no-call-id", W, None, "a Pi tool call or result without its id"),
    Code("tool-call-without-name", W, None, "a tool call that names no tool: named unknown"),
    Code("orphan-result", W, W, "a tool result that answers no earlier call"),
    # what a target cannot hold (the writers; listed by convert -v, counted in the summary) --
    Code("media-placeholder", W, None,
         "images or media the target cannot hold, written as text placeholders"),
    Code("kind-flattened", W, None,
         "message kinds the target has no place for, written as their plain roles"),
    Code("field-dropped", W, None,
         "message facts the target has no place for (STS: stop reason, provider, signatures...)"),
    Code("needs-path", E, None,
         "a SQLite database given on standard input or a pipe: sqlite reads files only"),
    Code("database-busy", E, None,
         "a database stayed locked by another program past the retries: not read"),
    Code("bad-database", E, None,
         "a database that cannot be read (a damaged page, not the harness's tables)"),
    Code("unknown-session", E, None,
         "a session asked for (--session) that the input does not hold"),
    Code("archived-rows", W, None, "Hermes state.db rows marked inactive (rewound or compacted) "
         "left out"),
)

CODES: dict[str, Code] = {code.name: code for code in _CODES}


class UnknownCode(AssertionError):
    """A problem code that is not in the registry, or used with a severity it does not have."""


def check(code: str, severity: Severity, channel: Literal["reading", "validating"]) -> None:
    """In strict mode, raise `UnknownCode` unless `code` is registered with `severity` in
    `channel`. Outside strict mode (a user's run) this does nothing."""
    if not STRICT:
        return
    known = CODES.get(code)
    if known is None:
        raise UnknownCode(f"problem code {code!r} is not registered in sts/codes.py")
    registered = getattr(known, channel)
    if registered != severity:
        raise UnknownCode(
            f"problem code {code!r} is registered as {registered or 'not used'} when "
            f"{channel}, emitted as {severity}: fix the call or sts/codes.py"
        )


def severity_when_validating(code: str) -> Severity:
    """The severity `sts validate` gives `code` (an error when unregistered)."""
    known = CODES.get(code)
    return (known.validating if known is not None else None) or "error"


def update_readme(text: str) -> str:
    """`text` (the README) with both code tables regenerated between their markers."""
    channels: tuple[Literal["reading", "validating"], ...] = ("reading", "validating")
    for channel in channels:
        start, end = f"<!-- codes:{channel} -->\n", f"<!-- /codes:{channel} -->"
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
        text = head + start + markdown_table(channel) + end + tail
    return text


def markdown_table(channel: Literal["reading", "validating"]) -> str:
    """The README's table of the codes used in `channel`, sorted by name."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    for code in sorted(CODES.values(), key=lambda c: c.name):
        severity = getattr(code, channel)
        if severity is not None:
            rows.append(f"| `{code.name}` | {severity} | {code.meaning} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":  # python -m sts.codes README.md: regenerate the README's tables
    import sys
    from pathlib import Path

    readme = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    readme.write_text(update_readme(readme.read_text(encoding="utf-8")), encoding="utf-8")
