"""IDA* subtrees as Dask tasks: what a worker runs (run_task, with its plan and tables loaded
once a process and stopped when its task is cancelled), how an iteration is cut into tasks
(task_chunks), and the Backend that submits them and collects their rows (DaskBackend).
Connecting to a cluster is solver.cluster's job."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from patterndb import Frame, Shape, make_goal

from ..api import Options, Plan, make_plan
from ..ida.state import Problem, Rows, StopFlag
from ..ida.threads import run_chunk
from ..ida.work_queue import WORK_SHARE, Rate, WorkQueue, chunk_floor
from ..search.aot import kernels
from ..search.subtrees import EXPANDED, FOUND, STATUS
from ..solution import ClusterError

UNSIZED_TASKS_PER_WORKER = 4  # without the subtrees' sizes: equal tasks, 4 a worker thread ...
MIN_UNSIZED_TASKS = 32  # ... and at least 32 in all
TASK_SECONDS = 1.0  # with their sizes, a task may always hold a second of a worker's search ...
TASKS_PER_WORKER = 8  # ... but at most 1/(8 x worker threads) of the iteration
MIN_TASK_SECONDS = 0.05  # and never less than this of a worker's search (but the last task)
NEARBY_SECONDS = (
    1.0  # split iterations expected to take at most this on the client's threads run there
)
IN_FLIGHT_PER_WORKER = 4  # tasks submitted and not yet returned, per worker thread
POLL = 0.005  # seconds between the collector's looks for results and at the stop flag
STOP_POLL = 0.01  # seconds between a worker's looks whether its running tasks have been cancelled


def require_dask():
    """The distributed package, or BoardError (one line) saying how to install it."""
    try:
        import distributed
    except ImportError:
        from patterndb import BoardError

        raise BoardError(
            "--scheduler needs Dask: pip install 'patterndb[cluster]' (or: pip install distributed)"
        ) from None
    return distributed


def _lost(client) -> bool:
    """Has the client lost its scheduler (reconnecting, or given up and closed)? (A lost
    connection may show first as an OSError from a result: the collector takes that as lost too.)"""
    return client.status != "running"


@dataclass(frozen=True)
class Spec:
    """What a worker needs to rebuild the client's heuristic (small, pickled into each task)."""

    rows: int
    cols: int
    goal: str  # the caller's goal board
    options: Options
    tables: tuple[str, ...]  # the client's table fingerprints, checked on the worker


_cache: dict = {}  # per worker process: Spec -> Plan, (Spec, tiles) -> Problem
_lock = threading.Lock()


def _plan(spec: Spec) -> Plan:
    """The worker's Plan (its tables, move machine and kernels), made once per process; the
    caller holds _lock."""
    if spec not in _cache:
        shape = Shape(spec.rows, spec.cols)
        frame = Frame.for_goal(make_goal(shape, spec.goal))
        plan = make_plan(frame, spec.options)
        if plan.heuristic.tables != spec.tables:
            raise RuntimeError(
                f"this worker's tables {plan.heuristic.tables} differ from the client's "
                f"{spec.tables}: give every worker the same tables"
            )
        kernels()
        _cache[spec] = plan
    return _cache[spec]


def warm(spec: Spec) -> None:
    """Run on every worker as the backend is made (Cluster.backend): each worker process
    loads its plan and kernels while the client loads its own, instead of in its first task,
    when the first split iteration waits on every worker at once."""
    with _lock:
        _plan(spec)


def _problem(spec: Spec, tiles: tuple[int, ...]) -> Problem:
    """The worker's Problem for this board, made once per process (its tables loaded once)."""
    with _lock:
        key = (spec, tiles)
        if key not in _cache:
            _cache[key] = _plan(spec).problem(np.array(tiles))
        return _cache[key]


def run_task(
    spec: Spec,
    tiles: tuple[int, ...],
    paths: np.ndarray,
    first: np.ndarray,
    bound: int,
    budget: int,
):
    """A Dask task: search the subtrees below paths (rows of the client's frontier or its
    pieces, with their counting depths) at bound, until the client cancels the task;
    (result rows, solution buffer, the worker's name, the seconds the search took there, and
    when it began on the worker's wall clock: the trace places the task where it ran)."""
    problem = _problem(spec, tiles)
    flag = np.zeros(1, dtype=np.int64)  # the kernel's stop flag, set once the task is cancelled
    worker, key = _current_task()
    if key is not None:
        _running.add(worker, key, flag)
    began, started = time.time(), time.perf_counter()
    try:
        res, sol = run_chunk(
            problem, paths, first, np.arange(len(paths), dtype=np.int64), bound, budget, flag
        )
    finally:
        if key is not None:
            _running.remove(key)
    return (
        res,
        sol,
        "" if worker is None else str(worker.name),
        time.perf_counter() - started,
        began,
    )


def _current_task():
    """(this worker, the key of the task running in this thread), or (None, None) outside a worker."""
    try:
        import distributed

        worker = distributed.get_worker()
        return worker, worker.get_current_task()
    except (ImportError, ValueError):
        return None, None


class _Running:
    """The tasks running in this worker process, with their kernels' stop flags. Dask cannot
    stop a running task, so the client cancels a stopped iteration's running tasks and one
    thread here looks every STOP_POLL seconds, in this worker's own state, whether the
    scheduler has cancelled any: the task stops within milliseconds and frees its worker.
    (A Dask Event watched through the scheduler costs a message every tenth of a second a
    task: on 2 cores that doubles what a task costs beside its search.)"""

    def __init__(self) -> None:
        self.flags: dict = {}  # key -> (worker, flag)
        self.changed = threading.Condition()
        self.thread: threading.Thread | None = None

    def add(self, worker, key, flag: np.ndarray) -> None:
        with self.changed:
            self.flags[key] = (worker, flag)
            if self.thread is None:
                self.thread = threading.Thread(target=self._watch, daemon=True, name="stop-watcher")
                self.thread.start()
            self.changed.notify()

    def remove(self, key) -> None:
        with self.changed:
            self.flags.pop(key, None)

    def _watch(self) -> None:
        while True:
            with self.changed:
                while not self.flags:
                    self.changed.wait()
                running = list(self.flags.items())
            for key, (worker, flag) in running:
                task = worker.state.tasks.get(key)  # (the worker's event loop owns it: a read only)
                if task is None or task.state == "cancelled":
                    flag[0] = 1
            time.sleep(STOP_POLL)


_running = _Running()


def task_chunks(
    indices: np.ndarray, weights: np.ndarray | None, jobs: int, rate: float = Rate.GUESS
) -> list[np.ndarray]:
    """The tasks of a Dask iteration, in search order (scripts/simulate_scaling.py replays them).

    With the subtrees' expected sizes: the threads' chunks (work_queue), but a task may always
    hold TASK_SECONDS of a worker's search at `rate` nodes a second (at most 1/(TASKS_PER_WORKER
    x jobs) of the iteration) and never less than the first chunk's share. A task costs a few
    milliseconds more than a kernel call (tens before results were fetched as tasks end and
    stops read from the worker's own state), and the scheduler (on a LocalCluster, in the
    client's process) handles one at a time: line 37 on local:16 (16 cores) took 1,442 tasks of
    30 ms for its complete iteration, and its workers waited 41 ms between tasks.

    Consecutive chunks are merged until a task holds MIN_TASK_SECONDS of expected search: the
    queue's tail is the smallest subtrees, which its count rule (at most 1/jobs of those left)
    hands out one by one. Unmerged, 99 of line 28's 244 tasks at bound 96 on local:16 held
    under 20 ms of search, most a few hundred nodes, and in the iteration's last 0.35 s five
    workers ran them at the scheduler's pace while eleven had finished.

    Without them (the first split iteration): UNSIZED_TASKS_PER_WORKER x jobs tasks (at least
    MIN_UNSIZED_TASKS) of equal counts. Counted out by guided self-scheduling, line 28's first
    split iteration (5.2 M nodes) was 470 tasks on local:16, mostly of a few subtrees at its end,
    and took 3.7 s: each worker waited 2.4 s for its first task."""
    if weights is None:
        count = min(len(indices), max(MIN_UNSIZED_TASKS, UNSIZED_TASKS_PER_WORKER * max(1, jobs)))
        return [
            c for c in np.array_split(np.asarray(indices, dtype=np.int64), max(1, count)) if c.size
        ]
    ceiling = chunk_floor(weights, jobs, TASK_SECONDS, rate, TASKS_PER_WORKER)
    floor = max(float(np.sum(weights)) / (WORK_SHARE * max(1, jobs)), ceiling)
    chunks = WorkQueue(indices, weights, jobs, floor=floor).chunks()
    return _merged(
        chunks, np.asarray(weights, dtype=np.float64), min(MIN_TASK_SECONDS * rate, ceiling)
    )


def _merged(chunks: list[np.ndarray], weights: np.ndarray, least: float) -> list[np.ndarray]:
    """Consecutive chunks under `least` expected work joined until they hold that much (a
    chunk of at least that stays alone, so no task grows beyond the bigger of the two;
    weights: in the order of the chunks' concatenation)."""
    sizes = np.array([c.size for c in chunks], dtype=np.int64)
    works = np.add.reduceat(weights, np.cumsum(sizes) - sizes) if chunks else np.zeros(0)
    out, group, work = [], [], 0.0
    for c, w in zip(chunks, works):
        if w >= least and group:  # a big chunk ends the small ones before it
            out.append(np.concatenate(group))
            group, work = [], 0.0
        group.append(c)
        work += float(w)
        if work >= least:
            out.append(np.concatenate(group))
            group, work = [], 0.0
    if group:
        out.append(np.concatenate(group))
    return out


class DaskBackend:
    """The Backend of search.parallel that runs chunks of subtrees (or their pieces) on a Dask
    cluster: the chunks of task_chunks in search order (a second of search each where the
    iteration is big enough; a task costs milliseconds more than a kernel call), submitted
    with falling priorities IN_FLIGHT_PER_WORKER a worker ahead of the results, so the
    scheduler hands them out in search order as workers come free and each worker has its
    next task queued (no round trip to the client between tasks)."""

    cuts = True  # a task carries its paths: pieces as well as frontier subtrees

    def __init__(self, client, spec: Spec, nearby_seconds: float = NEARBY_SECONDS) -> None:
        self.client, self.spec = client, spec
        self.nearby_seconds = (
            nearby_seconds  # read by the driver (search.parallel.Driver._split_backend)
        )
        self.address = client.scheduler.address
        self.jobs = self._threads()
        self.collector: threading.Thread | None = None
        self.error: BaseException | None = None
        self.rate = Rate()  # one worker's nodes a second, as its tasks measured them

    def start(
        self,
        problem,
        paths,
        first,
        indices,
        bound,
        budget,
        stop: StopFlag,
        rows: Rows,
        weights: np.ndarray | None = None,
    ) -> None:
        distributed = require_dask()
        tiles = tuple(int(t) for t in problem.tiles)
        self.jobs = self._threads()  # (workers may have come or gone)
        chunks = task_chunks(indices, weights, self.jobs, self.rate.value)
        self.error = None
        # with_results: each result is fetched as its task ends, many at once. Fetched one by
        # one (f.result()), each took about 2 ms of round trips through the client's event
        # loop: on local:16, line 37's iterations of 249 tasks ended 0.6 s after their last
        # task had, the first one (64 tasks, new connections) 1.1 s after.
        pending = distributed.as_completed(with_results=True)
        futures: dict = {}  # submitted and not yet read: {future: its chunk}
        submitted = 0
        ahead = max(1, IN_FLIGHT_PER_WORKER * self.jobs)

        def submit() -> None:
            """Tasks in search order (the scheduler hands out the highest priority first), at
            most `ahead` unfinished at a time: enough that no worker waits, few enough that the
            scheduler never holds hundreds to cancel at a solution (on local:16 the next
            board's first tasks waited up to 0.9 s while it did). Each task may spend the
            whole remaining budget: the total can overshoot by what runs at once."""
            nonlocal submitted
            while submitted < len(chunks) and pending.count() < ahead:
                i = submitted
                f = self.client.submit(
                    run_task,
                    self.spec,
                    tiles,
                    paths[chunks[i]],
                    first[chunks[i]],
                    bound,
                    budget,
                    pure=False,
                    priority=-i,
                )
                futures[f] = chunks[i]
                submitted += 1
                pending.add(f)

        submit()

        def collect() -> None:
            try:
                while stop.flag[0] == 0 and not (pending.is_empty() and submitted == len(chunks)):
                    if not pending.has_ready():
                        if self.client.status in ("closing", "closed"):  # gave up reconnecting
                            raise self._lost_error()
                        time.sleep(POLL)
                        continue
                    f, out = next(pending)  # (a failed task raises here)
                    if isinstance(out, BaseException):  # cancelled: the scheduler went away
                        raise out
                    # The result is here, whatever f.status says now: it reads "lost" where the
                    # worker that held the result died after it was fetched. Dropping the future
                    # releases the key, so Dask does not run the task again.
                    chunk = futures.pop(f)
                    res, sol, worker, seconds, began = out
                    # Where the task ran, on this process's clock: its start on the worker's wall
                    # clock (one machine's clock, or clocks kept in step) and the worker's seconds.
                    start = time.monotonic() - (time.time() - began)
                    self.rate.add(int(res[:, EXPANDED].sum()), seconds)
                    rows.put(chunk[: len(res)], res, sol, f"dask-{worker}", start, start + seconds)
                    if (res[:, STATUS] == FOUND).any():
                        break
                    submit()
            except BaseException as e:  # noqa: BLE001 - surfaced to the driver by wait()
                self.error = (
                    self._lost_error() if _lost(self.client) or isinstance(e, OSError) else e
                )
            finally:
                running = [f for f in futures if not f.done()]
                # stop those already running too, not only the queued ones
                if running and not _lost(self.client):
                    try:
                        self.client.cancel(running)  # (the workers stop the running ones: _Running)
                    except Exception as e:  # noqa: BLE001 - the scheduler went away just now
                        self.error = self.error or (self._lost_error() if _lost(self.client) else e)

        self.collector = threading.Thread(target=collect, daemon=True, name="dask-collector")
        self.collector.start()

    def wait(self, timeout: float) -> bool:
        self.collector.join(timeout)
        if isinstance(self.error, ClusterError):
            raise self.error
        if self.error is not None:
            raise ClusterError(f"a Dask task failed: {self.error}") from self.error
        return not self.collector.is_alive()

    def _threads(self) -> int:
        """Worker threads connected now (at least 1). A connection closed under the question
        (an OSError, such as Dask's CommClosedError) is a lost scheduler, as in the collector:
        a scheduler killed as an iteration began raised it before the client's status said so."""
        try:
            return max(1, sum(self.client.nthreads().values()))
        except Exception as e:
            if _lost(self.client) or isinstance(e, OSError):
                raise self._lost_error() from None
            raise

    def _lost_error(self) -> ClusterError:
        return ClusterError(f"lost the Dask scheduler at {self.address}: the search cannot go on")

    def close(self) -> None:
        if self.collector is not None:
            self.collector.join()
