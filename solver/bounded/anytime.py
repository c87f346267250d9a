"""A solution with a proven bound on how far it is from optimal, sooner than the optimal one.

Searches for the two bounds run side by side on the same admissible heuristic:

- the upper bound: a beam search of width 1,024 (solver.search.beam: a first solution in
  about a second, on boards up to 7x7; held to a depth, twice as wide again where it finds
  none there: FIRST_REACH, with one of 1,024 held to nothing beside them on the core IDA*
  has not taken yet), then on boards up to 6x6 weighted A*
  (solver.search.best_first) with falling weights (3, 2, 1.5, ... 1.02), each run held to a
  node limit, until one reaches it (greedy search then, if none has found a solution yet); then beam searches of
  widths 4,096 to 262,144, four times wider each time, keeping only states that could still
  lead to a solution shorter than the best (depth + h below its length), and where the plan
  races two heuristics (5x5's best) beams on the stronger one too. After each of these
  the best solution's windows are searched again (solver.bounded.shorten: on 24-puzzles and smaller
  those that end with the blank in a corner, with the board's own tables; on 6x6 all, with
  linear conflict; on 7x7 all, with linear conflict, before a beam foreseen not to end before
  the time-out, and after the last beam). Every solution shorter than the best so far
  becomes the answer (its moves are replayed to the goal before it is kept);
- the lower bound: IDA* as the optimal search runs it (every core, move pruning, races),
  started once the first solution's beams have ended (its threads would take their core). An
  iteration with bound b starts only when every path shorter than b has been searched without
  reaching the goal, so no solution is shorter than b; the first bound is h at the start.
  With a time-out, on boards up to 5x5, IDA* stops once its iteration is foreseen not to end
  in time (solver.bounded.handover; its bound stays proven), and the best solution's windows are
  searched again with more expansions a window, beside the beams, until the time-out.

The gap is length / lower bound - 1. The search ends when the gap is at most R - 1 (--within
R: the answer is then at most R times the optimum, whatever the optimum is), when IDA* finds
its solution (optimal: gap 0), when a weighted or beam solution meets the lower bound (optimal too),
or when it is stopped (time-out, Ctrl-C, the page's stop button), with the best solution and
the bound proven so far. Nothing rests on the weight's own guarantee: the claim is only what
the two bounds prove."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from patterndb import Board

from ..heuristics import Heuristic
from ..ida import StopFlag
from ..ida.state import Iteration, SearchState
from ..plan import Control, Options, Plan
from ..solution import NodeLimitReached, SearchStopped, Solution
from .handover import cannot_end

if TYPE_CHECKING:
    from ..api import BoardLike

WEIGHTS = (3.0, 2.0, 1.5, 1.3, 1.2, 1.1, 1.05, 1.02)
NODES = 2_000_000  # nodes a weighted run may keep (about 0.4 GB on the 24-puzzle)
# beam widths, 1,024 to 262,144 (about 0.2 GB on the 24-puzzle)
WIDTHS = tuple(4**k for k in range(5, 10))
RIVAL_WIDTH = 65_536  # the widest beam on a race's rival heuristic (about 0.1 GB with cr14)
# How deep the first beams may go, in multiples of h at the start (depth + h below it): past it a
# beam has lost its way. On the seeded 7x7 hundred (`strong`, width 1,024) 85 first beams found
# 1.5-2.3 times h, the other 15 2.8-14.8 times (3,681 moves on one, in 8 s) or nothing in 10,000
# moves (26 s); held so, beams of width 2,048 found 1.6-2.0 times h on 14 of those 15 (r100: 4,096).
FIRST_REACH = 2.5
# Boards whose solutions are shortened window by window (solver.bounded.shorten), in cells: on 6x6 it
# took the mean length of eight random boards' answers from 201 to 195 in 60 s; on 7x7 its
# windows took the time the wider beams had shortened more with (3 boards: 433, 382, 603 moves
# against 379, 382, 369 without); on 24-puzzles the beams' answers are a few moves off.
SHORTEN_CELLS = range(26, 37)
# Boards whose solutions' windows ending with the blank in a corner are searched with the
# board's own tables (solver.bounded.shorten.shorten_anchored): on 24-puzzles a beam's solution lost
# 2-8 moves in 3-4 s (7 boards); on 6x6 windows of 30 moves already pass its node limit
# (one board of three lost 4 moves of 217, in 7 s).
ANCHORED_CELLS = range(2, 26)
# Boards whose windows are searched again (solver.bounded.shorten, linear conflict) only before a beam
# foreseen not to end before the time-out (its width over the last one's, times the last one's
# time) and after the last beam; the beam runs after them still, in case it ends. On 7x7 windows
# after every beam took the time wider beams shorten more with, but on a 16,384- or 65,536-wide
# beam's answer they are over in 3-4 s (a 1,024-wide one's: 72 s, so never before the second
# beam); with this and no weighted A*, boards 1-8 of the seeded 100 came out at 2,668 moves in
# 120 s against 2,718.
LAST_WINDOWS_CELLS = range(37, 50)
# Boards on which weighted A* runs between the first beam and the wider ones: on 7x7, held to
# NODES, it took 17-21 s and found nothing shorter than the first beam on each of four random
# boards (2026-12-02), time the beams of width 4,096 to 65,536 shorten the answer with.
WEIGHTED_CELLS = range(2, 37)
POLL = 0.05  # seconds between two looks at the stop flag while only IDA* runs
# Expansions a window may take in the window searches that take IDA*'s cores when it hands
# them over (solver.bounded.handover), in turn: on five 24-puzzles that missed 5% by one step, windows
# searched again with 10 M and then 50 M took the last 2 moves off three in 14-33 s.
DEEP_NODES = (10_000_000, 50_000_000)
HANDED_OVER = (
    "handed over"  # IDA*'s stop reason when it gives its cores to the upper bound's searches
)

Update = Callable[[dict], None]


@dataclass
class Bounded:
    """The best solution found, and what is proven about it."""

    solution: Solution
    lower_bound: int
    heuristic: str  # the admissible heuristic that proved the lower bound
    reason: str  # "optimal", "within" (the asked bound is proven), or why it stopped: "timeout", "interrupted"...
    # each better solution or higher bound, as it came
    updates: list[dict] = field(default_factory=list)
    # what IDA*, the search that proved lower_bound, expanded and generated, and its iterations
    proof_nodes: tuple[int, int, list] = (0, 0, [])

    @property
    def gap(self) -> float:
        if self.solution.length == self.lower_bound:
            return 0.0
        return self.solution.length / self.lower_bound - 1 if self.lower_bound else float("inf")

    @property
    def optimal(self) -> bool:
        return self.solution.length == self.lower_bound

    def to_dict(self) -> dict:
        expanded, generated, iterations = self.proof_nodes
        return self.solution.to_dict() | {
            "nodes_expanded": expanded,
            "nodes_generated": generated,
            "iterations": iterations,
            "lower_bound": self.lower_bound,
            "gap": round(self.gap, 6),
            "optimal": self.optimal,
            "ended": self.reason,
            "updates": self.updates,
        }


class _Bounds:
    """The two bounds as the searches raise and lower them (every method is thread-safe)."""

    def __init__(self, on_update: Update | None, start: float) -> None:
        self.lock = threading.Condition()
        self.lower = 0
        self.best: Solution | None = None
        self.on_update, self.start = on_update, start
        self.updates: list[dict] = []

    def _tell(self, moves: list[int] | None = None) -> None:
        event = {
            "seconds": round(time.perf_counter() - self.start, 4),
            "lower_bound": self.lower,
            "length": None if self.best is None else self.best.length,
        }
        if moves is not None:  # (a better solution: its tiles, as it came)
            event["moves"] = moves
        self.updates.append(event)
        if self.on_update is not None:
            self.on_update(event)
        self.lock.notify_all()

    def raise_lower(self, bound: int) -> None:
        with self.lock:
            if bound > self.lower:
                self.lower = bound
                self._tell()

    def offer(self, sol: Solution) -> None:
        with self.lock:
            if self.best is None or sol.length < self.best.length:
                self.best = sol
                self._tell(sol.moves)


class _LowerBound:
    """A Listener of the IDA* driver: each iteration's start proves its bound; judge(state,
    elapsed), if given, looks at a split iteration's progress (solver.bounded.handover)."""

    def __init__(
        self, bounds: _Bounds, judge: Callable[[SearchState, float], None] | None = None
    ) -> None:
        self.bounds = bounds
        self.judge = judge

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        self.bounds.raise_lower(bound)

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        if self.judge is not None:
            self.judge(state, elapsed)

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        pass


def _weighted(
    board: Board,
    plan: Plan,
    bounds: _Bounds,
    weight: float,
    nodes: int,
    finished: Callable[[], bool],
) -> bool:
    """One weighted A* run held to nodes (greedy search instead if it finds nothing and
    no solution is known yet: a weak heuristic); False once the node limit was reached."""
    from ..api import run

    weighted = dataclasses.replace(
        plan,
        algorithm="wastar",
        rival=None,
        options=dataclasses.replace(plan.options, weight=weight, max_nodes=nodes, timeout=None),
    )
    with _stopped_once(finished) as flag:
        try:
            bounds.offer(run(board, weighted, Control(stop=flag)))
            return True
        except NodeLimitReached:
            if bounds.best is None:
                try:
                    bounds.offer(
                        run(
                            board,
                            dataclasses.replace(weighted, algorithm="greedy"),
                            Control(stop=flag),
                        )
                    )
                except (NodeLimitReached, SearchStopped):
                    pass
            return False
        except SearchStopped:
            return False


def _beam(
    board: Board,
    plan: Plan,
    bounds: _Bounds,
    width: int,
    finished: Callable[[], bool],
    heuristic: Heuristic | None = None,
    reach: int | None = None,
) -> None:
    """One beam search for a solution shorter than the best so far (stopped once finished()),
    on the plan's heuristic or the one given (its rival); keeping only states with depth + h
    below reach, where given and shorter."""
    from ..api import solution_from_path
    from ..search.beam import FOUND, beam_kernel

    h = heuristic or plan.heuristic
    with bounds.lock:
        below = bounds.best.length if bounds.best is not None else 10**4
    below = below if reach is None else min(below, reach)
    canon = plan.frame.to_canonical(board)
    started = time.perf_counter()
    with _stopped_once(finished) as flag:
        status, path, generated = beam_kernel(
            canon.tiles.astype(np.int8),
            plan.frame.canonical_goal.tiles.astype(np.int8),
            h.H,
            board.shape.neighbours,
            width,
            below,
            flag.flag,
        )
    if status == FOUND:
        bounds.offer(
            solution_from_path(
                board,
                plan,
                path,
                "beam",
                f"beam search of width {width:,} on {h.name}",
                generated,
                time.perf_counter() - started,
            )
        )


def _first_solution(
    board: Board,
    plan: Plan,
    bounds: _Bounds,
    widths: tuple[int, ...],
    finished: Callable[[], bool],
    beside: bool = False,
) -> int:
    """Beams of widths[0], then twice as wide, up to widths[1], each held to FIRST_REACH times
    the bound at the start, until one finds a solution (a beam that would go deeper has lost
    its way: a wider one finds a shorter solution sooner); and a beam of widths[0] held to
    nothing (a weak heuristic's start, as Manhattan distance on small boards; or a board whose
    held beams must grow wide), after them where none found a solution, or with beside (a core
    free: IDA* has not started) beside the wider ones once the first has found none, until one
    of them finds a solution. Returns the widest held beam tried."""
    reach = max(int(FIRST_REACH * bounds.lower), 1)
    width, widest = widths[0], max(widths[:2])
    free: threading.Thread | None = None  # (the beam held to nothing, where it runs beside)
    failed: list[BaseException] = []
    halt = threading.Event()  # (set if a held beam fails: the one beside need not go on)

    def unheld() -> None:
        try:
            _beam(
                board,
                plan,
                bounds,
                widths[0],
                lambda: finished() or bounds.best is not None or halt.is_set(),
            )
        except BaseException as e:  # noqa: BLE001 - raised in the caller's thread
            failed.append(e)

    try:
        while True:
            _beam(board, plan, bounds, width, finished, reach=reach)
            if bounds.best is not None or finished() or width >= widest:
                break
            if beside and free is None:
                free = threading.Thread(
                    target=unheld, name="anytime first beam, held to nothing", daemon=True
                )
                free.start()
            width = min(2 * width, widest)
        if bounds.best is None and free is None and not finished():
            unheld()
    except BaseException:
        halt.set()
        raise
    finally:
        if free is not None:
            free.join()
    if failed:
        raise failed[0]
    return width


def _beams(plan: Plan, widths: tuple[int, ...]) -> list[tuple[int, Heuristic | None]]:
    """The beams after the first, cheapest first: each width on the plan's heuristic and, where
    the plan races a rival (the stronger, costlier one of a race: cr14 in 5x5's best), on the
    rival too, before the next width on the plan's own. On random 24-puzzles a cr14 beam cost
    about 3 times a z6-6-6-6 beam of its width and found solutions as short as z6-6-6-6 beams
    4 to 16 times as wide, or other ones of their length; RIVAL_WIDTH caps its widths."""
    out: list[tuple[int, Heuristic | None]] = []
    for width in widths:
        # (a rival without tables, linear conflict on 7x7, already ranks every beam)
        out.append((width, None))
        if plan.rival is not None and plan.rival.tables and width <= RIVAL_WIDTH:
            out.append((width, plan.rival))
    return out


def _shorten(
    board: Board,
    plan: Plan,
    bounds: _Bounds,
    finished: Callable[[], bool],
    searched: set[tuple[bytes, bytes]],
    every_window: bool = False,
) -> None:
    """The best solution's windows searched again (solver.bounded.shorten): on boards of
    ANCHORED_CELLS those ending with the blank in a corner, with the plan's own tables; on
    boards of SHORTEN_CELLS, and wherever the caller asks (every_window: on LAST_WINDOWS_CELLS),
    every window, with linear conflict. searched: the anchored windows searched already, kept
    for the board."""
    from .shorten import shorten, shorten_anchored

    with bounds.lock:
        best = bounds.best
    if best is None:
        return
    # (the flag stops a window's search part way: one can take a second)
    if board.shape.n in ANCHORED_CELLS:
        with _stopped_once(finished) as flag:
            best = (
                shorten_anchored(
                    best,
                    plan,
                    finished,
                    bounds.offer,
                    searched=searched,
                    control=Control(stop=flag),
                )
                or best
            )
    if board.shape.n in SHORTEN_CELLS or every_window:
        shorten(best, finished, bounds.offer)


def _ends_in_time(
    board: Board, last: tuple[int, float], width: int, timeout_at: float | None
) -> bool:
    """Whether a beam of this width is foreseen to end before the time-out, on boards of
    LAST_WINDOWS_CELLS (elsewhere: True): last is the width and seconds of the last beam on
    the same heuristic, and a beam's time grows with its width."""
    if board.shape.n not in LAST_WINDOWS_CELLS or timeout_at is None:
        return True
    return time.perf_counter() + last[1] * width / last[0] <= timeout_at


def _deep_windows(plan: Plan, bounds: _Bounds, finished: Callable[[], bool]) -> None:
    """The best solution's corner-anchored windows searched again with DEEP_NODES expansions a
    window, then more, while the beams go on beside: what takes IDA*'s cores once it has handed
    them over (solver.bounded.handover). Each limit has its own record of the windows searched."""
    from .shorten import shorten_anchored

    for limit in DEEP_NODES:
        searched: set[tuple[bytes, bytes]] = set()
        while not finished():
            with bounds.lock:
                best = bounds.best
            with _stopped_once(finished) as flag:
                shorter = shorten_anchored(
                    best,
                    plan,
                    finished,
                    bounds.offer,
                    nodes=limit,
                    searched=searched,
                    control=Control(stop=flag),
                )
            if shorter is None:
                break


@contextmanager
def _stopped_once(finished: Callable[[], bool]) -> Iterator[StopFlag]:
    """A stop flag for one upper-bound search, requested once the whole search may end (a
    stop, the bound met, IDA* done): the kernels read one flag, so a thread relays finished()
    to it while the block runs."""
    flag = StopFlag()
    # (set when the block ends: the relay need not sleep out its POLL first)
    woken = threading.Event()

    def relay() -> None:
        while not flag.requested:
            if finished():
                flag.request("stopped")
                return
            woken.wait(POLL)

    watch = threading.Thread(target=relay, daemon=True)
    watch.start()
    try:
        yield flag
    finally:
        flag.request("done")
        woken.set()
        watch.join()


def solve_within(
    board: BoardLike,
    within: float | None = 1.05,
    goal: BoardLike = "blank-last",
    *,
    timeout: float | None = None,
    control: Control | None = None,
    on_update: Update | None = None,
    rows: int | None = None,
    cols: int | None = None,
    **options,
) -> Bounded:
    """A solution proven at most within times the optimal length (None: go on to the optimum,
    as --anytime), or the best found and the bound proven when timeout or control.stop ends
    the search first (SearchStopped only if that comes before any solution). on_update is told
    of each better solution or higher bound. options: those of Options (pattern, heuristic,
    data_dir, jobs, prune, ...), as solver.solve takes them.

        from solver import solve_within
        r = solve_within(board, 1.05, timeout=60)   # r.solution, r.lower_bound, r.gap, r.reason
    """
    from ..api import make_plan, prepare

    board, frame = prepare(board, goal, rows, cols)
    plan = make_plan(frame, Options(**options, timeout=timeout))
    return solve_bounded(board, plan, within, control, on_update)


def solve_bounded(
    board: Board,
    plan: Plan,
    within: float | None = None,
    control: Control | None = None,
    on_update: Update | None = None,
    weights: tuple[float, ...] = WEIGHTS,
    nodes: int = NODES,
    widths: tuple[int, ...] = WIDTHS,
    hand_over: Callable[[list[Iteration], int, float, float], bool] = cannot_end,
) -> Bounded:
    """The best solution found before the gap is at most within - 1 (None: before the
    optimum is proven), or before they are stopped (control.stop, the plan's
    time-out). Raises SearchStopped only if stopped before any solution was found.
    hand_over(iterations, expanded, elapsed, seconds left): whether IDA* should give its
    cores to the upper bound's searches before the time-out (solver.bounded.handover)."""
    if within is not None and not within >= 1.0:
        raise ValueError(f"--within must be at least 1.0, got {within}")
    if plan.algorithm == "table":  # (an exact table's walk: the optimum at once, gap 0)
        return _table_walk(board, plan, control or Control(), on_update)
    return _BoundedSearch(board, plan, within, control or Control(), on_update, hand_over).run(
        weights, nodes, widths
    )


def _table_walk(board: Board, plan: Plan, control: Control, on_update: Update | None) -> Bounded:
    from ..api import run

    start = time.perf_counter()
    sol = run(board, plan, control)
    bounds = _Bounds(on_update, start)
    bounds.offer(sol)
    bounds.raise_lower(sol.length)
    return Bounded(sol, sol.length, plan.heuristic.name, "optimal", bounds.updates)


class _BoundedSearch:
    """One bounded search: IDA* for the lower bound in a thread of its own, the upper bound's
    searches in another, and the caller's thread waiting for the end (so that a signal's
    handler runs at once there, whatever kernel the others are in)."""

    def __init__(
        self,
        board: Board,
        plan: Plan,
        within: float | None,
        control: Control,
        on_update: Update | None,
        hand_over: Callable[[list[Iteration], int, float, float], bool],
    ) -> None:
        self.board, self.plan, self.within, self.control = board, plan, within, control
        self.hand_over = hand_over
        self.start = time.perf_counter()
        self.bounds = _Bounds(on_update, self.start)
        canon = plan.frame.to_canonical(board)  # (each admissible: a bound before any search)
        self.bounds.lower = max(
            int(h(canon)) for h in (plan.heuristic, plan.rival) if h is not None
        )
        self.ida_stop = StopFlag()
        self.ida_solution: Solution | None = None
        self.ida_stopped: SearchStopped | None = None
        self.ida_error: BaseException | None = None
        self.ida_done = False
        self.upper_error: BaseException | None = None
        self.upper_done = False
        self.abandoned = False  # (the caller's thread left: a second Ctrl-C)
        self.timeout_at = (
            None if plan.options.timeout is None else self.start + plan.options.timeout
        )
        # A time-out and a second upper-bound search to take IDA*'s cores: only then can they be
        # handed over.
        self.deadline = self.timeout_at if board.shape.n in ANCHORED_CELLS else None
        self.helper: threading.Thread | None = None
        self.ida = threading.Thread(target=self.lower, name="anytime lower bound", daemon=True)

    def judge(self, state: SearchState, elapsed: float) -> None:
        """Hand IDA*'s cores over (once) if its iteration cannot end before the time-out."""
        if self.helper is not None or self.deadline is None or self.bounds.best is None:
            return
        left = self.deadline - time.perf_counter()
        if not self.hand_over(state.iterations, state.expanded, elapsed, left):
            return
        self.helper = threading.Thread(
            target=_deep_windows,
            args=(self.plan, self.bounds, self.finished),
            name="anytime deep windows",
            daemon=True,
        )
        self.helper.start()
        self.ida_stop.request(HANDED_OVER)

    def lower(self) -> None:
        """IDA*, with what is left of the time-out (it starts after the first beams)."""
        from ..api import run  # (api imports the searches this module sits beside)

        try:
            plan = self.plan
            if self.timeout_at is not None:
                left = max(self.timeout_at - time.perf_counter(), 1e-3)
                plan = dataclasses.replace(
                    plan, options=dataclasses.replace(plan.options, timeout=left)
                )
            control = Control(
                stop=self.ida_stop,
                listener=_LowerBound(self.bounds, self.judge),
                backend=self.control.backend,
                split_nodes=self.control.split_nodes,
            )
            self.ida_solution = run(self.board, plan, control)
        except SearchStopped as e:
            self.ida_stopped = e
        except BaseException as e:  # noqa: BLE001 - reported by the caller's thread
            self.ida_error = e
        with self.bounds.lock:
            self.ida_done = True
            self.bounds.lock.notify_all()

    def met(self) -> str | None:
        """Why the search may end now (with bounds.lock held), or None."""
        if self.ida_solution is not None:
            return "optimal"
        if self.upper_error is not None or self.abandoned:
            return "error" if self.upper_error is not None else "stopped"
        if self.ida_done and (self.helper is None or self.ida_error is not None):
            return "error" if self.ida_error is not None else self.ida_stopped.reason
        if self.control.stop.requested:
            return self.control.stop.reason
        best, lower = self.bounds.best, self.bounds.lower
        if best is not None and lower:
            if best.length <= lower:
                return "optimal"
            if self.within is not None and best.length <= self.within * lower:
                return "within"
        if self.timeout_at is not None and time.perf_counter() >= self.timeout_at:
            # (before IDA* starts, the first beams' time; after a hand-over, the windows')
            return "timeout"
        return None

    def finished(self) -> bool:
        with self.bounds.lock:
            return self.met() is not None

    def upper(self, weights: tuple[float, ...], nodes: int, widths: tuple[int, ...]) -> None:
        """The upper bound's searches, in turn, until the search may end; IDA* starts after
        the first solution's beams (its threads, one a core, would slow them)."""
        board, plan, bounds, finished = self.board, self.plan, self.bounds, self.finished
        try:
            beside = (plan.options.jobs or os.cpu_count() or 1) > 1
            # (in a second or two, on most boards)
            tried = _first_solution(board, plan, bounds, widths, finished, beside)
            self.ida.start()
            # the last beam on the plan's heuristic: width, seconds (the first's: its kernel's loading)
            last = tried, 0.0
            searched: set[tuple[bytes, bytes]] = set()
            _shorten(board, plan, bounds, finished, searched)
            for w in weights if board.shape.n in WEIGHTED_CELLS else ():
                if finished() or not _weighted(board, plan, bounds, w, nodes, finished):
                    break  # (a lower weight would need more nodes still)
            _shorten(board, plan, bounds, finished, searched)
            for width, heuristic in _beams(plan, tuple(w for w in widths[1:] if w > tried)):
                if finished():
                    break
                if heuristic is None and not _ends_in_time(board, last, width, self.timeout_at):
                    # (the windows' gain now, before a beam whose answer the time-out may never let come)
                    _shorten(board, plan, bounds, finished, searched, every_window=True)
                began = time.perf_counter()
                _beam(board, plan, bounds, width, finished, heuristic)
                if heuristic is None:
                    last = (width, time.perf_counter() - began)
                _shorten(board, plan, bounds, finished, searched)
            if board.shape.n in LAST_WINDOWS_CELLS:  # (the time the last beam leaves)
                _shorten(board, plan, bounds, finished, searched, every_window=True)
        except BaseException as e:  # noqa: BLE001 - raised in the caller's thread
            self.upper_error = e
        with bounds.lock:
            self.upper_done = True
            bounds.lock.notify_all()

    def run(self, weights: tuple[float, ...], nodes: int, widths: tuple[int, ...]) -> Bounded:
        upper = threading.Thread(
            target=self.upper,
            args=(weights, nodes, widths),
            name="anytime upper bound",
            daemon=True,
        )
        reason = None
        try:
            upper.start()
            with self.bounds.lock:
                # (a wait the caller's signal handlers interrupt: they run at once)
                while (reason := self.met()) is None or not self.upper_done:
                    self.bounds.lock.wait(POLL)
        finally:
            with self.bounds.lock:
                self.abandoned = reason is None  # (left by an exception: end the searches)
            self.ida_stop.request(reason or "stopped")
            upper.join()
            if self.ida.ident is not None:  # (started)
                self.ida.join()
            if self.helper is not None:
                self.helper.join()
        if self.upper_error is not None:
            raise self.upper_error
        if self.ida_error is not None:
            raise self.ida_error
        return self.result(reason)

    def result(self, reason: str) -> Bounded:
        bounds, plan = self.bounds, self.plan
        if self.ida_solution is not None:
            bounds.offer(self.ida_solution)
            bounds.raise_lower(self.ida_solution.length)
        proof_search = self.ida_solution or self.ida_stopped
        if bounds.best is None:
            # (said with the whole search's time: IDA* may have started only at the end)
            e = self.ida_stopped
            raise SearchStopped(
                e.reason,
                e.algorithm,
                e.lower_bound,
                e.nodes_expanded,
                e.nodes_generated,
                time.perf_counter() - self.start,
                e.iterations,
                e.resumed_from,
            )
        best = bounds.best
        proven = bounds.lower
        # (in a race both sides' iterations prove bounds: the bound is the higher, from either)
        proved_by = (
            plan.heuristic.name
            if plan.rival is None
            else f"{plan.heuristic.name} or {plan.rival.name} (a race)"
        )
        result = Bounded(
            best,
            proven,
            proved_by,
            "optimal" if best.length == proven else reason,
            bounds.updates,
            proof_nodes=(
                (0, 0, [])
                if proof_search is None
                else (
                    proof_search.nodes_expanded,
                    proof_search.nodes_generated,
                    proof_search.iterations,
                )
            ),
        )
        best.optimal = result.optimal
        if best is not self.ida_solution:
            found_by = {
                "wastar": "weighted A*",
                "greedy": "greedy search",
                "beam": "beam search",
                "window": "searching a found solution's windows again",
            }[best.algorithm]
            best.proof = (
                f"{found_by} found it; "
                f"IDA* with admissible {proved_by} proved no solution is shorter than {proven}"
            )
        best.seconds = time.perf_counter() - self.start
        return result
