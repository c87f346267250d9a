"""A Dask cluster for searches bigger than one machine (optional extra): connecting to it, with
the checks that make a wrong address or a cluster without workers one line (the tasks and
the backend that submits them: dask_tasks.py).

    pip install '.[cluster]'
    solver solve BOARD --scheduler local:16            # a LocalCluster of 16 worker threads here
    solver solve BOARD --scheduler local:2x8           # ... laid out as 2 processes of 8
    solver solve BOARD --scheduler tcp://host:8786     # an existing scheduler and its workers

    with Cluster("local:2") as c:                       # from Python
        run(board, plan, Control(backend=c.backend(plan)))

Only the subtrees of big (split) iterations go to the cluster; small
iterations run here: those searched from the root on one thread, and split
ones expected to take at most NEARBY_SECONDS on this machine's threads on
those threads (a Dask iteration costs tenths of a second beside its search:
submitting, the scheduler's pace, the workers' first tasks). A task is a
chunk of subtrees at one bound, sent as their paths (frontier subtrees, or
pieces of the biggest: search.pieces), taken from the same work queue as the
threads' and in the same order; it returns the same result rows as the
threaded search, so node counts and answers are the same. Each worker
process loads the tables once (from the same data directory or --pdb paths,
which must exist on every worker) and checks their checksums against the
client's, so a worker with other tables fails the task instead of giving a
wrong answer. A worker that dies loses only its tasks, which Dask runs again
elsewhere. On a solution, a signal or a time-out the queued tasks are
cancelled and the running ones stopped (each worker sees its tasks cancelled
in its own state): they free their workers within hundredths of a second,
not when their chunk would have ended. A scheduler that goes away ends the
search with ClusterError once the client gives up reconnecting
(--cluster-timeout); a batch prints the boards it finished first.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from patterndb.files.datadir import resolve_data_dir

from ..plan import Plan
from ..solution import ClusterError
from .tasks import NEARBY_SECONDS, DaskBackend, Spec, require_dask, warm

CONNECT_TIMEOUT = 20.0  # seconds to reach a scheduler
SCHEMES = ("tcp://", "tls://", "ucx://", "inproc://")
PROBE_SECONDS = 5.0  # how long a scheduler may take to greet a new connection
MAX_GREETING = 1 << 20  # bytes: a scheduler's handshake is a few hundred
WAIT_NOTICE = 3.0  # seconds without workers before saying so


LOCAL_PER_CORE = 4  # worker threads a core that local:N may start


def check_address(address: str) -> tuple[int, int] | None:
    """(worker processes, threads each) for 'local:N' or 'local:PxT'; None for a scheduler's
    address; BoardError (one line, at once) for anything else ('garbage', an http:// dashboard
    address, a missing port)."""
    from patterndb import BoardError

    if address.startswith("local:"):
        spec = address.split(":", 1)[1]
        parts = spec.split("x")
        # ('²' is a digit)
        if len(parts) > 2 or not all(p.isascii() and p.isdigit() and int(p) >= 1 for p in parts):
            raise BoardError(
                f"--scheduler {address}: give local:N (N >= 1 worker threads) or local:PxT "
                "(P worker processes of T threads)"
            )
        processes, threads = (
            (int(parts[0]), int(parts[1])) if len(parts) == 2 else local_layout(int(parts[0]))
        )
        cores = os.cpu_count() or 1
        if processes * threads > LOCAL_PER_CORE * cores:
            raise BoardError(
                f"--scheduler {address}: at most {LOCAL_PER_CORE * cores} worker threads on {cores} "
                f"cores (local:64 on 2 cores lost its own scheduler after 90 s: the workers starved it)"
            )
        return processes, threads
    if not address.startswith(SCHEMES) or ":" not in address.split("://", 1)[1]:
        hint = (
            " (that is a web address: the scheduler listens on tcp://HOST:8786)"
            if address.startswith("http")
            else ""
        )
        raise BoardError(
            f"--scheduler {address!r} is not local:N or a scheduler's address such as "
            f"tcp://HOST:8786{hint}"
        )
    return None


def local_layout(threads: int) -> tuple[int, int]:
    """(processes, threads each) that local:N starts for N worker threads: about sqrt(N)
    processes of about sqrt(N) threads (T the largest divisor of N not above sqrt(N): local:16
    is 4 processes of 4, local:2 two of one). On 16 cores (docs/benchmarks.md) 16 processes
    of one thread searched lines 37 + 28 in 1.33x the time of -j 16 (medians of 3) and spent
    1.5x its CPU: each process adds an event loop, a nanny, its stop watcher and its messages
    to the scheduler; 4 x 4 took 1.24x, 2 x 8 1.22x, 1 x 16 1.20x. Several processes keep a
    killed one's loss to its own tasks, and the scheduler's load grows with processes, not
    threads."""
    t = max(d for d in range(1, math.isqrt(threads) + 1) if threads % d == 0)
    return threads // t, t


def probe(address: str, timeout: float) -> None:
    """For tcp://: does something at address answer as a Dask scheduler does? A scheduler
    speaks first on a new connection (its handshake: an 8-byte little-endian length, then
    that many bytes). Dask's own client trusts that length: a dashboard port (HTTP, which
    waits for a request) hung it for 12+ minutes, and a service that answers otherwise made
    it try to allocate exabytes. ClusterError (exit 5), one line, for each, and for a scheduler
    that cannot be reached; BoardError (exit 2) for a port that is not a number; nothing for
    other schemes (their clients speak first)."""
    import socket
    import struct

    from patterndb import BoardError

    if not address.startswith("tcp://"):
        return
    host, _, port = address[len("tcp://") :].rpartition(":")
    host = host.strip("[]")
    if not port.isdigit():
        raise BoardError(
            f"--scheduler {address!r}: the port must be a number, as in tcp://HOST:8786"
        )
    end = time.monotonic() + timeout
    while True:
        try:
            sock = socket.create_connection(
                (host, int(port)), timeout=max(0.1, end - time.monotonic())
            )
            break
        except socket.gaierror as e:
            raise ClusterError(
                f"cannot reach a Dask scheduler at {address}: unknown host {host!r} ({e.strerror})"
            ) from None
        except OSError as e:  # refused (not started yet?) or timed out: again until the time-out
            if time.monotonic() + 0.5 >= end:
                raise ClusterError(
                    f"cannot reach a Dask scheduler at {address} within {timeout:g} s "
                    f"({e.strerror or e.__class__.__name__})"
                ) from None
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
        raise ClusterError(
            f"{address} is not a Dask scheduler: it {what} where a scheduler greets a client "
            "(a dashboard or another service? a scheduler listens on port 8786 unless told otherwise)"
        )
    size = struct.unpack("<Q", head)[0]
    if not 0 < size < MAX_GREETING:
        raise ClusterError(
            f"{address} is not a Dask scheduler: it answered {head!r}, not a scheduler's greeting"
        )


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """SIGINT ignored while a LocalCluster starts its worker processes: they inherit that (an
    ignored signal stays ignored across exec, and Python then leaves it so), so a terminal's
    Ctrl-C, sent to the whole process group, reaches this process alone: it stops the search and
    closes the cluster, and no worker prints a KeyboardInterrupt traceback. (A Ctrl-C
    in those 1-2 s is lost; a worker the nanny restarts later does not inherit it.)"""
    hold = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if hold else None
    try:
        yield
    finally:
        if hold:
            signal.signal(signal.SIGINT, old)


class Cluster:
    """A connection to a Dask scheduler (or a LocalCluster started here); close() when done."""

    def __init__(
        self,
        address: str,
        log: Callable[[str], None] | None = None,
        timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        """address: 'local:N' or 'local:PxT' starts a LocalCluster here (check_address); else a
        scheduler's (tcp://HOST:PORT). log: told of a worker count above this machine's cores.
        BoardError for an address that is not one; ClusterError where it cannot be reached, is
        not a scheduler or has no worker within timeout seconds."""
        local = check_address(address)
        distributed = require_dask()
        self.cluster = None
        if local is not None:
            processes, threads = local
            cores = os.cpu_count() or 1
            if processes * threads > cores and log is not None:
                log(
                    f"warning: {address} starts {processes * threads} worker threads on {cores} cores: they share "
                    "them"
                )
            # The scheduler runs in this process: its logs (CRITICAL ones too, such as a closed
            # comm while it shuts down) would flood stderr; a failure is said by ClusterError.
            for name in ("distributed", "asyncio", "tornado"):
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
            with _ctrl_c_held():
                self.cluster = distributed.LocalCluster(
                    n_workers=processes,
                    threads_per_worker=threads,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.CRITICAL,
                )
            self.client = distributed.Client(self.cluster)
            return
        # One deadline for the probe, the connection and the wait for workers: --cluster-timeout
        # bounds them together (each had its own, so a slow scheduler took up to three).
        end = time.monotonic() + timeout
        probe(address, timeout)
        # (its "failed to reconnect" when the scheduler goes away, the traceback of a result
        # being fetched just then, and the one the client's batched sender logs, at level INFO,
        # when it finds the connection closed: ClusterError says it in one line)
        for name in ("distributed.client", "distributed.batched", "tornado.application"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            self.client = distributed.Client(address, timeout=max(1.0, end - time.monotonic()))
        except (OSError, TimeoutError) as e:
            raise ClusterError(
                f"cannot reach a Dask scheduler at {address} within {timeout:g} s "
                f"({e.__class__.__name__}: {str(e).splitlines()[0] if str(e) else ''})"
            ) from None
        try:
            self._wait_for_workers(address, timeout, end, log)
        except BaseException:
            self.client.close()
            raise

    def _wait_for_workers(
        self, address: str, timeout: float, end: float, log: Callable[[str], None] | None
    ) -> None:
        """Until a worker has joined (a scheduler alone searches nothing): said after a few
        seconds, given up at end (timeout seconds after the connection began) with one line."""

        start = time.monotonic()
        said = False
        while not self.client.nthreads():
            waited = time.monotonic() - start
            if time.monotonic() >= end:
                raise ClusterError(
                    f"no worker joined the Dask scheduler at {address} within {timeout:g} s "
                    "(start some with: dask worker " + address + ")"
                )
            if waited >= WAIT_NOTICE and not said and log is not None:
                log(
                    f"waiting for workers (0 connected to {address}; giving up after {timeout:g} s, --cluster-timeout)"
                )
                said = True
            time.sleep(0.2)

    def backend(self, plan: Plan, nearby_seconds: float = NEARBY_SECONDS) -> DaskBackend:
        """The backend that searches boards of this plan (its frame, its heuristic) on the cluster;
        split iterations expected to take at most nearby_seconds on this machine's threads run
        on them instead (0: every split iteration on the cluster)."""
        options = dataclasses.replace(  # paths as the client sees them, absolute
            plan.options,
            data_dir=resolve_data_dir(plan.options.data_dir).absolute(),
            pdb_files=tuple(p.absolute() for p in plan.options.pdb_files),
        )
        frame = plan.frame
        spec = Spec(
            frame.shape.rows, frame.shape.cols, str(frame.goal), options, plan.heuristic.tables
        )
        try:  # (a worker that fails here fails its first task too, with the reason: nothing is waited for)
            self.client.run(warm, spec, wait=False)
        except Exception:  # noqa: BLE001 - the first task says why
            pass
        return DaskBackend(self.client, spec, nearby_seconds)

    def close(self) -> None:
        """Close the client (and the LocalCluster started here)."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
