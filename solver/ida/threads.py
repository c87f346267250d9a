"""Subtrees on this process's threads: each pulls chunks of a split iteration's subtrees
from a shared work queue (work_queue), sized by their expected work, and searches them in a
compiled kernel that releases the GIL, so every thread shares one copy of the tables."""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from ..search.aot import kernels
from ..search.moves import LIMIT, MAX_DEPTH, METER, NO_BOUND
from ..search.subtrees import EXPANDED
from .state import Problem, StopFlag
from .work_queue import Rate, WorkQueue, chunk_floor

CHUNK_SECONDS = (
    0.05  # a thread's chunk may always hold this much search (work_queue.chunk_floor) ...
)
CHUNKS_PER_WORKER = 16  # ... but at most 1/(16 jobs) of the iteration


def default_jobs() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_chunk(
    problem: Problem,
    paths: np.ndarray,
    first: np.ndarray,
    chunk: np.ndarray,
    bound: int,
    budget: int,
    stop_flag: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One kernel call over a chunk: (result rows written, solution path buffer)."""
    results = np.zeros((chunk.size, 5), dtype=np.int64)
    solution = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    k = kernels().search_subtrees(
        problem.tiles,
        problem.goal,
        problem.H,
        problem.nbrs,
        problem.machine.transitions,
        problem.start_state,
        paths,
        first,
        chunk,
        bound,
        budget,
        stop_flag,
        results,
        solution,
    )
    return results[:k], solution


class ThreadBackend:
    """Worker threads in this process sharing one copy of the tables (the kernels release the GIL)."""

    cuts = True  # searches any paths it is given (pieces.py), not only the frontier's

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self.threads: list[threading.Thread] = []
        self.error: BaseException | None = None
        self.stop: StopFlag | None = None  # the running iteration's, its node meter armed
        self.rate = Rate()  # one thread's nodes a second, over every chunk this backend searched

    def start(
        self, problem, paths, first, indices, bound, budget, stop, rows, weights=None
    ) -> None:
        floor = chunk_floor(weights, self.jobs, CHUNK_SECONDS, self.rate.value, CHUNKS_PER_WORKER)
        queue = WorkQueue(indices, weights, self.jobs, floor=floor)
        lock = threading.Lock()
        spent = [0]
        self.error = None
        self.stop = stop
        stop.meter(budget)  # the threads' kernels stop at the budget together, not each at its own

        def work() -> None:
            try:
                pull()
            except BaseException as e:  # noqa: BLE001 - surfaced by wait(); the others stop
                self.error = e
                stop.flag[0] = 1

        def pull() -> None:
            while stop.flag[0] == 0:
                with lock:
                    chunk = queue.take()
                    if chunk.size == 0:
                        return
                    left = budget - spent[0] if budget > 0 else 0
                if budget > 0 and (left <= 0 or stop.flag[METER] >= budget):
                    now = time.monotonic()
                    rows.put(
                        chunk[:1],
                        np.array([[LIMIT, 0, 0, NO_BOUND, -1]]),
                        np.zeros(1, np.int64),
                        threading.current_thread().name,
                        now,
                        now,
                    )
                    return
                started, cpu = time.monotonic(), time.thread_time()
                res, sol = run_chunk(problem, paths, first, chunk, bound, left, stop.flag)
                ended, cpu = time.monotonic(), time.thread_time() - cpu
                expanded = int(res[:, EXPANDED].sum())
                with lock:
                    spent[0] += expanded
                    self.rate.add(expanded, ended - started)
                rows.put(
                    chunk[: len(res)],
                    res,
                    sol,
                    threading.current_thread().name,
                    started,
                    ended,
                    cpu,
                )

        self.threads = [
            threading.Thread(target=work, daemon=True, name=f"ida-{i}")
            for i in range(min(self.jobs, len(indices)))
        ]
        for t in self.threads:
            t.start()

    def wait(self, timeout: float) -> bool:
        """True once every worker has returned (returns early when they do)."""
        end = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.0, end - time.monotonic()))
        done = not any(t.is_alive() for t in self.threads)
        if done and self.error is not None:
            raise RuntimeError(f"a search thread failed: {self.error!r}") from self.error
        return done

    def close(self) -> None:
        for t in self.threads:
            t.join()
        self.threads = []
        if self.stop is not None:
            self.stop.meter(0)
            self.stop = None
