"""Windows of a solution searched again (solver.bounded.shorten): what comes back reaches the goal, is
shorter, and is never shorter than the BFS distance."""

from __future__ import annotations

import numpy as np
import pytest

from patterndb import Shape, make_goal
from solver.api import prepare, solve
from solver.bounded.shorten import shorten

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
        assert replay(tuple(board.tiles.tolist()), out.moves, rows, cols) == tuple(
            goal.tiles.tolist()
        )
        assert d <= out.length < sol.length and out.length % 2 == sol.length % 2
        assert [s.length for s in seen] == sorted({s.length for s in seen}, reverse=True)
        assert seen[-1].length == out.length and not out.optimal and out.algorithm == "window"
        assert out.directions == board.shape.directions([b.blank for b in out.boards()])
    assert shortened >= 4  # (a 60-move walk back on boards whose distances are at most 31 or 36)


def test_a_stop_ends_it_with_what_it_has():
    board, sol = long_way(3, 3, 60, 1)
    assert shorten(sol, lambda: True) is None


def plan_for(goal: str, rows: int, cols: int):
    from solver.api import Options, make_plan

    _, frame = prepare(str(make_goal(Shape(rows, cols), goal)), goal, rows=rows, cols=cols)
    return make_plan(frame, Options(algorithm="idastar", heuristic="manhattan"))


@pytest.mark.parametrize("rows,cols", [(3, 3), (2, 4)])
def test_anchored_windows_replay_and_reach_the_distance_where_they_span_the_solution(rows, cols):
    """Windows ending with the blank in a corner, searched with the plan's heuristic: the
    answer replays, never beats the BFS distance, and a window spanning the whole walk (its
    last board is the goal) finds the distance itself; a second call given the windows it
    searched searches nothing again."""
    from solver.bounded.shorten import shorten_anchored

    goal = make_goal(Shape(rows, cols), "blank-last")
    dist = bfs_distances(tuple(goal.tiles.tolist()), rows, cols)
    plan = plan_for("blank-last", rows, cols)
    for seed in range(4):
        board, sol = long_way(rows, cols, 40, seed)
        d = dist[tuple(board.tiles.tolist())]
        seen, searched = [], set()
        out = shorten_anchored(
            sol, plan, lambda: False, seen.append, windows=(8, 16, 40), searched=searched
        )
        assert out is not None and out.length == d < sol.length and seen[-1] is out
        assert replay(tuple(board.tiles.tolist()), out.moves, rows, cols) == tuple(
            goal.tiles.tolist()
        )
        assert out.directions == board.shape.directions([b.blank for b in out.boards()])
        assert searched and shorten_anchored(out, plan, lambda: False, searched=searched) is None


def test_a_window_ending_in_another_corner_is_mirrored_onto_the_tables_goal():
    """3x3, blank-last goal (its frame serves boards with the blank in cells 0 and 8): a walk
    that ends with the blank in cell 2 is searched mirrored left to right, and its answer, in
    the walk's own tiles, is the BFS distance between its two boards."""
    from solver.bounded.shorten import _anchor, shorten_anchored

    rng = np.random.default_rng(7)
    end = prepare("1 2 0 3 4 5 6 7 8", "blank-last")[0]
    plan = plan_for("blank-last", 3, 3)
    assert _anchor(end, plan.frame.key)[0] is True
    board, tiles, last = end, [], -1
    for _ in range(30):
        t = int(
            rng.choice(
                [
                    int(board.tiles[c])
                    for c in board.shape.neighbours[board.blank]
                    if c >= 0 and int(board.tiles[c]) != last
                ]
            )
        )
        board, last = board.move_tile(t), t
        tiles.append(t)
    shell = solve(board, str(end), algorithm="idastar", heuristic="manhattan")
    walk = type(shell)(**{**shell.__dict__, "moves": tiles[::-1], "optimal": False})
    d = bfs_distances(tuple(end.tiles.tolist()), 3, 3)[tuple(board.tiles.tolist())]
    out = shorten_anchored(walk, plan, lambda: False, windows=(30,))
    assert out is not None and out.length == d == shell.length
    assert replay(tuple(board.tiles.tolist()), out.moves, 3, 3) == tuple(end.tiles.tolist())
