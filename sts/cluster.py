"""Running a batch's jobs on a Dask cluster (``--cluster``, ``convert_many(client=...)``).

Needs the ``cluster`` extra (``distributed``). Each job (one input) is one Dask task running
the same `sts.pipeline.run_job` as a local run, so its outputs are the same bytes; its
`JobResult` (problems with file and line, sessions written) comes back to the one summary.
A worker that dies has its tasks rescheduled by the scheduler on the other workers; a job that
still cannot finish (Dask gives up after ``distributed.scheduler.allowed-failures`` deaths, 3 by
default) is reported ``worker-died``. Inputs and outputs must be reachable from every worker: a
shared folder, or fsspec URLs (`sts.store`).
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Generator, Iterator
from typing import Any

from sts import pipeline
from sts.pipeline import Job, JobResult, Settings, Target
from sts.problems import Problem

#: Jobs submitted ahead of the one whose result is awaited (bounds the scheduler's state).
WINDOW = 4096


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise RuntimeError(
            "--cluster needs Dask's distributed: pip install 'sts-convert[cluster]'"
        ) from None
    return distributed


@contextlib.contextmanager
def connect(spec: str) -> Iterator[Any]:
    """A Dask client for `spec`: ``local:N`` starts a cluster of N worker processes on this
    machine (loopback only, closed at the end); anything else is a scheduler address
    (``tcp://host:8786``)."""
    distributed = _distributed()
    if spec.startswith("local:"):
        count = int(spec.removeprefix("local:") or "0") or None
        with distributed.LocalCluster(
            n_workers=count, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None,
        ) as cluster, distributed.Client(cluster) as client:
            yield client
    else:
        with distributed.Client(spec) as client:
            yield client


def _same(value: Any) -> Any:
    return value


def _run(job: Job, target: Target, settings: Settings) -> JobResult:
    """One job on a worker (looked up at call time: a worker may have it wrapped)."""
    return pipeline.run_job(job, target, settings)


def run_jobs(
    client: Any,
    jobs: list[Job],
    target: Target,
    settings: Settings,
    sink: Callable[[Problem], None] | None,
    on_result: Callable[[JobResult], None],
) -> None:
    """Run every job on the cluster of `client`; results (and their problems, to `sink`) in job
    order, as in a local run. Under ``--on-error fail`` the run stops after the first failed job
    (jobs already running finish; the rest are cancelled)."""
    pipeline.deliver(_results(client, jobs, target, settings), settings, sink, on_result)


def _results(client: Any, jobs: list[Job], target: Target, settings: Settings
             ) -> Generator[JobResult, None, None]:
    """The jobs' results in job order, at most `WINDOW` jobs submitted ahead; those still
    submitted when the generator is closed are cancelled."""
    distributed = _distributed()
    # shared by every task as a task of its own (not scattered: a result the scheduler can
    # compute again when the workers holding it die)
    shared = [client.submit(_same, value, pure=False) for value in (target, settings)]
    waiting: deque[tuple[Job, Any]] = deque()
    upcoming = iter(jobs)
    try:
        while True:
            while len(waiting) < WINDOW and (job := next(upcoming, None)) is not None:
                waiting.append((job, client.submit(_run, job, *shared, pure=False)))
            if not waiting:
                return
            job, future = waiting.popleft()
            yield _result(job, future, distributed)
    finally:
        client.cancel([future for _, future in waiting])


def _result(job: Job, future: Any, distributed: Any) -> JobResult:
    try:
        return future.result()
    except distributed.KilledWorker:
        return pipeline._lost(job)
    except Exception as exc:  # the task could not run at all (unpicklable, lost scheduler)
        result = JobResult(job.display, "failed")
        result.tally.add(
            Problem(job.display, None, "internal-error", f"{type(exc).__name__}: {exc}")
        )
        return result
