"""The page's searches: at most one per client and a fixed number at once over all clients,
each in a thread of its own (the kernels release the GIL), told of its progress through a
callback and stopped through its StopFlag (the stop button, a closed tab, its time-out).

Plans (an algorithm with its loaded tables) are made once per board shape, goal and choice, and
shared: tables are mapped read-only, so every search may read them at once."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from patterndb import Frame, PuzzleError
from patterndb.files.datadir import resolve_data_dir

from ..api import make_plan, prepare, run
from ..bounded.anytime import solve_bounded
from ..heuristic_choice import exact_available
from ..ida import StopFlag
from ..ida.state import Iteration, SearchState
from ..plan import Control, Options, Plan
from ..solution import NodeLimitReached, SearchStopped
from .requests import COMPARE_CELLS, Limits, RequestError, SolveRequest

Emit = Callable[[dict], None]
PROGRESS_EVERY = 0.2  # seconds between two progress events of one search
STORED_NODES = 2_000_000  # best-first searches keep every node: this many is about 0.5 GB
COMPARE_NODES = 1_000_000  # each row of the compare view stops here (the slow ones show it)
COMPARE_SECONDS = 10.0
WARM_BOARDS = {
    "blank-last": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 _ 15",  # one move from each goal
    "blank-first": "1 _ 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
}
COMPARE_ROWS = (
    ("bfs", None),
    ("astar", "misplaced"),
    ("astar", "manhattan"),
    ("astar", "linear-conflict"),
    ("wastar", "manhattan"),
    ("greedy", "manhattan"),
    ("iddfs", None),
    ("idastar", "manhattan"),
    ("idastar", "linear-conflict"),
    ("table", None),
)

log = logging.getLogger("solver.web")


class Progress:
    """A Listener that turns an IDA* search's progress into events, a few a second."""

    def __init__(self, emit: Emit) -> None:
        self.emit, self.start, self.sent = emit, time.monotonic(), 0.0

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        self.emit({"event": "iteration", "bound": bound, "subtrees": subtrees})

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        now = time.monotonic()
        if now - self.sent < PROGRESS_EVERY:
            return
        self.sent = now
        seconds = now - self.start
        self.emit(
            {
                "event": "progress",
                "bound": state.bound,
                "generated": state.total_generated,
                "expanded": state.total_expanded,
                "rate": state.total_generated / max(seconds, 1e-9),
                "seconds": seconds,
                "done": done,
                "total": total,
            }
        )

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        self.emit(
            {
                "event": "bound",
                "lower_bound": it.bound,
                "generated": state.total_generated,
                "seconds": time.monotonic() - self.start,
            }
        )


class Searches:
    """Who is searching, and the plans they search with."""

    def __init__(self, data_dir: Path | None, limits: Limits, jobs: int | None = None) -> None:
        self.data_dir, self.limits, self.jobs = data_dir, limits, jobs
        self._lock = threading.Lock()
        self._running: dict[str, StopFlag] = {}
        self._plans: dict[tuple, Plan] = {}
        self._plan_lock = threading.Lock()

    def begin(self, client: str) -> StopFlag:
        """A stop flag for this client's new search, or RequestError (429) when it cannot start now."""
        with self._lock:
            if client in self._running:
                raise RequestError("this page is already searching: stop that search first", 429)
            if len(self._running) >= self.limits.searches:
                raise RequestError(
                    f"the server is running its {self.limits.searches} searches at once: "
                    "try again when one ends",
                    429,
                )
            stop = self._running[client] = StopFlag()
            return stop

    def end(self, client: str) -> None:
        with self._lock:
            self._running.pop(client, None)

    def stop(self, client: str) -> bool:
        """Stop this client's search (the stop button): True when one was running."""
        with self._lock:
            stop = self._running.get(client)
        if stop is not None:
            stop.request("stopped")
        return stop is not None

    def stop_all(self) -> None:
        """Stop every search (the server is shutting down)."""
        with self._lock:
            flags = list(self._running.values())
        for flag in flags:
            flag.request("stopped")

    def warm(self) -> None:
        """Solve a one-move 15-puzzle of each goal once with its default plan, so that the first
        board a user solves does not wait for the kernels to load (or, where `solver compile`
        has not made them, for numba) or its tables to be mapped. Quiet: a failure here is the
        first solve's to report."""
        for goal, board in WARM_BOARDS.items():
            req = SolveRequest(
                "warm", *prepare(board, goal), goal, None, None, None, self.limits.seconds, None
            )
            try:
                run(
                    req.board,
                    self.plan(req.frame, self.options(req, None, None, None, 60.0), lambda _: None),
                )
            except Exception:  # the same error reaches the page with its first solve
                log.debug("warming up failed", exc_info=True)

    def plan(self, frame: Frame, opts: Options, say: Callable[[str], None]) -> Plan:
        """A plan for these options: made once (loading tables) for each shape, goal and choice,
        then reused with this request's own time-out and node limit."""
        # (by the goal itself: two goals may share a canonical frame but not its mapping)
        key = (str(frame.goal), frame.shape, opts.algorithm, opts.heuristic, opts.pattern)
        with self._plan_lock:
            plan = self._plans.get(key)
            if plan is None:
                plan = self._plans[key] = make_plan(
                    frame, dataclasses.replace(opts, timeout=None, max_nodes=None), say
                )
        return dataclasses.replace(plan, options=opts)

    def options(
        self,
        req: SolveRequest,
        algorithm: str | None,
        heuristic: str | None,
        nodes: int | None,
        seconds: float,
    ) -> Options:
        best_first = algorithm not in (None, "idastar", "iddfs", "table")
        if best_first:  # (they keep every node they reach)
            nodes = min(nodes or STORED_NODES, STORED_NODES)
        return Options(
            algorithm,
            heuristic,
            data_dir=self.data_dir,
            max_nodes=nodes,
            pattern=req.pattern,
            jobs=self.jobs,
            timeout=seconds,
        )

    def solve(self, req: SolveRequest, stop: StopFlag, emit: Emit) -> None:
        """Search one board, telling emit of each step; always ends with one of the events
        "solution", "stopped" or "error", and frees the client's place."""
        final = {"event": "error", "message": "internal error"}
        try:
            opts = self.options(req, req.algorithm, req.heuristic, req.max_nodes, req.timeout)
            plan = self.plan(req.frame, opts, lambda line: emit({"event": "note", "message": line}))
            emit(
                {
                    "event": "start",
                    "algorithm": plan.algorithm,
                    "heuristic": plan.heuristic.name,
                    "tables": [t.split(":")[0] for t in plan.heuristic.tables],
                    "load_seconds": plan.load_seconds,
                }
            )
            if (req.within is not None and req.within > 1.0) or req.anytime:
                final = self._bounded(req, plan, stop, emit)
            else:
                sol = run(req.board, plan, Control(stop=stop, listener=Progress(emit)))
                final = {"event": "solution"} | sol.to_dict()
        except SearchStopped as e:
            final = {"event": "stopped", "message": str(e)} | e.to_dict()
        except (PuzzleError, RuntimeError) as e:
            final = {"event": "error", "message": str(e)}
        except Exception as e:  # the page gets one line, the server's log the traceback
            log.exception("search failed")
            final = {"event": "error", "message": f"internal error: {type(e).__name__}: {e}"}
        finally:
            # (before the last event: a page that reads it may start its next search at once)
            self.end(req.client)
            emit(final)

    @staticmethod
    def _bounded(req: SolveRequest, plan: Plan, stop: StopFlag, emit: Emit) -> dict:
        """The answer with a proven bound (solver.bounded.anytime), each better solution or bound an event."""
        within = None if req.anytime else req.within
        result = solve_bounded(
            req.board,
            plan,
            within,
            Control(stop=stop),
            lambda e: emit({"event": "bounded"} | {k: v for k, v in e.items() if k != "moves"}),
        )
        return {"event": "solution"} | result.to_dict() | {"within": within}

    def compare(self, req: SolveRequest, stop: StopFlag, emit: Emit) -> None:
        """The same board under each algorithm and heuristic of COMPARE_ROWS, a row event each."""
        final = {"event": "done"}
        try:
            if req.board.shape.n > COMPARE_CELLS:
                final = {
                    "event": "error",
                    "message": f"the compare view takes boards of at most {COMPARE_CELLS} "
                    f"cells (3x3, 2x4, 3x4...): this one has {req.board.shape.n}",
                }
                return
            for algorithm, heuristic in COMPARE_ROWS:
                if stop.requested:
                    break
                if algorithm == "table" and not exact_available(
                    req.frame, resolve_data_dir(self.data_dir)
                ):
                    continue
                emit(self._row(req, stop, algorithm, heuristic))
        except Exception as e:
            log.exception("compare failed")
            final = {"event": "error", "message": f"internal error: {type(e).__name__}: {e}"}
        finally:
            self.end(req.client)
            emit(final)

    def _row(
        self, req: SolveRequest, stop: StopFlag, algorithm: str, heuristic: str | None
    ) -> dict:
        row = {"event": "row", "algorithm": algorithm, "heuristic": heuristic or "none"}
        try:
            opts = self.options(
                req, algorithm, heuristic, COMPARE_NODES, min(COMPARE_SECONDS, req.timeout)
            )
            sol = run(req.board, self.plan(req.frame, opts, lambda _: None), Control(stop=stop))
            return row | {
                k: v
                for k, v in sol.to_dict().items()
                if k not in ("moves", "directions", "iterations")
            }
        except SearchStopped as e:  # (its own message would suggest a command-line option)
            return row | {
                "message": f"stopped at this view's limit after {e.nodes_expanded:,} nodes expanded and "
                f"{e.seconds:.1f} s: no solution is shorter than {e.lower_bound} moves",
                "lower_bound": e.lower_bound,
                "nodes_expanded": e.nodes_expanded,
                "seconds": e.seconds,
            }
        except NodeLimitReached:
            return row | {
                "message": f"stopped at this view's limit of {COMPARE_NODES:,} nodes (it keeps every "
                "node it reaches)"
            }
        except (PuzzleError, RuntimeError) as e:
            return row | {"message": str(e)}
