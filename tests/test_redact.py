"""Redaction: the planted-secrets cases (every rule, escapes, tool arguments and results, file
paths, multi-line keys) fully caught and reported, and each rule's limits."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sts.model import Message, Session, TextPart, ToolCall
from sts.redact import RULES, RedactionConfig, Redactor, redact_session
from sts.redact.report import report
from tests.planted import (
    ENVIRONMENT,
    PLANTED,
    SECRETS,
    TEMPLATES,
    USER,
    planted_rules,
    rendered_cases,
)
from tests.support import assert_valid

CONFIG = dict(secrets=SECRETS, environment=ENVIRONMENT, user_names=(USER,))


def redactor(**changes) -> Redactor:
    return Redactor(RedactionConfig(**{**CONFIG, **changes}))


def decoded_strings(value) -> list[str]:
    """Every string in a JSON value, and in strings that are JSON themselves (arguments)."""
    if isinstance(value, str):
        found = [value]
        if value[:1] in "{[":
            with contextlib.suppress(ValueError):
                found += decoded_strings(json.loads(value))
        return found
    if isinstance(value, list):
        return [s for item in value for s in decoded_strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in decoded_strings(item)]
    return []


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """Each planted case converted to both targets with redaction: (case, target) → (output
    bytes, findings)."""
    from sts.pipeline import Job, Settings, Target, run_job

    directory = tmp_path_factory.mktemp("planted")
    results = {}
    for path in rendered_cases(directory):
        for to in ("sts", "pi"):
            out = directory / to
            settings = Settings(to=to, redaction=RedactionConfig(**CONFIG))
            result = run_job(Job(path, str(path), Path(path.name)), Target("dir", out), settings)
            assert result.status == "ok", result.problems
            data = b"".join(p.read_bytes() for p in sorted(out.glob(f"{path.stem}*.jsonl")))
            results[path.name, to] = (data, result.findings)
    return results


CASES = sorted(p.name for p in TEMPLATES.iterdir())


@pytest.mark.parametrize("to", ["sts", "pi"])
@pytest.mark.parametrize("case", CASES)
def test_every_planted_secret_is_gone(converted, case, to):
    data, _ = converted[case, to]
    assert_valid(data, to)
    strings = [s for line in data.splitlines() for s in decoded_strings(json.loads(line))]
    template = (TEMPLATES / case).read_text(encoding="utf-8")
    for rule in set(planted_rules(template)) - {"high-entropy"}:
        secret = PLANTED[rule].secret
        assert not any(secret in s for s in strings), f"{rule} left in {case} → {to}"
        assert secret.encode() not in data


@pytest.mark.parametrize("to", ["sts", "pi"])
@pytest.mark.parametrize("case", CASES)
def test_the_report_lists_each_planted_secret(converted, case, to):
    _, findings = converted[case, to]
    template = (TEMPLATES / case).read_text(encoding="utf-8")
    wanted = Counter(planted_rules(template))
    found = Counter(f.rule for f in findings)
    for rule, count in wanted.items():
        assert found[rule] >= 1, f"{rule} not reported for {case}"
        if rule not in ("home-path",):  # a path in cwd is also in the header, counted apart
            assert found[rule] >= min(count, 1)
    document = json.dumps(report(findings))
    for rule in wanted:
        if rule != "high-entropy":
            assert PLANTED[rule].secret not in document  # never the secret
    for finding in findings:
        assert finding.file and finding.line and finding.path and finding.fingerprint


def test_the_planted_cases_cover_every_rule():
    planted = {rule for t in TEMPLATES.iterdir() for rule in planted_rules(t.read_text())}
    assert {rule.name for rule in RULES} <= planted
    assert {"user-secret", "env-value", "home-path", "user-name", "email",
            "high-entropy"} <= planted


def test_high_entropy_strings_are_flagged_never_rewritten(converted):
    data, findings = converted["claude-code.jsonl", "sts"]
    assert PLANTED["high-entropy"].text.encode() in data
    flagged = [f for f in findings if f.rule == "high-entropy"]
    assert flagged and all(f.action == "flagged" for f in flagged)
    assert PLANTED["high-entropy"].text not in json.dumps([f.to_json() for f in findings])


def test_findings_point_at_the_placeholder():
    session = Session("s1", [
        Message("user", [TextPart("key: " + PLANTED["github-token"].text)]),
        Message("assistant", tool_calls=[ToolCall("c1", "bash", {"command": "cat " + PLANTED[
            "home-path"].text + "/notes"})]),
    ])
    findings = redact_session(session, redactor())
    by_rule = {f.rule: f for f in findings}
    token = by_rule["github-token"]
    assert (token.message, token.path) == (0, "messages[0].content[0].text")
    assert session.messages[0].text[token.start:token.end] == "[REDACTED:github-token]"
    home = by_rule["home-path"]
    assert (home.message, home.path) == (1, "messages[1].tool_calls[0].arguments.command")
    command = session.messages[1].tool_calls[0].arguments["command"]
    assert command == "cat /home/<user>/notes"
    assert command[home.start:home.end] == "<user>"


@pytest.mark.parametrize(
    "text",
    [
        "api_key = os.environ['OPENAI_API_KEY']",
        "password: ********",
        "token = getToken(config)",
        '"max_tokens": 4096',
        "TOKEN=$GITHUB_TOKEN",
        "commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c uuid 0b7c1e9e-6a53-4f4e-9c3e-1a2b3c4d5e6f",
        "tool id toolu_01M6PWVSrj68MBb6U3u8oDCX and msg_bdrk_01P75ryByUmPybsgSkdRtaZU",
        "Basic configuration of the service",
        "a line ending in token:\nvalue_1234 on the next",
        "ssh git@github.com:owner/repo.git; write to docs@example.com",
        "https://example.com:8080/path@version",
    ],
)
def test_ordinary_text_is_left_alone(text):
    out, hits = redactor(user_names=()).text(text)
    assert (out, hits) == (text, [])


def test_the_allow_list_keeps_values_and_patterns():
    token = PLANTED["github-token"].text
    email = PLANTED["email"].text
    r = redactor(allow=(token,), allow_patterns=(r".*@corp-mail\.test",))
    out, hits = r.text(f"{token} {email}")
    assert out == f"{token} {email}" and hits == []


def test_exact_values_of_secret_environment_variables_only():
    r = Redactor(RedactionConfig(environment={"PATH": "/usr/local/bin:/usr/bin",
                                              "EDITOR": "vim-editor-9",
                                              "DEPLOY_PASSWORD": "correct-horse-7"},
                                 user_names=()))
    out, _ = r.text("vim-editor-9 correct-horse-7 /usr/local/bin:/usr/bin")
    assert out == "vim-editor-9 [REDACTED:env-value] /usr/local/bin:/usr/bin"


def test_fingerprints_are_keyed_and_group_equal_secrets():
    secret = PLANTED["openai-api-key"].text
    one = redactor(key=b"k1").text(f"{secret} and {secret}")[1]
    two = redactor(key=b"k2").text(secret)[1]
    assert one[0].fingerprint == one[1].fingerprint != two[0].fingerprint
    assert secret not in one[0].preview and one[0].preview.startswith("sk-p")


def test_windows_and_mac_home_paths():
    out, _ = redactor(user_names=()).text(r"C:\Users\qzelda\src and /Users/qzelda/src")
    assert out == r"C:\Users\<user>\src and /Users/<user>/src"


def test_every_string_field_of_the_model_is_walked():
    text = PLANTED["stripe-key"].text
    session = Session("s", [Message("assistant", [TextPart(text)], error_message=text,
                                    tool_calls=[ToolCall("c", "t", None, raw_arguments=text)],
                                    extras={"note": [text]})],
                      name=text, cwd=text, metadata={"title": text, "parentId": "keep-id"})
    findings = redact_session(session, redactor())
    assert {f.path for f in findings} == {
        "name", "cwd", "metadata.title", "messages[0].content[0].text",
        "messages[0].tool_calls[0].raw_arguments", "messages[0].error_message",
        "messages[0].extras.note[0]",
    }
    assert text not in repr(session)


def test_convert_redact_in_workers_writes_the_report(tmp_path):
    from click.testing import CliRunner

    from sts.cli import main

    sources = tmp_path / "in"
    sources.mkdir()
    rendered_cases(sources)
    report_path = tmp_path / "report.json"
    done = CliRunner().invoke(main, [
        "convert", str(sources), "-o", f"{tmp_path / 'out'}/", "--to", "pi", "-j", "2",
        "--redact", "--redact-report", str(report_path), "--secret", SECRETS[0],
        "--user-name", USER,
    ])
    assert done.exit_code == 0, done.output
    assert "sts: redaction: " in done.output and "1 flagged for review" in done.output
    document = json.loads(report_path.read_text(encoding="utf-8"))
    assert document["flagged"] == 1
    assert {f["file"] for f in document["findings"]} == {
        str(p) for p in (tmp_path / "out").glob("*.jsonl")}
    data = b"".join(p.read_bytes() for p in (tmp_path / "out").glob("*.jsonl"))
    assert SECRETS[0].encode() not in data and PLANTED["github-token"].secret.encode() not in data


def test_convert_redaction_options_need_redact(tmp_path):
    from click.testing import CliRunner

    from sts.cli import main

    done = CliRunner().invoke(main, ["convert", str(TEMPLATES / "pi.jsonl"), "--secret", "x"])
    assert done.exit_code == 2 and "need --redact" in done.output


def test_a_user_name_in_a_session_id_is_replaced_everywhere():
    session = Session(f"{USER}-notes", [Message("user", [TextPart(f"hi {USER}")])],
                      key=f"{USER}-1")
    findings = redact_session(session, redactor())
    assert (session.id, session.key) == ("<user>-notes", "<user>-1")
    assert {f.session for f in findings} == {"<user>-notes"}
    assert {f.path for f in findings} == {"id", "key", "messages[0].content[0].text"}


CONTEXTS = {
    "aws-secret-access-key": "AWS_SECRET_ACCESS_KEY={}",
    "bearer-token": "curl -H 'Authorization: Bearer {}'",
    "basic-auth": "Authorization: Basic {}",
    "secret-assignment": "export DB_PASSWORD={}",
}


@pytest.mark.parametrize("rule", sorted(set(PLANTED) - {"high-entropy"}))
def test_short_and_long_strings_are_searched_alike(rule):
    """Strings up to 4 KiB are searched with one alternation, longer ones literal by literal."""
    text = CONTEXTS.get(rule, "see {} here").format(PLANTED[rule].text)
    r = redactor()
    short, short_hits = r.text(text)
    long, long_hits = r.text("lorem ipsum " * 500 + text)
    assert long.endswith(short)
    assert [h.rule for h in short_hits] == [h.rule for h in long_hits]
    assert rule in {h.rule for h in short_hits}


CONTEXT_FREE = sorted(set(PLANTED) - set(CONTEXTS) - {"high-entropy", "user-secret",
                                                      "env-value"})
SEPARATORS = " \n\t\"'=:([{<,;|"


@settings(max_examples=300, deadline=None)
@given(
    rule=st.sampled_from(CONTEXT_FREE),
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    left=st.sampled_from(SEPARATORS),
    right=st.sampled_from(SEPARATORS),
    pad=st.integers(0, 5000),
)
def test_a_planted_secret_never_survives_its_surroundings(rule, before, after, left, right, pad):
    """Whatever text stands around a secret (past a separator), and whether the string is short
    or long, the secret is gone."""
    text = "x" * pad + before + left + PLANTED[rule].text + right + after
    out, _ = redactor().text(text)
    assert PLANTED[rule].secret not in out


def test_the_report_groups_home_paths_per_file_and_value():
    home = PLANTED["home-path"].text
    token = PLANTED["npm-token"].text
    session = Session("s", [Message("user", [TextPart(f"cd {home}/a && ls {home}/b")]),
                            Message("user", [TextPart(f"cat {home}/c, {token}")])])
    findings = redact_session(session, redactor())
    for finding in findings:
        finding.file, finding.line = "data/x.jsonl", 2 + (finding.message or 0)
    document = report(findings)
    assert document["byRule"] == {"home-path": 3, "npm-token": 1}
    assert [f["rule"] for f in document["findings"]] == ["npm-token"]
    (group,) = document["grouped"]
    assert (group["rule"], group["count"], group["lines"]) == ("home-path", 3, [2, 3])
