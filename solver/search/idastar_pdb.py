"""IDA* specialised for additive pattern databases (the hot path of the product).

Per move only the moved tile's group changes, so the kernel keeps each
group's current value and the two sums (regular and diagonally mirrored),
updates one entry per move and restores it on backtrack: O(group size) per
node, two table lookups, no copies. The mirrored lookup is skipped when the
regular sum alone already prunes the child. Thresholds keep the parity of
the solution length (fixed by the blank's distance to its goal cell), so no
iteration is wasted on impossible lengths.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..heuristics.kernels import group_value, h_full
from .moves import next_bound, slide, solution_parity

MAX_DEPTH = 512
FOUND, EXHAUSTED, LIMIT = 0, 1, 2


@njit(cache=True, nogil=True)
def idastar_pdb_kernel(board0, goal, H, nbrs, max_nodes):
    """Same contract as idastar_kernel, for H of kind PDB."""
    n = board0.size
    group_of, refl_tile, reflect = H[5], H[9], H[11]
    G = H[7].size
    board = board0.copy()
    pos = np.empty(n, dtype=np.int64)
    for c in range(n):
        pos[board[c]] = c
    gval = np.empty(G, dtype=np.int64)
    fval = np.zeros(G, dtype=np.int64)
    h0 = h_full(board, pos, H, gval, fval)  # fills the per-group values
    hr = gval.sum()
    hf = fval.sum()
    b0 = pos[0]
    parity = solution_parity(b0, goal, H[3])
    cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    nextdir = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    saved = np.empty((MAX_DEPTH + 1, 4), dtype=np.int64)  # group, old value, mirrored group, old value
    hrs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    hfs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    bound = next_bound(h0, parity)
    expanded = 0
    generated = 0
    cells[0] = b0
    if h0 == 0 and np.array_equal(board, goal):
        return FOUND, cells[:1].copy(), expanded, generated, bound
    while True:
        nxt = np.int64(1) << 62
        depth = 0
        nextdir[0] = 0
        hrs[0] = hr
        hfs[0] = hf
        expanded += 1
        while depth >= 0:
            d = nextdir[depth]
            b = cells[depth]
            if d == 4:
                if depth > 0:
                    prev = cells[depth - 1]
                    slide(board, pos, board[prev], prev, b)
                    g = saved[depth, 0]
                    if g >= 0:
                        gval[g] = saved[depth, 1]
                    g = saved[depth, 2]
                    if g >= 0:
                        fval[g] = saved[depth, 3]
                depth -= 1
                continue
            nextdir[depth] = d + 1
            c = nbrs[b, d]
            if c < 0 or (depth > 0 and c == cells[depth - 1]):
                continue
            t = board[c]
            slide(board, pos, t, c, b)
            generated += 1
            g = group_of[t]
            hr1 = hrs[depth]
            v = 0
            if g >= 0:
                v = group_value(pos, H, g, False)
                hr1 += v - gval[g]
            f = depth + 1 + hr1
            hf1 = hfs[depth]
            g2 = -1
            v2 = 0
            if f <= bound and reflect:
                g2 = group_of[refl_tile[t]]
                if g2 >= 0:
                    v2 = group_value(pos, H, g2, True)
                    hf1 += v2 - fval[g2]
                f = max(f, depth + 1 + hf1)
            if f > bound or depth + 1 >= MAX_DEPTH:
                if f < nxt:
                    nxt = f
                slide(board, pos, t, b, c)
                continue
            depth += 1
            cells[depth] = c
            nextdir[depth] = 0
            hrs[depth] = hr1
            hfs[depth] = hf1
            saved[depth, 0] = g
            saved[depth, 2] = g2
            if g >= 0:
                saved[depth, 1] = gval[g]
                gval[g] = v
            if g2 >= 0:
                saved[depth, 3] = fval[g2]
                fval[g2] = v2
            if max(hr1, hf1) == 0 and np.array_equal(board, goal):
                return FOUND, cells[: depth + 1].copy(), expanded, generated, bound
            expanded += 1
            if max_nodes > 0 and expanded >= max_nodes:
                return LIMIT, cells[:1].copy(), expanded, generated, bound
        if nxt == np.int64(1) << 62:
            return EXHAUSTED, cells[:1].copy(), expanded, generated, bound
        bound = next_bound(nxt, parity)
