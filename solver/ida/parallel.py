"""IDA* on every core: the driver of the iterations, the split of each big one into subtrees,
and stopping (the search's state and interfaces: state.py; threads: threads.py).

Iterations not worth splitting run from the root, several in one kernel
call while they stay small (subtrees.search_root): in the calling thread, or,
expected to take longer, in a thread of their own while the caller waits. A
big one is shared out: the subtrees of a fixed frontier (subtrees.py) are
pulled by the workers of a backend (threads here, Dask in solver.cluster)
a chunk at a time, the fastest-growing big subtrees first (subtree_order);
the next bound is the minimum over all of them. On the first solution
every worker stops (a shared flag the kernels read every few
thousand nodes). The answer is still optimal: every earlier iteration was
searched completely, so no solution is shorter than the current bound, and
any solution found within it has exactly that length.

The driver runs in the calling (main) thread and blocks in a kernel only for
an iteration expected to take under a quarter of a second (INLINE_SECONDS),
so signal handlers run soon: anything may call stop.request() and the
search ends within milliseconds (within that iteration's time where the
request came during one) with what it has proven (the lower bound).
Its whole state between subtrees is a SearchState, which a checkpoint
writes and a resumed search starts from.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import cache

import numpy as np

from ..search.aot import kernels
from ..search.moves import FOUND, LIMIT, MAX_DEPTH, NO_BOUND, STOPPED
from ..search.subtrees import EXPANDED, GENERATED, GOAL_DEPTH, NEXT_F, STATUS
from .pieces import Pieces, Tally, cut, uncut
from .state import (
    Backend,
    Iteration,
    Listener,
    Outcome,
    Problem,
    Record,
    Rows,
    SearchState,
    StopFlag,
)
from .subtree_order import search_order
from .threads import ThreadBackend, default_jobs
from .work_queue import Rate

SPLIT_NODES = 2_000_000  # iterations expected to expand more than this are split
INLINE_SECONDS = (
    0.25  # root iterations expected to take less run in the calling thread, longer ones in a thread
)
# of their own (Driver._inline)
ROOT_SMALL = 10_000  # ... and one kernel call goes on to the next bound after an iteration of fewer expansions
# (and of fewer than split_nodes / 100: the next one is not to be split)
ROOT_ROWS = 32  # (at most this many iterations a call)
TICK = 0.1  # seconds between the driver's looks at progress, time-outs and signals


class Driver:
    """One IDA* search over a backend; see the module docstring."""

    def __init__(
        self,
        problem: Problem,
        backend: Backend,
        stop: StopFlag,
        listener: Listener | None = None,
        max_nodes: int = 0,
        deadline: float | None = None,
        split_nodes: int = SPLIT_NODES,
        record: Record | None = None,
    ) -> None:
        self.problem, self.backend, self.stop, self.listener = problem, backend, stop, listener
        self.record = record  # told of every chunk's rows (solver.ida.trace)
        self.max_nodes, self.deadline, self.split_nodes = max_nodes, deadline, split_nodes
        self.root = _root(problem.blank)  # an unsplit iteration: one piece, the root
        # A backend far away (Dask) says how many seconds of this machine's threads a split
        # iteration may be expected to take and still be searched here, on them (nearby_seconds).
        self.nearby = (
            ThreadBackend(default_jobs()) if getattr(backend, "nearby_seconds", 0.0) > 0 else None
        )
        # CPU seconds its kernels have taken, on the threads that ran them (each thread's own
        # clock: not the process's other threads, a bounded search's beams beside it): what a
        # race (search.race) weighs its legs by. Chunks in flight count once they come back.
        self.cpu = 0.0
        self._frontier: tuple[np.ndarray, np.ndarray] | None = None

    def frontier(self) -> tuple[np.ndarray, np.ndarray]:
        if self._frontier is None:
            self._frontier = self.problem.frontier()
        return self._frontier

    def run(self, state: SearchState | None = None) -> Outcome:
        """Iterate until a solution is found or a stop is requested.

        state: where a checkpoint left off (its bound, its finished subtrees);
        a resumed iteration stays split, so finished subtrees are skipped.
        """
        state = self.start(state)
        if np.array_equal(self.problem.tiles, self.problem.goal):
            return Outcome("found", [self.problem.blank], state)
        while True:
            status, path = self.step(state)
            if status != "exhausted":
                return Outcome(status, path, state)

    def start(self, state: SearchState | None = None) -> SearchState:
        """The state to search from: state (checked against the frontier), or the root's first bound."""
        bound, self.parity = self.problem.root_bound()
        state = state or SearchState(bound)
        for saved in (state.done, state.sizes, state.last_sizes, state.prior_sizes):
            if saved is not None and len(saved) != len(self.frontier()[0]):
                raise ValueError(
                    f"the saved state has {len(saved)} subtrees, the frontier {len(self.frontier()[0])}"
                )
        return state

    def step(self, state: SearchState) -> tuple[str, list[int]]:
        """One iteration from a state that start() gave: ("exhausted", []) when it is complete
        (state.bound is then the next one), ("found", path), or why it stopped."""
        estimate = expected_expansions(state.iterations)
        if state.done is None and estimate >= self.split_nodes:
            state.done = np.zeros(len(self.frontier()[0]), dtype=bool)
        if state.done is None:
            threaded = not self._inline(state.iterations, estimate)
            return self._from_root(state, estimate, threaded)
        return self._iteration(state, estimate)

    @staticmethod
    def _inline(iterations: list[Iteration], estimate: float) -> bool:
        """Whether an unsplit iteration runs in the calling thread: where that is not the main
        thread (signals reach only the main one), or where it is expected to take under
        INLINE_SECONDS at the last iteration's speed (the main thread then waits about that
        long for a signal or a time-out, longer where the iteration outgrows its estimate). Not in a
        thread of its own where it can be helped: a kernel moved to the other core ran slower
        (Korf's 100 with 7-8: its kernels' time 0.93x in the calling thread; docs/benchmarks.md)."""
        if threading.current_thread() is not threading.main_thread() or not iterations:
            return True
        last = iterations[-1]
        return estimate * last.seconds < INLINE_SECONDS * max(1, last.expanded)

    def _from_root(
        self, state: SearchState, estimate: float, threaded: bool = False
    ) -> tuple[str, list[int]]:
        """Iterations from the root, as many in one kernel call as stay small
        (subtrees.search_root; as step), in this thread or (threaded) in a thread of their
        own while this one waits. Each is reported as if searched alone, with the call's time
        shared out by nodes."""
        p = self.problem
        budget = self._begin(state, 1, estimate)
        rows = np.zeros((ROOT_ROWS, 6), dtype=np.int64)
        solution = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
        started = time.monotonic()

        def call() -> int:
            cpu = time.thread_time()  # (of the thread that runs the kernel: this one, or ida-0)
            k = kernels().search_root(
                p.tiles,
                p.goal,
                p.H,
                p.nbrs,
                p.machine.transitions,
                p.start_state,
                self.root.paths,
                self.root.first,
                state.bound,
                self.parity,
                min(ROOT_SMALL, self.split_nodes // 100),
                budget,
                self.stop.flag,
                rows,
                solution,
            )
            self.cpu += time.thread_time() - cpu
            return k

        k = self._waiting(call) if threaded else call()
        ended = time.monotonic()
        written = rows[:k].tolist()
        per_node = (ended - started) / max(1, sum(row[1 + EXPANDED] for row in written))
        begin = started
        for i, (bound, status, expanded, generated, next_f, depth) in enumerate(written):
            end = ended if i == k - 1 else begin + expanded * per_node
            if i > 0 and self.listener:
                self.listener.iteration_started(bound, 1, expected_expansions(state.iterations))
            if self.record is not None:
                self.record(
                    self.root.base, rows[i : i + 1, 1:], "ida-0" if threaded else "main", begin, end
                )
            if status in (LIMIT, STOPPED):  # searched again on a resume: kept apart
                state.unfinished_expanded += expanded
                state.unfinished_generated += generated
                state.seconds += end - begin
                return (
                    "limit" if status == LIMIT and not self.stop.requested else self.stop.reason
                ), []
            state.expanded, state.generated, state.next_f = expanded, generated, next_f
            path = solution[: depth + 1].tolist() if status == FOUND else []
            self._complete(
                state,
                state.seconds + end - begin,
                1,
                path,
                written[i + 1][0] if i < k - 1 else None,
            )
            if path:
                return "found", path
            # asked during the call or by a listener: the rest searched again
            if self.stop.requested and i < k - 1:
                state.unfinished_expanded += int(rows[i + 1 : k, 1 + EXPANDED].sum())
                state.unfinished_generated += int(rows[i + 1 : k, 1 + GENERATED].sum())
                return self.stop.reason, []
            begin = end
        return "exhausted", []

    def _waiting(self, call: Callable[[], int]) -> int:
        """call() in a thread of its own, this one waiting TICK at a time so that its signal
        handlers run and time-outs are seen (a kernel stops within milliseconds of the stop
        flag). A thread per call: starting one costs about 0.1 ms, the driver's split-iteration
        machinery around one subtree (ThreadBackend, work queue, result rows) cost 0.7 ms."""
        box: list[tuple[bool, object]] = []

        def run() -> None:
            try:
                box.append((True, call()))
            except BaseException as e:  # noqa: BLE001 - raised here, in the caller
                box.append((False, e))

        worker = threading.Thread(target=run, daemon=True, name="ida-0")
        worker.start()
        try:
            while worker.is_alive():
                worker.join(TICK)
                self._watch_deadline()
        except BaseException:  # (an exception from a signal handler): the kernel stops too
            self.stop.flag[0] = 1
            worker.join()
            raise
        ok, value = box[0]
        if not ok:
            raise RuntimeError(f"a search thread failed: {value!r}") from value
        return value

    def _iteration(self, state: SearchState, estimate: float) -> tuple[str, list[int]]:
        """Search a split iteration at state.bound: ("exhausted", []) when complete, else the
        reason it ended."""
        base_paths, base_first = self.frontier()
        todo = search_order(np.flatnonzero(~state.done), state.last_sizes, state.prior_sizes)
        if state.sizes is None:
            state.sizes = np.zeros(len(state.done), dtype=np.int64)
        backend = self._split_backend(estimate, state.iterations)
        # (a backend that takes pieces)
        jobs = backend.jobs if getattr(backend, "cuts", False) else 1
        pieces = cut(
            self.problem.machine.transitions,
            self.problem.nbrs,
            self.problem.start_state,
            base_paths,
            base_first,
            todo,
            state.last_sizes,
            jobs,
        )
        subtrees = len(state.done)
        paths, first, order, weights = pieces.paths, pieces.first, pieces.order, pieces.weights
        tally = Tally(pieces, subtrees) if pieces.cut else None
        # (the rest: searched whole)
        state.partial = {} if tally is None else tally.resume(state.partial)
        if state.partial:  # the saved pieces are not searched again
            keep = ~tally.finished[order]
            order = order[keep]
            weights = None if weights is None else weights[keep]
        budget = self._begin(state, subtrees, estimate)
        started, cpu = time.monotonic(), self.cpu
        record = self.record
        rows = Rows(None if record is None else lambda idx, *rest: record(pieces.base[idx], *rest))
        backend.start(
            self.problem,
            paths,
            first,
            order,
            state.bound,
            budget,
            self.stop,
            rows,
            _expected(weights, state.last_sizes, estimate, len(order), subtrees),
        )
        done = False
        path: list[int] = []
        limit = False
        finished = 0  # pieces searched to the end in this run
        while True:
            if not done:
                done = backend.wait(TICK)
            batches = rows.take()
            self.cpu = cpu + rows.cpu  # (before the listener looks)
            for indices, res, sol in batches:
                status = res[:, STATUS]
                limited = status == LIMIT
                limit = limit or bool(limited.any())
                left = limited | (status == STOPPED)  # searched again on a resume: kept apart
                state.unfinished_expanded += int(res[left, EXPANDED].sum())
                state.unfinished_generated += int(res[left, GENERATED].sum())
                res, indices, status = res[~left], np.asarray(indices)[~left], status[~left]
                finished += len(res)
                if tally is None:  # each piece is its subtree
                    b, e, g, f = indices, res[:, EXPANDED], res[:, GENERATED], res[:, NEXT_F]
                else:  # the subtrees whose last piece came back, with all their pieces' counts
                    b, some = tally.add(
                        indices, res[:, EXPANDED], res[:, GENERATED], res[:, NEXT_F]
                    )
                    e, g, f = tally.expanded[b], tally.generated[b], tally.next_f[b]
                    for i in b.tolist():
                        state.partial.pop(i, None)
                    for i in some.tolist():  # (kept by a checkpoint)
                        state.partial[i] = tally.progress(i)
                state.expanded += int(e.sum())
                state.generated += int(g.sum())
                if len(f):
                    state.next_f = min(state.next_f, int(f.min()))
                state.done[b] = True
                state.sizes[b] = e
                found = np.flatnonzero(status == FOUND)
                if len(found) and not path:
                    path = sol[: res[found[0], GOAL_DEPTH] + 1].tolist()
            if limit or path:
                self.stop.flag[0] = 2
            elapsed = state.seconds + time.monotonic() - started
            if self.listener:
                self.listener.subtrees_done(state, int(state.done.sum()), len(state.done), elapsed)
            self._watch_deadline()
            if done:
                break
        # Subtrees with only some pieces finished: part of the solving iteration's count, or
        # kept (state.partial) for a resume.
        if path and state.partial:
            kept = state.partial.values()
            state.expanded += sum(p.expanded for p in kept)
            state.generated += sum(p.generated for p in kept)
            state.next_f = min(state.next_f, min(p.next_f for p in kept))
            state.partial = {}
        backend.close()
        state.seconds = elapsed
        complete = finished == len(order)  # even if a stop came just after the last subtree
        if path or complete:
            self._complete(state, elapsed, subtrees, path)
        if path:
            return "found", path
        if complete:
            return "exhausted", []
        return ("limit" if limit and not self.stop.requested else self.stop.reason), []

    def _watch_deadline(self) -> None:
        """Ask for a stop once the time-out has passed (the driver looks every TICK)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stop.request("timeout")

    def _begin(self, state: SearchState, subtrees: int, estimate: float) -> int:
        """An iteration at state.bound begins: tell the listener, arm the stop flag (a stop
        asked for before still holds); the node budget left (0: none)."""
        if self.listener:
            self.listener.iteration_started(
                state.bound, subtrees, estimate if state.iterations else None
            )
        self.stop.flag[0] = 1 if self.stop.requested else 0
        return max(1, self.max_nodes - state.total_expanded) if self.max_nodes > 0 else 0

    def _complete(
        self,
        state: SearchState,
        elapsed: float,
        subtrees: int,
        path: list[int],
        next_bound: int | None = None,
    ) -> None:
        """The current iteration is complete (or found path): record it and move state to the
        next bound (next_bound where the caller knows it: search_root searched it already)."""
        it = Iteration(
            state.bound, state.expanded, state.generated, elapsed, subtrees, state.next_f
        )
        state.iterations.append(it)
        state.expanded = state.generated = 0
        if state.done is not None:  # split
            state.prior_sizes, state.last_sizes, state.sizes = state.last_sizes, state.sizes, None
        state.next_f, state.done, state.seconds, state.partial = int(NO_BOUND), None, 0.0, {}
        if not path:
            if it.next_f == NO_BOUND:
                raise RuntimeError("IDA* exhausted the search space without reaching the goal")
            if next_bound is None:
                next_bound = kernels().next_bound(it.next_f, self.parity)
            state.bound = int(next_bound)  # before a checkpoint sees the state
        if self.listener:
            self.listener.iteration_finished(state, it)

    def _split_backend(self, estimate: float, iterations: list[Iteration]) -> Backend:
        """The backend of a split iteration expected to expand `estimate` nodes: this machine's
        threads where a backend far away (Dask) would spend more on its fixed costs than on the
        search (an iteration expected to take at most its nearby_seconds on them), else the
        driver's backend. On local:16 (16 cores) a Dask iteration cost 0.2-0.6 s beside its
        search (submitting, the scheduler's pace, the workers' first tasks): line 37's
        iteration of 18.5 M nodes took 1.04 s there, 0.40 s on 16 threads (docs/benchmarks.md).
        A thread's rate: as the threads measured it, else as the last iteration searched from
        the root on one thread ran, else Rate's low guess."""
        if self.nearby is None:
            return self.backend
        rate = self.nearby.rate
        if rate.seconds <= 0.01:
            rate = next(
                (
                    Rate(it.expanded, it.seconds)
                    for it in reversed(iterations)
                    if it.subtrees == 1 and it.seconds > 0.01
                ),
                rate,
            )
        return (
            self.nearby
            if estimate <= self.backend.nearby_seconds * self.nearby.jobs * rate.value
            else self.backend
        )


def _expected(
    weights: np.ndarray | None,
    last_sizes: np.ndarray | None,
    estimate: float,
    pieces: int,
    subtrees: int,
) -> np.ndarray | None:
    """Each piece's expected nodes in this iteration: its share of the last complete split
    iteration (weights) times the growth the driver expects (estimate over that iteration).
    The first split iteration has no sizes: each of its subtrees then expects an equal share
    of the estimate, so that the backends' chunks still hold a few hundredths of a second of
    search (chunk_floor) and not at most MAX_CHUNK subtrees. On a 16-core Xeon, line 37's
    first split iteration went out in 752 chunks of about 1 ms with 2.2 ms between them at
    -j 16 (4.3x -j 1's time). None where nothing is expected yet."""
    if weights is None:
        return np.full(pieces, estimate / subtrees) if estimate > 0 and subtrees > 0 else None
    if last_sizes is None:
        return weights
    last = float(last_sizes.sum())
    return weights * (estimate / last) if estimate > 0 and last > 0 else weights


@cache
def _root(blank: int) -> Pieces:
    """The one piece of an unsplit iteration: the root, its blank on cell blank (made once a
    cell, shared: the kernels only read it; writable, as the compiled kernels' signatures
    have it)."""
    return uncut(
        np.array([[blank]], dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        None,
    )


def expected_expansions(iterations: list[Iteration]) -> float:
    """Expansions expected of the next iteration, from the growth of the last ones (0 at first)."""
    if not iterations:
        return 0.0
    last = iterations[-1].expanded
    if len(iterations) < 2 or iterations[-2].expanded == 0:
        return last * 10.0
    return last * max(1.0, last / iterations[-2].expanded)
