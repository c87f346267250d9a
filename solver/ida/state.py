"""What an IDA* search is and where it stands: the board (Problem), the stop flag the kernels
read, the finished iterations and subtrees (SearchState, which a checkpoint saves), the
result rows of subtree chunks, and the two interfaces around the driver: where subtrees run
(Backend) and who is told of progress (Listener)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from patterndb.build.movefsm import MoveMachine

from ..search.aot import kernels
from ..search.moves import METER, METER_LIMIT, NO_BOUND

FRONTIER_TARGET = 4096  # subtrees per split iteration ("a few thousand")


class StopFlag:
    """Read by the kernels (flag[0] != 0 stops them); set by signals, time-outs, limits, or a solution."""

    def __init__(self) -> None:
        self.flag = np.zeros(3, dtype=np.int64)  # [the flag, then moves.METER's count and limit]
        self.reason: str | None = None

    def request(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        self.flag[0] = 1

    def meter(self, limit: int) -> None:
        """Arm the node meter the kernel calls sharing this flag count their expansions on
        (moves.METER): they stop at `limit` together (0: disarm it)."""
        self.flag[METER] = 0
        self.flag[METER_LIMIT] = max(0, limit)

    @property
    def requested(self) -> bool:
        return self.reason is not None

    def clear(self) -> None:
        """Ready for the next search (a request ends only the search it was made during)."""
        self.reason = None
        self.flag[0] = 0

    @contextmanager
    def searching(self, timeout: float | None) -> Iterator[None]:
        """One search: a "timeout" request after timeout seconds (None: none) while it runs,
        the kernels stopping themselves when it comes; cleared afterwards, so that the
        Control can watch the next solve (read reason inside the block)."""
        alarm = None if timeout is None else threading.Timer(timeout, self.request, ("timeout",))
        if alarm is not None:
            alarm.daemon = True
            alarm.start()
        try:
            yield
        finally:
            if alarm is not None:
                alarm.cancel()
                alarm.join()  # (it may be running request() now: done before the flag is cleared)
            self.clear()


@dataclass
class Iteration:
    bound: int
    expanded: int
    generated: int
    seconds: float
    subtrees: int  # 1 for an iteration searched from the root
    next_f: int = int(NO_BOUND)  # smallest f over the bound (the next bound, before parity)

    def to_dict(self) -> dict:
        return {
            "bound": self.bound,
            "expanded": self.expanded,
            "generated": self.generated,
            "seconds": round(self.seconds, 6),
            "subtrees": self.subtrees,
        }


@dataclass
class Partial:
    """The pieces of one frontier subtree searched to their end while the subtree is not yet
    whole (pieces.py): kept, so that a stop loses only the pieces under way. A subtree of
    line 50's solving iteration (24-puzzle, bound 113) is some 90 G nodes, four hours of two
    threads: with only whole subtrees kept, no sitting shorter than that kept anything."""

    pieces: int  # the subtree's pieces in the cut
    digest: str  # of their paths (pieces.digest): a resume that cuts otherwise searches the subtree whole
    done: np.ndarray  # bool per piece
    expanded: int  # over the done pieces
    generated: int
    next_f: int


@dataclass
class SearchState:
    """Everything needed to go on: finished iterations and the finished subtrees of the current one."""

    bound: int
    iterations: list[Iteration] = field(default_factory=list)
    done: np.ndarray | None = None  # bool per frontier subtree, for a split iteration
    expanded: int = 0  # of the current iteration's finished subtrees
    generated: int = 0
    next_f: int = int(NO_BOUND)
    seconds: float = 0.0  # spent on the current iteration before this run
    unfinished_expanded: int = 0  # in subtrees stopped half-way (this run only; never saved)
    unfinished_generated: int = 0
    sizes: np.ndarray | None = (
        None  # nodes each finished subtree of the current split iteration expanded
    )
    last_sizes: np.ndarray | None = (
        None  # sizes of the last complete split iteration (subtree_order)
    )
    prior_sizes: np.ndarray | None = None  # and of the complete split iteration before it
    # unfinished subtrees' done pieces, by subtree
    partial: dict[int, Partial] = field(default_factory=dict)

    @property
    def total_expanded(self) -> int:
        return (
            self.expanded
            + sum(p.expanded for p in self.partial.values())
            + sum(it.expanded for it in self.iterations)
        )

    @property
    def total_generated(self) -> int:
        return (
            self.generated
            + sum(p.generated for p in self.partial.values())
            + sum(it.generated for it in self.iterations)
        )


@dataclass
class Outcome:
    status: str  # "found", "limit", or the stop reason ("interrupted", "terminated", "timeout")
    path: list[int]  # the blank's cells, root first (empty unless found)
    state: SearchState

    @property
    def lower_bound(self) -> int:
        """No solution is shorter: the bound of the iteration in progress, or the length found."""
        return len(self.path) - 1 if self.status == "found" else self.state.bound


class Listener(Protocol):
    """What the driver reports (progress display, checkpoint); every method may do nothing."""

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None: ...
    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None: ...
    def iteration_finished(self, state: SearchState, it: Iteration) -> None: ...


@dataclass(frozen=True)
class Problem:
    """One board to search: canonical tiles, goal, heuristic kernel tuple, neighbour table,
    and the move-pruning machine of the board's shape."""

    tiles: np.ndarray
    goal: np.ndarray
    H: tuple
    nbrs: np.ndarray
    machine: MoveMachine

    @cached_property
    def start_state(self) -> int:
        """The machine's state at the root."""
        return int(self.machine.start[self.blank])

    def root_bound(self) -> tuple[int, int]:
        """(first bound, parity of every solution length)."""
        bound, parity = kernels().root_bound(self.tiles, self.goal, self.H)
        return int(bound), int(parity)

    @cached_property
    def blank(self) -> int:
        return int(np.flatnonzero(self.tiles == 0)[0])

    def frontier(self) -> tuple[np.ndarray, np.ndarray]:
        return kernels().frontier(
            self.machine.transitions, self.nbrs, self.start_state, self.blank, FRONTIER_TARGET
        )


Record = Callable[
    [np.ndarray, np.ndarray, str, float, float], None
]  # (indices, rows, worker, start, end)


class Rows:
    """Result rows of subtree chunks as they come back from any backend (and, to record,
    who searched them when: solver.ida.trace)."""

    def __init__(self, record: Record | None = None) -> None:
        self.lock = threading.Lock()
        self.batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.record = record
        self.cpu = 0.0  # CPU seconds the chunks put so far took

    def put(
        self,
        indices: np.ndarray,
        rows: np.ndarray,
        solution: np.ndarray,
        worker: str = "",
        start: float = 0.0,
        end: float = 0.0,
        cpu: float | None = None,
    ) -> None:
        """A chunk's rows; worker, start and end (time.monotonic()) say who searched it when;
        cpu: the CPU seconds its kernel took on its thread (None: end - start, a kernel on a
        core of its own, as a Dask worker runs it)."""
        with self.lock:
            self.batches.append((indices, rows, solution))
            self.cpu += end - start if cpu is None else cpu
        if self.record is not None:
            self.record(indices, rows, worker, start, end)

    def take(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        with self.lock:
            out, self.batches = self.batches, []
        return out


class Backend(Protocol):
    """Runs the subtrees of one split iteration (paths is the Problem's frontier; indices in
    search order, weights their expected nodes in this iteration or None); start returns at once and works in
    the background. A backend far away (Dask) may also have nearby_seconds: split iterations
    expected to take at most that on this machine's threads run on them (Driver._split_backend)."""

    jobs: int

    def start(
        self,
        problem: Problem,
        paths: np.ndarray,
        first: np.ndarray,
        indices: np.ndarray,
        bound: int,
        budget: int,
        stop: StopFlag,
        rows: Rows,
        weights: np.ndarray | None = None,
    ) -> None: ...
    def wait(self, timeout: float) -> bool: ...
    def close(self) -> None: ...
