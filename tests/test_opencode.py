"""OpenCode: the SQLite database (1.x and 2.x tables), the pre-1.2 JSON tree, export documents;
read-only and safe (locks, writes during the read, damage, unknown tables)."""

from __future__ import annotations

import hashlib
import io
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sts.converters import sqlite as sqlite_store
from sts.converters.base import Peek
from sts.converters.opencode import OpenCodeConverter
from sts.converters.registry import detect
from sts.converters.sqlite import DatabaseError, open_database
from sts.model import ImagePart, MediaPart, MessageKind, Session, ThinkingPart
from sts.pipeline import store_converter
from tests.support import CASES, checked_model, corpus, pi_agrees, read_sessions, walk

CASE_SQL = CASES / "opencode" / "generations.sql"
RICH = "built__opencode-v1-rich__opencode.db"
REAL = "real-writer__opencode-1.18.33__fake-model/.local/share/opencode/opencode.db"
DUMP = "built-from-real-dump__opencode-1.18.33__opencode.db"
V2 = "built__opencode-2x-session_message__opencode.db"
TREES = ("built__file-storage-pre1.2-rich/storage", "built__file-storage-pre1.2-from-real-rows")
EXPORTS = (
    "real-writer__opencode-1.18.33__export-main-session.json",
    "built__opencode-export__rich.json",
    "built__opencode-export__from-real-rows.json",
    "handmade__letta-trajectory__export-tool-calls.json",
    "handmade__letta-trajectory__export-cleanup.json",
)
CORPUS_INPUTS = (RICH, REAL, DUMP, V2, *TREES, *EXPORTS,
                 "real-writer__opencode-1.18.33__fake-model/.local/share/opencode")


def build_case(folder: Path, name: str = "opencode.db", wal: bool = False) -> Path:
    """The hand-written database of `generations.sql`, written into `folder`."""
    path = folder / name
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.executescript(CASE_SQL.read_text())
    connection.commit()
    connection.close()
    return path


def read(path: Path, **options) -> tuple[list[Session], list]:
    return read_sessions(path, "opencode", **options)


def stamp(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def shape(session: Session) -> list[tuple[str, str | None]]:
    return [(m.role, m.kind) for m in session.messages]


# -- the corpus: every sample, both targets, the validator, the real pi ------------------------


@pytest.mark.parametrize("name", CORPUS_INPUTS)
def test_corpus_sample_converts_to_both_targets_and_pi_agrees(name):
    path = corpus("opencode", name)
    sessions, problems = read(path)
    assert sessions
    assert [p for p in problems if p.severity == "error"] == []
    checked_model(sessions)  # every session and sub-agent through both writers + validator
    for session in walk(sessions):
        assert session.harness == "opencode" and session.source_format == "opencode"
        pi_agrees(session)


@pytest.mark.parametrize("name", CORPUS_INPUTS)
def test_corpus_sample_is_detected(name):
    path = corpus("opencode", name)
    if path.is_dir():
        assert store_converter(path).name == "opencode"
        return
    data = path.read_bytes()
    assert detect(Peek(data[: 256 * 1024], path.name, len(data) <= 256 * 1024)).name == "opencode"
    assert detect(Peek(data[: 256 * 1024], None, len(data) <= 256 * 1024)).name == "opencode"


def test_rich_database_facts():
    sessions, problems = read(corpus("opencode", RICH))
    assert problems == []
    [main] = sessions
    assert main.id == "ses_3a1f0c2b7ffeQm8sR2tY5uV9wX" and main.name == "Fix failing math test"
    assert (main.cwd, main.started_at, main.source_version) == (
        "/home/user/demo-project", 1787000000000, "1.18.33")
    prompt, injected = main.messages[:2]
    assert prompt.text == "The test in src/math.test.ts fails. Fix it. @src/math.ts"
    assert [type(p) for p in prompt.content][1:] == [MediaPart, ImagePart]
    assert prompt.content[1].name == "src/math.ts" and prompt.content[2].media_type == "image/png"
    assert injected.kind == MessageKind.INJECTED_CONTEXT
    assert injected.text.startswith("Called the Read tool")
    first = main.messages[2]
    assert type(first.content[0]) is ThinkingPart
    assert first.content[0].signature == "<redacted-signature>"
    assert first.usage.input == 2048 and first.usage.cache_write == 3072
    assert first.usage.cost_total == 0.0312 and first.extras["reasoningTokens"] == 256
    assert first.stop_reason == "tool_use"
    calls = {c.id: c for m in main.messages for c in m.tool_calls}
    results = {m.tool_call_id: m for m in main.messages if m.role == "tool"}
    assert set(results) == set(calls)  # every call answered, linked by id
    assert results["toolu_01B2c3D4e5F6g7H8i9J0k1L2"].is_error is True  # rejected bash
    interrupted = results["toolu_01F2g3H4i5J6k7L8m9N0o1P2"]
    assert interrupted.is_error and interrupted.extras["interrupted"] is True
    assert interrupted.text.startswith("> demo@1.0.0 test")
    assert main.messages[5].extras["patches"][0]["files"] == ["/home/user/demo-project/src/math.ts"]
    compaction = next(m for m in main.messages if m.kind == MessageKind.COMPACTION)
    assert compaction.text.startswith("Summary: fixed add()") and compaction.extras["auto"] is False
    retry = next(m for m in main.messages if m.kind == MessageKind.API_ERROR)
    assert retry.text == "retry 1: Overloaded"
    last = main.messages[-2]
    assert (last.stop_reason, last.error_message) == ("aborted", "The operation was aborted.")
    # the sub-agent, linked both ways
    [child] = main.children
    assert child.id == "ses_3a1f0a11dffeAb3Cd4Ef5Gh6Ij"
    assert child.metadata["parentSessionId"] == main.id
    assert child.metadata["parentToolCallId"] == "toolu_01D2e3F4g5H6i7J8k9L0m1N2"
    assert child.metadata["agentType"] == "explore"
    assert main.metadata["subagentLinks"] == [{
        "key": child.id, "sessionId": child.id, "toolCallId": "toolu_01D2e3F4g5H6i7J8k9L0m1N2"}]
    assert child.messages[0].text == "List any shared test helpers under test/."
    replies = [m.text for m in child.messages if m.role == "assistant"]
    assert replies[-1] == "There are no shared helpers; tests import from src/ directly."


def test_real_writer_database_facts():
    sessions, problems = read(corpus("opencode", REAL))
    assert problems == []
    [main] = sessions
    prompts = [m.text for m in main.messages if m.role == "user"]
    assert prompts == ['"Read NOTES.md and find test helpers"',  # as opencode run stored it
                       '"SECOND-PROMPT: what did we run before?"']
    assert main.messages[-1].text == "We ran `echo fixture` earlier; it printed `fixture`."
    errors = [m.text for m in main.messages if m.role == "tool" and m.is_error]
    assert errors == ["File not found: /home/user/work0/ocrun/proj/NOTES.md"]
    [child] = main.children  # parent_id and the <task id="ses_..."> output agree
    assert child.metadata["parentToolCallId"] == "call_8511ecbeeb7a"
    assert [m.is_error for m in child.messages if m.role == "tool"] == [True]


def test_the_json_tree_and_the_export_read_as_the_database():
    db, _ = read(corpus("opencode", RICH))
    tree, _ = read(corpus("opencode", TREES[0]))
    assert tree[0].source_version == "1.1.53"  # the tree was written by a pre-1.2 OpenCode
    tree[0].source_version = tree[0].children[0].source_version = "1.18.33"
    for session in walk(db):  # the agent column came with the database
        session.metadata.pop("agent", None)
        session.metadata.pop("agentType", None)
    assert checked_model(tree) == checked_model(db)
    real, _ = read(corpus("opencode", REAL))
    export, _ = read(corpus("opencode", EXPORTS[0]))
    assert [(m.role, m.text) for m in export[0].messages] == [
        (m.role, m.text) for m in real[0].messages]


def test_2x_database_reads_session_message():
    [session], problems = read(corpus("opencode", V2))
    assert problems == []
    assert shape(session) == [("user", None), ("assistant", None), ("tool", None),
                              ("system", "compaction")]
    assert session.messages[2].text == "42 README.md\n"
    assert session.messages[1].text == "README.md has 42 lines."


# -- hand-written database: one generation per session, links by metadata, options ----------


def test_case_snapshot(tmp_path, snapshot_model):
    sessions, _ = read(build_case(tmp_path))
    assert checked_model(sessions) == snapshot_model


def test_one_generation_per_session_and_task_links(tmp_path):
    path = build_case(tmp_path)
    connection = sqlite3.connect(path)
    connection.executescript(
        "INSERT INTO session_message VALUES ('msg_m6', 'ses_mig', 'hologram', 5, 1008, '{}');"
        "INSERT INTO part VALUES ('prt_v2d', 'msg_v2', 'ses_v1', 2002,"
        " '{\"type\":\"hologram\",\"x\":1}');")
    connection.close()
    sessions, problems = read(path)
    assert [s.id for s in sessions] == ["ses_mig", "ses_v1"]  # ses_empty has no message
    migrated, v1 = sessions
    assert migrated.name == "Migrated" and migrated.source_version == "2.0.3"
    assert next(m.text for m in migrated.messages if m.role == "user") == "count the lines"
    assert "old copy of the prompt" not in str(checked_model(migrated))
    assert shape(migrated) == [("user", None), ("assistant", None), ("tool", None),
                               ("tool", None), ("user", "bash"), ("system", "compaction")]
    assert [(m.tool_call_id, m.is_error) for m in migrated.messages if m.role == "tool"] == [
        ("call_wc", False), ("call_bad", True)]
    assert migrated.messages[1].usage.cost_total == 0.5
    # the 1.x session: step-finish parts summed when the message has no tokens
    reply = v1.messages[1]
    assert (reply.usage.input, reply.usage.output, reply.usage.cost_total) == (8, 4, 0.5)
    assert [c.id for c in reply.tool_calls] == ["call_task", "call_wait"]
    assert [m.tool_call_id for m in v1.messages if m.role == "tool"] == ["call_task"]
    assert [m.text for m in v1.messages if m.role == "user"] == ["explore the repo"]
    [kid] = v1.children  # named by metadata.sessionId only; not converted a second time
    assert kid.id == "ses_kid" and kid.metadata["parentToolCallId"] == "call_task"
    assert sorted((p.code, p.severity) for p in problems) == [
        ("unknown-part", "warning"), ("unknown-type", "warning")]


def test_session_option_picks_sessions(tmp_path):
    path = build_case(tmp_path)
    sessions, problems = read(path, sessions=("ses_kid", "ses_nope"))
    assert [s.id for s in sessions] == ["ses_kid"]
    assert [(p.code, p.text) for p in problems] == [
        ("unknown-session", "no session 'ses_nope' here")]
    # without sub-agents, one named only by a task call's metadata is a session of its own
    sessions, _ = read(path, subagents=False)
    assert [(s.id, s.children) for s in sessions] == [
        ("ses_mig", []), ("ses_v1", []), ("ses_kid", [])]


def test_cli_session_flag_and_folder_walk(tmp_path):
    data = tmp_path / "share" / "opencode"
    data.mkdir(parents=True)
    build_case(data, wal=True)
    keeper = sqlite3.connect(data / "opencode.db")  # the harness running: -wal and -shm exist
    keeper.execute("INSERT INTO future_table VALUES ('y', '{}')")
    keeper.commit()
    (data / "auth.json").write_text('{"anthropic": {"key": "sk-SECRET"}}')
    (data / "log").mkdir()
    (data / "log" / "x.log").write_text("INFO started\n")
    assert {p.name for p in data.iterdir()} >= {"opencode.db-wal", "opencode.db-shm"}
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(tmp_path / "share"),
                           "-o", f"{out}/"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "opencode.ses_mig.jsonl", "opencode.ses_v1.jsonl", "opencode.ses_v1.ses_kid.jsonl"]
    assert "unknown" not in done.stderr
    one = tmp_path / "one.jsonl"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(data / "opencode.db"),
                           "--session", "ses_mig", "-o", str(one)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert b'"id":"ses_mig"' in one.read_bytes().split(b"\n")[0]
    done = subprocess.run([sys.executable, "-m", "sts", "detect", str(data),
                           str(data / "opencode.db")], capture_output=True, text=True)
    assert done.stdout.split() == [str(data), "opencode", str(data / "opencode.db"), "opencode"]
    keeper.close()


def test_a_database_on_stdin_is_refused_clearly(tmp_path):
    path = build_case(tmp_path)
    done = subprocess.run([sys.executable, "-m", "sts", "convert", "-"], input=path.read_bytes(),
                          capture_output=True)
    assert done.returncode == 1
    assert b"cannot be read from standard input" in done.stderr and b"[needs-path]" in done.stderr


# -- read-only and safe ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["rollback", "wal-open", "wal-closed", "wal-leftover"])
def test_the_database_is_never_modified_and_nothing_is_created(tmp_path, mode):
    path = build_case(tmp_path, wal=mode != "rollback")
    keeper = None
    if mode in ("wal-open", "wal-leftover"):
        keeper = sqlite3.connect(path)
        keeper.execute("PRAGMA wal_autocheckpoint=0")
        keeper.execute("INSERT INTO message VALUES ('msg_late', 'ses_v1', 9000,"
                       " '{\"role\":\"user\",\"time\":{\"created\":9000}}', NULL)")
        keeper.execute("INSERT INTO part VALUES ('prt_late', 'msg_late', 'ses_v1', 9000,"
                       " '{\"type\":\"text\",\"text\":\"only in the WAL\"}')")
        keeper.commit()
    if mode == "wal-leftover":  # a crash left the -wal without its index
        copy = tmp_path / "crashed"
        copy.mkdir()
        shutil.copyfile(path, copy / path.name)
        shutil.copyfile(path.with_name(path.name + "-wal"), copy / (path.name + "-wal"))
        keeper.close()
        keeper, path = None, copy / path.name
    # the -shm index is shared memory: readers mark it (that is how they keep a WAL writer
    # from overwriting what they read); the database and its -wal are never touched
    names = sorted(p.name for p in path.parent.iterdir())
    files = {p.name: stamp(p) for p in path.parent.iterdir() if not p.name.endswith("-shm")}
    sessions, problems = read(path)
    assert problems == []
    assert {p.name: stamp(p) for p in path.parent.iterdir() if p.name in files} == files
    assert sorted(p.name for p in path.parent.iterdir()) == names
    if mode in ("wal-open", "wal-leftover"):  # the -wal file is part of the database
        assert sessions[1].messages[-1].text == "only in the WAL"
    if keeper is not None:
        keeper.close()


def test_secret_tables_cannot_be_read(tmp_path):
    path = build_case(tmp_path)
    with open_database(path, ("session", "credential")) as reader:
        with pytest.raises(DatabaseError):
            list(reader.rows("SELECT secret FROM credential"))
        with pytest.raises(DatabaseError):
            list(reader.rows("DELETE FROM session"))
    sessions, _ = read(path)
    assert b"SECRET" not in checked_model(sessions)


def test_a_locked_database_is_retried_then_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 0.3)
    path = build_case(tmp_path)
    locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN EXCLUSIVE")
    sessions, problems = read(path)
    assert sessions == []
    assert [p.code for p in problems] == ["database-busy"]
    # released while the reader waits: read in full
    threading.Timer(0.1, locker.execute, ("COMMIT",)).start()
    monkeypatch.setattr(sqlite_store, "BUSY_SECONDS", 5.0)
    sessions, problems = read(path)
    assert [s.id for s in sessions] == ["ses_mig", "ses_v1"] and problems[:0] == []
    locker.close()


def test_a_database_written_during_the_read_is_read_as_one_snapshot(tmp_path):
    path = build_case(tmp_path, wal=True)
    writer = sqlite3.connect(path)
    problems: list = []
    from sts.building.context import ReadContext
    from sts.problems import Problems

    context = ReadContext(Problems("db", "skip", problems.append), path, {})
    sessions = OpenCodeConverter().read(io.BytesIO(path.read_bytes()), context)
    first = next(sessions)
    assert first.id == "ses_mig"
    writer.execute("INSERT INTO message VALUES ('msg_new', 'ses_v1', 2003,"
                   " '{\"role\":\"user\",\"time\":{\"created\":2003}}', NULL)")
    writer.execute("INSERT INTO part VALUES ('prt_new', 'msg_new', 'ses_v1', 2003,"
                   " '{\"type\":\"text\",\"text\":\"written meanwhile\"}')")
    writer.execute("INSERT INTO session VALUES ('ses_new', NULL, 't', '/w', '1', 9, NULL)")
    writer.commit()
    rest = list(sessions)
    assert [s.id for s in rest] == ["ses_v1"]  # the state the read began with
    assert "written meanwhile" not in [m.text for m in rest[0].messages]
    assert problems == [p for p in problems if p.severity == "warning"]
    writer.close()


def test_a_damaged_page_is_reported_not_a_crash(tmp_path):
    path = tmp_path / "damaged.db"
    shutil.copyfile(corpus("opencode", RICH), path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for number in range(2, len(data) // page):  # every page but the schema's
        data[number * page: number * page + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))
    sessions, problems = read(path)
    assert sessions == []
    assert problems and all(p.code == "bad-database" for p in problems)
    assert "malformed" in problems[0].text or "not a database" in problems[0].text


def test_a_damaged_message_table_is_reported_per_session(tmp_path):
    path = tmp_path / "damaged.db"
    data = bytearray(corpus("opencode", RICH).read_bytes())
    page = int.from_bytes(data[16:18], "big")
    connection = sqlite3.connect(f"file:{corpus('opencode', RICH)}?mode=ro&immutable=1",
                                 uri=True)
    [(root,)] = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'message'")
    connection.close()
    data[(root - 1) * page: root * page] = b"\x07" * page
    path.write_bytes(bytes(data))
    sessions, problems = read(path)
    assert sessions == []  # the session list was read; no session's messages could be
    assert [(p.code, p.text.split(":")[0]) for p in problems] == [
        ("bad-database", "session ses_3a1f0c2b7ffeQm8sR2tY5uV9wX"),
        ("bad-database", "session ses_3a1f0a11dffeAb3Cd4Ef5Gh6Ij")]


def test_unknown_tables_and_columns_change_nothing(tmp_path):
    path = tmp_path / "newer.db"
    shutil.copyfile(corpus("opencode", RICH), path)
    before, _ = read(corpus("opencode", RICH))
    connection = sqlite3.connect(path)
    connection.executescript(
        "ALTER TABLE session ADD COLUMN mood text DEFAULT 'calm';"
        "ALTER TABLE message ADD COLUMN weight integer;"
        "ALTER TABLE part ADD COLUMN flavour text;"
        "CREATE TABLE session_hologram (id text, data text);"
        "INSERT INTO session_hologram VALUES ('ses_x', '{}');")
    connection.close()
    after, problems = read(path)
    assert problems == []
    assert checked_model(after) == checked_model(before)


def test_sniff_needs_the_tables_not_the_name(tmp_path):
    path = build_case(tmp_path, "whatever.sqlite")
    data = path.read_bytes()
    assert OpenCodeConverter().sniff(Peek(data, None, True)) >= 0.9
    other = tmp_path / "other.db"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE notes (id text, body text)")
    connection.commit()
    connection.close()
    assert OpenCodeConverter().sniff(Peek(other.read_bytes(), "opencode.db", True)) == 0.0
    assert OpenCodeConverter().sniff(Peek(b'{"info": {"id": "ses_1"}, "messages": [', None,
                                          False)) >= 0.9


def test_memory_bounded_by_a_session_one_query_each(tmp_path):
    path = build_case(tmp_path)
    statements: list[str] = []
    real_connect = sqlite3.connect

    def traced(*args, **kwargs):
        connection = real_connect(*args, **kwargs)
        connection.set_trace_callback(statements.append)
        return connection

    sqlite_store.sqlite3.connect = traced  # type: ignore[assignment]
    try:
        read(path)
    finally:
        sqlite_store.sqlite3.connect = real_connect
    reads = [s for s in statements if "WHERE m.session_id" in s or "ORDER BY seq" in s]
    # one query per session: ses_mig (2.x); ses_v1, ses_kid, ses_empty (1.x)
    assert len(reads) == 4
    assert len(set(reads)) == 4
    assert not any("credential" in s for s in statements)


def test_a_data_folder_reads_its_database_then_the_tree_sessions_it_lacks(tmp_path):
    data = tmp_path / "opencode"
    data.mkdir()
    shutil.copyfile(corpus("opencode", RICH), data / "opencode.db")
    shutil.copytree(corpus("opencode", TREES[0]), data / "storage")  # imported: same ids
    for kind in ("session", "message", "part", "project"):  # and one session never imported
        for path in corpus("opencode", TREES[1], "storage", kind).rglob("*.json"):
            target = data / "storage" / path.relative_to(corpus("opencode", TREES[1], "storage"))
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    assert store_converter(data).name == "opencode"
    sessions, problems = read(data)
    assert problems == []
    assert [(s.id, s.source_version) for s in sessions] == [
        ("ses_3a1f0c2b7ffeQm8sR2tY5uV9wX", "1.18.33"),  # from the database, not the tree
        ("ses_f0de500f8ffeXvsiYJDOg5JtrU", "1.18.33")]  # only in the tree
    assert len(sessions[0].children) == 1


def test_a_folder_that_only_holds_a_database_is_walked_as_usual(tmp_path):
    shutil.copyfile(corpus("opencode", RICH), tmp_path / "opencode.db")
    (tmp_path / "notes.jsonl").write_text('{"role": "user", "content": "hi"}\n')
    assert store_converter(tmp_path) is None  # not OpenCode's data folder: no file is hidden
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "sts", "convert", str(tmp_path / "opencode.db"),
                           str(tmp_path / "notes.jsonl"), "-o", f"{out}/"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(list(out.iterdir())) == 3  # the session, its sub-agent, the notes


def test_a_copy_that_changed_while_taken_is_taken_again(tmp_path, monkeypatch):
    path = build_case(tmp_path, wal=True)  # closed cleanly: no -wal/-shm, so it is copied
    assert not path.with_name(path.name + "-wal").exists()
    calls = []
    real = sqlite_store._stamps

    def moving(*paths):
        calls.append(paths)
        return [*real(*paths), len(calls) if len(calls) <= 2 else 0]  # changes once

    monkeypatch.setattr(sqlite_store, "_stamps", moving)
    sessions, problems = read(path)
    assert [s.id for s in sessions] == ["ses_mig", "ses_v1"] and problems == []
    assert len(calls) == 4  # two copies: the first changed under it
    monkeypatch.setattr(sqlite_store, "_stamps", lambda *p: [object()])  # never settles
    sessions, problems = read(path)
    assert sessions == [] and [p.code for p in problems] == ["database-busy"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]


def test_a_sub_agent_named_only_by_a_task_call_and_created_before_its_parent_is_written_once(
        tmp_path):
    # sessions stream in creation order: one without parent_id is written before the task call
    # naming it is read, so the parent links to it by id instead of holding it a second time
    path = build_case(tmp_path)
    connection = sqlite3.connect(path)
    connection.execute("UPDATE session SET time_created = 500 WHERE id = 'ses_kid'")
    connection.commit()
    connection.close()
    sessions, _ = read(path)
    assert [s.id for s in sessions] == ["ses_kid", "ses_mig", "ses_v1"]
    kid, _, v1 = sessions
    assert [m.text for m in kid.messages] == ["look around", "done"]
    assert v1.children == []
    assert v1.metadata["subagentLinks"] == [{"sessionId": "ses_kid", "toolCallId": "call_task"}]
