"""The Python API: solve and distance on every board notation, goal and error, as a user calls them."""

import pytest

from patterndb import BoardError, Shape, make_goal, parse_board, random_board, scramble
from solver import distance, solve

from . import naive
from .instances import korf


def _check(sol, rows, cols):
    end = naive.replay(tuple(sol.board.tiles.tolist()), sol.moves, rows, cols)
    assert end == tuple(sol.goal.tiles.tolist())
    assert len(sol.directions) == sol.length


@pytest.mark.parametrize("goal", ["blank-last", "blank-first"])
def test_optimal_algorithms_match_the_table(data_dir, rng, goal):
    shape = Shape(3, 3)
    g = make_goal(shape, goal)
    ref = naive.bfs_distances(tuple(g.tiles.tolist()), 3, 3)
    combos = [
        ("table", None),
        ("idastar", "manhattan"),
        ("idastar", "linear-conflict"),
        ("astar", "linear-conflict"),
        ("astar", "misplaced"),
        ("idastar", "exact"),
    ]
    for i in range(150):
        b = random_board(shape, g, rng)
        alg, h = combos[i % len(combos)]
        sol = solve(b, goal, algorithm=alg, heuristic=h, data_dir=data_dir)
        _check(sol, 3, 3)
        assert sol.optimal and sol.length == ref[tuple(b.tiles.tolist())]
        assert distance(b, goal, data_dir=data_dir) == sol.length


def test_blind_algorithms(data_dir, rng):
    g = make_goal(Shape(3, 3), "blank-last")
    for moves in (0, 5, 12):
        b = scramble(g, moves, rng)
        d = distance(b, data_dir=data_dir)
        for alg in ("bfs", "iddfs"):
            sol = solve(b, algorithm=alg, data_dir=data_dir)
            _check(sol, 3, 3)
            assert sol.optimal and sol.length == d and sol.heuristic == "none"


def test_suboptimal_algorithms_replay_and_say_so(data_dir, rng):
    g = make_goal(Shape(3, 3), "blank-last")
    for _ in range(20):
        b = random_board(g.shape, g, rng)
        d = distance(b, data_dir=data_dir)
        for alg in ("greedy", "wastar"):
            sol = solve(b, algorithm=alg, heuristic="manhattan", weight=3.0, data_dir=data_dir)
            _check(sol, 3, 3)
            assert not sol.optimal and sol.length >= d
            if alg == "wastar":
                assert sol.length <= 3 * d


def test_rectangular_and_explicit_goals(data_dir, rng):
    for rows, cols, goal in ((2, 3, "blank-first"), (2, 4, "blank-last"), (3, 2, "2 1 0 3 5 4")):
        g = make_goal(Shape(rows, cols), goal)
        ref = naive.bfs_distances(tuple(g.tiles.tolist()), rows, cols)
        for _ in range(15):
            b = random_board(g.shape, g, rng)
            sol = solve(
                b, goal, algorithm="idastar", heuristic="linear-conflict", data_dir=data_dir
            )
            _check(sol, rows, cols)
            assert sol.length == ref[tuple(b.tiles.tolist())]


def test_15_puzzle_idastar_agrees_with_astar(rng):
    g = make_goal(Shape(4, 4), "blank-first")
    for _ in range(5):
        b = scramble(g, 30, rng)
        a = solve(b, "blank-first", algorithm="idastar", heuristic="manhattan")
        c = solve(b, "blank-first", algorithm="astar", heuristic="linear-conflict")
        _check(a, 4, 4)
        _check(c, 4, 4)
        assert a.length == c.length


@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
def test_easiest_korf_instance(heuristic):
    board, length = korf(54)  # instance 55: length 41
    b = parse_board(board)
    sol = solve(b, "blank-first", algorithm="idastar", heuristic=heuristic)
    _check(sol, 4, 4)
    assert sol.length == length and sol.optimal


def test_unsolvable_and_bad_requests(data_dir):
    with pytest.raises(BoardError, match="not solvable"):
        solve("12345687_", data_dir=data_dir)
    with pytest.raises(BoardError, match="unknown algorithm"):
        solve("12345678_", algorithm="dijkstra", data_dir=data_dir)
    with pytest.raises(BoardError, match="takes no heuristic"):
        solve("1234567_8", algorithm="bfs", heuristic="manhattan", data_dir=data_dir)
    with pytest.raises(BoardError, match="weight"):
        solve("1234567_8", algorithm="wastar", heuristic="manhattan", weight=0.5, data_dir=data_dir)


def test_node_limit_is_reported(data_dir):
    b = parse_board("8 6 7 2 5 4 3 0 1")
    with pytest.raises(RuntimeError, match="node limit"):
        solve(b, algorithm="bfs", max_nodes=100, data_dir=data_dir)


def test_the_api_takes_tiles_as_a_sequence_and_names_no_cli_flags_in_its_errors():
    """A list of tiles is a board, and the API's errors name its own arguments (not --weight)."""
    import numpy as np

    from patterndb import BoardError
    from solver import solve

    ida = dict(algorithm="idastar", heuristic="manhattan")
    for board in (
        [8, 6, 7, 2, 5, 4, 3, 0, 1],
        (8, 6, 7, 2, 5, 4, 3, 0, 1),
        np.array([[8, 6, 7], [2, 5, 4], [3, 0, 1]]),
    ):
        assert solve(board, goal=[1, 2, 3, 4, 5, 6, 7, 8, 0], **ida).length == 31
    bad = [
        dict(board=[8, 6, 7, 2, 5, 4, 3, 0, 1.5]),
        dict(algorithm="wastar", weight=0.5),
        dict(max_nodes=0),
        dict(jobs=0),
        dict(timeout=-1),
        dict(prune=1),
    ]
    for kw in bad:
        board = kw.pop("board", "8 6 7 2 5 4 3 0 1")
        with pytest.raises(BoardError) as e:
            solve(board, **{**ida, **kw})
        assert "--" not in str(e.value), str(e.value)


def test_a_control_stopped_once_watches_the_next_solve_afresh():
    from solver import SearchStopped, solve
    from solver.api import Control

    control = Control()
    control.stop.request("interrupted")  # before the solve: it stops at once
    with pytest.raises(SearchStopped):
        solve("8 6 7 2 5 4 3 0 1", algorithm="idastar", heuristic="manhattan", control=control)
    assert (
        solve(
            "8 6 7 2 5 4 3 0 1", algorithm="idastar", heuristic="manhattan", control=control
        ).length
        == 31
    )
    assert (
        solve(
            "8 6 7 2 5 4 3 0 1", algorithm="idastar", heuristic="manhattan", control=control
        ).length
        == 31
    )


def test_best_first_searches_stop_at_their_timeout_with_h_as_bound():
    """A* on a random 24-puzzle would run to its node limit: --timeout stops it, and what it
    proves is h at the start (admissible), no more."""
    import time as _time

    from solver.solution import SearchStopped

    board = "2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23"
    started = _time.perf_counter()
    with pytest.raises(SearchStopped) as e:
        solve(
            board,
            goal="blank-first",
            algorithm="astar",
            heuristic="manhattan",
            timeout=0.5,
            max_nodes=10**9,
        )
    assert e.value.reason == "timeout" and _time.perf_counter() - started < 10
    assert e.value.lower_bound == 64  # the board's Manhattan distance


def test_api_refuses_a_data_dir_that_does_not_exist(tmp_path):
    """A typo must not become a new directory with tables built into it."""
    missing = tmp_path / "tabels"
    for call in (
        lambda: solve("8 6 7 2 5 4 3 0 1", data_dir=missing),
        lambda: distance("863.54217", data_dir=missing),
    ):
        with pytest.raises(BoardError, match="does not exist: create it"):
            call()
    assert not missing.exists()
