"""The biggest subtrees cut into pieces (solver.ida.pieces): same nodes, exact counts, exact resumes."""

import json
import threading

import numpy as np
import pytest

from patterndb import Shape
from patterndb.build.movefsm import undo_machine
from solver import solve
from solver.api import Control
from solver.ida import Driver, StopFlag, ThreadBackend
from solver.ida.checkpoint import Checkpoint, identity
from solver.ida.pieces import MAX_PIECES, SHARE, Tally, cut
from solver.search.subtrees import EXPANDED, frontier
from solver.solution import SearchStopped

from . import naive
from .instances import korf
from .test_parallel import counts, problem


def reaches_goal(p, cells):
    board = p.tiles.copy()
    for a, b in zip(cells, cells[1:]):
        assert b in p.nbrs[a]
        board[a], board[b] = board[b], 0
    return np.array_equal(board, p.goal)


def test_pieces_are_every_allowed_path_below_their_subtree_in_dfs_order():
    shape = Shape(4, 4)
    m = undo_machine(shape)
    nbrs = shape.neighbours
    blank = 5
    paths, first = frontier(m.transitions, nbrs, int(m.start[blank]), blank, 50)
    todo = np.arange(len(paths))[::-1].copy()
    sizes = np.ones(len(paths), dtype=np.int64)
    sizes[[3, 10]] = 10**6  # two big subtrees
    p = cut(m.transitions, nbrs, int(m.start[blank]), paths, first, todo, sizes, jobs=2)
    rows = [tuple(int(c) for c in r if c >= 0) for r in p.paths]
    want = []
    for i, path in enumerate(paths.tolist()):
        if i in (3, 10):  # every undo-free blank walk extending it, to the pieces' depth
            d = len(rows[int(np.flatnonzero(p.base == i)[0])]) - 1
            want += [
                w for w in naive.blank_paths(4, 4, blank, d) if tuple(w[: len(path)]) == tuple(path)
            ]
        else:
            want.append(tuple(path))
    assert rows == [tuple(w) for w in want]
    assert np.bincount(p.base).tolist() == [1] * 3 + [np.sum(p.base == 3)] + [1] * 6 + [
        np.sum(p.base == 10)
    ] + [1] * (len(paths) - 11)
    assert np.ceil(1e6 / (sizes.sum() / (SHARE * 2))) <= np.sum(p.base == 3) <= MAX_PIECES * 3
    # counting depths: where each path leaves the one before (a subtree's first piece: its subtree's)
    for k in range(1, len(rows)):
        j = 0
        while j < min(len(rows[k]), len(rows[k - 1])) and rows[k][j] == rows[k - 1][j]:
            j += 1
        assert p.first[k] == j
    # the order: subtrees in todo's order, each subtree's pieces together in DFS order
    assert [int(p.base[k]) for k in p.order] == [
        i for i in todo for _ in range(np.sum(p.base == i))
    ]
    assert all(np.all(np.diff(p.order[p.base[p.order] == i]) == 1) for i in (3, 10))


def test_cut_asks_the_kernel_registry_for_its_frontier():
    """The pieces come from the registry's frontier (the compiled one where it exists), not
    from numba's dispatcher: calling that one imported numba and loaded its cache in the first
    iteration that cut, 0.6-1.1 s of a 16-thread search of 6 s (docs/benchmarks.md)."""
    from types import SimpleNamespace

    from solver.search import aot

    shape = Shape(4, 4)
    m = undo_machine(shape)
    blank = 5
    paths, first = frontier(m.transitions, shape.neighbours, int(m.start[blank]), blank, 50)
    sizes = np.ones(len(paths), dtype=np.int64)
    sizes[3] = 10**6
    calls = []

    def recorded(*args):
        calls.append(args[-1])
        return frontier(*args)

    with aot.serving(SimpleNamespace(frontier=recorded)):
        p = cut(
            m.transitions,
            shape.neighbours,
            int(m.start[blank]),
            paths,
            first,
            np.arange(len(paths)),
            sizes,
            jobs=2,
        )
    assert p.cut and len(calls) == 1 and np.sum(p.base == 3) >= calls[0]


def test_nothing_is_cut_for_one_worker_or_without_sizes():
    shape = Shape(3, 3)
    m = undo_machine(shape)
    paths, first = frontier(m.transitions, shape.neighbours, int(m.start[0]), 0, 30)
    todo = np.arange(len(paths))
    big = np.full(len(paths), 10**6)
    for sizes, jobs in ((big, 1), (None, 8)):
        p = cut(m.transitions, shape.neighbours, int(m.start[0]), paths, first, todo, sizes, jobs)
        assert p.paths is paths and p.base.tolist() == todo.tolist()


@pytest.mark.parametrize("jobs", [4, 16])
def test_cut_searches_count_every_complete_iteration_as_the_serial_one(pdb_dir, jobs):
    """Many threads on two cores: subtrees bigger than 1/(32 jobs) of an iteration are cut;
    every complete iteration still expands and generates exactly what the serial search does."""
    for i in (0, 2, 3):
        board, want = korf(i)
        p, _ = problem(board, pattern="5-5-5", data_dir=pdb_dir)
        serial = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=10**12).run()
        many = Driver(p, ThreadBackend(jobs), StopFlag(), split_nodes=0).run()
        assert len(many.path) - 1 == want and reaches_goal(p, many.path)
        assert (
            counts(many)[:-1] == counts(serial)[:-1]
            and counts(many)[-1][0] == counts(serial)[-1][0]
        )


def test_a_search_stopped_with_pieces_half_done_resumes_to_the_exact_counts(pdb_dir, tmp_path):
    """A checkpoint keeps a bit per frontier subtree, set only once all its pieces are done: a
    search stopped with 8 threads resumes with one to the uninterrupted serial counts."""
    board, want = korf(2)
    kw = dict(goal="blank-first", pattern="5-5-5", data_dir=pdb_dir)
    whole = solve(board, **kw, jobs=1, control=Control(split_nodes=0))
    ck = tmp_path / "k.json"
    with pytest.raises(SearchStopped):
        solve(
            board,
            **kw,
            jobs=8,
            max_nodes=int(whole.nodes_expanded * 0.6),
            control=Control(split_nodes=0, checkpoint=ck),
        )
    saved = json.loads(ck.read_text())["state"]
    assert 0 < saved["subtrees_done"] < saved["subtrees"]
    resumed = solve(board, **kw, jobs=1, control=Control(split_nodes=0, checkpoint=ck))
    assert resumed.length == want
    assert [(i["bound"], i["expanded"], i["generated"]) for i in resumed.iterations[:-1]] == [
        (i["bound"], i["expanded"], i["generated"]) for i in whole.iterations[:-1]
    ]


def test_tally_adds_a_subtree_once_all_its_pieces_are_done():
    from solver.ida.pieces import Pieces

    p = Pieces(
        np.arange(4, dtype=np.int64)[:, None],
        np.zeros(4, np.int64),
        np.array([0, 1, 1, 2]),
        np.arange(4),
        None,
    )
    a = lambda *x: np.array(x, dtype=np.int64)
    t = Tally(p, 3)
    done, some = t.add(a(1), a(5), a(9), a(40))
    assert done.tolist() == [] and some.tolist() == [1]
    kept = t.progress(1)
    assert (kept.pieces, kept.done.tolist(), kept.expanded, kept.generated, kept.next_f) == (
        2,
        [True, False],
        5,
        9,
        40,
    )
    done, some = t.add(a(2), a(2), a(3), a(38))
    assert done.tolist() == [1] and some.tolist() == [] and t.expanded[1] == 7 and t.next_f[1] == 38
    # one batch: both pieces of subtree 1 (in any order) and the whole of subtree 2, nothing of 0
    t = Tally(p, 3)
    assert t.add(a(2, 3, 1), a(5, 4, 2), a(9, 8, 3), a(40, 50, 38))[0].tolist() == [1, 2]
    assert (
        t.expanded.tolist() == [0, 7, 4]
        and t.generated.tolist() == [0, 12, 8]
        and t.next_f[1:].tolist() == [38, 50]
    )
    assert t.add(a(0), a(1), a(1), a(60))[0].tolist() == [0]
    # a saved piece counts as finished where the cut has the same pieces, and not otherwise
    t = Tally(p, 3)
    assert t.resume({1: kept}) == {1: kept} and t.finished.tolist() == [False, True, False, False]
    assert (
        t.add(a(2), a(2), a(3), a(38))[0].tolist() == [1]
        and t.expanded[1] == 7
        and t.next_f[1] == 38
    )
    other = Pieces(np.arange(4, dtype=np.int64)[::-1, None].copy(), p.first, p.base, p.order, None)
    t = Tally(other, 3)
    assert t.resume({1: kept}) == {} and not t.finished.any() and t.expanded[1] == 0


def test_a_subtrees_pieces_keep_their_digest_when_a_resume_cuts_less_of_the_rest():
    """A saved subtree's pieces match on a resume whatever else that iteration cuts: the cut's
    arrays are as wide as its deepest piece, and a resume whose deepest subtree is already done
    cuts narrower arrays; the digest must not see that padding (else the saved pieces would be
    searched again)."""
    shape = Shape(4, 4)
    m = undo_machine(shape)
    nbrs = shape.neighbours
    blank = 5
    paths, first = frontier(m.transitions, nbrs, int(m.start[blank]), blank, 50)
    sizes = np.ones(len(paths), dtype=np.int64)
    sizes[3], sizes[10] = 20_000, 10**6  # subtree 10 is cut deeper than subtree 3
    whole = cut(
        m.transitions, nbrs, int(m.start[blank]), paths, first, np.arange(len(paths)), sizes, jobs=2
    )
    rest = cut(m.transitions, nbrs, int(m.start[blank]), paths, first, np.array([3]), sizes, jobs=2)
    assert whole.paths.shape[1] > rest.paths.shape[1]  # (the case guarded)
    saved = Tally(whole, len(paths)).progress(3)
    t = Tally(rest, len(paths))
    assert saved.pieces > 1 and t.resume({3: saved}) == {3: saved}


class Searched:
    """Record and listener at once: the nodes a run's kernels expanded, per iteration it ended."""

    def __init__(self):
        self.now, self.ended = 0, []
        self.lock = threading.Lock()  # (the workers record their own rows)

    def __call__(self, indices, rows, worker, start, end):
        with self.lock:
            self.now += int(rows[:, EXPANDED].sum())

    def iteration_started(self, bound, subtrees, estimate):
        pass

    def subtrees_done(self, state, done, total, elapsed):
        pass

    def iteration_finished(self, state, it):
        self.ended.append((it.bound, self.now))
        self.now = 0


@pytest.mark.parametrize("again", [2, 8])
def test_finished_pieces_of_a_stopped_subtree_are_kept_and_not_searched_again(
    pdb_dir, tmp_path, again
):
    """A stop with a big subtree's pieces half done keeps the finished ones in the checkpoint:
    a resume with as many threads searches only the rest of the iteration (its kernels expand
    the serial count less what the file holds), one with another count cuts otherwise and
    searches those subtrees whole again; both end on the serial search's counts."""
    board, want = korf(2)
    p, _ = problem(board, pattern="5-5-5", data_dir=pdb_dir)
    serial = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=0).run()
    its = serial.state.iterations
    k = len(its) - 2  # the last complete iteration, cut (the one before it gave the sizes)
    before = sum(it.expanded for it in its[:k])
    ident = identity("b", "g", "idastar", "5-5-5", (), 0)
    # (where a stop lands depends on the threads' pace, and a subtree is cut into pieces in only a
    # few stretches of the iteration: tried at 64 places, from its first nodes on)
    for share in np.linspace(0.02, 0.98, 64):
        out = Driver(
            p,
            ThreadBackend(2),
            StopFlag(),
            max_nodes=before + int(its[k].expanded * share),
            split_nodes=0,
        ).run()
        if out.status == "limit" and out.state.bound == its[k].bound and out.state.partial:
            break
    else:
        pytest.fail("no stop left a subtree's pieces half done")
    ck = Checkpoint(tmp_path / "k.json", ident)
    assert ck.save(out.state)
    saved = json.loads(ck.path.read_text())["state"]["partial"]
    state, _ = ck.load(p)
    kept = sum(q.expanded for q in state.partial.values())
    assert saved and len(state.partial) == len(saved) and kept > 0
    assert ck.resumed(state, None).pieces_done == sum(
        int(q.done.sum()) for q in state.partial.values()
    )
    if again != 2:  # (8 threads cut those subtrees finer)
        paths, first = p.frontier()
        other = cut(
            p.machine.transitions,
            p.nbrs,
            p.start_state,
            paths,
            first,
            np.flatnonzero(~state.done),
            state.last_sizes,
            again,
        )
        assert Tally(other, len(paths)).resume(state.partial) == {}
    searched = Searched()
    resumed = Driver(
        p, ThreadBackend(again), StopFlag(), searched, split_nodes=0, record=searched
    ).run(state)
    assert len(resumed.path) - 1 == want and reaches_goal(p, resumed.path)
    assert counts(resumed)[:-1] == counts(serial)[:-1]
    rest = its[k].expanded - out.state.expanded
    assert searched.ended[0] == (its[k].bound, rest - kept if again == 2 else rest)
