"""The IDA* driver: subtree split, threads, stopping, checkpoints, each against plain references."""

import json
import threading
import time

import numpy as np
import pytest

from patterndb import Shape, make_goal, random_board, scramble
from patterndb.build.movefsm import undo_machine
from patterndb.files.catalog import build_pattern_file
from patterndb.puzzle.frame import Frame
from patterndb.puzzle.patterns import parse_catalog
from solver import solve
from solver.api import Control, Options, make_plan, prepare
from solver.ida import Driver, Problem, StopFlag, ThreadBackend
from solver.ida.checkpoint import Checkpoint, CheckpointError, digest
from solver.ida.subtree_order import GROWTH_POWER, search_order
from solver.ida.threads import run_chunk
from solver.search.moves import FOUND, LIMIT, METER, STOP_EVERY
from solver.search.subtrees import EXPANDED, STATUS, frontier
from solver.solution import SearchStopped

from . import naive
from .instances import korf


def problem(board, goal="blank-first", **opts):
    b, frame = prepare(board, goal)
    plan = make_plan(frame, Options(algorithm="idastar", **opts))
    canon = frame.to_canonical(b)
    return Problem(
        canon.tiles.astype(np.int64),
        frame.canonical_goal.tiles.astype(np.int64),
        plan.heuristic.H,
        b.shape.neighbours,
        plan.machine,
    ), plan


def counts(outcome):
    return [(it.bound, it.expanded, it.generated) for it in outcome.state.iterations]


def assert_counts(outcome, its, split):
    """Every iteration's (bound, expanded, generated) equals the reference's its; in a split
    search the solving iteration takes its subtrees in another order (biggest first:
    test_the_solving_iteration_searches_the_last_ones_biggest_subtrees_first), so there
    only the bound is compared."""
    got = counts(outcome)
    if split:
        assert got[:-1] == its[:-1] and got[-1][0] == its[-1][0]
    else:
        assert got == its


@pytest.mark.parametrize(
    "rows, cols, blank, depth", [(3, 3, 0, 6), (3, 3, 4, 5), (4, 4, 5, 7), (2, 4, 7, 8)]
)
def test_frontier_is_every_blank_path_in_dfs_order(rows, cols, blank, depth):
    nbrs = Shape(rows, cols).neighbours
    want = naive.blank_paths(rows, cols, blank, depth)
    m = undo_machine(Shape(rows, cols))
    paths, first = frontier(m.transitions, nbrs, int(m.start[blank]), blank, len(want))
    assert paths.tolist() == want
    assert first[0] == 0
    for i in range(1, len(want)):  # first differing depth from the previous path
        j = next(k for k in range(depth + 1) if want[i][k] != want[i - 1][k])
        assert first[i] == j


@pytest.mark.parametrize("split_nodes", [0, 10**12])
def test_counts_equal_plain_recursive_idastar(rng, split_nodes):
    """Serial, split into subtrees or not: every iteration's counts equal the plain reference's
    (split, all but the solving one, which searches its subtrees in another order:
    test_the_solving_iteration_searches_the_last_ones_biggest_subtrees_first)."""
    goal = make_goal(Shape(3, 3), "blank-first")
    gt = tuple(goal.tiles.tolist())
    for _ in range(8):
        b = random_board(Shape(3, 3), goal, rng)
        p, _ = problem(str(b), heuristic="manhattan")
        out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=split_nodes).run()
        length, its = naive.idastar(
            tuple(b.tiles.tolist()), gt, 3, 3, lambda s: naive.manhattan(s, gt, 3)
        )
        assert out.status == "found" and len(out.path) - 1 == length
        assert_counts(out, its, split_nodes < 10**12)


def test_split_search_equals_serial_on_15_puzzles(pdb_dir):
    for i in (0, 2, 3):
        board, want = korf(i)
        p, _ = problem(board, pattern="5-5-5", data_dir=pdb_dir)
        serial = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=10**12).run()
        split1 = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=0).run()
        split2 = Driver(p, ThreadBackend(2), StopFlag(), split_nodes=0).run()
        assert len(serial.path) - 1 == len(split1.path) - 1 == len(split2.path) - 1 == want
        # all but the last (stopped at the first solution, the subtrees in another order)
        assert counts(split1)[:-1] == counts(split2)[:-1] == counts(serial)[:-1]


@pytest.mark.parametrize("case", [0, 3])
def test_the_solving_iteration_searches_the_fastest_growing_big_subtrees_first(pdb_dir, case):
    """One thread, split: the solving iteration expands what its subtrees do when each is
    searched alone at its bound, summed in subtree_order's order (by the two iterations
    before's counts) up to the first that holds a solution."""
    board, want = korf(case)
    p, _ = problem(board, pattern="5-5-5", data_dir=pdb_dir)
    out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=0).run()
    its = out.state.iterations
    assert len(out.path) - 1 == its[-1].bound == want and len(its) >= 3
    paths, first = p.frontier()

    def alone(bound):
        return np.array(
            [
                run_chunk(p, paths, first, np.array([i]), bound, 0, np.zeros(1, np.int64))[0][0]
                for i in range(len(paths))
            ]
        )

    prior, before, last = alone(its[-3].bound), alone(its[-2].bound), alone(its[-1].bound)
    assert (
        before[:, EXPANDED].sum() == its[-2].expanded
        and prior[:, EXPANDED].sum() == its[-3].expanded
    )
    order = search_order(np.arange(len(paths)), before[:, EXPANDED], prior[:, EXPANDED])

    def up_to_solution(order):
        k = np.flatnonzero(last[order, STATUS] == FOUND)[0]
        return last[order[: k + 1], EXPANDED].sum()

    assert its[-1].expanded == up_to_solution(order)
    assert up_to_solution(order) != up_to_solution(np.arange(len(paths)))  # (the order shows)


def test_search_order_is_biggest_first_ties_in_frontier_order():
    sizes = np.array([5, 9, 0, 9, 5, 1])
    assert search_order(np.array([0, 2, 3, 4, 5]), sizes).tolist() == [3, 0, 4, 5, 2]
    assert search_order(np.array([4, 1]), None).tolist() == [4, 1]
    assert search_order(np.array([4, 1]), None, sizes).tolist() == [4, 1]


def test_search_order_by_growth_against_a_plain_sort(rng):
    """With the sizes of the two iterations before: s * (s / s_before)^GROWTH_POWER (each
    plus one), highest first, ties in frontier order, as Python's stable sort puts them."""
    for _ in range(50):
        n = int(rng.integers(1, 40))
        before = rng.integers(0, 30, n)
        sizes = before * rng.integers(0, 4, n) + rng.integers(0, 3, n)
        todo = np.flatnonzero(rng.random(n) < 0.7)
        key = {
            i: (sizes[i] + 1) * ((sizes[i] + 1) / (before[i] + 1)) ** GROWTH_POWER
            for i in todo.tolist()
        }
        want = sorted(todo.tolist(), key=lambda i: -key[i])
        assert search_order(todo, sizes, before).tolist() == want
    # a subtree that grew 4x beats one twice its size that grew 2x; biggest first would not
    assert search_order(np.arange(2), np.array([799, 399]), np.array([399, 99])).tolist() == [1, 0]


def test_two_threads_optimal_on_8_puzzles_against_exact_table(data_dir, rng):
    goal = make_goal(Shape(3, 3), "blank-first")
    for _ in range(30):
        b = random_board(Shape(3, 3), goal, rng)
        want = solve(b, "blank-first", data_dir=data_dir).length  # exact table walk
        p, _ = problem(str(b), heuristic="linear-conflict")
        out = Driver(p, ThreadBackend(2), StopFlag(), split_nodes=0).run()
        assert len(out.path) - 1 == want


def test_stop_request_ends_within_a_second_with_a_lower_bound():
    board, want = korf(2)  # 241 M expansions with Manhattan: minutes
    p, _ = problem(board, heuristic="manhattan")
    stop = StopFlag()
    threading.Timer(1.0, stop.request, ("interrupted",)).start()
    t = time.monotonic()
    out = Driver(p, ThreadBackend(2), stop).run()
    assert out.status == "interrupted" and time.monotonic() - t < 2.5
    assert 0 < out.lower_bound <= want and out.path == []


def test_node_limit_and_timeout_raise_with_what_was_proven():
    board, want = korf(2)
    with pytest.raises(SearchStopped, match="node limit") as e:
        solve(board, "blank-first", heuristic="manhattan", max_nodes=300_000, jobs=2)
    assert e.value.reason == "limit" and e.value.lower_bound <= want
    assert 300_000 <= e.value.nodes_expanded < 2_000_000
    t = time.monotonic()
    with pytest.raises(SearchStopped) as e:
        solve(board, "blank-first", heuristic="manhattan", timeout=0.5, jobs=2)
    assert e.value.reason == "timeout" and time.monotonic() - t < 2.5
    d = e.value.to_dict()
    assert (
        d["optimal"] is False
        and d["interrupted"] is True
        and d["lower_bound"] == e.value.lower_bound
    )


def test_a_kernel_stops_where_the_threads_shared_node_meter_runs_out(pdb_dir):
    """The meter other threads have filled counts: a chunk given no budget of its own stops
    after exactly the expansions the meter has left (each kernel: generic, additive tables,
    a catalogue's maximum)."""
    board, want = korf(2)
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    rows = "5-5-5+1-5/6-10/11-15"
    for g in parse_catalog(rows, frame)[1]:
        build_pattern_file(frame, g, pdb_dir)
    for opts in (
        dict(heuristic="manhattan"),
        dict(pattern="5-5-5", data_dir=pdb_dir),
        dict(pattern=rows, data_dir=pdb_dir),
    ):
        p, _ = problem(board, **opts)
        paths, first = p.frontier()
        chunk = np.arange(len(paths))
        # an iteration far below the optimum (no solution), of 20,000 nodes or more
        bound, whole = want - 24, 0
        while whole < 20_000:
            bound += 2
            whole = run_chunk(p, paths, first, chunk, bound, 0, StopFlag().flag)[0][
                :, EXPANDED
            ].sum()
        for left in (1, 7, 5000, whole // 3):
            stop = StopFlag()
            stop.meter(10**6)
            stop.flag[METER] = 10**6 - left  # (spent by the other threads)
            res, _ = run_chunk(p, paths, first, chunk, bound, 0, stop.flag)
            assert res[-1, STATUS] == LIMIT and res[:, EXPANDED].sum() == left, (opts, left)
            assert stop.flag[METER] == 10**6
        stop.meter(0)  # disarmed: the same chunk runs to its own budget
        res, _ = run_chunk(p, paths, first, chunk, bound, 5000, stop.flag)
        assert res[:, EXPANDED].sum() == 5000 and stop.flag[METER] == 0


@pytest.mark.parametrize("limit", [300_000, 1_000_003])
def test_a_node_limit_with_two_threads_is_passed_by_less_than_one_look(limit):
    """--max-nodes 6000000 -j 2 ended at 6,040,961: each thread's chunk could spend what was
    left. The threads now share one meter; they pass it by at most the other thread's look
    (a few nodes, up to STOP_EVERY where a thread is preempted between two looks)."""
    board, want = korf(2)
    with pytest.raises(SearchStopped, match="node limit") as e:
        solve(
            board,
            "blank-first",
            heuristic="manhattan",
            max_nodes=limit,
            jobs=2,
            control=Control(split_nodes=1000),
        )
    assert e.value.reason == "limit" and e.value.lower_bound <= want
    assert limit <= e.value.nodes_expanded <= limit + STOP_EVERY, e.value.nodes_expanded


def test_checkpoint_resume_gives_the_uninterrupted_counts(pdb_dir, tmp_path):
    """Stop mid-iteration, resume from the file: same length, same nodes (one thread: exactly)."""
    board, want = korf(2)
    kw = dict(goal="blank-first", pattern="5-5-5", data_dir=pdb_dir, jobs=1)
    whole = solve(board, **kw, control=Control(split_nodes=0))
    assert whole.iterations[-1]["subtrees"] > 1000
    ck = tmp_path / "k2.json"
    with pytest.raises(SearchStopped):
        solve(
            board,
            **kw,
            max_nodes=whole.nodes_expanded // 2,
            control=Control(split_nodes=0, checkpoint=ck),
        )
    saved = json.loads(ck.read_text())["state"]
    assert 0 < saved["subtrees_done"] < saved["subtrees"]  # stopped inside a split iteration
    resumed = solve(board, **kw, control=Control(split_nodes=0, checkpoint=ck))
    assert resumed.length == whole.length == want
    assert (
        resumed.nodes_expanded == whole.nodes_expanded
        and resumed.nodes_generated == whole.nodes_generated
    )
    assert [(i["bound"], i["expanded"]) for i in resumed.iterations] == [
        (i["bound"], i["expanded"]) for i in whole.iterations
    ]
    again = solve(board, **kw, checkpoint=ck)  # solved: answered from the file
    assert again.moves == resumed.moves and again.nodes_expanded == resumed.nodes_expanded


def test_checkpoint_for_another_search_is_refused(tmp_path):
    board, _ = korf(1)  # 6 M expansions with Manhattan
    ck = tmp_path / "k.json"
    solve(board, "blank-first", heuristic="manhattan", checkpoint=ck)
    with pytest.raises(CheckpointError, match="another search.*board"):
        solve(korf(3)[0], "blank-first", heuristic="manhattan", checkpoint=ck)
    with pytest.raises(CheckpointError, match="heuristic"):
        solve(board, "blank-first", heuristic="linear-conflict", checkpoint=ck)
    forged = json.loads(ck.read_text())
    forged["solution"] = forged["solution"][:-2]  # a path that stops short of the goal
    forged["digest"] = digest(forged)
    ck.write_text(json.dumps(forged))
    with pytest.raises(CheckpointError, match="inconsistent with this search"):
        solve(board, "blank-first", heuristic="manhattan", checkpoint=ck)
    ck.write_text("{not json")
    with pytest.raises(CheckpointError, match="damaged"):
        solve(board, "blank-first", heuristic="manhattan", checkpoint=ck)


def test_checkpoint_names_table_checksums(tmp_path):
    data = {"version": 2, "search": {"board": "x"}, "state": {}}
    data["digest"] = digest(data)
    ck = Checkpoint(tmp_path / "c.json", {"board": "x", "tables": ["pdb-a.h5:1"]})
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="tables"):
        ck.load(None)


def test_blank_last_and_5x5_through_threads(rng):
    for shape, moves in ((Shape(4, 4), 60), (Shape(5, 5), 30)):
        goal = make_goal(shape, "blank-last")
        b = scramble(goal, moves, rng)
        # (5x5's default machine, depth 18, takes minutes to build; 12 a second)
        prune = 12 if shape.n == 25 else None
        one = solve(b, heuristic="linear-conflict", jobs=1, prune=prune)
        two = solve(b, heuristic="linear-conflict", jobs=2, prune=prune)
        assert one.length == two.length and naive.replay(
            tuple(b.tiles.tolist()), two.moves, shape.rows, shape.cols
        ) == tuple(goal.tiles.tolist())


def test_stop_right_after_an_iteration_resumes_at_the_next_bound(pdb_dir, tmp_path):
    """A kill just after the end-of-iteration save must not redo (or double-count) that iteration."""
    board, want = korf(2)
    kw = dict(goal="blank-first", pattern="5-5-5", data_dir=pdb_dir, jobs=1)
    whole = solve(board, **kw)

    class StopAfterSecondIteration:
        def __init__(self, stop):
            self.stop, self.seen = stop, 0

        def iteration_started(self, *a):
            pass

        def subtrees_done(self, *a):
            pass

        def iteration_finished(self, state, it):
            self.seen += 1
            if self.seen == 2:
                self.stop.request("interrupted")

    ck = tmp_path / "k.json"
    stop = StopFlag()
    with pytest.raises(SearchStopped) as e:
        solve(
            board,
            **kw,
            control=Control(stop=stop, listener=StopAfterSecondIteration(stop), checkpoint=ck),
        )
    saved = json.loads(ck.read_text())["state"]
    assert len(saved["iterations"]) == 2 and saved["bound"] > saved["iterations"][-1]["bound"]
    assert e.value.lower_bound == saved["bound"]  # the finished iteration counts as proven
    resumed = solve(board, **kw, checkpoint=ck)
    bounds = [i["bound"] for i in resumed.iterations]
    assert bounds == sorted(set(bounds)) == [i["bound"] for i in whole.iterations]
    assert resumed.length == want and resumed.nodes_expanded == whole.nodes_expanded


def test_an_error_in_a_worker_thread_is_raised_not_swallowed(pdb_dir, monkeypatch):
    import solver.ida.threads as par

    p, _ = problem(korf(2)[0], pattern="5-5-5", data_dir=pdb_dir)
    real = par.run_chunk
    calls = []

    def failing(*a):
        calls.append(1)
        if len(calls) == 5:
            raise MemoryError("simulated")
        return real(*a)

    monkeypatch.setattr(par, "run_chunk", failing)
    with pytest.raises(RuntimeError, match="search thread failed.*simulated"):
        Driver(p, ThreadBackend(2), StopFlag(), split_nodes=0).run()


def test_a_root_iteration_in_a_thread_of_its_own_stops_times_out_and_raises(monkeypatch):
    """A root iteration too long for the calling thread (INLINE_SECONDS) and not split runs in
    a thread of its own while the caller waits: a stop request, a time-out and an error there
    end the search as they do a split iteration."""
    from types import SimpleNamespace

    import solver.ida.parallel as par

    board, want = korf(2)  # 241 M expansions with Manhattan: minutes
    p, _ = problem(board, heuristic="manhattan")
    waited = []
    real_waiting = Driver._waiting
    stop = StopFlag()

    def waiting(self, call):
        # the stop comes a second after the iteration moved to its thread (not while the
        if not waited:
            # first ones load their kernels)
            threading.Timer(1.0, stop.request, ("interrupted",)).start()
        waited.append(time.monotonic())
        return real_waiting(self, call)

    monkeypatch.setattr(Driver, "_waiting", waiting)
    out = Driver(p, ThreadBackend(2), stop, split_nodes=10**12).run()
    assert out.status == "interrupted" and time.monotonic() - waited[0] < 2.5
    assert 0 < out.lower_bound <= want and out.path == [] and out.state.unfinished_expanded > 0
    assert waited  # (one ran in a thread)
    t = time.monotonic()
    out = Driver(
        p, ThreadBackend(2), StopFlag(), split_nodes=10**12, deadline=time.monotonic() + 1.0
    ).run()
    assert out.status == "timeout" and time.monotonic() - t < 2.5
    real = par.kernels()

    def failing(*a):
        if threading.current_thread() is not threading.main_thread():
            raise MemoryError("simulated")
        return real.search_root(*a)

    monkeypatch.setattr(
        par, "kernels", lambda: SimpleNamespace(**{**vars(real), "search_root": failing})
    )
    with pytest.raises(RuntimeError, match="search thread failed.*simulated"):
        Driver(p, ThreadBackend(2), StopFlag(), split_nodes=10**12).run()


def test_a_root_iteration_runs_in_the_calling_thread_only_where_it_is_expected_to_be_short():
    """Driver._inline: the first iteration and one expected under INLINE_SECONDS at the last
    one's speed run in the main thread; a longer one in a thread of its own; in any other
    thread, everything runs where it is (signals reach only the main thread)."""
    import solver.ida.parallel as par
    from solver.ida.state import Iteration

    assert Driver._inline([], 0.0)
    fast = [Iteration(40, 1_000_000, 2_000_000, 0.1, 1)]  # 10 M expansions a second
    assert Driver._inline(fast, 0.9 * par.INLINE_SECONDS * 1e7)
    assert not Driver._inline(fast, 1.1 * par.INLINE_SECONDS * 1e7)
    # nothing expanded yet: by its time
    assert not Driver._inline([Iteration(40, 0, 0, 0.01, 1)], 1e9)
    seen = []
    t = threading.Thread(target=lambda: seen.append(Driver._inline(fast, 1e12)))
    t.start()
    t.join()
    assert seen == [True]


def test_a_far_backend_leaves_split_iterations_expected_small_to_the_threads_here():
    """A backend with nearby_seconds (Dask) gets only the split iterations expected to take
    longer than that on this machine's threads, at the threads' measured rate, else the last
    root iteration's, else the low guess; a backend without it gets every one."""
    from solver.ida.state import Iteration
    from solver.ida.work_queue import Rate

    class Far:
        nearby_seconds, jobs, cuts = 1.0, 8, True

    far = Far()
    p, _ = problem(korf(0)[0], heuristic="manhattan")
    d = Driver(p, far, StopFlag())
    n = d.nearby.jobs
    root = [
        Iteration(50, 2_000_000, 0, 0.5, 1),
        Iteration(52, 9_000_000, 0, 9.0, 64),
    ]  # one thread: 4 M/s
    assert d._split_backend(0.99 * n * 4e6, root) is d.nearby
    assert d._split_backend(1.01 * n * 4e6, root) is far
    assert d._split_backend(0.99 * n * Rate.GUESS, []) is d.nearby
    assert d._split_backend(1.01 * n * Rate.GUESS, []) is far
    d.nearby.rate.add(10**7, 1.0)  # measured by the threads: 10 M/s
    assert d._split_backend(0.99 * n * 1e7, root) is d.nearby
    assert Driver(p, ThreadBackend(2), StopFlag()).nearby is None
