"""A race of two heuristics on one board (solver.ida.race, --pattern "A|B")."""

import json
import re
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

from patterndb import BoardError, TableError
from patterndb.bits import fetch_add
from patterndb.jit import njit
from solver import solve
from solver.api import Control, Options, make_plan, prepare
from solver.cli.commands import main as solver_cli
from solver.ida import Driver, Problem, StopFlag, ThreadBackend
from solver.ida.lookahead import search_on
from solver.ida.race import RACE_MARGIN, race
from solver.ida.state import Iteration, SearchState
from solver.solution import SearchStopped

from .instances import korf

BOARD, LENGTH = korf(2)  # Korf #3, 59 moves
EIGHT = "8 6 7 2 5 4 3 0 1"  # an 8-puzzle board (its length: from the exact table)


def problem(board, **opts):
    b, frame = prepare(board, "blank-first")
    plan = make_plan(frame, Options(**{"algorithm": "idastar", **opts}))
    canon = frame.to_canonical(b)
    return Problem(
        canon.tiles.astype(np.int64),
        frame.canonical_goal.tiles.astype(np.int64),
        plan.heuristic.H,
        b.shape.neighbours,
        plan.machine,
    )


def drivers(problems, stop):
    return [Driver(p, ThreadBackend(1), stop, split_nodes=0) for p in problems]


def test_the_strong_heuristic_wins_and_its_answer_is_optimal(data_dir):
    """Blind IDA* against the exact table: the race starts after the blind search's first
    iteration, and the exact table's first iteration finds the solution."""
    stop = StopFlag()
    blind, exact = (
        problem(EIGHT, algorithm="iddfs", data_dir=data_dir),
        problem(EIGHT, heuristic="exact", data_dir=data_dir),
    )
    r = race(*drivers([blind, exact], stop), ("blind", "exact"), stop, seconds=0.0)
    want = solve(EIGHT, goal="blank-first", data_dir=data_dir).length
    assert r.winner == 1 and r.outcome.status == "found" and len(r.outcome.path) - 1 == want
    assert [leg.heuristic for leg in r.legs] == ["blind", "exact"]
    assert r.lost_expanded == r.legs[0].expanded > 0
    assert r.outcome.state.iterations[-1].bound == want  # the winner's own, ordinary iterations


def test_a_strong_heuristic_that_cannot_finish_the_bound_loses_and_the_cheap_one_goes_on(pdb_dir):
    """5-5-5 against blind IDA* on a 59-move 15-puzzle: blind cannot finish 5-5-5's first
    bound in the time, is stopped, and the search goes on with 5-5-5 to the optimum."""
    stop = StopFlag()
    cheap, strong = (
        problem(BOARD, pattern="5-5-5", data_dir=pdb_dir),
        problem(BOARD, algorithm="iddfs"),
    )
    d_cheap, d_strong = drivers([cheap, strong], stop)
    r = race(d_cheap, d_strong, ("5-5-5", "blind"), stop, seconds=0.0)
    # the race's own stop is cleared
    assert r.winner == 0 and r.outcome is None and not stop.requested
    assert r.legs[1].bound < r.legs[0].bound and r.lost_expanded == r.legs[1].expanded > 0
    out = d_cheap.run(r.state)
    assert out.status == "found" and len(out.path) - 1 == LENGTH
    alone = Driver(cheap, ThreadBackend(1), StopFlag(), split_nodes=0).run()
    assert [it.bound for it in out.state.iterations] == [it.bound for it in alone.state.iterations]


def test_a_stop_during_the_race_ends_the_search_with_what_it_proved(pdb_dir):
    stop = StopFlag()
    stop.request("interrupted")
    cheap, strong = (
        problem(BOARD, pattern="5-5-5", data_dir=pdb_dir),
        problem(BOARD, algorithm="iddfs"),
    )
    r = race(*drivers([cheap, strong], stop), ("5-5-5", "blind"), stop, seconds=0.0)
    assert r.outcome is not None and r.outcome.status == "interrupted" and r.outcome.path == []


def test_a_race_spec_solves_optimally_and_reports_the_race(pdb_dir):
    sol = solve(BOARD, goal="blank-first", pattern="5-5-5|5-5-5", data_dir=pdb_dir, jobs=1)
    assert sol.length == LENGTH and sol.optimal and sol.race is not None
    assert sol.race["winner"] == sol.heuristic and "race" in sol.to_dict()
    assert sol.nodes_expanded >= sum(leg["expanded"] for leg in sol.race["legs"][1:])


def test_a_race_maps_both_legs_tables_before_either_leg_searches(pdb_dir, monkeypatch):
    """Each leg's CPU is weighed warm: both heuristics' tables are mapped into the process
    (Heuristic.populate, settled: a byte of each page read) once, before the cheap leg's
    first iteration, so that neither leg pays for first reads of its pages. Checked through
    solve: the API's raced search makes the warm call, before any leg has started."""
    from solver.heuristics import Heuristic
    from solver.ida import race as race_module

    seen, started = [], []
    monkeypatch.setattr(Heuristic, "populate", lambda h, settle=False: seen.append(settle) or True)
    real_start = race_module.Driver.start

    def start(driver):
        started.append(len(seen))
        return real_start(driver)

    monkeypatch.setattr(race_module.Driver, "start", start)
    sol = solve(BOARD, goal="blank-first", pattern="5-5-5|5-5-5", data_dir=pdb_dir, jobs=1)
    assert sol.length == LENGTH and sol.race is not None
    assert seen == [True, True] and started and started[0] == 2, (seen, started)


def test_a_raced_search_checkpoints_its_winner_and_resumes_without_racing(pdb_dir, tmp_path):
    ck = tmp_path / "race.json"
    kw = dict(goal="blank-first", pattern="5-5-5|5-5-5", data_dir=pdb_dir, jobs=1)
    first = solve(BOARD, **kw, checkpoint=ck)
    assert json.loads(ck.read_text())["search"]["heuristic"] == first.heuristic
    again = solve(BOARD, **kw, checkpoint=ck)
    assert again.length == LENGTH and again.race is None and again.resumed_from is not None


def test_a_race_resumed_after_it_was_won_needs_only_the_winners_tables(pdb_dir, tmp_path):
    """A search stopped with 5-5-5 resumes under the race 5-5-5|6-6-3 where 6-6-3 is not built
    (a fresh machine with only the winner's tables), from the command line too; without the
    checkpoint the race still says which tables are missing."""
    ck = tmp_path / "race.json"
    kw = dict(goal="blank-first", data_dir=pdb_dir, jobs=1)
    with pytest.raises(SearchStopped):
        solve(BOARD, pattern="5-5-5", max_nodes=100_000, checkpoint=ck, **kw)
    with pytest.raises(TableError, match="6-6-3"):
        solve(BOARD, pattern="5-5-5|6-6-3", **kw)
    again = solve(BOARD, pattern="5-5-5|6-6-3", checkpoint=ck, **kw)
    assert (
        again.length == LENGTH
        and again.optimal
        and again.race is None
        and again.resumed_from is not None
    )
    assert again.heuristic == json.loads(ck.read_text())["search"]["heuristic"]
    r = CliRunner().invoke(
        solver_cli,
        [
            "solve",
            BOARD,
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5|6-6-3",
            "--data-dir",
            str(pdb_dir),
            "--checkpoint",
            str(ck),
            "--json",
            "-j",
            "1",
        ],
    )
    assert r.exit_code == 0 and json.loads(r.stdout.splitlines()[-1])["length"] == LENGTH, r.output


@pytest.mark.parametrize(
    "spec, opts",
    [
        ("5-5-5|", {}),
        ("5-5-5|5-5-5|5-5-5", {}),
        ("5-5-5|5-5-5", {"algorithm": "astar"}),
        ("5-5-5|5-5-5", {"heuristic": "manhattan"}),
    ],
)
def test_bad_race_specs_are_one_line_errors(pdb_dir, spec, opts):
    with pytest.raises(BoardError):
        solve(BOARD, goal="blank-first", pattern=spec, data_dir=pdb_dir, **opts)


def test_a_race_is_refused_on_a_cluster_backend(pdb_dir):
    class Elsewhere(ThreadBackend):
        pass

    with pytest.raises(BoardError, match="threads"):
        solve(
            BOARD,
            goal="blank-first",
            pattern="5-5-5|5-5-5",
            data_dir=pdb_dir,
            control=Control(backend=Elsewhere(1)),
        )


def test_a_stopped_race_raises_search_stopped(pdb_dir):
    control = Control()
    control.stop.request("interrupted")
    with pytest.raises(SearchStopped):
        solve(
            BOARD,
            goal="blank-first",
            pattern="5-5-5|5-5-5",
            data_dir=pdb_dir,
            jobs=1,
            control=control,
        )


def test_a_raced_search_stopped_says_whose_iterations_it_reports(pdb_dir):
    """Stopped at its node limit, a raced search's record names the heuristic whose
    iterations (and lower bound) it reports, and the race that chose it."""
    with pytest.raises(SearchStopped) as e:
        solve(
            BOARD,
            goal="blank-first",
            pattern="5-5-5|linear-conflict",
            data_dir=pdb_dir,
            jobs=1,
            max_nodes=20_000,
        )
    d = e.value.to_dict()
    assert d["heuristic"] == d["race"]["winner"] and d["iterations"], d
    assert d["heuristic"] in ("pdb 5-5-5 + reflection", "linear-conflict")


@pytest.fixture
def race_named(monkeypatch):
    """A race named "best" on 4x4 for these tests (the real one is on 5x5: tables too big here)."""
    from patterndb.puzzle import patterns

    monkeypatch.setitem(patterns.RACES, (4, 4), {"best": "5-5-5|5-5-5"})


def test_a_race_named_best_is_the_default_where_both_sides_are_built(pdb_dir, race_named):
    sol = solve(BOARD, goal="blank-first", data_dir=pdb_dir, jobs=1)
    assert sol.length == LENGTH and sol.race is not None
    assert (
        solve(BOARD, goal="blank-first", pattern="best", data_dir=pdb_dir, jobs=1).race is not None
    )


def test_a_race_named_best_on_a_cluster_backend_searches_with_its_first_side(pdb_dir, race_named):
    sol = solve(
        BOARD,
        goal="blank-first",
        pattern="best",
        data_dir=pdb_dir,
        control=Control(backend=ThreadBackend(1)),
    )
    assert sol.length == LENGTH and sol.race is None and sol.heuristic == "pdb 5-5-5 + reflection"


def test_a_strong_leg_that_wins_as_its_time_runs_out_goes_on(pdb_dir, monkeypatch):
    """The strong leg's wall-clock limit passed during the very iteration that won it the
    race (its tables read from a cold disk: wall far above CPU). The race's own stop must not
    end the winner's search: `best` on line 46 ended with "stopped at its time limit" after 2 s."""
    from types import SimpleNamespace

    import solver.ida.race as race_module

    # the strong leg's limit computed as long past: every iteration it runs asks for a stop
    monkeypatch.setattr(race_module, "time", SimpleNamespace(monotonic=lambda: -1e9))
    stop = StopFlag()
    cheap, strong = (
        problem(BOARD, algorithm="iddfs"),
        problem(BOARD, pattern="5-5-5", data_dir=pdb_dir),
    )
    d_cheap, d_strong = drivers([cheap, strong], stop)
    # (seconds: enough of the blind leg's CPU that the strong leg's one iteration, about 0.02 s,
    # wins by a wide margin: with 0.05 the blind leg stopped after 0.019 s on a loaded machine)
    r = race(d_cheap, d_strong, ("blind", "5-5-5"), stop, seconds=0.5)
    assert r.winner == 1 and r.outcome is None, r.legs
    assert not stop.requested  # the race's own limit, cleared
    out = d_strong.run(r.state)
    assert out.status == "found" and len(out.path) - 1 == LENGTH


class _Legged:
    """A stand-in for a Driver: iterations whose nodes grow by `growth` a bound, each burning
    CPU in proportion (per_node seconds a node, on its cpu clock), bounds from `bound` up by
    2, a solution at bound `solve_at` (None: none); stopped, as a Driver is, at its deadline,
    and asking `stop` for `interrupt` on its step number `interrupt_at` (a signal)."""

    def __init__(self, bound: int, per_node: float, problem, growth: float = 10.0, solve_at=None):
        self.bound, self.per_node, self.problem = bound, per_node, problem
        self.growth, self.solve_at = growth, solve_at
        self.deadline = self.listener = self.record = None
        self.interrupt_at, self.stop = None, None
        self.steps = 0
        self.cpu = 0.0

    def start(self, state=None):
        return SearchState(self.bound)

    def step(self, state):
        nodes = round(self.growth ** (len(state.iterations) + 1))
        begin = time.thread_time()
        self.steps += 1
        if self.steps == self.interrupt_at:
            self.stop.request("interrupted")
            return "interrupted", []
        while time.thread_time() < begin + nodes * self.per_node:
            # as a Driver at its time limit
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.cpu += time.thread_time() - begin
                return "timeout", []
        self.cpu += time.thread_time() - begin
        state.iterations.append(Iteration(state.bound, nodes, 2 * nodes, nodes * self.per_node, 1))
        if state.bound == self.solve_at:
            return "found", [self.solve_at]
        state.bound += 2
        return "exhausted", []


def test_a_strong_leg_stops_before_an_iteration_it_is_expected_to_lose(pdb_dir):
    """The strong leg's iterations take 0.001, 0.01, 0.1 and then 1 s of CPU, and the
    cheap one finished its bound in about 0.11 s: the strong leg gives up after its third
    iteration (0.11 s, the next expected to end at 1.1 s: past RACE_MARGIN times 0.11), not
    after starting the 1 s iteration it would lose anyway (without the rule it runs that one
    until the race's wall-clock limit for the leg, 2 * 0.11 + 0.5 s)."""
    stop = StopFlag()
    p = problem(BOARD, pattern="5-5-5", data_dir=pdb_dir)
    cheap, strong = _Legged(30, 1e-5, p), _Legged(10, 1e-4, p)  # cheap: 0.0001, 0.001, 0.01, 0.1 s
    r = race(cheap, strong, ("cheap", "strong"), stop, seconds=0.5)
    assert r.winner == 0 and r.outcome is None and not stop.requested
    assert cheap.steps == 4 and strong.steps == 3, (cheap.steps, strong.steps, r.legs)
    assert (
        r.legs[1].bound == 14 < r.legs[0].bound
        and r.legs[1].seconds < RACE_MARGIN * r.legs[0].seconds
    )


@njit(nogil=True)
def _spin(halt):
    """Burns CPU outside the GIL, as the beams' kernel does, until halt[0] is set (read
    atomically: a plain read could be hoisted out of the loop); returns the rounds."""
    rounds = 0
    while fetch_add(halt, 0, 0) == 0:
        rounds += 1
    return rounds


def test_a_race_weighs_its_legs_by_their_own_threads_cpu_not_the_process(pdb_dir):
    """A thread burning CPU beside the race (a bounded search's beams) counts in neither leg:
    each leg's seconds are its driver's kernels' CPU, on their own threads' clocks. Weighed
    by the process's CPU instead, the burner's share during the race counted in the legs."""
    stop = StopFlag()
    cheap, strong = (
        problem(BOARD, algorithm="iddfs"),
        problem(BOARD, pattern="5-5-5", data_dir=pdb_dir),
    )
    d_cheap, d_strong = drivers([cheap, strong], stop)
    halt, burnt = np.ones(1, dtype=np.int64), []
    _spin(halt)  # (compiled before the race: a compile holds the GIL)
    halt[0] = 0

    def burn() -> None:
        begin = time.thread_time()
        _spin(halt)
        burnt.append(time.thread_time() - begin)

    process = time.process_time()
    burner = threading.Thread(target=burn)
    burner.start()
    # (seconds: the blind leg's first step took 0.07-0.09 s of its thread's CPU beside the burner
    # on a loaded machine, and ten times that foreseen for the next one ended the race at 0.5)
    r = race(d_cheap, d_strong, ("blind", "5-5-5"), stop, seconds=2.0)
    halt[0] = 1
    burner.join()
    process = time.process_time() - process
    legs = sum(leg.seconds for leg in r.legs)
    assert burnt[0] > 0.1 and legs > 0.2, (burnt, r.legs)  # (both ran)
    assert legs + burnt[0] <= process + 0.05, (legs, burnt, process)
    assert r.legs[0].seconds == pytest.approx(d_cheap.cpu) and r.legs[1].seconds == pytest.approx(
        d_strong.cpu
    )


def test_linear_conflict_as_a_side_races_and_the_answer_is_optimal(pdb_dir):
    """A side without tables (7x7's best races its tables against linear conflict): the plan
    has it as the rival, and the race between the two, whoever wins, ends at the optimum."""
    b, frame = prepare(BOARD, "blank-first")
    plan = make_plan(
        frame, Options(algorithm="idastar", pattern="5-5-5|linear-conflict", data_dir=pdb_dir)
    )
    assert (
        plan.rival is not None and plan.rival.name == "linear-conflict" and plan.rival.tables == ()
    )
    stop = StopFlag()
    cheap, strong = (
        problem(BOARD, pattern="5-5-5", data_dir=pdb_dir),
        problem(BOARD, heuristic="linear-conflict"),
    )
    d_cheap, d_strong = drivers([cheap, strong], stop)
    r = race(d_cheap, d_strong, ("5-5-5", "linear-conflict"), stop, seconds=0.0)
    assert len(r.legs) == 2  # (the strong leg ran)
    out = r.outcome or (d_cheap, d_strong)[r.winner].run(r.state)
    assert out.status == "found" and len(out.path) - 1 == LENGTH
    sol = solve(
        BOARD, goal="blank-first", pattern="5-5-5|linear-conflict", data_dir=pdb_dir, jobs=1
    )
    assert sol.length == LENGTH and sol.optimal and sol.race is not None


def test_a_bounded_search_raced_against_linear_conflict_claims_only_what_it_proves(pdb_dir):
    """On 8-puzzles against BFS distances: the bound proven by either side of the race is at
    most the distance, the answer within R of it, and the proof names both sides."""
    from patterndb import Shape, make_goal, random_board
    from solver.bounded.anytime import solve_bounded

    from .naive import bfs_distances, replay

    shape = Shape(3, 3)
    goal = make_goal(shape, "blank-first")
    dist = bfs_distances(tuple(goal.tiles.tolist()), 3, 3)
    rng = np.random.default_rng(7)
    for _ in range(6):
        b, frame = prepare(" ".join(map(str, random_board(shape, goal, rng).tiles)), "blank-first")
        plan = make_plan(
            frame,
            Options(algorithm="idastar", pattern="4-4|linear-conflict", data_dir=pdb_dir, jobs=1),
        )
        result = solve_bounded(b, plan, 1.1)
        d = dist[tuple(b.tiles.tolist())]
        sol = result.solution
        assert result.lower_bound <= d <= sol.length <= 1.1 * result.lower_bound + 1e-9
        assert replay(tuple(b.tiles.tolist()), sol.moves, 3, 3) == tuple(goal.tiles.tolist())
        assert result.heuristic == "pdb 4-4 + reflection or linear-conflict (a race)"


def test_pdb_build_of_a_race_builds_only_its_tables(pdb_dir):
    from patterndb.cli.commands import main as pdb_cli

    args = ["build", "--size", "4", "--goal", "blank-first", "--data-dir", str(pdb_dir), "--quiet"]
    r = CliRunner().invoke(pdb_cli, [*args, "--pattern", "5-5-5|linear-conflict"])
    assert r.exit_code == 0 and r.stdout.count("pdb-") == 3, r.output
    r = CliRunner().invoke(pdb_cli, [*args, "--pattern", "linear-conflict"])
    assert (
        r.exit_code == 2
        and "linear-conflict is a heuristic without tables: nothing to build" in r.stderr
    ), r.output


def _slow_growing(solve_at=None):
    """A cheap leg (10x the nodes a bound, 1.5 us a node) and a strong one whose nodes grow
    only threefold but cost 100 us each: the strong one loses the race at bound 14 (its
    iterations 0.3, 0.9, 2.7 ms against the cheap one's 0.015, 0.15, 1.5 ms) and is the
    cheaper from bound 16 on (8.1 ms against 15 ms, and 24 against 150 ms next)."""
    p = problem(BOARD, algorithm="iddfs")
    return _Legged(10, 1.5e-6, p), _Legged(10, 1e-4, p, growth=3.0, solve_at=solve_at)


def test_a_loser_whose_nodes_grow_more_slowly_takes_over_at_a_later_round():
    """The race is decided at bound 14 for the cheap leg; before its 0.15 s iteration at
    bound 18 the strong leg is given a round, finishes bound 16 in less CPU, and searches on
    to its solution: its iterations are those it would have made alone. The cheap leg's
    round before bound 24 is not run: it would take 16.6 s to reach bound 22."""
    stop = StopFlag()
    cheap, strong = _slow_growing(solve_at=24)
    r = race(cheap, strong, ("cheap", "strong"), stop, seconds=0.01)
    assert r.winner == 0 and r.outcome is None, r.legs
    attached, told = [], []
    out = search_on(
        r,
        [cheap, strong],
        ("cheap", "strong"),
        stop,
        lambda i, s: attached.append(i),
        None,
        told.append,
    )
    assert out.status == "found" and out.path == [24] and r.winner == 1 and attached == [0, 1]
    assert r.rounds[0].spent > 0 and r.rounds[1].spent == 0, r.rounds
    assert re.fullmatch(
        r"raced again at bound 16: cheap 0\.0\d s of CPU, strong 0\.0\d s; strong searches on",
        told[0],
    ), told
    assert told[1].endswith("cheap not run (expected dearer); strong searches on"), told
    assert [it.bound for it in out.state.iterations] == list(range(10, 26, 2))
    assert [(x.bound, x.switched) for x in r.rounds] == [(16, True), (22, False)], r.rounds
    assert r.rounds[1].loser_seconds is None and cheap.steps == 4  # bounds 10-16
    assert [d["bound"] for d in r.to_dict()["rounds"]] == [16, 22]


def test_a_loser_expected_to_lose_its_round_is_not_run():
    """Both legs grow tenfold and the strong one costs 100 times more a node: its round
    before the cheap leg's big iterations stops before its next iteration, each time."""
    stop = StopFlag()
    p = problem(BOARD, algorithm="iddfs")
    cheap, strong = _Legged(10, 1e-7, p, solve_at=22), _Legged(10, 1e-5, p)
    r = race(cheap, strong, ("cheap", "strong"), stop, seconds=0.001)
    steps = strong.steps
    out = search_on(r, [cheap, strong], ("cheap", "strong"), stop, lambda i, s: None)
    assert out.status == "found" and r.winner == 0 and r.rounds
    assert not any(x.switched for x in r.rounds) and strong.steps == steps, r.rounds


def test_a_stop_during_a_round_ends_the_search_with_the_winners_state():
    stop = StopFlag()
    cheap, strong = _slow_growing()
    r = race(cheap, strong, ("cheap", "strong"), stop, seconds=0.01)
    strong.interrupt_at, strong.stop = strong.steps + 1, stop
    out = search_on(r, [cheap, strong], ("cheap", "strong"), stop, lambda i, s: None)
    assert out.status == "interrupted" and out.path == [] and out.state is r.states[0]
    assert r.winner == 0 and [it.bound for it in out.state.iterations][-1] == 16


def test_a_switch_after_the_race_checkpoints_and_traces_the_new_leg(pdb_dir, tmp_path, monkeypatch):
    """Rounds before every iteration, the first one won by the loser whatever the legs'
    times: the search goes on with the other heuristic to the optimum, its checkpoint and
    its trace name that heuristic, and the checkpoint resumes without a race."""
    import solver.ida.lookahead as lookahead
    import solver.ida.race as race_module
    from solver.ida.trace import read_trace

    calls = []
    monkeypatch.setattr(race_module, "RACE_SECONDS", 0.0)
    monkeypatch.setattr(lookahead, "LOOK_AHEAD", 0.0)
    monkeypatch.setattr(lookahead, "ROUND_MARGIN", 1e6)  # (the loser always finishes its round)
    monkeypatch.setattr(lookahead, "_cheaper", lambda *a: not calls.append(1) and len(calls) == 1)
    ck, tr = tmp_path / "race.json", tmp_path / "race.trace"
    board, want = korf(12)  # 46 moves: linear conflict alone takes about 0.2 s
    kw = dict(goal="blank-first", pattern="5-5-5|linear-conflict", data_dir=pdb_dir, jobs=1)
    sol = solve(board, **kw, checkpoint=ck, control=Control(trace=tr))
    rounds = sol.race["rounds"]
    assert sol.length == want and sol.optimal and rounds[0]["switched"], sol.race
    assert sol.race["winner"] == sol.heuristic
    assert json.loads(ck.read_text())["search"]["heuristic"] == sol.heuristic
    assert read_trace(tr)[0]["heuristic"] == sol.heuristic
    again = solve(board, **kw, checkpoint=ck)
    assert again.length == want and again.race is None and again.heuristic == sol.heuristic
