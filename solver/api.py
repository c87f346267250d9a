"""The Python API the `solver` command is a thin layer over.

    from solver import solve
    solve("8 6 7 2 5 4 3 _ 1").length   # 31

Boards are mapped into the canonical frame (patterndb.frame), searched there,
and the moves are mapped back to the caller's tile numbers and directions.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from patterndb import Board, BoardError, Frame, TableError, make_goal, parse_board
from patterndb.board import check_solvable
from patterndb.catalog import build_exact_file, exact_path
from patterndb.datadir import resolve_data_dir

from . import heuristics
from .heuristics import Heuristic
from .search import ALGORITHMS, BEST_FIRST_KEYS, best_first_kernel, idastar_kernel, table_walk
from .solution import Solution

AUTO_BUILD_CELLS = 9  # exact tables this small are built on first use (about a second)
DEFAULT_MAX_NODES = 20_000_000

Log = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def as_board(board: Board | str, rows: int | None = None, cols: int | None = None) -> Board:
    return board if isinstance(board, Board) else parse_board(board, rows, cols)


def prepare(board: Board | str, goal: Board | str, rows: int | None = None, cols: int | None = None) -> tuple[Board, Frame]:
    """Parse, check solvability, and fix the canonical frame."""
    board = as_board(board, rows, cols)
    goal_board = make_goal(board.shape, goal)
    check_solvable(board, goal_board)
    return board, Frame.for_goal(goal_board)


def exact_available(frame: Frame, data_dir: Path) -> bool:
    return exact_path(data_dir, frame).exists() or frame.shape.n <= AUTO_BUILD_CELLS


def exact_heuristic(frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The exact table, built on first use for boards of up to 9 cells."""
    if not exact_path(data_dir, frame).exists():
        if frame.shape.n > AUTO_BUILD_CELLS:
            s = frame.shape
            raise TableError(f"no exact table for {s} in {data_dir}: run 'pdb build --rows {s.rows} --cols {s.cols}'")
        log(f"building the exact {frame.shape} table in {data_dir} (first use) ...")
        build_exact_file(frame, data_dir)
    return heuristics.exact(frame, data_dir)


def choose_heuristic(name: str | None, frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The named heuristic, or the strongest one available when name is None."""
    goal = frame.canonical_goal
    if name is None:
        if exact_available(frame, data_dir):
            return exact_heuristic(frame, data_dir, log)
        return heuristics.linear_conflict(goal)
    if name == "exact":
        return exact_heuristic(frame, data_dir, log)
    if name in heuristics.CLASSIC:
        return heuristics.CLASSIC[name](goal)
    raise BoardError(f"unknown heuristic {name!r}: choose from {', '.join([*heuristics.CLASSIC, 'exact'])}")


def solve(
    board: Board | str,
    goal: Board | str = "blank-last",
    algorithm: str | None = None,
    heuristic: str | None = None,
    weight: float = 2.0,
    data_dir: str | Path | None = None,
    max_nodes: int | None = None,
    rows: int | None = None,
    cols: int | None = None,
    log: Log = _quiet,
) -> Solution:
    """Solve a board. By default: walk the exact table when one exists (or is
    small enough to build), else IDA* with the strongest available heuristic.
    Raises BoardError for bad input, TableError for missing/damaged tables,
    RuntimeError when a node limit stops the search."""
    start = time.perf_counter()
    board, frame = prepare(board, goal, rows, cols)
    ddir = resolve_data_dir(data_dir)
    if algorithm is None:
        algorithm = "table" if heuristic in (None, "exact") and exact_available(frame, ddir) else "idastar"
    if algorithm not in ALGORITHMS:
        raise BoardError(f"unknown algorithm {algorithm!r}: choose from {', '.join(ALGORITHMS)}")
    if algorithm in ("bfs", "iddfs"):
        if heuristic is not None:
            raise BoardError(f"{algorithm} is blind: it takes no heuristic")
        h = heuristics.blind(frame.canonical_goal)
    elif algorithm == "table":
        if heuristic not in (None, "exact"):
            raise BoardError("the table walk uses the exact table: it takes no other heuristic")
        h = exact_heuristic(frame, ddir, log)
    else:
        h = choose_heuristic(heuristic, frame, ddir, log)
    if algorithm == "wastar" and not weight >= 1.0:
        raise BoardError(f"--weight must be >= 1, got {weight}")
    canon = frame.to_canonical(board)
    tiles = canon.tiles.astype(np.int64)
    goal_tiles = frame.canonical_goal.tiles.astype(np.int64)
    nbrs = board.shape.neighbours
    limit = DEFAULT_MAX_NODES if max_nodes is None else max_nodes
    expanded = generated = 0
    if algorithm == "table":
        path, generated = table_walk(canon, h.H[4])
        expanded = len(path) - 1
        optimal, proof = True, "exact distance table"
    elif algorithm in ("idastar", "iddfs"):
        status, path, expanded, generated, _ = idastar_kernel(tiles, goal_tiles, h.H, nbrs, max_nodes or 0)
        _check_status(status, algorithm, expanded)
        optimal = h.admissible
        proof = f"{'IDDFS' if algorithm == 'iddfs' else 'IDA*'} with {'no heuristic' if algorithm == 'iddfs' else 'admissible ' + h.name}"
    else:
        wg, wh = BEST_FIRST_KEYS.get(algorithm, (1.0, float(weight)))
        status, path, expanded, generated = best_first_kernel(tiles, goal_tiles, h.H, nbrs, wg, wh, limit)
        _check_status(status, algorithm, expanded)
        if algorithm == "bfs":
            optimal, proof = True, "breadth-first search"
        elif algorithm == "greedy":
            optimal, proof = False, "greedy best-first search gives no guarantee"
        elif wh == 1.0 and h.admissible:
            optimal, proof = True, f"A* with admissible {h.name}"
        else:
            optimal, proof = False, f"weighted A* (w={weight}) is only within a factor {weight} of optimal"
    return _solution(board, frame, [int(c) for c in path], optimal, proof, algorithm,
                     "none" if algorithm in ("bfs", "iddfs") else h.name, expanded, generated, time.perf_counter() - start)


def _check_status(status: int, algorithm: str, expanded: int) -> None:
    if status == 2:
        raise RuntimeError(f"{algorithm} stopped at its node limit after {expanded:,} expansions: try idastar or raise --max-nodes")
    if status == 1:
        raise RuntimeError(f"{algorithm} exhausted the search space without reaching the goal")


def _solution(board: Board, frame: Frame, path: list[int], optimal: bool, proof: str, algorithm: str,
              heuristic: str, expanded: int, generated: int, seconds: float) -> Solution:
    """Turn a canonical blank-cell path into the caller's tiles and directions, checking each step."""
    canon = frame.to_canonical(board)
    shape = board.shape
    tiles, dirs = [], []
    cur = canon
    for a, b in zip(path, path[1:]):
        dirs.append(shape.direction(a, b))
        tiles.append(int(cur.tiles[b]))
        cur = cur.move_blank(b)
    if cur != frame.canonical_goal:
        raise AssertionError("internal error: the solution does not reach the goal")
    return Solution(
        board=board, goal=frame.goal, moves=frame.tiles_from_canonical(tiles),
        directions=frame.directions_from_canonical("".join(dirs)), optimal=optimal, proof=proof,
        algorithm=algorithm, heuristic=heuristic, nodes_expanded=int(expanded),
        nodes_generated=int(generated), seconds=seconds,
    )


def distance(board: Board | str, goal: Board | str = "blank-last", data_dir: str | Path | None = None,
             rows: int | None = None, cols: int | None = None, log: Log = _quiet) -> int:
    """Exact distance by table lookup (the table is built on first use for <= 9 cells)."""
    board, frame = prepare(board, goal, rows, cols)
    h = exact_heuristic(frame, resolve_data_dir(data_dir), log)
    return h(frame.to_canonical(board))
