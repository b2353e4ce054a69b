"""Converting on a Dask cluster and through fsspec URLs (issue 18, part B): the same bytes as a
local run; problems from every worker in the one summary; a killed worker, a slow worker;
resumable runs. A real `distributed.LocalCluster` with worker processes, on the loopback
interface only."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
fsspec = pytest.importorskip("fsspec")
dask = pytest.importorskip("dask")

import sts  # noqa: E402
from sts.pipeline import JobResult  # noqa: E402
from tests.support import CASES, SAMPLES, assert_valid  # noqa: E402
from tests.test_cli import sts as run_sts  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def no_process_left():
    """Dask's worker processes leave multiprocessing's resource tracker behind, a child of
    this process: stop it once the module's clusters are closed (tests/test_workers.py counts
    this process's children)."""
    yield
    import gc
    from multiprocessing import resource_tracker

    offload = getattr(distributed.utils, "_offload_executor", None)
    if offload is not None:
        offload.shutdown(wait=True)
    gc.collect()  # the clients' and clusters' leftovers, not another module's test's

    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if stop is not None:
        stop()


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A folder of mixed inputs: samples, a Claude Code session with malformed lines,
    a Claude Code 2.1 session with its sub-agent folder."""
    folder = tmp_path / "in"
    folder.mkdir()
    for sample in SAMPLES.glob("*.jsonl"):
        shutil.copy(sample, folder / sample.name)
    shutil.copy(CASES / "claude-code" / "corrupt-lines.jsonl", folder / "corrupt-lines.jsonl")
    shutil.copytree(CASES / "claude-code" / "layout-2.1" / "project", folder / "project")
    return folder


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` by relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def local_run(inputs: Path, out: Path) -> tuple[dict[str, bytes], list[JobResult]]:
    results = sts.convert_many([inputs], out, problems=lambda p: None)
    return tree(out), results


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes on 127.0.0.1; a worker whose task kills it twice gives up."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     host="127.0.0.1", dashboard_address=None) as local:
        yield local


@pytest.fixture
def client(cluster):
    with distributed.Client(cluster) as connected:
        yield connected


def summary(results: list[JobResult]) -> list[tuple[str, str, int, list[str]]]:
    """What a run reported, input by input, the input folder left out."""
    return [(Path(r.display).name, r.status, r.sessions,
             sorted(f"{Path(p.file).name}:{p.line}:{p.code}" for p in r.problems))
            for r in results]


def test_a_cluster_run_writes_what_a_local_run_writes(inputs, tmp_path, client):
    expected, local = local_run(inputs, tmp_path / "local")
    seen = []
    results = sts.convert_many([inputs], tmp_path / "cluster", client=client,
                               problems=seen.append)
    assert tree(tmp_path / "cluster") == expected
    assert summary(results) == summary(local)
    assert any(p.line is not None and p.file.endswith("corrupt-lines.jsonl") for p in seen)
    for path in (tmp_path / "cluster").rglob("*.jsonl"):
        assert_valid(path.read_bytes(), "sts")


def test_a_worker_dates_an_input_without_times_by_its_file(tmp_path, client):
    """Pi output of a source that recorded no time: the worker takes the time of the file its
    job names (issue 13), not the time it ran, as a local run does."""
    source = tmp_path / "in" / "chat.jsonl"
    source.parent.mkdir()
    shutil.copy(CASES / "openai" / "chat-without-times.jsonl", source)
    os.utime(source, ns=(1772442845112_000_000, 1772442845112_000_000))
    results = sts.convert_many([source], tmp_path / "out", to="pi", client=client)
    assert [r.status for r in results] == ["ok"]
    outputs = sorted((tmp_path / "out").rglob("*.jsonl"))
    assert len(outputs) == 2
    for path in outputs:
        data = path.read_bytes()
        assert_valid(data, "pi")
        assert data.startswith(b'{"type":"session","version":3,"id":"chat-L')
        assert b'"timestamp":"2026-03-02T09:14:05.112Z","timestampFallback":"input-file-mtime"' \
            in data.split(b"\n")[0]


def test_a_rerun_on_the_cluster_skips_what_is_written(inputs, tmp_path, client):
    out = tmp_path / "out"
    sts.convert_many([inputs], out, client=client, problems=lambda p: None)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*.jsonl")}
    victim = sorted(before)[0]
    victim.unlink()  # as if the first run had stopped before writing it
    sts.convert_many([inputs], out, client=client, problems=lambda p: None)
    after = {p: p.stat().st_mtime_ns for p in out.rglob("*.jsonl")}
    assert set(after) == set(before)
    assert {p for p in after if after[p] != before.get(p)} == {victim}


class KillOnce(distributed.WorkerPlugin):
    """Kills the worker converting `name` the first time only (a marker file remembers)."""

    def __init__(self, name: str, marker: str) -> None:
        self.name, self.marker = name, marker

    def setup(self, worker) -> None:
        from sts import pipeline

        run = pipeline.run_job

        def dying(job, *args, **kwargs):
            if job.display.endswith(self.name) and not os.path.exists(self.marker):
                Path(self.marker).touch()
                os._exit(1)
            return run(job, *args, **kwargs)

        pipeline.run_job = dying


class KillAlways(distributed.WorkerPlugin):
    """Kills every worker that converts `name`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def setup(self, worker) -> None:
        from sts import pipeline

        run = pipeline.run_job

        def dying(job, *args, **kwargs):
            if job.display.endswith(self.name):
                os._exit(1)
            return run(job, *args, **kwargs)

        pipeline.run_job = dying


class Slow(distributed.WorkerPlugin):
    """Makes the worker it is set up on take `delay` seconds more per input."""

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def setup(self, worker) -> None:
        from sts import pipeline

        run = pipeline.run_job

        def slow(*args, **kwargs):
            time.sleep(self.delay)
            return run(*args, **kwargs)

        pipeline.run_job = slow


def fresh_cluster(**config):
    with dask.config.set({"distributed.scheduler.allowed-failures": 1, **config}):
        return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", dashboard_address=None)


def test_a_killed_worker_has_its_job_retried(inputs, tmp_path):
    expected, _ = local_run(inputs, tmp_path / "local")
    with fresh_cluster() as cluster, distributed.Client(cluster) as client:
        client.register_plugin(KillOnce("hello.sts.jsonl", str(tmp_path / "killed")))
        results = sts.convert_many([inputs], tmp_path / "cluster", client=client,
                                   problems=lambda p: None)
    assert (tmp_path / "killed").exists()  # a worker did die on it
    assert tree(tmp_path / "cluster") == expected
    assert all(r.status != "failed" for r in results)


def test_a_job_that_kills_every_worker_is_reported(inputs, tmp_path):
    expected, _ = local_run(inputs, tmp_path / "local")
    with fresh_cluster() as cluster, distributed.Client(cluster) as client:
        client.register_plugin(KillAlways("hello.sts.jsonl"))
        results = sts.convert_many([inputs], tmp_path / "cluster", client=client,
                                   problems=lambda p: None)
    assert len(results) == len({r.display for r in results}) == 7  # every input accounted for
    by_name = {Path(r.display).name: r for r in results}
    dead = by_name.pop("hello.sts.jsonl")
    assert (dead.status, [p.code for p in dead.problems]) == ("failed", ["worker-died"])
    assert not (tmp_path / "cluster" / "hello.sts.jsonl").exists()
    # a job waiting on a dying worker may be given up with it (Dask counts that worker's death
    # against it too): reported the same way; every other job's output is the local run's
    for result in by_name.values():
        if result.status == "failed":
            assert [p.code for p in result.problems] == ["worker-died"], result.problems
    written = tree(tmp_path / "cluster")
    assert written == {name: expected[name] for name in written}
    assert any(r.status == "ok" for r in by_name.values())


def test_a_slow_worker_does_not_change_the_output(inputs, tmp_path, client):
    expected, local = local_run(inputs, tmp_path / "local")
    slow_worker = sorted(client.scheduler_info()["workers"])[0]
    client.register_plugin(Slow(0.3), name="slow")
    try:
        client.run(lambda: None, workers=[slow_worker])
        results = sts.convert_many([inputs], tmp_path / "cluster", client=client,
                                   problems=lambda p: None)
    finally:
        client.unregister_worker_plugin("slow")
        client.restart()
    assert tree(tmp_path / "cluster") == expected
    assert summary(results) == summary(local)


def put_tree(folder: Path, url: str) -> None:
    fs, root = fsspec.core.url_to_fs(url)
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            fs.pipe(f"{root}/{path.relative_to(folder).as_posix()}", path.read_bytes())


def memory_tree(url: str) -> dict[str, bytes]:
    fs, root = fsspec.core.url_to_fs(url)
    return {name[len(root):].lstrip("/"): fs.cat(name) for name in sorted(fs.find(root))}


def test_fsspec_urls_in_and_out(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for sample in SAMPLES.glob("*.jsonl"):
        shutil.copy(sample, folder / sample.name)
    shutil.copy(CASES / "claude-code" / "corrupt-lines.jsonl", folder / "corrupt-lines.jsonl")
    expected, local = local_run(folder, tmp_path / "local")
    put_tree(folder, "memory://sts-test/in")
    try:
        results = sts.convert_many(["memory://sts-test/in"], "memory://sts-test/out",
                                   problems=lambda p: None)
        assert memory_tree("memory://sts-test/out") == expected
        assert summary(results) == summary(local)
        # resumable: an output already there is kept as it is
        fsspec.filesystem("memory").pipe("/sts-test/out/hello.sts.jsonl", b"kept\n")
        sts.convert_many(["memory://sts-test/in"], "memory://sts-test/out", resume=True,
                         problems=lambda p: None)
        assert memory_tree("memory://sts-test/out")["hello.sts.jsonl"] == b"kept\n"
    finally:
        fsspec.filesystem("memory").rm("/sts-test", recursive=True)


def test_the_command_runs_on_a_local_cluster(inputs, tmp_path):
    expected, _ = local_run(inputs, tmp_path / "local")
    done = run_sts("convert", inputs, "-o", f"{tmp_path / 'cluster'}/", "--cluster", "local:2")
    assert done.returncode == 1, done.stderr  # malformed lines: exit 1, as locally
    assert "corrupt-lines.jsonl:" in done.stderr
    assert tree(tmp_path / "cluster") == expected


def test_a_file_url_is_a_local_path(inputs, tmp_path):
    expected, _ = local_run(inputs, tmp_path / "local")
    sts.convert_many([f"file://{inputs}"], f"file://{tmp_path / 'url'}", problems=lambda p: None)
    assert tree(tmp_path / "url") == expected


def test_a_long_pi_file_in_a_store_is_fetched_once_a_pass(tmp_path, monkeypatch):
    """A long Pi session is read again as it is written (its messages are not kept): through a
    store each pass fetches the file once, in blocks, never a block per line or per entry."""
    from benchmarks.remote import FetchingStore, call_entries, write_session
    from sts.converters.pi import entries

    monkeypatch.setattr(entries, "DEFER_AT", 0)  # every session long: its messages made again
    monkeypatch.setattr(FetchingStore, "blocksize", 1 << 16)
    source = tmp_path / "long.jsonl"
    write_session(source, call_entries(6000))
    expected, _ = local_run(source, tmp_path / "local")
    store = FetchingStore()  # the instance fsspec opens the input with
    store.reset()
    results = sts.convert_many([f"fetching://{source}"], tmp_path / "remote", to="sts",
                               problems=lambda p: None)
    assert [r.status for r in results] == ["ok"]
    assert tree(tmp_path / "remote") == expected
    size = source.stat().st_size
    passes = 3  # read, the tool-call ledger's pass, the writer's pass
    assert sum(store.fetched) <= passes * (size + FetchingStore.blocksize)
    assert len(store.fetched) <= passes * (size // FetchingStore.blocksize + 2)
    # fsspec's own line reading handed out a block for every line: 236x the file here, and
    # 4.6x fetched in 67 fetches
    assert store.handed_out <= passes * (size + (1 << 20))
