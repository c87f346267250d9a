"""After a race (race.py), the winner searches on, and the loser is given another round
before each of the winner's iterations that will cost far more than the last decision was
made on: the first race compares iterations of a second or so, and the cheaper leg there
is not always the cheaper one on the big iterations that decide a hard board's time.

A heuristic's nodes grow by its own factor a bound: a catalogue's cr14 may grow more slowly
than z6-6-6-6 on a board, so a leg that lost by a little at bound 101 may win by a factor at
bound 109. A round: before the winner's iteration expected to take LOOK_AHEAD times the CPU
of the last round's deciding iteration (or more), the loser goes on from its own state to
the winner's last finished bound B, stopped once it has taken ROUND_MARGIN times the
winner's CPU for the bounds it had yet to finish (less what it had spent on them before),
or before it starts where its last iteration, grown to bound B by its own factor (as
race.py foresees), would take it past that. Where it finishes B and its next iteration is
expected to cost less than the winner's, it searches on and the other is the loser. A
round stopped part way is not lost: the loser's next round goes on from there, and a
loser some bounds behind is measured against the winner's CPU for the same bounds.

A round costs at most ROUND_MARGIN times the winner's CPU for the same bounds, about its
last iteration's, a small part of its next one (nodes grow 5-10x a bound), and is not run
at all where the loser's own growth says it would lose. Both legs are ordinary
single-heuristic searches, each from its own state, so whichever ends the search, the
answer is optimal, and the finished iterations are those a search with its heuristic
alone would have made.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .parallel import Driver
from .race import Race, _CpuLimit, _leg, _next_cpu, finished_bound, own_stop
from .state import Listener, Outcome, SearchState, StopFlag

# a round is given before the winner's iteration expected to take this many times the CPU
# of the iteration the last round (or the race) was decided on
LOOK_AHEAD = 30.0
# a round stops once the loser has taken this many times the winner's CPU for the same bound
ROUND_MARGIN = 1.0


@dataclass
class Round:
    """One round after the race: the winner's bound and its iteration's CPU seconds, the
    loser's CPU seconds for the same bound (None: it stopped first), those it spent in the
    round (0: not run, expected dearer), and whether it searches on."""

    bound: int
    winner_seconds: float
    loser_seconds: float | None
    spent: float
    switched: bool

    def to_dict(self) -> dict:
        return {
            "bound": self.bound,
            "winner_seconds": round(self.winner_seconds, 6),
            "loser_seconds": None if self.loser_seconds is None else round(self.loser_seconds, 6),
            "spent": round(self.spent, 6),
            "switched": self.switched,
        }


def search_on(
    raced: Race,
    legs: list[Driver],
    names: tuple[str, str],
    stop: StopFlag,
    attach: Callable[[int, SearchState], None],
    deadline: float | None = None,
    log: Callable[[str], None] | None = None,
) -> Outcome:
    """Search on after a race that ended undecided (raced.outcome is None) with its winner,
    giving the loser rounds (see the module docstring); raced's winner, legs and rounds are
    updated. attach(i, state) is called when leg i becomes the one that searches on (its
    checkpoint and trace listeners: legs[i].listener and .record are set there); it is
    called first for the race's winner."""
    w = raced.winner
    states = list(raced.states)
    last = list(raced.last_seconds)
    partial = list(raced.partial_seconds)
    plain = [(d.listener, d.record) for d in legs]  # a loser's: progress only, no checkpoint
    scale = raced.decided_seconds
    attach(w, states[w])
    while True:
        state, driver = states[w], legs[w]
        if (
            last[w] is not None
            and states[1 - w] is not None
            and _next_cpu(state, last[w]) >= LOOK_AHEAD * scale
        ):
            scale = last[w]
            bound = state.iterations[-1].bound
            spent = legs[1 - w].cpu
            loser_seconds = _round(
                legs[1 - w],
                states[1 - w],
                state,
                plain[1 - w][0],
                last,
                partial,
                1 - w,
                bound,
                scale,
                stop,
                deadline,
            )
            if loser_seconds == STOPPED:  # a stop from outside ended the search in the round
                raced.legs = [_leg(names[i], states[i], legs[i].cpu) for i in (0, 1)]
                return Outcome(stop.reason or "interrupted", [], state)
            switched = loser_seconds is not None and _cheaper(
                states[1 - w], loser_seconds, state, scale
            )
            spent = legs[1 - w].cpu - spent
            raced.rounds.append(Round(bound, scale, loser_seconds, spent, switched))
            if log is not None:
                log(_told(names, w, raced.rounds[-1]))
            if switched:
                legs[w].listener, legs[w].record = plain[w]
                w = 1 - w
                raced.winner = w
                attach(w, states[w])
                continue
        c, n = driver.cpu, len(state.iterations)
        status, path = driver.step(state)
        last[w] = driver.cpu - c if len(state.iterations) == n + 1 else None
        if status != "exhausted":
            raced.legs = [_leg(names[i], states[i], legs[i].cpu) for i in (0, 1)]
            return Outcome(status, path, state)


def _told(names: tuple[str, str], w: int, r: Round) -> str:
    """A round in a line: each leg's CPU for the bound, and who searches on."""
    if r.loser_seconds is not None:
        loser = f"{r.loser_seconds:.2f} s"
    elif r.spent > 0:
        loser = f"stopped after {r.spent:.2f} s"
    else:
        loser = "not run (expected dearer)"
    return (
        f"raced again at bound {r.bound}: {names[w]} {r.winner_seconds:.2f} s of CPU, "
        f"{names[1 - w]} {loser}; {names[1 - w] if r.switched else names[w]} searches on"
    )


def _cheaper(state: SearchState, seconds: float, other: SearchState, other_seconds: float) -> bool:
    """Whether the leg at state (its last iteration took seconds of CPU) is expected to
    take less CPU than the other on its next iteration."""
    return _next_cpu(state, seconds) < _next_cpu(other, other_seconds)


def _cpu_to(state: SearchState, last: float, partial: float, target: int) -> float:
    """The CPU seconds a leg is expected to take from its last finished iteration (last: its
    CPU; partial: that already spent on the next) to bound target, its iterations growing by
    the factor _next_cpu foresees (bounds go up by 2 on sliding-tile boards)."""
    growth = _next_cpu(state, 1.0)
    bound = finished_bound(state)
    total, cpu = 0.0, last
    while bound < target:
        cpu *= growth
        total += cpu
        bound += 2
    return max(0.0, total - partial)


def _span(winner: SearchState, seconds: float, loser: SearchState, target: int) -> float:
    """The winner's CPU seconds for the bounds the loser has yet to finish up to target (its
    iteration for target took seconds; those before, foreseen back by its growth)."""
    growth = _next_cpu(winner, 1.0)
    bound = finished_bound(loser)
    total, cpu = 0.0, seconds
    while bound < target:
        total += cpu
        cpu /= growth
        bound += 2
    return total


STOPPED = -1.0  # _round's answer when a stop from outside came during the round


def _round(
    driver: Driver,
    state: SearchState,
    winner: SearchState,
    listener: Listener | None,
    last: list[float | None],
    partial: list[float],
    i: int,
    target: int,
    winner_seconds: float,
    stop: StopFlag,
    deadline: float | None,
) -> float | None:
    """The loser (driver, state; last[i]: its last finished iteration's CPU, partial[i]: that
    spent on its unfinished one, both kept up to date) goes on
    to the winner's last finished bound (target), its progress told to listener alone: its
    CPU seconds for that bound, None where it stopped or gave up first, or STOPPED for a stop
    from outside (the search's time limit, a signal). It cannot find a solution: the winner
    has proven there is none up to target. Its budget: ROUND_MARGIN times the winner's CPU
    for the bounds it has yet to finish (winner_seconds for the target, _span), less what
    it has spent on them already."""
    budget = ROUND_MARGIN * _span(winner, winner_seconds, state, target) - partial[i]
    c0 = driver.cpu
    saved = driver.deadline, driver.listener, driver.record
    limit = time.monotonic() + 2 * max(budget, 0.0) + 0.5
    driver.deadline = limit if deadline is None else min(deadline, limit)
    driver.listener = _CpuLimit(driver, stop, c0 + budget, listener)
    driver.record = None
    seconds = None
    try:
        while not state.iterations or state.iterations[-1].bound < target:
            if (
                last[i] is not None
                and driver.cpu - c0 + _cpu_to(state, last[i], partial[i], target) > budget
            ):
                break  # expected to lose: not run (on)
            c, n = driver.cpu, len(state.iterations)
            status, _ = driver.step(state)
            if len(state.iterations) == n + 1:
                last[i], partial[i] = driver.cpu - c + partial[i], 0.0
            else:
                partial[i] += driver.cpu - c
            if status != "exhausted":
                break
        else:
            seconds = last[i]
    finally:
        driver.deadline, driver.listener, driver.record = saved
    if not own_stop(stop, deadline):
        return STOPPED
    stop.clear()
    return seconds
