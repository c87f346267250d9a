"""The pattern-database search kernels count exactly as a plain IDA* (tests/naive.py) in its own
child order, at every bound."""

import numpy as np

from patterndb import Shape, make_goal, random_board
from solver.ida import Driver, StopFlag, ThreadBackend
from solver.search.moves import EXHAUSTED, FOUND

from . import naive
from .test_parallel import counts, problem


def test_pdb_kernel_counts_equal_plain_idastar_and_both_variants_agree(pdb_dir, rng):
    """The PDB kernel (on 3x3: the variant that prefetches and judges the children before
    visiting them lowest f first) against a plain recursive IDA* with the same heuristic and
    order, iteration by iteration; and both variants (the plain one is used on 5x5), run at
    every bound, against the plain IDA* in their own order."""
    from solver.search.idastar_pdb import dfs_pdb, dfs_pdb_ahead

    goal = make_goal(Shape(3, 3), "blank-first")
    gt = tuple(goal.tiles.tolist())
    for _ in range(8):
        b = random_board(Shape(3, 3), goal, rng)
        p, plan = problem(str(b), pattern="4-4", data_dir=pdb_dir, prune=2)
        h, tiebreak = heuristic_and_tiebreak(b, pattern="4-4", data_dir=pdb_dir, prune=2)
        length, its = naive.idastar(tuple(b.tiles.tolist()), gt, 3, 3, h, tiebreak=tiebreak)
        out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=10**12).run()
        assert len(out.path) - 1 == length and counts(out) == its
        assert_kernel_counts(p, its, dfs_pdb_ahead)
        assert_kernel_counts(p, naive.idastar(tuple(b.tiles.tolist()), gt, 3, 3, h)[1], dfs_pdb)


def mirror_leading_boards(rng, count, **opts):
    """count 3x3 boards whose mirrored lookup sum is above the regular one at the root
    (there the 5x5 PDB kernel reads its children's mirrored entries first)."""
    goal = make_goal(Shape(3, 3), "blank-first")
    boards = []
    while len(boards) < count:
        b = random_board(Shape(3, 3), goal, rng)
        _, plain = problem(str(b), reflect=False, **opts)
        regular = plain.heuristic(b)
        mirrored = plain.heuristic(
            type(b)(b.shape, np.array(naive.transpose(tuple(b.tiles.tolist()), 3)))
        )
        if mirrored > regular:
            boards.append(b)
    return boards


def test_pdb_kernel_reading_the_mirrored_side_first_counts_as_plain_idastar(pdb_dir, rng):
    """Where a node's mirrored sum is above its regular one, the regular lookup cannot prune
    a child (a move changes a sum by one), so dfs_pdb reads the mirrored entry first and the
    regular one only for a child it leaves: every iteration still counts as plain IDA*'s."""
    from solver.search.idastar_pdb import dfs_pdb

    gt = tuple(make_goal(Shape(3, 3), "blank-first").tiles.tolist())
    for b in mirror_leading_boards(rng, 6, pattern="4-4", data_dir=pdb_dir, prune=2):
        p, _ = problem(str(b), pattern="4-4", data_dir=pdb_dir, prune=2)
        h, _ = heuristic_and_tiebreak(b, pattern="4-4", data_dir=pdb_dir, prune=2)
        assert_kernel_counts(p, naive.idastar(tuple(b.tiles.tolist()), gt, 3, 3, h)[1], dfs_pdb)


def heuristic_and_tiebreak(b, **opts):
    """For a 3x3 board: the reflected PDB heuristic as a function of a state (tuple), and the
    look-ahead kernel's tie-break, the smaller of the regular and the mirrored lookups; the
    larger of the two is checked to be the heuristic."""
    _, plan = problem(str(b), **opts)
    _, plain = problem(str(b), reflect=False, **opts)

    def h(s):
        return plan.heuristic(type(b)(b.shape, np.array(s)))

    def tiebreak(s):
        regular = plain.heuristic(type(b)(b.shape, np.array(s)))
        mirrored = plain.heuristic(type(b)(b.shape, np.array(naive.transpose(s, 3))))
        assert max(regular, mirrored) == h(s)
        return min(regular, mirrored)

    return h, tiebreak


def assert_kernel_counts(p, its, kernel):
    """The kernel, run directly from the root at every bound of its (bound, expanded,
    generated), counts the same (the root's expansion is its caller's), and in the last
    iteration returns a path of that length to the goal."""
    from solver.search.moves import MAX_DEPTH

    pos = np.argsort(p.tiles).astype(np.int64)
    for i, (bound, expanded, generated) in enumerate(its):
        path = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
        path[0] = p.blank
        status, depth, e, g, _ = kernel(
            p.tiles,
            pos,
            p.goal,
            p.H,
            p.nbrs,
            p.machine.transitions,
            path,
            p.start_state,
            0,
            bound,
            0,
            np.zeros(1, dtype=np.int64),
        )
        last = i == len(its) - 1
        assert (status, e + 1, g) == (FOUND if last else EXHAUSTED, expanded, generated)
        if last:
            board = p.tiles.copy()
            for a, c in zip(path[:depth], path[1 : depth + 1]):
                assert c in p.nbrs[a]
                board[a], board[c] = board[c], 0
            assert depth == bound and np.array_equal(board, p.goal)
