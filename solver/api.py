"""The Python API the `solver` command is a thin layer over.

    from solver import solve
    solve("8 6 7 2 5 4 3 _ 1").length   # 31

Boards are mapped into the canonical frame (patterndb.puzzle.frame), searched there,
and the moves are mapped back to the caller's tile numbers and directions.
A Plan (algorithm plus loaded heuristic) is made once per board shape and
goal and reused for every board of a batch.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from patterndb import Board, BoardError, Frame, make_goal, parse_board
from patterndb.files.datadir import resolve_data_dir
from patterndb.files.machines import DEPTH_MAX, load_default, load_or_build
from patterndb.puzzle.board import check_solvable
from patterndb.puzzle.patterns import race_spec

from . import heuristics
from .heuristic_choice import (
    cached_race,
    choose_heuristic,
    exact_available,
    exact_heuristic,
    pdb_named,
    race_pair,
)
from .ida.checkpoint import saved_heuristic
from .ida_run import run_idastar
from .plan import Control, Log, Options, Plan, quiet
from .search import ALGORITHMS, BEST_FIRST_KEYS, best_first_kernel, table_walk
from .search.best_first import EXHAUSTED, LIMIT, STOPPED
from .search.heuristic import TABLE
from .solution import NodeLimitReached, SearchStopped, Solution

__all__ = [
    "Control",
    "Options",
    "Plan",
    "as_board",
    "distance",
    "make_plan",
    "prepare",
    "run",
    "solve",
]

DEFAULT_MAX_NODES = 20_000_000


BoardLike = Board | str | Sequence[int] | np.ndarray


def as_board(board: BoardLike, rows: int | None = None, cols: int | None = None) -> Board:
    """A Board from any notation parse_board reads, or from a sequence of tiles (0 = blank)."""
    if isinstance(board, Board):
        return board
    if isinstance(board, (list, tuple, np.ndarray)):
        tiles = list(np.asarray(board).ravel()) if isinstance(board, np.ndarray) else list(board)
        if not all(
            isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)) for t in tiles
        ):
            raise BoardError(
                "a board given as a sequence must hold the tiles as integers (0 = blank)"
            )
        board = " ".join(str(int(t)) for t in tiles)
    return parse_board(board, rows, cols)


def prepare(
    board: BoardLike, goal: BoardLike, rows: int | None = None, cols: int | None = None
) -> tuple[Board, Frame]:
    """Parse, check solvability, and fix the canonical frame."""
    if goal is None:
        raise BoardError("the goal is None: give 'blank-last', 'blank-first' or a board")
    board = as_board(board, rows, cols)
    goal_board = make_goal(
        board.shape,
        goal if isinstance(goal, str) else as_board(goal, board.shape.rows, board.shape.cols),
    )
    check_solvable(board, goal_board)
    return board, Frame.for_goal(goal_board)


def make_plan(frame: Frame, opts: Options, log: Log = quiet, resuming: str | None = None) -> Plan:
    """What to search a board of this frame with. resuming: the heuristic a checkpoint was saved
    for (solver.ida.checkpoint.saved_heuristic), so that a race resumed after it was won loads only
    its winner."""
    started = time.perf_counter()
    ddir = resolve_data_dir(opts.data_dir)
    if opts.data_dir is not None and not ddir.exists():  # (a typo would otherwise go unseen)
        log(f"note: the data directory {ddir} does not exist: nothing is built there yet")
    algorithm = opts.algorithm
    if algorithm is None:
        wants_exact = opts.heuristic in (None, "exact") and not opts.pattern and not opts.pdb_files
        algorithm = "table" if wants_exact and exact_available(frame, ddir) else "idastar"
    if algorithm not in ALGORITHMS:
        raise BoardError(f"unknown algorithm {algorithm!r}: choose from {', '.join(ALGORITHMS)}")
    rival = None
    if algorithm in ("bfs", "iddfs"):
        if opts.heuristic is not None or opts.pattern or opts.pdb_files:
            raise BoardError(f"{algorithm} is blind: it takes no heuristic")
        h = heuristics.blind(frame.canonical_goal)
    elif algorithm == "table":
        if opts.heuristic not in (None, "exact") or opts.pattern or opts.pdb_files:
            raise BoardError("the table walk uses the exact table: it takes no other heuristic")
        if opts.max_nodes is not None:  # (it was silently ignored)
            raise BoardError(
                "the table walk takes one step a move and searches no nodes: --max-nodes is for searches"
            )
        h = exact_heuristic(frame, ddir, log)
    elif opts.pattern and "|" in race_spec(opts.pattern, frame):
        if algorithm == "idastar" or "|" in opts.pattern:
            h, rival = race_pair(opts, frame, ddir, algorithm, resuming)
        else:  # a race's name for another algorithm: its first side
            h = pdb_named(frame, race_spec(opts.pattern, frame).split("|")[0], ddir, opts.reflect)
    elif (
        algorithm == "idastar"
        and not opts.pattern
        and not opts.pdb_files
        and opts.heuristic in (None, "pdb")
        and (pair := cached_race(frame, ddir, opts.reflect)) is not None
    ):  # the default where it is built
        h, rival = pair
    else:
        h = choose_heuristic(opts, frame, ddir, log)
    if algorithm == "wastar" and not opts.weight >= 1.0:
        raise BoardError(f"the weight of h in wastar must be at least 1, got {opts.weight}")
    for value, what, low in (
        (opts.max_nodes, "the node limit", 1),
        (opts.jobs, "the number of threads", 1),
    ):
        if value is not None and not (isinstance(value, (int, np.integer)) and value >= low):
            raise BoardError(f"{what} must be a whole number of at least {low}, got {value!r}")
    if opts.timeout is not None and not (
        isinstance(opts.timeout, (int, float, np.integer, np.floating))
        and not isinstance(opts.timeout, bool)
        and opts.timeout > 0
    ):
        raise BoardError(f"the timeout must be a number of seconds above 0, got {opts.timeout!r}")
    if opts.prune is not None and not 2 <= opts.prune <= DEPTH_MAX:
        raise BoardError(f"the move-pruning depth must be from 2 to {DEPTH_MAX}, got {opts.prune}")
    if algorithm != "idastar":
        machine = load_or_build(frame.shape, 2, ddir, log)
    elif opts.prune is None:
        machine = load_default(frame.shape, ddir, log)
    else:
        machine = load_or_build(frame.shape, opts.prune, ddir, log)
    return Plan(frame, algorithm, h, opts, machine, time.perf_counter() - started, rival)


def run(board: Board, plan: Plan, control: Control | None = None) -> Solution:
    """Search with a prepared plan (thread-safe: kernels release the GIL).

    Raises SearchStopped when IDA* is stopped (node limit, time-out,
    control.stop) before a solution is proven."""
    start = time.perf_counter()
    frame, algorithm, h, opts = plan.frame, plan.algorithm, plan.heuristic, plan.options
    canon = frame.to_canonical(board)
    tiles = canon.tiles.astype(np.int64)
    iterations: list[dict] = []
    resumed = raced = None
    if algorithm == "table":
        path, generated = table_walk(canon, h.H[TABLE])
        expanded = len(path) - 1
        optimal, proof = True, "exact distance table"
    elif algorithm in ("idastar", "iddfs"):
        problems = [(x, plan.problem(tiles, x)) for x in (h, plan.rival) if x is not None]
        path, expanded, generated, iterations, resumed, h, raced = run_idastar(
            problems, plan, control or Control(), start, canon
        )
        optimal = h.admissible
        proof = "IDDFS" if algorithm == "iddfs" else f"IDA* with admissible {h.name}"
    else:
        wg, wh = BEST_FIRST_KEYS.get(algorithm, (1.0, float(opts.weight)))
        limit = DEFAULT_MAX_NODES if opts.max_nodes is None else opts.max_nodes
        stop = (control or Control()).stop
        with stop.searching(opts.timeout):
            status, path, expanded, generated = best_first_kernel(
                tiles,
                frame.canonical_goal.tiles.astype(np.int64),
                h.H,
                board.shape.neighbours,
                wg,
                wh,
                limit,
                stop.flag,
            )
            reason = stop.reason or "stopped"
        if status == STOPPED:  # what is proven is h at the start, where h is admissible
            bound = int(h(canon)) if h.admissible and algorithm != "bfs" else 0
            raise SearchStopped(
                reason, algorithm, bound, expanded, generated, time.perf_counter() - start, []
            )
        _check_status(status, algorithm, expanded)
        if algorithm == "bfs":
            optimal, proof = True, "breadth-first search"
        elif algorithm == "greedy":
            optimal, proof = False, "greedy best-first search gives no guarantee"
        elif wh == 1.0 and h.admissible:
            optimal, proof = True, f"A* with admissible {h.name}"
        else:
            optimal, proof = (
                False,
                f"weighted A* (w={opts.weight}) is only within a factor {opts.weight} of optimal",
            )
    heuristic = "none" if algorithm in ("bfs", "iddfs") else h.name
    sol = _solution(
        board,
        canon,
        frame,
        [int(c) for c in path],
        optimal,
        proof,
        algorithm,
        heuristic,
        expanded,
        generated,
        time.perf_counter() - start,
    )
    sol.iterations = iterations
    sol.resumed_from = None if resumed is None else resumed.to_dict()
    sol.race = None if raced is None else raced.to_dict()
    return sol


def solve(
    board: BoardLike,
    goal: BoardLike = "blank-last",
    algorithm: str | None = None,
    heuristic: str | None = None,
    weight: float = 2.0,
    data_dir: str | Path | None = None,
    max_nodes: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    pattern: str | None = None,
    pdb_files: tuple[Path, ...] = (),
    reflect: bool = True,
    log: Log = quiet,
    jobs: int | None = None,
    timeout: float | None = None,
    checkpoint: str | Path | None = None,
    control: Control | None = None,
    prune: int | None = None,
) -> Solution:
    """Solve a board. By default: walk the exact table when one exists (or is
    small enough to build), else IDA* with the strongest cached heuristic
    (pattern databases, else linear conflict). Raises BoardError for bad
    input, TableError for missing/damaged tables, RuntimeError when a node
    limit stops the search, SearchStopped (a RuntimeError saying what was
    proven) when IDA* is stopped by its node limit, timeout or control.stop.
    jobs: IDA* threads for this board (default: every core); checkpoint: a
    file to save the IDA* search to and resume it from (see Control); prune:
    IDA*'s move-pruning depth (2 prunes only the undo of the last move)."""
    start = time.perf_counter()
    board, frame = prepare(board, goal, rows, cols)
    _check_data_dir(data_dir)
    opts = Options(
        algorithm=algorithm,
        heuristic=heuristic,
        weight=weight,
        data_dir=Path(data_dir) if data_dir else None,
        max_nodes=max_nodes,
        pattern=pattern,
        pdb_files=tuple(Path(p) for p in pdb_files),
        reflect=reflect,
        jobs=jobs,
        timeout=timeout,
        prune=prune,
    )
    if checkpoint is not None:
        control = dataclasses.replace(control or Control(), checkpoint=Path(checkpoint))
    saved = (
        None
        if control is None or control.checkpoint is None
        else saved_heuristic(control.checkpoint)
    )
    sol = run(board, make_plan(frame, opts, log, saved), control)
    sol.seconds = time.perf_counter() - start
    return sol


def _check_data_dir(data_dir: str | Path | None) -> None:
    """A data_dir that does not exist is a BoardError: a typo would otherwise become a new
    directory, tables built into it (the CLI says so and goes on: a user sees that line)."""
    if data_dir is not None and str(data_dir).strip() and not Path(data_dir).exists():
        raise BoardError(
            f"data_dir {str(data_dir)!r} does not exist: create it, or leave data_dir out "
            f"for the default ({resolve_data_dir(None)})"
        )


def _check_status(status: int, algorithm: str, expanded: int) -> None:
    """Best-first kernel status to an exception (IDA* raises SearchStopped instead)."""
    if status == LIMIT:
        raise NodeLimitReached(
            f"{algorithm} stopped at its node limit after {expanded:,} nodes expanded: "
            "try idastar or raise --max-nodes"
        )
    if status == EXHAUSTED:
        raise RuntimeError(f"{algorithm} exhausted the search space without reaching the goal")


def _solution(
    board: Board,
    canon: Board,
    frame: Frame,
    path: list[int],
    optimal: bool,
    proof: str,
    algorithm: str,
    heuristic: str,
    expanded: int,
    generated: int,
    seconds: float,
) -> Solution:
    """Turn a canonical blank-cell path from canon (board in the canonical frame) into the
    caller's tiles and directions, checking each step."""
    dirs = board.shape.directions(path)  # raises unless each step is a move
    tiles = []
    cur = canon.tiles.tolist()  # a plain list: a Board per move cost 1 ms a solve
    for a, b in zip(path, path[1:]):
        tiles.append(cur[b])
        cur[a], cur[b] = cur[b], 0
    if cur != frame.canonical_goal.tiles.tolist():
        raise AssertionError("internal error: the solution does not reach the goal")
    return Solution(
        board=board,
        goal=frame.goal,
        moves=frame.tiles_from_canonical(tiles),
        directions=frame.directions_from_canonical(dirs),
        optimal=optimal,
        proof=proof,
        algorithm=algorithm,
        heuristic=heuristic,
        nodes_expanded=int(expanded),
        nodes_generated=int(generated),
        seconds=seconds,
    )


def solution_from_path(
    board: Board,
    plan: Plan,
    path: list[int],
    algorithm: str,
    proof: str,
    generated: int,
    seconds: float,
) -> Solution:
    """A solution (not called optimal) from a path of blank cells in the plan's canonical frame, its
    moves checked step by step and its end against the goal."""
    return _solution(
        board,
        plan.frame.to_canonical(board),
        plan.frame,
        [int(c) for c in path],
        False,
        proof,
        algorithm,
        plan.heuristic.name,
        0,
        generated,
        seconds,
    )


def distance(
    board: BoardLike,
    goal: BoardLike = "blank-last",
    data_dir: str | Path | None = None,
    rows: int | None = None,
    cols: int | None = None,
    log: Log = quiet,
) -> int:
    """Exact distance by table lookup (the table is built on first use for <= 9 cells)."""
    board, frame = prepare(board, goal, rows, cols)
    _check_data_dir(data_dir)
    h = exact_heuristic(frame, resolve_data_dir(data_dir), log)
    return h(frame.to_canonical(board))
