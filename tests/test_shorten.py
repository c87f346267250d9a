"""Windows of a solution searched again (solver.shorten): what comes back reaches the goal, is
shorter, and is never shorter than the BFS distance."""
from __future__ import annotations

import numpy as np
import pytest

from patterndb import Shape, make_goal
from solver.api import prepare, solve
from solver.shorten import shorten

from .naive import bfs_distances, replay


def long_way(rows: int, cols: int, moves: int, seed: int):
    """(board, a solution of exactly `moves` moves that wanders): a random walk from the goal
    that never undoes its last move, walked back."""
    rng = np.random.default_rng(seed)
    goal = make_goal(Shape(rows, cols), "blank-last")
    board, tiles, last = goal, [], -1
    for _ in range(moves):
        choices = [int(board.tiles[c]) for c in board.shape.neighbours[board.blank] if c >= 0]
        t = int(rng.choice([x for x in choices if x != last]))
        board, last = board.move_tile(t), t
        tiles.append(t)
    sol = solve(board, "blank-last", algorithm="idastar", heuristic="manhattan")
    return board, type(sol)(**{**sol.__dict__, "moves": tiles[::-1], "optimal": False})


@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4)])
def test_a_shortened_solution_replays_and_is_never_below_the_distance(rows, cols):
    goal = make_goal(Shape(rows, cols), "blank-last")
    dist = bfs_distances(tuple(goal.tiles.tolist()), rows, cols)
    shortened = 0
    for seed in range(6):
        board, sol = long_way(rows, cols, 60, seed)
        seen = []
        out = shorten(sol, lambda: False, seen.append, stages=((12, 4, 10_000), (20, 5, 50_000)))
        d = dist[tuple(board.tiles.tolist())]
        if out is None:
            assert sol.length == d or not seen
            continue
        shortened += 1
        assert replay(tuple(board.tiles.tolist()), out.moves, rows, cols) == tuple(goal.tiles.tolist())
        assert d <= out.length < sol.length and out.length % 2 == sol.length % 2
        assert [s.length for s in seen] == sorted({s.length for s in seen}, reverse=True)
        assert seen[-1].length == out.length and not out.optimal and out.algorithm == "window"
        assert out.directions == board.shape.directions([b.blank for b in out.boards()])
    assert shortened >= 4  # (a 60-move walk back on boards whose distances are at most 31 or 36)


def test_a_stop_ends_it_with_what_it_has():
    board, sol = long_way(3, 3, 60, 1)
    assert shorten(sol, lambda: True) is None
