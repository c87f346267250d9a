import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patterndb.jit import njit
from patterndb.puzzle.ranking import (
    next_placement,
    num_placements,
    rank,
    rank_many,
    unrank,
    unrank_digits,
    unrank_many,
)

from . import naive


def test_full_rank_is_lexicographic():
    ref = naive.all_perm_ranks(6)
    perms = np.array(list(ref), dtype=np.int64)
    assert rank_many(perms, 6).tolist() == list(ref.values())


def test_partial_ranks_are_a_bijection():
    n, k = 6, 3
    ranks = np.arange(num_placements(n, k))
    placements = unrank_many(ranks, k, n)
    assert len({tuple(p) for p in placements.tolist()}) == ranks.size
    assert (rank_many(placements, n) == ranks).all()
    # The first tile is the most significant digit: contiguous blocks per cell.
    assert (placements[:, 0] == ranks // num_placements(n - 1, k - 1)).all()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 25).flatmap(
        lambda n: st.tuples(st.just(n), st.permutations(range(n)), st.integers(1, n))
    )
)
def test_round_trip(args):
    n, perm, k = args
    while math.perm(n, k) >= 2**63:  # ranks are int64
        k -= 1
    pos = np.array(perm[:k], dtype=np.int64)
    r = rank(pos, k, n)
    assert 0 <= r < math.perm(n, k)
    out = np.empty(k, dtype=np.int64)
    unrank(r, k, n, out)
    assert out.tolist() == list(perm[:k])
    if k == n:
        assert naive.lex_rank(tuple(perm)) == rank(np.array(perm, dtype=np.int64), n, n)


def test_goal_index_is_the_rank_of_the_goal_placement():
    from patterndb.puzzle.patterns import goal_index
    from patterndb.puzzle.ranking import rank

    rng = np.random.default_rng(7)
    for n, k in ((9, 9), (16, 7), (25, 6), (12, 5)):
        goal = rng.permutation(n)
        # 0: zero-aware
        tiles = [int(t) for t in rng.permutation(np.arange(1, n))[:k]] if k < n else list(range(n))
        cell = {int(t): c for c, t in enumerate(goal)}
        attrs = {
            "rows": 1,
            "cols": n,
            "goal": " ".join(map(str, goal)),
            "kind": "exact" if k == n else "pdb",
            "tiles": tiles,
        }
        assert goal_index(attrs) == rank(np.array([cell[t] for t in tiles], dtype=np.int64), k, n)


@njit
def _stepped(start, count, k, n):
    """Placements of ranks start .. start + count - 1 by next_placement from unrank_digits,
    and whether each step's bitmask matched its cells."""
    out = np.empty((count, k), dtype=np.int64)
    ok = np.empty(count, dtype=np.bool_)
    digits = np.empty(k, dtype=np.int64)
    pos = np.empty(k, dtype=np.int64)
    used = unrank_digits(start, k, n, digits, pos)
    for j in range(count):
        if j:
            used = next_placement(digits, pos, used, k, n)
        out[j] = pos
        mask = np.uint64(0)
        for i in range(k):
            mask |= np.uint64(1) << np.uint64(pos[i])
        ok[j] = mask == used
    return out, ok


@pytest.mark.parametrize("n, k", [(6, 3), (9, 4), (8, 8), (5, 1)])
def test_stepping_visits_every_rank_in_order(n, k):
    size = num_placements(n, k)
    got, ok = _stepped(0, size, k, n)
    assert (got == unrank_many(np.arange(size), k, n)).all() and ok.all()


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 25).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(1, min(n, 7)), st.data())
    )
)
def test_stepping_from_any_rank_matches_unrank(args):
    n, k, data = args
    size = num_placements(n, k)
    start = data.draw(st.integers(0, size - 1))
    count = min(size - start, 300)
    got, ok = _stepped(start, count, k, n)
    assert (got == unrank_many(np.arange(start, start + count), k, n)).all() and ok.all()
