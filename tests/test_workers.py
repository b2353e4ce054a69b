"""Worker processes for ``-j``: results in job order, a dying worker, stopping early, the
ProcessPoolExecutor fallback, and the command giving the same outputs and report as ``-j 1``."""

from __future__ import annotations

import os

import pytest

from sts import workers
from sts.workers import results_in_order
from tests.support import CASES, PI_JUDGE, assert_valid
from tests.test_cli import EXAMPLE, MALFORMED, copy, sts


def double(job: int) -> int:
    return 2 * job


def lost(job: int) -> tuple[str, int]:
    return ("lost", job)


@pytest.fixture(autouse=True)
def no_judge() -> None:
    """Stop the real-pi judge (a child of this process; the next test needing it restarts it)."""
    PI_JUDGE.close()


def no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("count", [1, 2, 7, 1000, 20_000])
def test_results_come_back_in_job_order(count):
    jobs = list(range(count))
    assert list(results_in_order(jobs, double, 2, lost)) == [2 * j for j in jobs]
    assert no_children_left()


def test_a_dying_worker_loses_only_the_chunk_it_was_on():
    def run(job: int) -> int:
        if job == 70:
            os._exit(3)
        return 2 * job

    results = list(results_in_order(list(range(1000)), run, 2, lost))
    assert results[70] == ("lost", 70)
    lost_jobs = [i for i, r in enumerate(results) if r == ("lost", i)]
    chunk = 1000 // (2 * 32)
    assert lost_jobs == list(range(70 // chunk * chunk, (70 // chunk + 1) * chunk))
    assert all(r == 2 * i for i, r in enumerate(results) if i not in lost_jobs)
    assert no_children_left()


def test_stopping_early_reaps_every_worker():
    results = results_in_order(list(range(5000)), double, 2, lost)
    assert [next(results) for _ in range(3)] == [0, 2, 4]
    results.close()
    assert no_children_left()


def test_without_fork_a_process_pool_does_the_work(monkeypatch):
    monkeypatch.setattr(workers, "FORK", False)
    assert list(results_in_order(list(range(300)), double, 2, lost)) == [2 * j for j in range(300)]


def batch(tmp_path, count: int = 40):
    source = tmp_path / "in"
    cases = [*sorted(CASES.glob("pi/*.jsonl")), EXAMPLE, MALFORMED]
    for i in range(count):
        case = cases[i % len(cases)]
        copy(case, source / f"{i:03}-{case.name}")
    return source


def test_the_command_gives_the_same_files_and_report_with_workers(tmp_path):
    source = batch(tmp_path)
    serial = sts("convert", source, "-o", f"{tmp_path / 'one'}/")
    parallel = sts("convert", source, "-o", f"{tmp_path / 'two'}/", "-j", "2")
    assert (parallel.returncode, parallel.stderr) == (serial.returncode, serial.stderr)
    assert serial.returncode == 1 and "malformed-line.jsonl:3: error" in serial.stderr
    one = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.jsonl"))
    two = sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.jsonl"))
    assert one == two and len(one) >= 40
    for rel in one:
        written = (tmp_path / "one" / rel).read_bytes()
        assert written == (tmp_path / "two" / rel).read_bytes()
        assert_valid(written, "sts")


def test_fail_stops_workers_after_the_first_failed_input(tmp_path):
    source = tmp_path / "in"
    copy(MALFORMED, source / "000-bad.jsonl")
    for i in range(1, 400):
        copy(EXAMPLE, source / f"{i:03}.jsonl")
    done = sts("convert", source, "-o", f"{tmp_path / 'out'}/", "--on-error", "fail", "-j", "2")
    assert done.returncode == 1
    assert "000-bad.jsonl:3: error" in done.stderr
    written = list((tmp_path / "out").rglob("*")) if (tmp_path / "out").exists() else []
    assert len(written) < 399  # stopped well before the end
    assert not [p for p in written if p.name.endswith(".tmp")]  # no job cut off halfway


def test_when_the_system_will_not_fork_the_jobs_run_here(monkeypatch):
    def refuse():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    assert list(results_in_order(list(range(50)), double, 2, lost)) == [2 * j for j in range(50)]


def test_fewer_workers_than_asked_still_do_every_job(monkeypatch):
    real_fork, forks = os.fork, []

    def once():
        if forks:
            raise OSError(11, "Resource temporarily unavailable")
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", once)
    assert list(results_in_order(list(range(500)), double, 4, lost)) == [2 * j for j in range(500)]
    assert no_children_left()


@pytest.mark.parametrize("policy", ["skip", "fail"])
def test_results_are_delivered_with_their_problems_and_fail_stops_after_the_first_failure(
        policy):
    from sts.pipeline import JobResult, Settings, deliver
    from sts.problems import Problem

    taken: list[str] = []
    closed = []

    def results():
        try:
            for name, status in (("a", "ok"), ("b", "failed"), ("c", "ok")):
                taken.append(name)
                result = JobResult(name, status)
                result.tally.add(Problem(name, 1, "malformed-json", f"bad line in {name}"))
                yield result
        finally:
            closed.append(True)

    replayed: list[str] = []
    delivered: list[str] = []
    deliver(results(), Settings(policy=policy), lambda p: replayed.append(p.text),
            lambda r: delivered.append(r.display))
    expected = ["a", "b"] if policy == "fail" else ["a", "b", "c"]
    assert (taken, delivered, closed) == (expected, expected, [True])
    assert replayed == [f"bad line in {name}" for name in expected]
