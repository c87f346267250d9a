import numpy as np
import pytest

from solver import heuristics
from solver.search.heuristic import h_many

from . import naive
from .conftest import all_8puzzle_states


@pytest.fixture(scope="module")
def all_8puzzle(data_dir):
    return all_8puzzle_states(data_dir)


@pytest.mark.parametrize("name", ["misplaced", "manhattan", "linear-conflict"])
def test_admissible_on_every_8puzzle_state(all_8puzzle, name):
    frame, boards, dist = all_8puzzle
    assert len(boards) == 181440
    h = h_many(boards, heuristics.CLASSIC[name](frame.canonical_goal).H)
    assert (h <= dist).all()
    assert h[dist == 0].tolist() == [0]


def test_linear_conflict_dominates_manhattan(all_8puzzle):
    frame, boards, dist = all_8puzzle
    g = frame.canonical_goal
    lc = h_many(boards, heuristics.linear_conflict(g).H)
    md = h_many(boards, heuristics.manhattan(g).H)
    assert (lc >= md).all() and (lc > md).any()
    assert md.mean() < lc.mean() < dist.mean()


def test_kernels_match_naive(all_8puzzle, rng):
    frame, boards, _ = all_8puzzle
    g = frame.canonical_goal
    goal = tuple(g.tiles.tolist())
    sample = boards[rng.choice(len(boards), 500, replace=False)]
    md = h_many(sample, heuristics.manhattan(g).H)
    mp = h_many(sample, heuristics.misplaced(g).H)
    for b, m, p in zip(sample.tolist(), md, mp):
        assert m == naive.manhattan(tuple(b), goal, 3)
        assert p == naive.misplaced(tuple(b), goal)


def test_exact_heuristic_is_the_table(all_8puzzle, data_dir):
    frame, boards, dist = all_8puzzle
    h = h_many(boards, heuristics.exact(frame, data_dir).H)
    assert (h == dist).all()


@pytest.mark.parametrize("name", ["misplaced", "manhattan"])
def test_consistent_where_claimed(all_8puzzle, rng, name):
    frame, boards, _ = all_8puzzle
    heur = heuristics.CLASSIC[name](frame.canonical_goal)
    assert heur.consistent
    sample = boards[rng.choice(len(boards), 3000, replace=False)]
    hs = h_many(sample, heur.H)
    for b, h in zip(sample.tolist(), hs):
        kids = np.array(list(naive.successors(tuple(b), 3, 3)))
        assert (np.abs(h_many(kids, heur.H) - h) <= 1).all()


@pytest.mark.parametrize("name", ["misplaced", "manhattan", "linear-conflict"])
@pytest.mark.parametrize("rows, cols", [(4, 4), (3, 5), (5, 5), (2, 3)])
def test_incremental_update_equals_recomputation(name, rows, cols, rng):
    """h_move (used by IDA*) agrees with h_full after every move of long random walks."""
    from patterndb import Shape, make_goal
    from solver.search.heuristic import h_full, h_move

    goal = make_goal(Shape(rows, cols), "blank-first")
    H = heuristics.CLASSIC[name](goal).H
    board = goal.tiles.astype(np.int64)
    pos = goal.positions()
    z = np.zeros(16, dtype=np.int64)
    h = h_full(board, pos, H, z, z)
    for _ in range(2000):
        b = pos[0]
        options = [c for c in goal.shape.neighbours[b] if c >= 0]
        c = options[rng.integers(len(options))]
        t = board[c]
        board[b], board[c], pos[t], pos[0] = t, 0, b, c
        h = h_move(board, pos, H, h, t, c, b, z)
        assert h == h_full(board, pos, H, z, z)


@pytest.mark.parametrize("size", [3, 5, 7])
def test_a_slide_changes_the_line_conflicts_as_counted_from_scratch(size):
    """The beam and IDA* on linear conflict keep a state's line conflicts and add what a slide
    changes in the slid tile's goal line only (kernels.conflicts_change): after every slide from
    random boards, the sum is the conflicts counted over every row and column (linear conflict
    less Manhattan distance), and the conflicts themselves are naive.line_conflicts'."""
    from patterndb import Shape, make_goal, random_board
    from solver.heuristics import linear_conflict, manhattan
    from solver.search.heuristic import conflicts_change

    shape = Shape(size, size)
    goal = make_goal(shape, "blank-first")
    lc, md = linear_conflict(goal), manhattan(goal)
    gt = tuple(goal.tiles.tolist())
    seq = np.zeros(16, dtype=np.int64)
    rng = np.random.default_rng(size)
    changed = 0
    for _ in range(40):
        b = random_board(shape, goal, rng)
        board = b.tiles.astype(np.int64)
        conflicts = lc(b) - md(b)
        assert conflicts == naive.line_conflicts(tuple(board.tolist()), gt, size, size)
        blank = int(np.flatnonzero(board == 0)[0])
        for c in shape.neighbours[blank]:
            if c < 0:
                continue
            t = int(board[c])
            step = conflicts_change(board, lc.H, t, c, blank, seq)
            child = board.copy()
            child[blank], child[c] = t, 0
            cb = type(b)(shape, child)
            assert conflicts + step == lc(cb) - md(cb)
            changed += step != 0
    assert changed > 0
