"""Running a batch's jobs in worker processes, results coming back in job order.

Where the system can fork (Linux, macOS), the workers are forked once the jobs are planned and
inherit them: all that crosses processes is chunk numbers, written up front into one pipe that
every worker claims work from, and each chunk's pickled results, one pipe per worker. A worker
that dies loses only the chunk it was on: its jobs come back as failed. Stopping early, the
unclaimed chunks are taken back and each worker ends after its current chunk. Elsewhere
(Windows) a `ProcessPoolExecutor` does the same work.
"""

from __future__ import annotations

import gc
import os
import pickle
import selectors
import struct
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")

#: Whether workers are forked (else a ProcessPoolExecutor spawns them).
FORK = hasattr(os, "fork")
_CLAIM = struct.Struct("<I")  # the first job index of a chunk
_LENGTH = struct.Struct("<Q")  # the size of a pickled (first index, results) of one chunk
_MAX_CLAIMS = 1024  # 4 KiB of claims: fits an empty pipe's buffer on every system


def results_in_order(
    jobs: Sequence[Job],
    run: Callable[[Job], Result],
    workers: int,
    lost: Callable[[Job], Result],
) -> Generator[Result, None, None]:
    """``run(job)`` for every job, in `workers` processes, yielded in job order.

    A job whose worker died before sending its result yields ``lost(job)``. Closing the iterator
    early stops the workers.
    """
    chunk = max(1, min(16, len(jobs) // (workers * 32)), -(-len(jobs) // _MAX_CLAIMS))
    if not FORK:
        yield from _pool_results(jobs, run, workers, chunk)
        return
    claims_read, claims_write = os.pipe()
    os.write(claims_write, b"".join(_CLAIM.pack(i) for i in range(0, len(jobs), chunk)))
    os.close(claims_write)  # read to the end, the pipe says there is no more work
    sys.stdout.flush()
    sys.stderr.flush()
    children: dict[int, int] = {}
    try:
        _fork(min(workers, -(-len(jobs) // chunk)), children,
              lambda out: _work(jobs, run, chunk, claims_read, out))
        if children:
            yield from _collect(jobs, children, lost)
        else:  # the system would not fork at all: convert here
            yield from map(run, jobs)
    finally:
        _stop(claims_read, children)


def _fork(count: int, children: dict[int, int], work: Callable[[int], None]) -> None:
    """Fork up to `count` workers, each running ``work(result pipe)``; record them in
    `children` (pid → the pipe's read end). Fewer when the system refuses more processes."""
    gc.freeze()  # the workers then leave the parent's objects (and their pages) alone
    try:
        for _ in range(count):
            results_read, results_write = os.pipe()
            try:
                pid = os.fork()
            except OSError:
                os.close(results_read)
                os.close(results_write)
                return
            if pid == 0:
                os.close(results_read)
                work(results_write)
            os.close(results_write)
            children[pid] = results_read
    finally:
        gc.unfreeze()


def _work(jobs: Sequence[Job], run: Callable[[Job], Result], chunk: int, claims: int,
          out: int) -> None:
    """A worker's life: claim chunks until none is left, send each one's results; never
    returns."""
    code = 0
    try:
        while len(claim := os.read(claims, _CLAIM.size)) == _CLAIM.size:
            (start,) = _CLAIM.unpack(claim)
            results = [run(job) for job in jobs[start:start + chunk]]
            payload = pickle.dumps((start, results), pickle.HIGHEST_PROTOCOL)
            _write_all(out, _LENGTH.pack(len(payload)) + payload)
    except BaseException:  # interrupted, or the parent is gone: its jobs count as lost
        code = 1
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _collect(jobs: Sequence[Job], children: dict[int, int], lost: Callable[[Job], Result]
             ) -> Iterator[Result]:
    """Read the workers' results as they come; yield them in job order."""
    selector = selectors.DefaultSelector()
    buffers = {fd: bytearray() for fd in children.values()}
    for fd in buffers:
        selector.register(fd, selectors.EVENT_READ)
    done: dict[int, Result] = {}
    next_index = 0
    while selector.get_map():
        for key, _ in selector.select():
            data = os.read(key.fd, 1 << 20)
            if not data:
                selector.unregister(key.fd)
                continue
            buffer = buffers[key.fd]
            buffer += data
            while len(buffer) >= _LENGTH.size:
                (size,) = _LENGTH.unpack_from(buffer)
                if len(buffer) < _LENGTH.size + size:
                    break
                start, results = pickle.loads(buffer[_LENGTH.size:_LENGTH.size + size])
                del buffer[:_LENGTH.size + size]
                done.update(enumerate(results, start))
        while next_index in done:
            yield done.pop(next_index)
            next_index += 1
    selector.close()
    for index in range(next_index, len(jobs)):
        yield done.pop(index) if index in done else lost(jobs[index])


def _stop(claims: int, children: dict[int, int]) -> None:
    """Take back the chunks no worker has claimed, let each worker finish the chunk it is on,
    and reap them all (stopping early, a job is never cut off halfway)."""
    os.set_blocking(claims, False)
    try:
        while os.read(claims, 1 << 16):
            pass
    except BlockingIOError:
        pass
    os.close(claims)
    for pid, fd in children.items():
        os.close(fd)  # a result still coming finds the pipe closed: the worker ends there
        os.waitpid(pid, 0)


_pool_run: Callable | None = None


def _pool_init(run: Callable) -> None:
    global _pool_run
    _pool_run = run


def _pool_call(job: Job) -> Any:
    assert _pool_run is not None
    return _pool_run(job)


def _pool_results(jobs: Sequence[Job], run: Callable[[Job], Result], workers: int, chunk: int
                  ) -> Iterator[Result]:
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, initializer=_pool_init, initargs=(run,)) as pool:
        try:
            yield from pool.map(_pool_call, jobs, chunksize=chunk)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
