"""`sts view` without a browser: the page's safety (escaping, CSP), streaming, the command."""

from __future__ import annotations

import base64
import hashlib
import io
import re

import orjson
from click.testing import CliRunner

from sts.cli import main
from sts.model import ImagePart, Message, Session, TextPart, ToolCall
from sts.view import Mark, write_page
from sts.view.adapter import image_source, is_injected, link_calls, message_view
from sts.view.cli import run_view
from sts.view.page import json_block
from sts.view.redaction import marks_from_findings
from tests.support import CASES, SAMPLES
from tests.view_cases import (
    HOSTILE_TEXTS,
    TOKEN,
    Finding,
    redacted_session,
    write_hostile,
    write_token_session,
)

SCRIPT_TAG = re.compile(rb"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)


def page_of(*sessions: Session, marks=None) -> bytes:
    out = io.BytesIO()
    write_page([("in.jsonl", iter(sessions))], out, "t", marks)
    return out.getvalue()


def test_json_block_cannot_close_its_script_element():
    value = {"a": "</script><script>x()</script>", "b": "<!-- & -->", "c": "\u2028"}
    block = json_block(value)
    assert b"<" not in block and b">" not in block and b"&" not in block
    assert orjson.loads(block) == value


def test_policy_allows_exactly_the_inline_script_and_style():
    page = page_of(Session("s", [Message("user", [TextPart("hi")])]))
    policy = re.search(rb'Content-Security-Policy" content="([^"]+)"', page).group(1).decode()
    scripts = [m for m in SCRIPT_TAG.finditer(page) if b"application/json" not in m["attrs"]]
    assert len(scripts) == 1
    style = re.search(rb"<style>(.*?)</style>", page, re.S).group(1)

    def digest(data: bytes) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode() + "'"

    assert f"script-src {digest(scripts[0]['body'])};" in policy
    assert f"style-src {digest(style)};" in policy
    assert "default-src 'none'" in policy
    assert "http" not in policy and "unsafe" not in policy


def test_hostile_text_stays_inside_json_blocks(tmp_path):
    source = write_hostile(tmp_path / "evil.jsonl")
    out = tmp_path / "evil.html"
    result = CliRunner().invoke(main, ["view", str(source), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    page = out.read_bytes()
    tags = SCRIPT_TAG.findall(page)
    assert page.count(b"<script") == page.count(b"</script>") == len(tags)
    executable = [body for attrs, body in tags if b"application/json" not in attrs]
    assert len(executable) == 1 and b"__pwned" not in executable[0]
    for text in HOSTILE_TEXTS:
        assert text.encode() not in page
    assert b"onerror" not in page.split(b"<body>")[0].lower()
    title = re.search(rb"<title>(.*?)</title>", page).group(1)
    assert b"<" not in title


def test_page_is_written_in_pieces_not_one_string():
    messages = [Message("user", [TextPart(f"message {i} " + "x" * 2000)]) for i in range(3000)]
    writes: list[int] = []

    class Sink(io.RawIOBase):
        def write(self, data):  # type: ignore[override]
            writes.append(len(data))
            return len(data)

    write_page([("big", iter([Session("big", messages)]))], Sink(), "big")  # type: ignore[arg-type]
    assert sum(writes) > 6_000_000
    assert max(writes) < 400_000  # one block of 64 messages at most


def test_tool_calls_link_to_their_results_both_ways():
    session = Session("s", [
        Message("assistant", tool_calls=[ToolCall("a", "read"), ToolCall("b", "grep")]),
        Message("tool", [TextPart("B")], tool_call_id="b"),
        Message("tool", [TextPart("A")], tool_call_id="a"),
        Message("tool", [TextPart("?")], tool_call_id="nobody"),
    ])
    links = link_calls(session)
    assert links.results == {(0, 0): 2, (0, 1): 1}
    assert links.callers == {1: (0, 1), 2: (0, 0)}


def test_injected_context_is_told_apart_from_prompts():
    assert not is_injected(Message("user", [TextPart("fix it")]))
    assert not is_injected(Message("user", [TextPart("also this")], kind="queued"))
    assert is_injected(Message("user", [TextPart("# AGENTS.md")], kind="command_prompt"))
    assert is_injected(Message("system", [TextPart("env")], kind="injected_context"))
    assert not is_injected(Message("system", [TextPart("summary")], kind="compaction"))


def test_only_raster_data_images_are_inlined():
    png = "iVBORw0KGgo="
    assert image_source(ImagePart("image/png", png)) == f"data:image/png;base64,{png}"
    assert image_source(ImagePart("image/svg+xml", "PHN2Zz4=")) is None
    assert image_source(ImagePart("image/png", 'x" onerror="y')) is None
    assert image_source(ImagePart("image/png", None, "https://example.com/a.png")) is None


def test_marks_become_findings_on_their_message():
    session = Session("s", [Message("user", [TextPart("key [REDACTED:aws]")])])
    page = page_of(session, marks=lambda s: [Mark(0, "[REDACTED:aws]", "aws-access-key")])
    findings = re.search(rb'id="findings">(.*?)</script>', page).group(1)
    assert orjson.loads(findings) == [
        {"f": 0, "s": 0, "m": 0, "rule": "aws-access-key", "text": "[REDACTED:aws]"}
    ]
    chunk = orjson.loads(re.search(rb'id="c0-0">(.*?)</script>', page).group(1))
    assert chunk[0]["f"] == [["[REDACTED:aws]", "aws-access-key", 0]]


def test_view_command_writes_one_page_for_a_directory(tmp_path):
    out = tmp_path / "cases.html"
    result = CliRunner().invoke(main, ["view", str(CASES / "pi"), "-o", str(out), "-q"])
    assert result.exit_code == 1  # the folder holds broken cases, reported on stderr
    index = orjson.loads(re.search(rb'id="index">(.*?)</script>', out.read_bytes()).group(1))
    assert len(index) == len(list((CASES / "pi").glob("*.jsonl")))
    assert {row["harness"] for row in index} == {"pi"}


def test_view_command_refuses_to_overwrite_its_input(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_bytes((SAMPLES / "hello.sts.jsonl").read_bytes())
    result = CliRunner().invoke(main, ["view", str(source), "-o", str(source)])
    assert result.exit_code == 2
    assert source.read_bytes() == (SAMPLES / "hello.sts.jsonl").read_bytes()


def test_view_command_to_stdout():
    result = CliRunner().invoke(main, ["view", str(SAMPLES / "hello.sts.jsonl"), "-o", "-"])
    assert result.exit_code == 0
    assert result.stdout.startswith("<!doctype html>")


def test_findings_become_marks_on_the_text_that_replaced_them():
    session, findings = redacted_session()
    assert marks_from_findings(session, findings) == [
        Mark(0, "[REDACTED:aws-access-key]", "aws-access-key"),
        Mark(1, "[REDACTED:bearer]", "bearer-token"),
        Mark(2, "ghp_abcdefabcdef1234", "high-entropy (flagged)"),
        Mark(-1, "[USER]", "home-path"),
    ]


def test_a_finding_whose_path_is_gone_still_lists():
    session, _ = redacted_session()
    marks = marks_from_findings(session, [Finding(7, "messages[7].content[0].text", 0, 3, "x")])
    assert marks == [Mark(7, "", "x")]


def test_view_redact_marks_each_replaced_secret_and_leaves_none_in_the_page(tmp_path):
    source = write_token_session(tmp_path / "s.jsonl")
    out = tmp_path / "s.html"
    result = CliRunner().invoke(main, ["view", str(source), "-o", str(out), "-q", "--redact"])
    assert result.exit_code == 0, result.output
    page = out.read_bytes()
    assert TOKEN.encode() not in page
    findings = orjson.loads(re.search(rb'id="findings">(.*?)</script>', page).group(1))
    assert [(f["m"], f["rule"], f["text"]) for f in findings] == [
        (0, "github-token", "[REDACTED:github-token]"),
        (1, "github-token", "[REDACTED:github-token]"),
    ]


def test_secret_without_redact_is_a_usage_error():
    result = CliRunner().invoke(
        main, ["view", str(SAMPLES / "hello.sts.jsonl"), "--secret", "x", "-o", "-"]
    )
    assert result.exit_code == 2


def test_typed_model_fields_reach_the_page():
    from sts.model import MessageKind, StopReason

    links = link_calls(Session("s"))
    compaction = Message("system", [TextPart("summary")], kind=MessageKind.COMPACTION,
                         tokens_before=120_000)
    assert message_view(compaction, 0, links, {}) | {"p": None} == {
        "r": "system", "k": "compaction", "tb": 120_000, "cmp": 1, "p": None}
    aborted = Message("assistant", [TextPart("half")], stop_reason=StopReason.ABORTED,
                      rolled_back=True)
    view = message_view(aborted, 1, links, {})
    assert (view["sr"], view["ab"], view["rb"]) == ("aborted", 1, 1)
    plain = Message("system", [TextPart("be brief")], kind=MessageKind.SYSTEM)
    assert "k" not in message_view(plain, 2, links, {})


def test_open_hands_the_page_to_the_browser(tmp_path, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr("webbrowser.open", opened.append)
    out = tmp_path / "hello.html"
    assert run_view([str(SAMPLES / "hello.sts.jsonl")], str(out), None, True, None, True) == 0
    assert opened == [out.resolve().as_uri()]


def test_publish_writes_a_review_page_with_each_finding(tmp_path):
    from sts.publish import PublishOptions, publish
    from sts.publish.folder import REVIEW
    from sts.redact import RedactionConfig

    source = write_token_session(tmp_path / "in.jsonl")
    options = PublishOptions(redaction=RedactionConfig(environment={}), scanner=None)
    publish([source], tmp_path / "out", options)
    page = (tmp_path / "out" / REVIEW).read_bytes()
    assert TOKEN.encode() not in page
    findings = orjson.loads(re.search(rb'id="findings">(.*?)</script>', page).group(1))
    assert [(f["m"], f["rule"], f["text"]) for f in findings] == [
        (0, "github-token", "[REDACTED:github-token]"),
        (1, "github-token", "[REDACTED:github-token]"),
    ]
