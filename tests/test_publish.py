"""`sts publish`: the Hub folder (layout, card, manifest, report), the refusal while findings
await review, the size guard, the upload up to the network call, and the real loader's check."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from sts.cli import main
from sts.pipeline import UsageError
from sts.publish import PublishOptions, publish
from sts.publish.folder import MANIFEST, REPORT, REVIEW, cut
from sts.publish.push import plan, push
from sts.publish.scanners import trufflehog
from sts.redact import RedactionConfig
from tests.planted import ENVIRONMENT, PLANTED, SECRETS, USER, rendered_cases
from tests.support import CASES, CORPUS, assert_valid

MIXED = [
    CASES / "claude-code" / "layout-2.1",
    CASES / "codex" / "tools_and_outputs.jsonl",
    CASES / "pi" / "compaction.jsonl",
    CASES / "openai" / "messages_array.json",
]


def options(**changes) -> PublishOptions:
    redaction = RedactionConfig(secrets=SECRETS, environment=ENVIRONMENT, user_names=(USER,))
    return PublishOptions(**{"redaction": redaction, **changes})


def manifest(folder: Path) -> dict:
    return orjson.loads((folder / MANIFEST).read_bytes())


def front_matter(folder: Path) -> str:
    return (folder / "README.md").read_text(encoding="utf-8").split("---\n")[1]


def test_mixed_inputs_become_a_publishable_folder(tmp_path):
    out = tmp_path / "out"
    result = publish(MIXED, out, options(allow_findings=True))
    assert not result.refused and not result.left_out
    files = manifest(out)["files"]
    harnesses = {f["harness"] for f in files}
    assert harnesses == {"claude-code", "codex", "pi", "openai"}
    written = sorted(p.relative_to(out).as_posix() for p in (out / "data").rglob("*.jsonl"))
    assert written == sorted(f["path"] for f in files)
    for path in written:
        assert_valid((out / path).read_bytes(), "pi")
        assert json.loads((out / path).read_bytes().split(b"\n")[0])["harness"]
    child = next(f for f in files if f["parent"])
    assert child["path"] == child["parent"].removesuffix(".jsonl") + ".agent-abc1234.jsonl"
    parent_header = json.loads((out / child["parent"]).read_bytes().split(b"\n")[0])
    assert parent_header["subagents"][0]["id"] == child["session"]
    assert (out / REPORT).is_file()
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "_sts", "data"]


def test_the_card_selects_the_traces_only(tmp_path):
    out = tmp_path / "out"
    publish(MIXED, out, options(allow_findings=True, license="cc-by-4.0", tags=("coding",)))
    yaml = front_matter(out)
    assert 'license: "cc-by-4.0"' in yaml
    assert "pretty_name:" in yaml
    tags = yaml.split("tags:\n", 1)[1].split("configs:", 1)[0]
    assert [t.strip('- "') for t in tags.split("\n") if t] == [
        "agent-traces", "claude-code", "codex", "openai", "pi", "coding"]
    assert 'path: "data/**/*.jsonl"' in yaml
    body = (out / "README.md").read_text(encoding="utf-8")
    assert "| harness | sessions | sub-agents | messages | tool calls | first | last |" in body
    row = next(line for line in body.splitlines() if line.startswith("| claude-code |"))
    assert row.split(" | ")[1:3] == ["1", "1"]
    assert row.split(" | ")[5] == "2026-02-11"  # its first recorded time
    # an OpenAI messages array records no time: its Pi times are the file's, marked, no dates
    (chat,) = [f for f in manifest(out)["files"] if f["harness"] == "openai"]
    assert chat["timestampFallback"] == "input-file-mtime" and chat["firstUserAt"]
    row = next(line for line in body.splitlines() if line.startswith("| openai |"))
    assert row.split(" | ")[5:] == ["", " |"]


def test_names_and_traces_are_stable(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    publish(MIXED, one, options(allow_findings=True))
    publish(MIXED, two, options(allow_findings=True))
    for path in (one / "data").rglob("*.jsonl"):
        assert path.read_bytes() == (two / path.relative_to(one)).read_bytes()
    publish(MIXED, one, options(allow_findings=True))  # an earlier publish folder is replaced
    assert len(manifest(one)["files"]) == len(manifest(two)["files"])


def test_planted_secrets_never_reach_the_folder(tmp_path):
    sources = rendered_cases(tmp_path)
    out = tmp_path / "out"
    result = publish(sources, out, options(allow_findings=True))
    data = b"".join(p.read_bytes() for p in (out / "data").rglob("*.jsonl"))
    for rule, planted in PLANTED.items():
        if rule != "high-entropy":
            assert planted.secret.encode() not in data, rule
    report = (out / REPORT).read_text(encoding="utf-8")
    for rule, planted in PLANTED.items():
        assert planted.secret not in report, rule
    document = json.loads(report)
    entries = document["findings"]
    grouped = {g["rule"] for g in document["grouped"]}
    assert grouped == {"home-path", "user-name"}
    assert {e["rule"] for e in entries} | grouped >= set(PLANTED)
    for entry in entries:
        line = (out / entry["file"]).read_bytes().split(b"\n")[entry["line"] - 1]
        if entry["action"] == "redacted" and entry["rule"] not in ("home-path", "user-name"):
            assert f"[REDACTED:{entry['rule']}]".encode() in line, entry
    assert len(result.flagged) == 1


def test_refused_while_flagged_strings_await_review(tmp_path):
    sources = rendered_cases(tmp_path)
    out = tmp_path / "out"
    result = publish(sources, out, options())
    assert result.refused
    assert not (out / "data").exists() and not (out / "README.md").exists()
    report = json.loads((out / REPORT).read_text(encoding="utf-8"))
    assert report["refused"] and report["flagged"] == 1
    allowed = options(redaction=RedactionConfig(
        secrets=SECRETS, environment=ENVIRONMENT, user_names=(USER,),
        allow=(PLANTED["high-entropy"].text,)))
    assert not publish(sources, out, allowed).refused
    assert (out / "data").is_dir()


def test_scanner_findings_refuse_too(tmp_path):
    scanned = []

    def scanner(folder: Path) -> list[str]:
        scanned.append(sorted(p.name for p in folder.rglob("*.jsonl")))
        return ["data/pi/x.jsonl:3: trufflehog AWS"]

    result = publish([CASES / "pi" / "compaction.jsonl"], tmp_path / "out",
                     options(scanner=scanner))
    assert result.refused and result.scanner_findings and scanned[0]


def test_trufflehog_is_run_when_installed(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "trufflehog"
    fake.parent.mkdir()
    record = {"DetectorName": "AWS", "Raw": "never shown",
              "SourceMetadata": {"Data": {"Filesystem": {"file": "FOLDER/data/a.jsonl",
                                                         "line": 3}}}}
    before, after = json.dumps(record).split("FOLDER")
    fake.write_text(f"#!/bin/sh\necho '{before}'\"$2\"'{after}'\n")  # $2: the folder
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    scanner = trufflehog()
    assert scanner is not None
    assert scanner(tmp_path) == ["data/a.jsonl:3: trufflehog AWS"]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert trufflehog() is None


def test_a_session_the_loader_cannot_show_is_left_out(tmp_path):
    source = tmp_path / "one.json"
    source.write_text(json.dumps([{"role": "user", "content": "just one question"}]))
    result = publish([source, CASES / "pi" / "compaction.jsonl"], tmp_path / "out", options())
    assert [e["reason"] for e in result.left_out] == [
        "a single message: the loader reads the file as one row per line"]
    assert len(manifest(tmp_path / "out")["leftOut"]) == 1
    assert not (tmp_path / "out" / result.left_out[0]["path"]).exists()


def test_size_guard_and_its_remedies(tmp_path):
    big = "x" * 1_200_000
    image = "iVBORw0KGgo" + "A" * 400_000
    lines = [
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {
                                         "url": f"data:image/png;base64,{image}"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "cat", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": big},
        {"role": "assistant", "content": "done"},
    ]
    source = tmp_path / "big.json"
    source.write_text(json.dumps(lines))
    plain = publish([source], tmp_path / "a", options(redaction=None))
    assert "the Hub's session view may not render" in plain.files[0]["warnings"][0]
    small = publish([source], tmp_path / "b", options(redaction=None, drop_images=True,
                                                      max_tool_output=1000))
    assert small.files[0]["warnings"] == [] and small.files[0]["bytes"] < 10_000
    data = (tmp_path / "b" / small.files[0]["path"]).read_text(encoding="utf-8")
    assert "characters cut by sts publish" in data and "[image: image/png" in data
    marker = "\n[… 80 characters cut by sts publish …]\n"
    assert cut("a" * 50 + "b" * 50, 20) == "a" * 10 + marker + "b" * 10


def test_sts_on_request_with_the_loader_warning(tmp_path):
    result = publish([CASES / "pi" / "compaction.jsonl"], tmp_path / "out", options(to="sts"))
    assert any("reads STS files as Pi" in w for w in result.warnings)
    path = tmp_path / "out" / result.files[0]["path"]
    assert_valid(path.read_bytes(), "sts")
    assert "STS-Format" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")


def test_refuses_to_write_over_other_files_or_inputs(tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="not empty"):
        publish(MIXED, tmp_path / "busy", options())
    with pytest.raises(UsageError, match="overlaps"):
        publish([CASES / "pi"], CASES / "pi" / "out", options())


# -- upload ------------------------------------------------------------------------------------


class FakeApi:
    """Records the calls an upload makes instead of making them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))
        return f"https://huggingface.co/datasets/{repo_id}"

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs))


def test_the_upload_up_to_the_network_call(tmp_path):
    out = tmp_path / "out"
    publish(MIXED, out, options(allow_findings=True))
    (out / ".sts-staging-left").mkdir()
    upload = plan(out, "someone/traces")
    names = [name for name, _ in upload.files]
    assert "README.md" in names and MANIFEST in names and REPORT in names
    assert not any(name.startswith(".") for name in names)
    assert (out / REVIEW).is_file() and REVIEW not in names
    assert upload.describe().startswith(f"would upload {len(names)} file(s)")
    assert "private dataset someone/traces" in upload.describe()
    api = FakeApi()
    assert push(upload, api) == "https://huggingface.co/datasets/someone/traces"
    (create, created), (send, sent) = api.calls
    assert (create, send) == ("create_repo", "upload_folder")
    assert created["private"] is True and created["repo_type"] == "dataset"
    assert sent["folder_path"] == str(out) and ".*" in sent["ignore_patterns"]
    assert REVIEW in sent["ignore_patterns"]
    with pytest.raises(ValueError, match="user/name"):
        plan(out, "no-slash")


def test_the_resumable_large_upload_is_preferred_when_there(tmp_path):
    out = tmp_path / "out"
    publish([CASES / "pi" / "compaction.jsonl"], out, options())

    class LargeApi(FakeApi):
        def upload_large_folder(self, **kwargs):
            self.calls.append(("upload_large_folder", kwargs))

    api = LargeApi()
    push(plan(out, "someone/traces", private=False), api)
    assert [c[0] for c in api.calls] == ["create_repo", "upload_large_folder"]
    assert api.calls[1][1]["private"] is False


def test_cli_publish_check_and_dry_run(tmp_path):
    out = tmp_path / "out"
    runner = CliRunner()
    done = runner.invoke(main, ["publish", *map(str, MIXED), "-o", str(out),
                                "--allow-findings", "--no-scanner", "--license", "mit"])
    assert done.exit_code == 0, done.output
    assert "session file(s) written" in done.output
    done = runner.invoke(main, ["publish", str(out), "--repo", "me/traces", "--dry-run"])
    assert done.exit_code == 0 and "would upload" in done.output
    done = runner.invoke(main, ["publish", str(out), "--repo", "bad", "--dry-run"])
    assert done.exit_code == 2
    done = runner.invoke(main, ["publish", *map(str, MIXED)])
    assert done.exit_code == 2 and "-o DIR" in done.output


def test_cli_refusal_exit_code(tmp_path):
    sources = rendered_cases(tmp_path)
    done = CliRunner().invoke(main, ["publish", *map(str, sources), "-o", str(tmp_path / "o"),
                                     "--no-scanner", "--secret", SECRETS[0],
                                     "--user-name", USER])
    assert done.exit_code == 1
    assert "refusing to publish: 1 flagged string(s)" in done.output


# -- the real loader ---------------------------------------------------------------------------


@pytest.fixture
def loader():
    pytest.importorskip("datasets", reason="the hub extra is not installed")
    pytest.importorskip("teich", reason="the hub extra is not installed")
    from sts.publish.check import check

    return check


def test_check_mixed_inputs_with_the_real_loader(tmp_path, loader):
    out = tmp_path / "out"
    publish(MIXED, out, options(allow_findings=True))
    result = loader(out)
    assert result.ok, [f.problems for f in result.files] + result.folder_problems
    assert result.folder_rows == len(manifest(out)["files"])
    calls = {f.path: f.loaded["toolCalls"] for f in result.files}
    assert calls == {f["path"]: f["toolCalls"] for f in manifest(out)["files"]}
    assert sum(calls.values()) > 0


def test_check_names_what_the_loader_gets_wrong(tmp_path, loader):
    out = tmp_path / "out"
    publish([CASES / "codex" / "tools_and_outputs.jsonl"], out, options(to="sts"))
    result = loader(out)
    assert not result.ok
    assert any("num_tool_calls is 0" in p for p in result.files[0].problems)
    single = out / "data" / "pi" / "single.jsonl"
    single.parent.mkdir(parents=True)
    single.write_text(
        '{"type":"session","version":3,"id":"single","harness":"pi"}\n'
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":'
        '[{"type":"text","text":"hi"}]}}\n')
    document = manifest(out)
    document["files"].append({"path": "data/pi/single.jsonl", "toolCalls": 0,
                              "userMessages": 1, "firstUserAt": None})
    (out / MANIFEST).write_bytes(orjson.dumps(document))
    result = loader(out)
    problem = next(f for f in result.files if f.path == "data/pi/single.jsonl").problems[0]
    assert problem.startswith("not read as a trace: 2 row(s)")


def test_check_the_corpus_outputs(tmp_path, loader):
    """Every corpus input the converters read, published as Pi: each file one trace whose tool
    calls, user messages and first prompt time the loader reads as written."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    out = tmp_path / "out"
    result = publish([CORPUS], out, options(allow_findings=True))
    assert len(result.files) > 30
    checked = loader(out)
    assert checked.ok, [(f.path, f.problems) for f in checked.files if f.problems] + \
        checked.folder_problems
    assert all(f.trace and f.rows == 1 for f in checked.files)
    assert sum(f.loaded["toolCalls"] for f in checked.files) == sum(
        f["toolCalls"] for f in result.files) > 1000


def test_cli_left_out_sessions_do_not_stop_the_upload(tmp_path):
    source = tmp_path / "one.json"
    source.write_text(json.dumps([{"role": "user", "content": "just one question"}]))
    done = CliRunner().invoke(main, [
        "publish", str(source), str(CASES / "pi" / "compaction.jsonl"), "-o",
        str(tmp_path / "out"), "--no-scanner", "--repo", "me/traces", "--dry-run"])
    assert done.exit_code == 0, done.output
    assert "left out data/openai/" in done.output and "would upload" in done.output


def test_cli_a_failed_check_stops_the_upload(tmp_path, loader):
    done = CliRunner().invoke(main, [
        "publish", str(CASES / "codex" / "tools_and_outputs.jsonl"), "-o",
        str(tmp_path / "out"), "--to", "sts", "--no-scanner", "--check",
        "--repo", "me/traces", "--dry-run"])
    assert done.exit_code == 1
    assert "check: num_tool_calls is 0" in done.output and "not uploading" in done.output
    assert "would upload" not in done.output


def test_cli_lists_every_problem_of_every_input(tmp_path):
    """Problems were kept for the whole run and listed after it: past the first 1000 (all of
    the first input here), no later input's problem was ever named. Each is now printed as it
    happens, as sts convert does."""
    from sts.problems import KEEP

    stamp = "2026-03-02T09:14:05.000Z"
    for name in ("a", "b"):
        rows = [{"type": "session", "version": 3, "id": name, "timestamp": stamp, "cwd": "/"},
                *({"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None,
                   "timestamp": stamp, "message": {"role": role, "content": f"{role} {i}",
                                                   "timestamp": 1772442845000}}
                  for i, role in enumerate(["user", "assistant"]))]
        (tmp_path / f"{name}.jsonl").write_bytes(
            b"".join(orjson.dumps(row) + b"\n" for row in rows) + b"{not json\n" * (KEEP + 3))
    done = CliRunner().invoke(main, ["publish", str(tmp_path / "a.jsonl"),
                                     str(tmp_path / "b.jsonl"), "-o", str(tmp_path / "out"),
                                     "--no-scanner"])
    assert done.exit_code == 1, done.output
    for name in ("a", "b"):
        listed = [line for line in done.output.splitlines()
                  if line.startswith(f"{tmp_path / name}.jsonl:") and "[malformed-json]" in line]
        assert len(listed) == KEEP + 3, name
    assert "problems-not-kept" not in done.output
