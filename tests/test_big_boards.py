"""6x6 and 7x7 boards: their named partitions admissible against exact distances of
scrambles, the optimal search and the bounded one answer on them, and the commands
take their size."""

import contextlib
import json
import time

import numpy as np
import pytest
from click.testing import CliRunner

from patterndb import Frame, Shape, make_goal, scramble
from patterndb.files.catalog import build_pattern_file
from patterndb.puzzle.patterns import NAMED, parse_partition
from solver import api
from solver.bounded.anytime import solve_bounded
from solver.cli.commands import main as solver
from solver.plan import Options
from solver.solution import SearchStopped


@pytest.fixture(scope="module")
def big_tables(tmp_path_factory):
    """The fast partitions of 6x6 and 7x7, built (a few seconds each)."""
    d = tmp_path_factory.mktemp("big")
    for side in (6, 7):
        frame = Frame.for_goal(make_goal(Shape(side, side), "blank-last"))
        for tiles in parse_partition("fast", frame):
            build_pattern_file(frame, tiles, d)
    return d


def test_named_partitions_cover_every_tile_once():
    for side in (6, 7):
        for name, groups in NAMED[(side, side)].items():
            tiles = sorted(t for g in groups for t in g)
            assert tiles == list(range(1, side * side)), name
            assert max(map(len, groups)) == {"fast": 4, "strong": 5}[name]


@pytest.mark.parametrize("side, moves, seed", [(6, 26, 1), (6, 30, 2), (7, 26, 3), (7, 30, 4)])
def test_fast_partition_admissible_on_scrambles(big_tables, side, moves, seed):
    """Against the exact distance (IDA* with linear conflict, admissible on its own) of
    every board on an optimal path: h never above the moves still needed."""
    goal = make_goal(Shape(side, side), "blank-last")
    board = scramble(goal, moves, np.random.default_rng(seed))
    exact = api.solve(board, heuristic="linear-conflict", data_dir=big_tables, prune=2)
    assert exact.optimal and exact.length <= moves
    with_tables = api.solve(board, pattern="fast", data_dir=big_tables)
    assert with_tables.optimal and with_tables.length == exact.length
    _, frame = api.prepare(board, "blank-last")
    plan = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables))
    for i, b in enumerate(exact.boards()):
        assert plan.heuristic(frame.to_canonical(b)) <= exact.length - i


def test_bounded_search_on_7x7_replays_and_bounds(big_tables):
    """A random 48-puzzle: a solution within seconds, that replays, under a proven bound."""
    board = api.as_board(
        CliRunner().invoke(solver, ["random", "--size", "7", "--seed", "6"]).stdout
    )
    _, frame = api.prepare(board, "blank-last")
    plan = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=7))
    result = solve_bounded(board, plan, within=1.05)
    sol = result.solution
    assert sol.boards()[-1] == make_goal(board.shape, "blank-last")
    assert result.reason == "timeout" and 0 < result.lower_bound < sol.length
    first = next(u for u in result.updates if u["length"] is not None)
    assert first["seconds"] < 6  # (under 3 s on 2 cores, busy)


def test_a_bounded_6x6_answer_is_shortened_window_by_window_and_replays(big_tables):
    """A random 35-puzzle: the beam's answer wanders, and its windows searched again give a
    shorter one (solver.bounded.shorten), which replays and stays above the proven bound."""
    board = api.as_board(
        CliRunner().invoke(solver, ["random", "--size", "6", "--seed", "2"]).stdout
    )
    _, frame = api.prepare(board, "blank-last")
    warm = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=1))
    # (the kernels compiled or loaded: not in the 5 s below)
    with contextlib.suppress(SearchStopped):
        solve_bounded(board, warm, within=1.05, weights=(), widths=(1024,))
    # (the windows shorten this answer from 240 to 228 moves, three times within about 1 s on 2
    # cores, idle; the rest is waiting. Seed 5's beam, ranked by 2h + line conflicts, gives an
    # answer whose windows are already as short as they can make them)
    plan = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=5))
    # (one beam: then its windows)
    result = solve_bounded(board, plan, within=1.05, weights=(), widths=(1024,))
    sol = result.solution
    lengths = [u["length"] for u in result.updates if u["length"] is not None]
    assert (
        sol.algorithm == "window"
        and lengths == sorted(lengths, reverse=True)
        and lengths[0] > sol.length
    )
    assert (
        sol.boards()[-1] == make_goal(board.shape, "blank-last") and result.lower_bound < sol.length
    )


def test_a_7x7_beam_foreseen_not_to_end_in_time_waits_for_the_windows(big_tables):
    """A beam of width 4,194,304 after one of 2,048 would take two thousand times as long: the
    answer's windows are searched again first (solver.bounded.shorten), and their shorter answer, which
    replays and stays above the proven bound, is the one the time-out leaves."""
    board = api.as_board(
        CliRunner().invoke(solver, ["random", "--size", "7", "--seed", "6"]).stdout
    )
    goal = make_goal(board.shape, "blank-last")
    _, frame = api.prepare(board, "blank-last")
    warm = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=1))
    # (the kernels compiled or loaded: not in the 8 s below)
    with contextlib.suppress(SearchStopped):
        solve_bounded(board, warm, within=1.05, weights=(), widths=(1024,))
    # (the windows')
    api.solve(scramble(goal, 20, np.random.default_rng(1)), heuristic="linear-conflict", jobs=1)
    plan = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=8))
    result = solve_bounded(board, plan, within=1.05, weights=(), widths=(1024, 2048, 1 << 22))
    sol = result.solution
    lengths = [u["length"] for u in result.updates if u["length"] is not None]
    assert (
        sol.algorithm == "window"
        and lengths == sorted(lengths, reverse=True)
        and lengths[0] > sol.length
    )
    assert sol.boards()[-1] == goal and result.lower_bound < sol.length
    assert sol.proof.startswith("searching a found solution's windows again found it; IDA* with")


def test_no_weighted_astar_on_7x7(big_tables, monkeypatch):
    """On 7x7 weighted A* held to its node limit found nothing in 17-21 s: the beams after the
    first one come straight after it."""
    from solver.bounded import anytime

    called = []
    monkeypatch.setattr(anytime, "_weighted", lambda *a: called.append(a[3]) or False)
    board = api.as_board(
        CliRunner().invoke(solver, ["random", "--size", "7", "--seed", "6"]).stdout
    )
    _, frame = api.prepare(board, "blank-last")
    plan = api.make_plan(frame, Options(pattern="fast", data_dir=big_tables, timeout=3))
    solve_bounded(board, plan, within=1.05, weights=(3.0,), widths=(1024,))
    assert called == []


def test_a_beam_is_foreseen_by_the_last_ones_time_on_7x7_only():
    from solver.bounded.anytime import _ends_in_time

    seven, six = (make_goal(Shape(k, k), "blank-last") for k in (7, 6))
    now = time.perf_counter()
    assert not _ends_in_time(seven, (1024, 1.0), 4096, now + 3.5)  # (4 s foreseen)
    assert _ends_in_time(seven, (1024, 1.0), 4096, now + 60)
    assert _ends_in_time(seven, (1024, 1.0), 4096, None)  # (no time-out)
    # (6x6 searches its windows after each beam)
    assert _ends_in_time(six, (1024, 1.0), 4096, now + 3.5)


def test_cli_random_scramble_show_and_solve_7x7(big_tables, tmp_path):
    r = CliRunner().invoke(solver, ["scramble", "--size", "7", "--moves", "24", "--seed", "9"])
    board = r.stdout.strip()
    assert r.exit_code == 0 and sorted(map(int, board.split())) == list(range(49))
    r = CliRunner().invoke(solver, ["solve", board, "--json", "--data-dir", str(big_tables)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["optimal"] and out["heuristic"].startswith("pdb fast") and out["length"] <= 24
    r = CliRunner().invoke(solver, ["show", board, "--moves", out["directions"]])
    assert r.exit_code == 0 and r.stdout.count("48") >= 2, r.output


def test_zero_aware_groups_refused_on_boards_over_26_cells():
    r = CliRunner().invoke(
        solver,
        [
            "solve",
            "--size",
            "6",
            "--pattern",
            "zfast",
            CliRunner().invoke(solver, ["random", "--size", "6", "--seed", "1"]).stdout.strip(),
        ],
    )
    assert (
        r.exit_code == 2
        and "zero-aware tables (the blank, 0, in a group) are for boards of at most 26" in r.stderr
    )
