"""A batch answered with a proven bound: its boards in turn, each with every core
(solver.bounded.anytime), one plan per goal frame (and its Dask backend where the batch runs on
a cluster), a stop that reaches the board under way, and the check of an answer against a
known optimum. The command prints the rows (solver.cli.bounded_batch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from patterndb import Board, BoardError

from ..api import Options, make_plan, prepare
from ..ida.state import Backend
from ..plan import Control, Plan
from .anytime import Bounded, solve_bounded

if TYPE_CHECKING:  # (Dask is an optional extra)
    from ..cluster.client import Cluster


class BoundedBatch:
    """Answers a batch's boards one after another; request() stops the one under way and
    every later one (safe in a signal handler: it sets the reason before it looks at the
    board under way, and answer() sets the board's control before it looks at the reason)."""

    def __init__(
        self,
        opts: Options,
        within: float | None,
        cluster: Cluster | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.opts, self.within, self.cluster, self.log = opts, within, cluster, log
        self.plans: dict[str, Plan] = {}
        self.backends: dict[str, Backend] = {}
        self.reason: str | None = None
        self._control: Control | None = None

    def request(self, reason: str) -> None:
        self.reason = self.reason or reason
        control = self._control
        if control is not None:
            control.stop.request(reason)

    def answer(self, board: Board, goal: str, listener: Callable | None = None) -> Bounded:
        """One board's answer; raises BoardError (a board this cannot answer), SearchStopped
        (stopped before a first solution) or ClusterError."""
        board, frame = prepare(board, goal)
        plan = self._plan(frame)
        if plan.algorithm not in ("idastar", "table"):
            raise BoardError(
                f"--within and --anytime prove their bound with IDA*, and this board would be "
                f"solved by {plan.algorithm}: add --algorithm idastar"
            )
        self._control = Control(backend=self.backends.get(frame.key))
        try:
            if self.reason is not None:  # (a request just before the control existed)
                self._control.stop.request(self.reason)
            return solve_bounded(board, plan, self.within, self._control, listener)
        finally:
            self._control = None

    def _plan(self, frame) -> Plan:
        """The frame's plan, made once (on a cluster, with its backend: making one warms every
        worker's tables)."""
        if frame.key not in self.plans:
            plan = self.plans[frame.key] = make_plan(frame, self.opts, self.log)
            if self.log is not None:
                self.log(f"using {plan.algorithm} / {plan.heuristic.name} for {frame.shape} boards")
            if self.cluster is not None:
                self.backends[frame.key] = self.cluster.backend(self.plans[frame.key])
        return self.plans[frame.key]


def consistent(expected: int | None, result: Bounded) -> bool:
    """A known optimum must lie between the proven lower bound and the length found (and equal
    the length where it is called optimal): anything else is a wrong answer."""
    if expected is None:
        return True
    sol = result.solution
    return result.lower_bound <= expected <= sol.length and (
        not result.optimal or sol.length == expected
    )
