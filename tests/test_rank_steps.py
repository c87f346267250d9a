"""Rank steps (the search's per-move update of a group's rank) against ranking from scratch."""

import numpy as np
import pytest

from patterndb import Shape
from patterndb.build.zeroaware import cover_key
from patterndb.puzzle.ranking import rank
from solver.search.rank_steps import rank_step, slide_key, tile_weights


def placement(pos, tiles, refl_tile, refl_cell, reflected):
    """The group's cells in the state, or in its diagonal mirror (kernels.group_key's reading)."""
    return np.array(
        [refl_cell[pos[refl_tile[t]]] if reflected else pos[t] for t in tiles], dtype=np.int64
    )


def key_of(cells, n):
    used = 0
    for c in cells:
        used |= 1 << int(c)
    return cover_key(rank(cells, cells.size, n), used)


@pytest.mark.parametrize(
    "rows, cols, sizes",
    [(3, 3, (4, 4)), (4, 4, (7, 8)), (4, 4, (1, 5, 6, 3)), (5, 5, (6, 6, 6, 6)), (3, 5, (5, 2, 7))],
)
def test_steps_follow_a_random_walk_regular_and_mirrored(rows, cols, sizes, rng):
    shape = Shape(rows, cols)
    n = shape.n
    nbrs = shape.neighbours
    tiles = rng.permutation(np.arange(1, n))  # groups of random tiles, in random order
    groups = np.split(tiles, np.cumsum(sizes)[:-1])
    group_tiles = np.zeros((len(groups), max(sizes)), dtype=np.int64)
    group_of = np.full(n, -1, dtype=np.int64)
    for g, ts in enumerate(groups):
        group_tiles[g, : len(ts)] = ts
        group_of[ts] = g
    group_k = np.array(sizes, dtype=np.int64)
    slot = np.zeros(n, dtype=np.int64)
    weight = np.zeros(n, dtype=np.int64)
    tile_weights(group_tiles, group_k, n, slot, weight)
    # A mirror: transpose the cells of a square board (any involution of cells does for a
    # rectangle) and swap tiles by some involution keeping the blank.
    cells = np.arange(n)
    refl_cell = (cells % cols * rows + cells // cols) if rows == cols else cells[::-1].copy()
    refl_tile = np.arange(n)
    refl_tile[1:] = np.arange(n - 1, 0, -1)
    board = rng.permutation(n).astype(np.int64)
    pos = np.argsort(board).astype(np.int64)
    for _ in range(400):
        b = pos[0]
        c = rng.choice([x for x in nbrs[b] if x >= 0])
        t = board[c]
        for reflected in (False, True):
            tm, src, dst = (refl_tile[t], refl_cell[c], refl_cell[b]) if reflected else (t, c, b)
            g = group_of[tm]
            if g < 0:
                continue
            ts = group_tiles[g, : group_k[g]]
            before = placement(pos, ts, refl_tile, refl_cell, reflected)
            step = rank_step(
                board, group_of, slot, weight, refl_tile, refl_cell, tm, src, dst, reflected
            )
            board[b], board[c] = t, 0
            pos[t], pos[0] = b, c
            after = placement(pos, ts, refl_tile, refl_cell, reflected)
            assert rank(after, after.size, n) - rank(before, before.size, n) == step
            assert slide_key(key_of(before, n), step, src, dst, True) == key_of(after, n)
            assert slide_key(rank(before, before.size, n), step, src, dst, False) == rank(
                after, after.size, n
            )
            board[b], board[c] = 0, t  # undone for the other reading
            pos[t], pos[0] = c, b
        board[b], board[c] = t, 0
        pos[t], pos[0] = b, c


def test_weights_are_the_mixed_radix_places():
    group_tiles = np.array([[3, 1, 2], [4, 5, 0]])
    slot = np.zeros(9, dtype=np.int64)
    weight = np.zeros(9, dtype=np.int64)
    tile_weights(group_tiles, np.array([3, 2]), 9, slot, weight)
    assert slot[[3, 1, 2, 4, 5]].tolist() == [0, 1, 2, 0, 1]
    assert weight[[3, 1, 2, 4, 5]].tolist() == [8 * 7, 7, 1, 8, 1]
