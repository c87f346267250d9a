"""Answers with a proven bound (solver.bounded.anytime, `solve --within R`, `--anytime`), checked
against plain BFS distances on boards small enough to enumerate: an answer within R is at most
R times the distance, every lower bound claimed is at most the distance, every solution
replays to the goal, and "optimal" is said only of the distance itself."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import threading
import time
import types

import numpy as np
import pytest

from patterndb import Shape, make_goal, random_board
from solver.api import Control, Options, make_plan, prepare, run
from solver.bounded.anytime import solve_bounded
from solver.solution import SearchStopped

from .instances import korf
from .naive import bfs_distances, replay

SHAPES = [(2, 3), (2, 4), (3, 3)]


@pytest.fixture(scope="module")
def distances():
    return {
        (r, c): bfs_distances(tuple(make_goal(Shape(r, c), "blank-last").tiles.tolist()), r, c)
        for r, c in SHAPES
    }


def boards(rows: int, cols: int, n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    shape = Shape(rows, cols)
    return [
        " ".join(map(str, random_board(shape, make_goal(shape, "blank-last"), rng).tiles))
        for _ in range(n)
    ]


def plan_for(board: str, rows: int, cols: int, heuristic: str = "manhattan"):
    b, frame = prepare(board, "blank-last", rows, cols)
    return b, make_plan(frame, Options(algorithm="idastar", heuristic=heuristic, jobs=1))


@pytest.mark.parametrize("rows,cols", SHAPES)
@pytest.mark.parametrize("within", [1.02, 1.1, 1.3, 2.0])
def test_an_answer_within_r_is_at_most_r_times_the_distance(distances, rows, cols, within):
    for board in boards(rows, cols, 6, seed=rows * 10 + cols):
        b, plan = plan_for(board, rows, cols)
        d = distances[(rows, cols)][tuple(b.tiles.tolist())]
        result = solve_bounded(b, plan, within)
        sol = result.solution
        assert sol.length <= within * d + 1e-9 and result.lower_bound <= d <= sol.length
        assert sol.length <= within * result.lower_bound + 1e-9  # (what it claims, it proves)
        assert replay(tuple(b.tiles.tolist()), sol.moves, rows, cols) == tuple(
            plan.frame.goal.tiles.tolist()
        )
        assert sol.optimal == result.optimal and (not result.optimal or sol.length == d)
        assert result.reason in ("within", "optimal")


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_the_anytime_search_ends_at_the_optimum_and_never_claims_too_much(distances, rows, cols):
    for board in boards(rows, cols, 6, seed=rows + cols):
        # (a weak heuristic: the bounds meet late)
        b, plan = plan_for(board, rows, cols, "misplaced")
        d = distances[(rows, cols)][tuple(b.tiles.tolist())]
        seen = []
        result = solve_bounded(b, plan, None, on_update=seen.append)
        assert (
            result.optimal
            and result.solution.length == d
            and result.lower_bound == d
            and result.gap == 0
        )
        lengths = [e["length"] for e in seen if e["length"] is not None]
        assert lengths == sorted(lengths, reverse=True)
        assert [e["lower_bound"] for e in seen] == sorted(e["lower_bound"] for e in seen)
        for e in seen:
            assert e["lower_bound"] <= d
            if "moves" in e:
                assert len(e["moves"]) == e["length"] >= d
                assert replay(tuple(b.tiles.tolist()), e["moves"], rows, cols) == tuple(
                    plan.frame.goal.tiles.tolist()
                )


def test_a_stop_returns_the_best_so_far_with_its_bound(distances):
    board = "8 6 7 2 5 4 3 _ 1"
    b, plan = plan_for(board, 3, 3, "misplaced")
    control = Control()
    seen = []

    def stop_at_first_solution(event: dict) -> None:
        seen.append(event)
        if event["length"] is not None:
            control.stop.request("interrupted")

    result = solve_bounded(b, plan, None, control, stop_at_first_solution, weights=(3.0,))
    d = distances[(3, 3)][tuple(b.tiles.tolist())]
    assert (
        result.reason in ("interrupted", "optimal")
        and result.lower_bound <= d <= result.solution.length
    )


def test_within_r_must_be_at_least_one():
    b, plan = plan_for("8 6 7 2 5 4 3 _ 1", 3, 3)
    with pytest.raises(ValueError, match="at least 1.0"):
        solve_bounded(b, plan, 0.9)


def solve(*args: str):
    return subprocess.run(
        [sys.executable, "-m", "solver.cli", "solve", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_command_prints_the_bound_and_the_gap():
    r = solve("8672543_1", "--within", "1.5", "-H", "manhattan", "--algorithm", "idastar")
    assert r.returncode == 0, r.stderr
    first, last = r.stdout.splitlines()[0], r.stdout.splitlines()[-1]
    length = int(first.split()[1])
    bound = int(last.split()[2])
    assert 31 <= length <= 1.5 * bound and bound <= 31 and "gap:" in last
    j = solve("8672543_1", "--anytime", "-H", "manhattan", "--algorithm", "idastar", "--json")
    out = json.loads(j.stdout)
    assert j.returncode == 0 and (
        out["length"],
        out["lower_bound"],
        out["gap"],
        out["optimal"],
    ) == (31, 31, 0, True)
    assert out["updates"][-1]["lower_bound"] == 31


def test_a_board_an_exact_table_covers_is_answered_optimally_with_gap_0():
    r = solve("8672543_1", "--within", "1.05")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("length: 31  optimal") and "gap: 0.0%  (optimal" in r.stdout
    j = json.loads(solve("8672543_1", "--anytime", "--json").stdout)
    assert (j["length"], j["lower_bound"], j["gap"], j["ended"]) == (31, 31, 0, "optimal")


def test_a_bounded_answers_json_counts_the_ida_that_proved_its_bound():
    """nodes_expanded, nodes_generated and iterations are IDA*'s (they said 0 and [] for an
    answer found by a beam), beside the timings an optimal answer gives; a search stopped before
    its first solution says how it ended, with no gap."""
    board = korf(0)[0]  # (Korf's #1: a beam's answer first, IDA*'s iterations under it)
    args = ("--goal", "blank-first", "--within", "1.01", "-H", "manhattan", "-j", "1")
    j = solve(board, *args, "--timeout", "2", "--json")
    out = json.loads(j.stdout)
    assert j.returncode in (0, 4) and out["algorithm"] != "idastar", j.stderr
    iterations = out["iterations"]
    assert iterations and iterations[-1]["bound"] <= out["lower_bound"]
    # (and the iteration under way when it stopped)
    assert out["nodes_expanded"] >= sum(it["expanded"] for it in iterations) > 0
    assert out["nodes_generated"] >= out["nodes_expanded"]
    assert out["kernels"] in ("aot", "jit") and out["load_seconds"] >= 0 <= out["kernel_seconds"]
    stopped = solve(
        random_48(), "-H", "manhattan", "--within", "1.01", "--timeout", "0.001", "--json"
    )
    out = json.loads(stopped.stdout)
    assert stopped.returncode == 4 and out["ended"] == "timeout" and out["gap"] is None
    assert out["within"] == 1.01


def random_48() -> str:
    return str(random_board(Shape(7, 7), make_goal(Shape(7, 7)), np.random.default_rng(3)))


def test_within_1_is_the_optimal_search_with_its_node_counts(pdb_dir):
    for board in (korf(0)[0], korf(2)[0]):  # Korf's #1 and #3
        common = [
            board,
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5",
            "--data-dir",
            str(pdb_dir),
            "--json",
            "-j",
            "1",
        ]
        plain, within = (
            json.loads(solve(*common).stdout),
            json.loads(solve(*common, "--within", "1.0").stdout),
        )
        for key in ("length", "optimal", "nodes_expanded", "nodes_generated", "moves"):
            assert plain[key] == within[key]


@pytest.mark.parametrize(
    "args,message",
    [
        (["8672543_1", "--within", "0.5"], "0.5 is not in the range x>=1.0"),
        (
            ["8672543_1", "--within", "1.2", "--algorithm", "astar"],
            "--within and --anytime prove their bound with IDA*",
        ),
        (
            ["8672543_1", "--within", "1.1", "--anytime"],
            "--anytime goes on to the optimum and --within stops at a bound: give one of them",
        ),
        (
            ["8672543_1", "--anytime", "--checkpoint", "x.ckpt"],
            "--within and --anytime are not for",
        ),
    ],
)
def test_what_the_bounded_search_does_not_take_is_one_line(args, message):
    r = solve(*args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("within", ["1.2", None])
def test_a_batch_answers_each_board_within_its_bound_against_the_bfs_distance(
    distances, tmp_path, within
):
    """--file with --within R (or --anytime): a row a board, each lower bound at most the BFS
    distance and each length at most R times the bound (the optimum with --anytime); a known
    optimum the answer contradicts is a MISMATCH (exit 1); a line that is no board an error row."""
    lines, want = [], {}
    for board in boards(3, 3, 8, seed=7):
        b = prepare(board, "blank-last", 3, 3)[0]
        want[len(lines) + 1] = distances[(3, 3)][tuple(b.tiles.tolist())]
        lines.append(f"{board} {want[len(lines) + 1]}")
    f = tmp_path / "boards.txt"
    f.write_text("\n".join(lines) + "\n")
    flags = ["--within", within] if within else ["--anytime"]
    r = solve("--file", str(f), *flags, "-a", "idastar", "-H", "manhattan", "--json")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 0 and len(rows) == len(lines), r.stderr
    for row in rows:
        d = want[row["line"]]
        assert (
            row["lower_bound"]
            <= d
            <= row["length"]
            <= float(within or 1) * row["lower_bound"] + 1e-9
        )
        assert row["ended"] in (("within", "optimal") if within else ("optimal",))
    assert (
        "boards answered within 20%" in r.stderr
        if within
        else "8 of 8 boards proven optimal" in r.stderr
    )
    # (0: below every bound of a scrambled board)
    f.write_text(f"{lines[0].rsplit(' ', 1)[0]} 0\nnot a board\n")
    r = solve("--file", str(f), *flags, "-a", "idastar", "-H", "manhattan")
    assert r.returncode == 1 and "MISMATCH" in r.stdout and "1 bad line (said above)" in r.stderr, (
        r.stdout + r.stderr
    )


def test_a_batch_within_r_says_which_boards_ran_out_of_time_and_stops_at_ctrl_c(tmp_path):
    """A board whose bound is not proven by --timeout ends its row "timeout" (exit 4, as one
    board); Ctrl-C ends the board in progress with its best answer and starts no other (130)."""
    korf1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
    f = tmp_path / "hard.txt"
    f.write_text(f"{korf1}\n{korf1}\n")
    # (misplaced tiles: IDA*'s bound stays far below 57 for minutes; on Manhattan distance the anytime
    # search proves the optimum in about 4 s on 2 cores, as long as the wait below: a race it lost)
    common = [
        "--file",
        str(f),
        "--goal",
        "blank-first",
        "-a",
        "idastar",
        "-H",
        "misplaced",
        "--json",
    ]
    # (3 s: a first solution comes in well under a second, even beside another test worker)
    r = solve(*common, "--within", "1.001", "--timeout", "3")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 4 and [row["ended"] for row in rows] == ["timeout", "timeout"], r.stderr
    assert "using idastar / misplaced for 4x4 boards" in r.stderr  # (the heuristic, said once)
    assert all(row["lower_bound"] <= 57 <= row["length"] for row in rows)
    p = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "solve", *common, "--anytime"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # (Ctrl-C once the first board has an answer: its progress line says so)
    seen = []
    while not any(x.startswith("line 1:") and "length" in x for x in seen[-1:]):
        seen.append(p.stderr.readline())
        assert seen[-1], f"no answer before the search ended: {seen}"
    p.send_signal(signal.SIGINT)
    out, errs = p.communicate(timeout=120)
    rows = [json.loads(x) for x in out.splitlines()]
    assert p.returncode == 130 and rows[-1]["status"] == "not started" and rows[-1]["line"] == 2, (
        errs
    )
    assert rows[0]["ended"] == "interrupted" and rows[0]["length"] >= 57, rows[0]
    assert "interrupted: 1 board not started" in errs and "Traceback" not in errs


def test_node_limits_that_stop_every_weighted_run_still_give_a_bounded_answer(distances):
    """Weighted A* and greedy search held to 50 nodes: the answer then comes from IDA*, still within its bound."""
    b, plan = plan_for("8 6 7 2 5 4 3 _ 1", 3, 3, "misplaced")
    result = solve_bounded(b, plan, 2.0, nodes=50)
    d = distances[(3, 3)][tuple(b.tiles.tolist())]
    assert result.lower_bound <= d <= result.solution.length <= 2.0 * result.lower_bound


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_beam_search_offers_only_shorter_solutions_that_replay(distances, rows, cols):
    """The beam step of the bounded search, after a greedy first solution: what it offers is
    shorter than the best so far, at least the distance, and reaches the goal."""
    from solver.bounded.anytime import _beam, _Bounds

    improved = 0
    for board in boards(rows, cols, 6, seed=rows * cols):
        b, plan = plan_for(board, rows, cols)
        d = distances[(rows, cols)][tuple(b.tiles.tolist())]
        bounds = _Bounds(None, 0.0)
        greedy = run(b, dataclasses.replace(plan, algorithm="greedy"))
        bounds.offer(greedy)
        _beam(b, plan, bounds, 256, lambda: False)
        best = bounds.best
        assert d <= best.length <= greedy.length and (best is greedy or best.algorithm == "beam")
        assert replay(tuple(b.tiles.tolist()), best.moves, rows, cols) == tuple(
            plan.frame.goal.tiles.tolist()
        )
        if best is not greedy:
            assert best.length < greedy.length and not best.optimal
            improved += 1
    assert improved > 0


LOST_WAY = "15 4 9 10 6 12 0 7 5 2 14 11 8 3 13 1"  # 4x4: Manhattan distance 43, a beam of width 8 finds 307 moves


def test_a_first_beam_that_loses_its_way_is_cut_and_a_wider_one_finds_a_shorter_solution():
    """A narrow beam on a weak heuristic wanders (307 moves on a board whose Manhattan distance
    is 43): the first beams are held to FIRST_REACH times h at the start, and the one twice as
    wide finds a solution within it, which replays."""
    from solver.bounded.anytime import FIRST_REACH, _beam, _Bounds, _first_solution

    b, plan = plan_for(LOST_WAY, 4, 4)
    h0 = int(plan.heuristic(plan.frame.to_canonical(b)))
    free = _Bounds(None, 0.0)
    _beam(b, plan, free, 8, lambda: False)
    # (the case is real: held to nothing, it goes that far)
    assert free.best.length > FIRST_REACH * h0
    bounds = _Bounds(None, 0.0)
    bounds.lower = h0
    assert _first_solution(b, plan, bounds, (8, 32), lambda: False) == 16
    assert bounds.best.length < FIRST_REACH * h0 and bounds.best.length < free.best.length
    assert replay(tuple(b.tiles.tolist()), bounds.best.moves, 4, 4) == tuple(
        plan.frame.goal.tiles.tolist()
    )


def test_first_beams_widen_to_the_second_width_then_one_goes_as_deep_as_it_must(monkeypatch):
    """Where no held beam finds a solution (a weak heuristic's start far below the distance),
    one of the first width, held to nothing, still looks for it."""
    import solver.bounded.anytime as anytime

    calls = []
    monkeypatch.setattr(anytime, "_beam", lambda *a, reach=None, **k: calls.append((a[3], reach)))
    b, plan = plan_for(LOST_WAY, 4, 4)
    bounds = anytime._Bounds(None, 0.0)
    bounds.lower = 43
    assert anytime._first_solution(b, plan, bounds, (8, 48, 1024), lambda: False) == 48
    reach = int(anytime.FIRST_REACH * 43)
    assert calls == [(8, reach), (16, reach), (32, reach), (48, reach), (8, None)]


def test_with_a_core_free_the_beam_held_to_nothing_runs_beside_the_wider_held_ones(monkeypatch):
    """Where the first held beam finds nothing, the first width's beam held to nothing starts
    at once beside the wider held ones (IDA* has not taken the second core yet), not after
    them all, and stops when a held one finds a solution; without a core free (beside
    False: -j 1) it comes after them, as the last resort."""
    import solver.bounded.anytime as anytime

    events, lock = [], threading.Lock()

    def beam(board, plan, bounds, width, finished, heuristic=None, reach=None):
        with lock:
            events.append(("start", width, reach))
        if reach is None:  # (held to nothing: wanders until stopped)
            while not finished():
                time.sleep(0.01)
        else:
            time.sleep(0.2)
            if width == 32:  # (the first to find a solution)
                with bounds.lock:
                    bounds.best = types.SimpleNamespace(length=99)
        with lock:
            events.append(("end", width, reach))

    monkeypatch.setattr(anytime, "_beam", beam)
    b, plan = plan_for(LOST_WAY, 4, 4)
    bounds = anytime._Bounds(None, 0.0)
    bounds.lower = 43
    reach = int(anytime.FIRST_REACH * 43)
    assert anytime._first_solution(b, plan, bounds, (8, 48), lambda: False, beside=True) == 32
    held_ends = [events.index(("end", w, reach)) for w in (8, 16, 32)]
    free_start, free_end = events.index(("start", 8, None)), events.index(("end", 8, None))
    assert held_ends[0] < free_start < held_ends[1] and free_end > held_ends[2]
    events.clear()
    bounds = anytime._Bounds(None, 0.0)
    bounds.lower = 43
    assert (
        anytime._first_solution(b, plan, bounds, (8, 16), lambda: len(events) >= 5, beside=False)
        == 16
    )
    assert events[-2:] == [("start", 8, None), ("end", 8, None)]  # (only after the held ones)


def test_a_held_beam_that_fails_stops_the_beam_beside_it(monkeypatch):
    """An error in a held first beam is raised, and the beam held to nothing beside it (which
    would wander on to its 10,000-move limit) is stopped first, not left running."""
    import solver.bounded.anytime as anytime

    ended = threading.Event()

    def beam(board, plan, bounds, width, finished, heuristic=None, reach=None):
        if reach is None:
            for _ in range(500):  # (5 s: a beam not stopped gives up here, and the test fails)
                if finished():
                    ended.set()
                    return
                time.sleep(0.01)
        elif width == 16:
            raise RuntimeError("a held beam failed")

    monkeypatch.setattr(anytime, "_beam", beam)
    b, plan = plan_for(LOST_WAY, 4, 4)
    bounds = anytime._Bounds(None, 0.0)
    bounds.lower = 43
    with pytest.raises(RuntimeError, match="a held beam failed"):
        anytime._first_solution(b, plan, bounds, (8, 48), lambda: False, beside=True)
    assert ended.is_set()


def test_the_bounded_search_goes_on_from_the_widths_past_the_first_solutions(monkeypatch):
    """The beams after the first solution's start at the first width wider than those tried,
    held to the best length only, and the answer stays above the distance and replays."""
    import solver.bounded.anytime as anytime

    real, calls = anytime._beam, []

    def beam(*args, **kwargs):
        calls.append((args[3], kwargs.get("reach")))
        return real(*args, **kwargs)

    monkeypatch.setattr(anytime, "_beam", beam)
    # (its windows would take the time)
    monkeypatch.setattr(anytime, "_shorten", lambda *a, **k: None)
    b, plan = plan_for(LOST_WAY, 4, 4)
    # (optimal: 40 s)
    plan = dataclasses.replace(plan, options=dataclasses.replace(plan.options, timeout=2.0))
    result = solve_bounded(b, plan, 1.0, weights=(), widths=(8, 32, 128))
    reach = int(anytime.FIRST_REACH * 43)
    assert calls[:2] == [(8, reach), (16, reach)] and [w for w, r in calls[2:4]] == [32, 128]
    assert all(r is None for w, r in calls[2:])
    first = next(u["length"] for u in result.updates if u["length"] is not None)
    assert first < reach and result.lower_bound <= result.solution.length <= first
    assert replay(tuple(b.tiles.tolist()), result.solution.moves, 4, 4) == tuple(
        plan.frame.goal.tiles.tolist()
    )


def test_a_race_adds_beams_on_its_rival_and_stays_within_its_bound(distances, tmp_path):
    """With a plan that races two heuristics (here 4-4 against a catalogue of three partitions),
    the bounded search also runs beams on the rival, up to RIVAL_WIDTH: what they offer is
    shorter than the best so far and replays, and the answers stay within R of the BFS distance."""
    from patterndb.files.catalog import build_pattern_file
    from patterndb.puzzle.patterns import parse_catalog
    from solver.bounded.anytime import RIVAL_WIDTH, WIDTHS, _beam, _beams, _Bounds

    spec = "4-4|1-4/5-8+1,3,5,7/2,4,6,8+1,2,4,5/3,6/7,8"
    _, frame = prepare("1 2 3 4 5 6 7 8 0", "blank-last")
    for part in parse_catalog(spec.replace("|", "+"), frame):
        for g in part:
            build_pattern_file(frame, g, tmp_path)
    improved = 0
    for board in boards(3, 3, 8, seed=5):
        b, frame = prepare(board, "blank-last")
        plan = make_plan(
            frame, Options(algorithm="idastar", pattern=spec, data_dir=tmp_path, jobs=1)
        )
        assert plan.rival is not None
        assert [h for w, h in _beams(plan, WIDTHS[1:]) if h is not None] == [plan.rival] * sum(
            w <= RIVAL_WIDTH for w in WIDTHS[1:]
        )
        d = distances[(3, 3)][tuple(b.tiles.tolist())]
        bounds = _Bounds(None, 0.0)
        greedy = run(
            b, dataclasses.replace(plan, algorithm="greedy", heuristic=plan.rival, rival=None)
        )
        bounds.offer(greedy)
        _beam(b, plan, bounds, 64, lambda: False, plan.rival)
        best = bounds.best
        assert d <= best.length <= greedy.length
        assert replay(tuple(b.tiles.tolist()), best.moves, 3, 3) == tuple(
            plan.frame.goal.tiles.tolist()
        )
        if best is not greedy:
            assert best.algorithm == "beam" and best.proof.endswith(f"on {plan.rival.name}")
            improved += 1
        result = solve_bounded(b, plan, 1.1)
        assert result.lower_bound <= d <= result.solution.length <= 1.1 * result.lower_bound + 1e-9
        assert replay(tuple(b.tiles.tolist()), result.solution.moves, 3, 3) == tuple(
            plan.frame.goal.tiles.tolist()
        )
    assert improved > 0


def test_an_iteration_is_judged_unable_to_end_only_past_its_first_seconds_and_at_its_best_rate():
    from solver.bounded.handover import MIN_SECONDS, cannot_end
    from solver.ida.state import Iteration

    its = [
        Iteration(40, 100_000, 0, 0.1, 1),
        Iteration(42, 1_000_000, 0, 1.0, 9),
    ]  # next: 10 M at 1 M/s
    assert not cannot_end(its, 0, MIN_SECONDS / 2, 1.0)  # too young to judge
    assert not cannot_end([], 0, 60.0, 1.0)  # nothing to foresee it from
    assert cannot_end(its, 2_000_000, 2.0, 3.9)  # 8 s to go, more than twice the 3.9 s left
    assert not cannot_end(its, 2_000_000, 2.0, 4.1)
    # this iteration's own rate (4 M/s): 0.5 s to go
    assert not cannot_end(its, 8_000_000, 2.0, 0.5)
    assert cannot_end(its, 8_000_000, 2.0, 0.0)  # no time left


def test_ida_hands_its_cores_over_and_the_answer_stays_bounded_to_the_time_out(
    pdb_dir, monkeypatch
):
    """Once IDA* is judged unable to end its iteration in time (here: at its first split
    iteration), it stops with what it has proven, the deep window searches join the beams, and
    the search still runs to the time-out (or until the bounds meet): a solution that replays,
    above a lower bound that is at most the optimum. (One of Korf's 100 of 66 moves: IDA* runs
    well past the first beam's solution, which a handover waits for.)"""
    import solver.bounded.anytime as anytime

    real, ran, judged = anytime._deep_windows, [], []

    def deep_windows(*args):
        ran.append(args)
        real(*args)

    monkeypatch.setattr(anytime, "_deep_windows", deep_windows)

    def at_once(iterations, expanded, elapsed, left):
        judged.append(left)
        return True

    b, frame = prepare("11 14 13 1 2 3 12 4 15 7 9 5 10 6 8 0", "blank-first")
    plan = make_plan(
        frame, Options(algorithm="idastar", pattern="5-5-5", data_dir=pdb_dir, jobs=1, timeout=3)
    )
    started = time.perf_counter()
    result = solve_bounded(b, plan, 1.0, Control(split_nodes=100), hand_over=at_once)
    seconds = time.perf_counter() - started
    assert judged and len(ran) == 1 and 0 < judged[0] <= 3
    assert result.lower_bound <= 66 <= result.solution.length
    assert result.optimal == (result.solution.length == result.lower_bound)
    # (it ends at the time-out, or sooner where the two bounds meet: never when IDA* stops)
    assert result.reason == "optimal" or (result.reason == "timeout" and seconds >= 2.9), (
        result.reason,
        seconds,
    )
    assert replay(tuple(b.tiles.tolist()), result.solution.moves, 4, 4) == tuple(
        plan.frame.goal.tiles.tolist()
    )


def test_ida_starts_only_once_the_first_beam_has_ended(distances, monkeypatch):
    """IDA*'s threads, one a core, would take the first beam's core: the lower bound's search
    starts when the first beam has its answer, and still proves the optimum."""
    import threading

    import solver.bounded.anytime as anytime

    real, alive = anytime._beam, []

    def beam(*args, **kwargs):
        alive.append(
            any(t.name == "anytime lower bound" and t.is_alive() for t in threading.enumerate())
        )
        return real(*args, **kwargs)

    monkeypatch.setattr(anytime, "_beam", beam)
    board = "8 6 7 2 5 4 3 _ 1"
    b, plan = plan_for(board, 3, 3)
    result = solve_bounded(b, plan, 1.0, weights=())
    assert alive and alive[0] is False
    assert result.optimal and result.solution.length == distances[(3, 3)][tuple(b.tiles.tolist())]


def test_a_slow_first_beam_leaves_ida_the_time_left_not_the_whole_time_out(monkeypatch):
    """IDA* keeps the time, and it starts after the first beam: it gets the time-out's
    remainder, so the search ends at the time-out however long the first beam took."""
    import solver.bounded.anytime as anytime

    real, calls = anytime._beam, []

    def beam(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(anytime, "_beam", beam)
    # 66 moves: long on Manhattan distance
    b, frame = prepare("11 14 13 1 2 3 12 4 15 7 9 5 10 6 8 0", "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", heuristic="manhattan", jobs=1, timeout=2))
    started = time.perf_counter()
    result = solve_bounded(b, plan, 1.0, weights=())
    seconds = time.perf_counter() - started
    assert result.reason == "timeout" and result.lower_bound <= 66 <= result.solution.length
    assert 1.9 <= seconds < 2.7, seconds  # (with the whole time-out from IDA*'s start: 3 s)


def test_a_time_out_that_comes_during_the_first_beams_ends_the_search_then():
    """The first beams run before IDA*, which keeps the time-out, has started: a time-out that
    comes while they run still ends the search at once, with no answer and the bound proven."""
    shape = Shape(7, 7)
    board = " ".join(
        map(
            str,
            random_board(shape, make_goal(shape, "blank-first"), np.random.default_rng(7)).tiles,
        )
    )
    b, frame = prepare(board, "blank-first", 7, 7)
    plan = make_plan(frame, Options(algorithm="idastar", heuristic="manhattan", jobs=1, timeout=1))
    near, _ = prepare(" ".join(map(str, [1, 0, *range(2, 49)])), "blank-first", 7, 7)
    run(near, plan)  # (IDA*'s kernels compiled first, and the beam's: one move from the goal)
    solve_bounded(near, plan, 1.2, widths=(1 << 16, 1 << 17))
    started = time.perf_counter()
    # (held, the first 2^16-wide beam alone: 74 s, 369 moves)
    with pytest.raises(SearchStopped) as stopped:
        solve_bounded(b, plan, 1.2, widths=(1 << 16, 1 << 17))
    seconds = time.perf_counter() - started
    assert stopped.value.reason == "timeout" and 1.0 <= stopped.value.seconds <= seconds < 1.8, (
        seconds
    )
    assert stopped.value.lower_bound >= int(plan.heuristic(frame.to_canonical(b)))


def test_the_python_api_answers_within_a_bound_checked_against_exact_distances(distances):
    from solver import solve_within

    rng = np.random.default_rng(7)
    for _ in range(5):
        b = random_board(Shape(3, 3), make_goal(Shape(3, 3)), rng)
        d = distances[(3, 3)][tuple(b.tiles.tolist())]
        r = solve_within(str(b), 1.2, heuristic="manhattan", algorithm="idastar", jobs=1)
        assert r.lower_bound <= d <= r.solution.length <= 1.2 * r.lower_bound
        assert r.reason in ("within", "optimal") and r.solution.boards()[-1] == make_goal(b.shape)


def test_the_help_says_what_the_bounded_search_runs():
    import re

    text = re.sub(r"\s+", " ", solve("--help").stdout)
    assert "beams and windows searched again find solutions while IDA* raises" in text
    assert "with --within or --anytime, the best solution found and its proven bound" in text
    assert "weighted A*" not in text.split("--within R")[1].split("--anytime")[0]
