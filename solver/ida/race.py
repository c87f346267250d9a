"""Two heuristics raced on one board, so that each board is searched with the faster.

Which heuristic solves a board fastest depends on the board: on the easy half of Korf &
Felner's 24-puzzles z6-6-6-6 wins (a catalogue's 3-4x fewer nodes do not pay for its
5-6x cost per node), on the hard half a catalogue wins by far (10-40x fewer nodes). In
IDA* the nodes of consecutive iterations grow by about the same factor whatever the
heuristic, so the time each heuristic takes to finish one bound says which will be
faster on the rest.

The race: IDA* with the cheap heuristic until its next iteration is expected to take
`seconds` of CPU (its nodes grow by the last iterations' factor), at bound B after S
CPU seconds; then IDA* with the strong one from its own root, stopped if it has not
finished bound B within S. The one that finished B in less CPU time goes on from its own
state: both legs are ordinary single-heuristic searches, so the winner's state is what a
search with that heuristic alone would have reached (its iterations, its checkpoint), and
the answer is optimal whichever wins. CPU time, not wall: a small iteration runs on one
thread, a big one on all. And the CPU of each leg's own kernels (Driver.cpu, on the clocks
of the threads that ran them), not the process's: in a bounded search (solver.bounded.anytime) the
beams beside IDA* take about half of it, and would weigh on both legs. The loser's work,
about S, is counted in the totals.

The strong leg gives up before an iteration it is expected to lose in: one that would
take its CPU past RACE_MARGIN * S, its last iteration's CPU times their growth in nodes
(as the cheap leg's next iteration is foreseen). Its last iteration is most of a leg's time
(nodes grow 5-10x a bound), and was spent in vain wherever the cheap one won: on 15 of Korf
& Felner's 20 easiest 24-puzzles the strong leg (cr14) took 1.05-2.2x the cheap one's S,
its last root iteration running past S before the leg's limits were looked at. Over those
20 boards its CPU fell from 24-27 s to 9-11 s (three rounds each); the five hard boards
kept their winners. Near-ties (legs within 10-40% of each other) go either way, as they
did from run to run before. Which side searches on is only a matter of speed: both are
admissible, so the answer is optimal whoever wins. A race decided on iterations of a
second or two is raced again before the big ones (lookahead.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .parallel import Driver
from .state import Iteration, Listener, Outcome, SearchState, StopFlag

# CPU seconds: the race is run before the cheap heuristic's first iteration expected to take this
RACE_SECONDS = 2.0
# the strong leg gives up before an iteration expected to take its CPU past this times the cheap one's
RACE_MARGIN = 1.25


@dataclass
class Leg:
    """One heuristic's part of a race: the last bound it finished, its nodes and CPU seconds."""

    heuristic: str
    bound: int
    expanded: int
    generated: int
    seconds: float

    def to_dict(self) -> dict:
        return {
            "heuristic": self.heuristic,
            "bound": self.bound,
            "expanded": self.expanded,
            "generated": self.generated,
            "seconds": round(self.seconds, 6),
        }


@dataclass
class Race:
    """How a race ended: the winner (0: the cheap heuristic, 1: the strong one) and its
    state to go on from, or the outcome that ended the search during the race."""

    winner: int
    state: SearchState
    outcome: Outcome | None = None
    legs: list[Leg] = field(default_factory=list)
    # for the rounds after it (lookahead.py): each leg's state, the CPU seconds of its last
    # finished iteration (None: unknown) and those spent on its unfinished one, the CPU
    # seconds the race was decided on, and the rounds played
    states: list[SearchState | None] = field(default_factory=list)
    last_seconds: list[float | None] = field(default_factory=list)
    partial_seconds: list[float] = field(default_factory=list)
    decided_seconds: float = 0.0
    rounds: list = field(default_factory=list)

    @property
    def lost_expanded(self) -> int:
        return sum(leg.expanded for i, leg in enumerate(self.legs) if i != self.winner)

    @property
    def lost_generated(self) -> int:
        return sum(leg.generated for i, leg in enumerate(self.legs) if i != self.winner)

    def to_dict(self) -> dict:
        out = {
            "winner": self.legs[self.winner].heuristic,
            "legs": [leg.to_dict() for leg in self.legs],
        }
        if self.rounds:
            out["rounds"] = [r.to_dict() for r in self.rounds]
        return out

    def summary(self) -> str:
        """One line: each leg's last finished bound and seconds."""
        return "; ".join(
            f"{leg.heuristic}: bound {leg.bound} in {leg.seconds:.2f} s of CPU" for leg in self.legs
        )


def finished_bound(state: SearchState) -> int:
    """The last bound the search at state has finished (its start's, less 2, before any)."""
    return state.iterations[-1].bound if state.iterations else state.bound - 2


def own_stop(stop: StopFlag, deadline: float | None) -> bool:
    """Whether the stop asked for (if any) is a race's own, not the search's: none, the
    race's CPU limit, or a leg's wall-clock limit before the search's deadline."""
    return stop.reason in (None, "race") or (
        stop.reason == "timeout" and (deadline is None or time.monotonic() < deadline)
    )


def _leg(name: str, state: SearchState, cpu: float) -> Leg:
    return Leg(
        name,
        finished_bound(state),
        state.total_expanded + state.unfinished_expanded,
        state.total_generated + state.unfinished_generated,
        cpu,
    )


def _next_cpu(state: SearchState, cpu: float) -> float:
    """The CPU seconds the next iteration is expected to take: the last one's, times the
    growth of the nodes from the one before."""
    its = state.iterations
    growth = its[-1].expanded / its[-2].expanded if len(its) > 1 and its[-2].expanded else 10.0
    return cpu * max(1.0, growth)


def race(
    cheap: Driver,
    strong: Driver,
    names: tuple[str, str],
    stop: StopFlag,
    seconds: float | None = None,
    deadline: float | None = None,
) -> Race:
    """Race two drivers of one board (see the module docstring) before the cheap one's
    iteration expected to take `seconds` (default RACE_SECONDS); deadline: the search's own
    time limit (time.monotonic()), which ends the race like any stop. Each leg's CPU time
    counts its first reads of its tables' pages: the caller maps both sides' tables first
    (Heuristic.populate with settle, as solver.ida_run does)."""
    if seconds is None:
        seconds = RACE_SECONDS
    c0 = cheap.cpu
    state = cheap.start()
    if np.array_equal(cheap.problem.tiles, cheap.problem.goal):
        return Race(
            0, state, Outcome("found", [cheap.problem.blank], state), [_leg(names[0], state, 0.0)]
        )
    while True:
        c = cheap.cpu
        status, path = cheap.step(state)
        if status != "exhausted":
            return Race(
                0, state, Outcome(status, path, state), [_leg(names[0], state, cheap.cpu - c0)]
            )
        cheap_last = cheap.cpu - c
        if _next_cpu(state, cheap_last) >= seconds:
            break
    first = _leg(names[0], state, cheap.cpu - c0)
    c1 = strong.cpu
    saved = strong.deadline, strong.listener
    # Stopped once it has used the cheap one's CPU time (checked between subtrees), or at a
    # wall-clock limit well after that whatever the threads. (Its small iterations run on one
    # thread, as the cheap one's did: split into subtrees they cost 0.05-0.25 s of CPU each.)
    limit = time.monotonic() + 2 * first.seconds + 0.5
    strong.deadline = limit if deadline is None else min(deadline, limit)
    strong.listener = _CpuLimit(strong, stop, c1 + first.seconds, strong.listener)
    try:
        other = strong.start()
        last = None  # CPU seconds of the strong leg's last step, where that step searched one iteration
        finished, partial = None, 0.0  # its last finished iteration's CPU, and its unfinished one's
        while not other.iterations or other.iterations[-1].bound < first.bound:
            if (
                last is not None
                and strong.cpu - c1 + _next_cpu(other, last) > RACE_MARGIN * first.seconds
            ):
                break  # it is expected to lose: the cheap one goes on
            c, done = strong.cpu, len(other.iterations)
            status, path = strong.step(other)
            last = strong.cpu - c if done >= 1 and len(other.iterations) == done + 1 else None
            if len(other.iterations) == done + 1:
                finished, partial = strong.cpu - c + partial, 0.0
            else:
                partial += strong.cpu - c
            if status == "found":
                return Race(
                    1,
                    other,
                    Outcome(status, path, other),
                    [first, _leg(names[1], other, strong.cpu - c1)],
                )
            if status != "exhausted":
                break
    finally:
        strong.deadline, strong.listener = saved
    second = _leg(names[1], other, strong.cpu - c1)
    # The race's own limits (CPU, or the leg's wall clock before the search's deadline) are
    # cleared whoever wins: the strong leg may finish the deciding bound just as its limit
    # passes (its tables read from a cold disk: wall far above CPU), and the winner must go on.
    own = own_stop(stop, deadline)
    if own:
        stop.clear()
    rounds = {
        "states": [state, other],
        "last_seconds": [cheap_last, finished],
        "partial_seconds": [0.0, partial],
        "decided_seconds": first.seconds,
    }
    if (
        other.iterations
        and other.iterations[-1].bound >= first.bound
        and second.seconds <= first.seconds
    ):
        return Race(1, other, None, [first, second], **rounds)
    if own:
        return Race(0, state, None, [first, second], **rounds)
    return Race(0, state, Outcome(stop.reason, [], state), [first, second], **rounds)


class _CpuLimit:
    """A listener that stops a leg once its driver's CPU time passes `until`, telling inner
    (the leg's own listener) everything."""

    def __init__(
        self, driver: Driver, stop: StopFlag, until: float, inner: Listener | None
    ) -> None:
        self.inner, self.driver, self.stop, self.until = inner, driver, stop, until

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        if self.inner:
            self.inner.iteration_started(bound, subtrees, estimate)

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        if self.inner:
            self.inner.subtrees_done(state, done, total, elapsed)
        if self.driver.cpu > self.until and not self.stop.requested:
            self.stop.request("race")

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        if self.inner:
            self.inner.iteration_finished(state, it)
