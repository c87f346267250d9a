"""Heuristic evaluation inside numba search kernels.

Every heuristic is described by one tuple H of fixed layout, so each search
kernel compiles once and branches on H[0] (the kind):

  H = (kind, goalpos[n], md[n, n], cols, table[:], group_of[n],
       group_tiles[G, kmax], group_k[G], offsets[G], refl_tile[n],
       refl_cell[n], reflect)

md[t, c] is the Manhattan distance of tile t on cell c from its goal cell.
For pattern databases, table is every group's table concatenated (group g at
offsets[g]), indexed by the rank of the group's tile cells; with reflect,
the state mirrored about the main diagonal is looked up too and the larger
sum is used. For the exact kind, table is indexed by the full rank.
Unused fields hold one-element dummies.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from patterndb.bits import popcount
from patterndb.ranking import rank

BLIND, MISPLACED, MANHATTAN, LINEAR_CONFLICT, EXACT, PDB = range(6)


@njit(cache=True, inline="always")
def group_value(pos, H, g, reflected):
    """Table entry of group g for the state (or its diagonal mirror)."""
    group_tiles, group_k, offsets, refl_tile, refl_cell = H[6], H[7], H[8], H[9], H[10]
    n = pos.size
    used = np.uint64(0)
    r = 0
    for i in range(group_k[g]):
        t = group_tiles[g, i]
        p = refl_cell[pos[refl_tile[t]]] if reflected else pos[t]
        below = popcount(used & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
        r = r * (n - i) + (p - below)
        used |= np.uint64(1) << np.uint64(p)
    return np.int64(H[4][offsets[g] + r])


@njit(cache=True)
def _lis(seq, m):
    best = 0
    lens = np.empty(m, dtype=np.int64)
    for i in range(m):
        lens[i] = 1
        for j in range(i):
            if seq[j] < seq[i] and lens[j] + 1 > lens[i]:
                lens[i] = lens[j] + 1
        best = max(best, lens[i])
    return best


@njit(cache=True)
def linear_conflict(board, H):
    """Manhattan plus 2 per tile that must leave its goal row (column) so the
    others can pass: line length minus its longest in-order subsequence
    (Hansson, Mayer & Yung's admissible form of Korf & Taylor's idea)."""
    goalpos, md, cols = H[1], H[2], H[3]
    n = board.size
    rows = n // cols
    h = 0
    for c in range(n):
        t = board[c]
        if t:
            h += md[t, c]
    seq = np.empty(max(rows, cols), dtype=np.int64)
    for r in range(rows):
        m = 0
        for c in range(cols):
            t = board[r * cols + c]
            if t and goalpos[t] // cols == r:
                seq[m] = goalpos[t] % cols
                m += 1
        h += 2 * (m - _lis(seq, m))
    for c in range(cols):
        m = 0
        for r in range(rows):
            t = board[r * cols + c]
            if t and goalpos[t] % cols == c:
                seq[m] = goalpos[t] // cols
                m += 1
        h += 2 * (m - _lis(seq, m))
    return h


@njit(cache=True)
def h_full(board, pos, H, greg, gref):
    """Heuristic of a state from scratch; for PDBs fills greg/gref (per-group values)."""
    kind = H[0]
    n = board.size
    if kind == BLIND:
        return 0
    if kind == MISPLACED:
        h = 0
        for c in range(n):
            if board[c] and H[1][board[c]] != c:
                h += 1
        return h
    if kind == MANHATTAN:
        h = 0
        for c in range(n):
            if board[c]:
                h += H[2][board[c], c]
        return h
    if kind == LINEAR_CONFLICT:
        return linear_conflict(board, H)
    if kind == EXACT:
        return np.int64(H[4][rank(pos, n, n)])
    hr = 0
    hf = 0
    for g in range(H[7].size):
        greg[g] = group_value(pos, H, g, False)
        hr += greg[g]
        if H[11]:
            gref[g] = group_value(pos, H, g, True)
            hf += gref[g]
    return max(hr, hf)


@njit(cache=True)
def h_move(board, pos, H, h, t, src, dst, scratch):
    """Heuristic after tile t slid from src to dst (board/pos already updated).

    Incremental for misplaced and Manhattan (only the moved tile's term
    changes); recomputed for the others. Pattern databases have their own
    incremental kernel (search/idastar_pdb.py); scratch is h_full's group
    buffer for kinds that need none."""
    kind = H[0]
    if kind == BLIND:
        return 0
    if kind == MANHATTAN:
        return h - H[2][t, src] + H[2][t, dst]
    if kind == MISPLACED:
        goal = H[1][t]
        return h - (goal != src) + (goal != dst)
    return h_full(board, pos, H, scratch, scratch)


@njit(cache=True)
def h_many(boards, H):
    """Heuristic of each row of a (m, n) array of boards (for tests and tools)."""
    m, n = boards.shape
    out = np.empty(m, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    G = max(H[7].size, 1)
    greg = np.zeros(G, dtype=np.int64)
    gref = np.zeros(G, dtype=np.int64)
    for i in range(m):
        for c in range(n):
            pos[boards[i, c]] = c
        out[i] = h_full(boards[i], pos, H, greg, gref)
    return out
