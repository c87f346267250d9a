"""IDA* subtrees as Dask tasks, for searches bigger than one machine (optional extra).

    pip install '.[cluster]'
    solver solve BOARD --scheduler local:2             # a LocalCluster of 2 processes here
    solver solve BOARD --scheduler tcp://host:8786     # an existing scheduler and its workers

    with Cluster("local:2") as c:                       # from Python
        run(board, plan, Control(backend=c.backend(plan)))

Only the subtrees of big (split) iterations go to the cluster; small
iterations run here. A task is a chunk of subtree indices at one bound; it
returns the same result rows as the threaded search, so node counts and
answers are the same. Each worker process loads the tables once (from the
same data directory or --pdb paths, which must exist on every worker) and
checks their checksums against the client's, so a worker with other tables
fails the task instead of giving a wrong answer. A worker that dies loses
only its tasks, which Dask runs again elsewhere. Tasks cannot be stopped
half-way, so they are kept small; on a solution, a signal or a time-out the
queued ones are cancelled.
"""
from __future__ import annotations

import dataclasses
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from patterndb import Frame, Shape, make_goal

from patterndb.datadir import resolve_data_dir

from .api import Options, Plan, make_plan
from .search.parallel import Problem, Rows, StopFlag, run_chunk
from .search.subtrees import FOUND, STATUS

TASKS_PER_WORKER = 16  # chunks per worker thread and iteration: small tasks, good balance
CONNECT_TIMEOUT = 20.0  # seconds to reach a scheduler
POLL = 0.02  # seconds between the collector's looks at the stop flag
SCHEMES = ("tcp://", "tls://", "ucx://", "inproc://")
PROBE_SECONDS = 5.0  # how long a scheduler may take to greet a new connection
MAX_GREETING = 1 << 20  # bytes: a scheduler's handshake is a few hundred
WAIT_NOTICE = 3.0  # seconds without workers before saying so


def check_address(address: str) -> int | None:
    """N for 'local:N'; None for a scheduler's address; BoardError (one line, at once) for
    anything else ('garbage', an http:// dashboard address, a missing port)."""
    from patterndb import BoardError

    if address.startswith("local:"):
        n = address.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise BoardError(f"--scheduler {address}: give local:N with N >= 1 worker processes")
        return int(n)
    if not address.startswith(SCHEMES) or ":" not in address.split("://", 1)[1]:
        hint = " (that is a web address: the scheduler listens on tcp://HOST:8786)" if address.startswith("http") else ""
        raise BoardError(f"--scheduler {address!r} is not local:N or a scheduler's address such as "
                         f"tcp://HOST:8786{hint}")
    return None


def probe(address: str, timeout: float) -> None:
    """For tcp://: does something at address answer as a Dask scheduler does? A scheduler
    speaks first on a new connection (its handshake: an 8-byte little-endian length, then
    that many bytes). Dask's own client trusts that length: a dashboard port (HTTP, which
    waits for a request) hung it for 12+ minutes, and a service that answers otherwise made
    it try to allocate exabytes. BoardError, one line, for each; nothing for other schemes
    (their clients speak first)."""
    import socket
    import struct

    from patterndb import BoardError

    if not address.startswith("tcp://"):
        return
    host, _, port = address[len("tcp://"):].rpartition(":")
    host = host.strip("[]")
    if not port.isdigit():
        raise BoardError(f"--scheduler {address!r}: the port must be a number, as in tcp://HOST:8786")
    end = time.monotonic() + timeout
    while True:
        try:
            sock = socket.create_connection((host, int(port)), timeout=max(0.1, end - time.monotonic()))
            break
        except socket.gaierror as e:
            raise BoardError(f"cannot reach a Dask scheduler at {address}: unknown host {host!r} ({e.strerror})") from None
        except OSError as e:  # refused (not started yet?) or timed out: again until the time-out
            if time.monotonic() + 0.5 >= end:
                raise BoardError(f"cannot reach a Dask scheduler at {address} within {timeout:g} s "
                                 f"({e.strerror or e.__class__.__name__})") from None
            time.sleep(0.5)
    head, closed = b"", False
    with sock:
        wait = max(0.1, min(PROBE_SECONDS, end - time.monotonic()))
        sock.settimeout(wait)
        try:
            while len(head) < 8 and not closed:
                got = sock.recv(8 - len(head))
                head, closed = head + got, not got
        except OSError:  # (timed out: nothing more came)
            pass
    if len(head) < 8:
        what = "closed the connection" if closed else f"said nothing for {wait:.1f} s"
        raise BoardError(f"{address} is not a Dask scheduler: it {what} where a scheduler greets a client "
                         "(a dashboard or another service? a scheduler listens on port 8786 unless told otherwise)")
    size = struct.unpack("<Q", head)[0]
    if not 0 < size < MAX_GREETING:
        raise BoardError(f"{address} is not a Dask scheduler: it answered {head!r}, not a scheduler's greeting")


def _require_dask():
    try:
        import distributed
    except ImportError:
        from patterndb import BoardError
        raise BoardError("--scheduler needs Dask: pip install 'patterndb[cluster]' (or: pip install distributed)") from None
    return distributed


@dataclass(frozen=True)
class Spec:
    """What a worker needs to rebuild the client's heuristic (small, pickled into each task)."""

    rows: int
    cols: int
    goal: str  # the caller's goal board
    options: Options
    tables: tuple[str, ...]  # the client's table fingerprints, checked on the worker


_cache: dict = {}  # per worker process: Spec -> Plan, (Spec, tiles) -> Problem and frontier
_lock = threading.Lock()


def _problem(spec: Spec, tiles: tuple[int, ...]) -> tuple[Problem, np.ndarray, np.ndarray]:
    """The worker's Problem and frontier for this board, made once per process."""
    with _lock:
        key = (spec, tiles)
        if key not in _cache:
            if spec not in _cache:
                shape = Shape(spec.rows, spec.cols)
                frame = Frame.for_goal(make_goal(shape, spec.goal))
                plan = make_plan(frame, spec.options)
                if plan.heuristic.tables != spec.tables:
                    raise RuntimeError(f"this worker's tables {plan.heuristic.tables} differ from the client's "
                                       f"{spec.tables}: give every worker the same tables")
                _cache[spec] = plan
            plan = _cache[spec]
            goal = plan.frame.canonical_goal.tiles.astype(np.int64)
            problem = Problem(np.array(tiles, dtype=np.int64), goal, plan.heuristic.H, plan.frame.shape.neighbours,
                              plan.machine)
            _cache[key] = (problem, *problem.frontier())
        return _cache[key]


def run_task(spec: Spec, tiles: tuple[int, ...], frontier_shape: tuple[int, int], chunk: np.ndarray, bound: int,
             budget: int):
    """A Dask task: search subtrees `chunk` at `bound`; (chunk, result rows, solution buffer,
    the worker's name, the seconds the search took there)."""
    problem, paths, first = _problem(spec, tiles)
    if paths.shape != frontier_shape:  # another version of the program on this worker
        raise RuntimeError(f"this worker's frontier {paths.shape} differs from the client's {frontier_shape}")
    started = time.perf_counter()
    res, sol = run_chunk(problem, paths, first, chunk, bound, budget, np.zeros(1, dtype=np.int64))
    seconds = time.perf_counter() - started
    return chunk[: len(res)], res, sol, _worker_name(), seconds


def _worker_name() -> str:
    try:
        import distributed
        return str(distributed.get_worker().name)
    except (ImportError, ValueError):
        return ""


class Cluster:
    """A connection to a Dask scheduler (or a LocalCluster started here); close() when done."""

    def __init__(self, address: str, log: Callable[[str], None] | None = None,
                 timeout: float = CONNECT_TIMEOUT) -> None:
        """address: 'local:N' starts a LocalCluster of N single-threaded worker processes; else a
        scheduler's (tcp://HOST:PORT). log: told of a worker count above this machine's cores."""
        from patterndb import BoardError

        n = check_address(address)
        distributed = _require_dask()
        self.cluster = None
        if n is not None:
            cores = os.cpu_count() or 1
            if n > cores and log is not None:
                log(f"warning: local:{n} starts {n} worker processes on {cores} cores: they share them, "
                    "each with its own copy of the kernels")
            self.cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                    dashboard_address=None, silence_logs=40)
            self.client = distributed.Client(self.cluster)
            return
        probe(address, timeout)
        try:
            self.client = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise BoardError(f"cannot reach a Dask scheduler at {address} within {timeout:g} s "
                             f"({e.__class__.__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None
        try:
            self._wait_for_workers(address, timeout, log)
        except BaseException:
            self.client.close()
            raise

    def _wait_for_workers(self, address: str, timeout: float, log: Callable[[str], None] | None) -> None:
        """Until a worker has joined (a scheduler alone searches nothing): said after a few
        seconds, given up after timeout seconds with one line."""
        from patterndb import BoardError

        start = time.monotonic()
        said = False
        while not self.client.nthreads():
            waited = time.monotonic() - start
            if waited >= timeout:
                raise BoardError(f"no worker joined the Dask scheduler at {address} within {timeout:g} s "
                                 "(start some with: dask worker " + address + ")")
            if waited >= WAIT_NOTICE and not said and log is not None:
                log(f"waiting for workers (0 connected to {address}; giving up after {timeout:g} s, --cluster-timeout)")
                said = True
            time.sleep(0.2)

    def backend(self, plan: Plan) -> "DaskBackend":
        """The backend that searches boards of this plan (its frame, its heuristic) on the cluster."""
        options = dataclasses.replace(  # paths as the client sees them, absolute
            plan.options, data_dir=resolve_data_dir(plan.options.data_dir).absolute(),
            pdb_files=tuple(p.absolute() for p in plan.options.pdb_files))
        frame = plan.frame
        spec = Spec(frame.shape.rows, frame.shape.cols, str(frame.goal), options, plan.heuristic.tables)
        return DaskBackend(self.client, spec)

    def close(self) -> None:
        """Close the client (and the LocalCluster started here)."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class DaskBackend:
    """The Backend of search.parallel that runs subtree chunks on a Dask cluster."""

    def __init__(self, client, spec: Spec) -> None:
        self.client, self.spec = client, spec
        self.jobs = max(1, sum(client.nthreads().values()))
        self.collector: threading.Thread | None = None
        self.error: BaseException | None = None

    def start(self, problem, paths, first, indices, bound, budget, stop: StopFlag, rows: Rows,
              weights: np.ndarray | None = None) -> None:
        distributed = _require_dask()
        tiles = tuple(int(t) for t in problem.tiles)
        size = max(1, len(indices) // (self.jobs * TASKS_PER_WORKER))
        chunks = [indices[i : i + size] for i in range(0, len(indices), size)]
        # Each task may spend the whole remaining budget: the total can overshoot by what runs at once.
        futures = [self.client.submit(run_task, self.spec, tiles, paths.shape, c, bound, budget, pure=False)
                   for c in chunks]
        self.error = None

        def collect() -> None:
            pending = distributed.as_completed(futures)
            try:
                while stop.flag[0] == 0 and not pending.is_empty():
                    if not pending.has_ready():
                        time.sleep(POLL)
                        continue
                    chunk, res, sol, worker, seconds = next(pending).result()
                    now = time.monotonic()
                    rows.put(chunk, res, sol, f"dask-{worker}", now - seconds, now)
                    if (res[:, STATUS] == FOUND).any():
                        break
            except BaseException as e:  # surfaced to the driver by wait()
                self.error = e
            finally:
                self.client.cancel([f for f in futures if not f.done()])

        self.collector = threading.Thread(target=collect, daemon=True, name="dask-collector")
        self.collector.start()

    def wait(self, timeout: float) -> bool:
        self.collector.join(timeout)
        if self.error is not None:
            raise RuntimeError(f"a Dask task failed: {self.error}") from self.error
        return not self.collector.is_alive()

    def close(self) -> None:
        if self.collector is not None:
            self.collector.join()
