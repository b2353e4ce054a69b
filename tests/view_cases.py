"""Sessions built for the viewer tests: a hostile one whose text tries to run code, and a
redacted one with the findings the redaction would report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sts.model import Message, Session, TextPart, ToolCall

HOSTILE_TEXTS = [
    "<script>window.__pwned = 'script'</script>",
    "</script><script>window.__pwned = 'close'</script>",
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    "[click me](javascript:window.__pwned='link') <a href=\"javascript:window.__pwned='a'\">a</a>",
    "<!-- <script> --> <svg onload=\"window.__pwned='svg'\"></svg> &lt;b&gt; \u2028 \u2029",
]


def write_hostile(path: Path) -> Path:
    """An STS file whose every field a page shows holds markup and script."""
    evil = " ".join(HOSTILE_TEXTS)
    lines = [
        {"type": "session", "harness": "<b>evil</b>", "id": "</script>", "name": evil},
        {"type": "message", "message": {"role": "user", "content": evil}},
        {"type": "message", "message": {
            "role": "assistant", "content": evil, "reasoningContent": evil,
            "model": "<script>window.__pwned='model'</script>",
            "toolCalls": [{"id": "</script>", "function": {
                "name": "<img src=x onerror=\"window.__pwned='name'\">",
                "arguments": json.dumps({"html": evil, "</script>": evil})}}]}},
        {"type": "message",
         "message": {"role": "tool", "toolCallId": "</script>", "content": evil}},
        {"type": "message", "message": {"role": "assistant", "content": "done: needle-word"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@dataclass
class Finding:
    """The shape of a redaction finding (sts.redact.Finding), built by hand."""

    message: int | None
    path: str
    start: int
    end: int
    rule: str
    action: str = "redacted"


def redacted_session() -> tuple[Session, list[Finding]]:
    """A session as the redaction leaves it, with the findings it would report."""
    session = Session("s", [
        Message("user", [TextPart("my key is [REDACTED:aws-access-key] ok")]),
        Message("assistant", tool_calls=[ToolCall(
            "c1", "bash", {"command": "curl -H 'Authorization: Bearer [REDACTED:bearer]'"})]),
        Message("tool", [TextPart("token ghp_abcdefabcdef1234 seen")], tool_call_id="c1"),
    ], name="work in /home/[USER]")
    findings = [
        Finding(0, "messages[0].content[0].text", 10, 35, "aws-access-key"),
        Finding(1, "messages[1].tool_calls[0].arguments.command", 31, 48, "bearer-token"),
        Finding(2, "messages[2].content[0].text", 6, 26, "high-entropy", "flagged"),
        Finding(None, "name", 14, 20, "home-path"),
    ]
    return session, findings


TOKEN = "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456"  # a GitHub token's shape, no real one


def write_token_session(path: Path) -> Path:
    """An STS file holding `TOKEN` in a prompt and in a tool call's arguments."""
    call = {"id": "c", "function": {"name": "bash",
                                    "arguments": json.dumps({"command": f"gh auth {TOKEN}"})}}
    lines = [
        {"type": "session", "harness": "pi", "id": "s1", "name": "demo"},
        {"type": "message", "message": {"role": "user", "content": f"use {TOKEN}"}},
        {"type": "message", "message": {"role": "assistant", "content": "", "toolCalls": [call]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
