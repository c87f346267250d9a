"""Iterative-deepening A* as one numba kernel (iterative, no recursion).

With the blind heuristic (h = 0) it is exactly iterative-deepening DFS, so
IDDFS is this kernel too. The heuristic is updated per move (h_move), the
move back to the previous cell is never generated, and the next threshold
is the smallest f that exceeded the current one, raised to the parity of
the solution length. Pattern databases use idastar_pdb.py instead.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..heuristics.kernels import h_full, h_move
from .moves import next_bound, slide, solution_parity

MAX_DEPTH = 512
FOUND, EXHAUSTED, LIMIT = 0, 1, 2


@njit(cache=True, nogil=True)
def idastar_kernel(board0, goal, H, nbrs, max_nodes):
    """Returns (status, path of blank cells, expanded, generated, last threshold).

    status: FOUND, EXHAUSTED (no solution: cannot happen for solvable
    boards), LIMIT (max_nodes expansions reached, max_nodes <= 0 = none).
    """
    n = board0.size
    board = board0.copy()
    pos = np.empty(n, dtype=np.int64)
    for c in range(n):
        pos[board[c]] = c
    cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)  # blank cell at each depth
    nextdir = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    hs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    scratch = np.zeros(16, dtype=np.int64)
    h0 = h_full(board, pos, H, scratch, scratch)
    parity = solution_parity(pos[0], goal, H[3])
    bound = next_bound(h0, parity)
    expanded = 0
    generated = 0
    cells[0] = pos[0]
    while True:
        nxt = np.int64(1) << 62
        depth = 0
        nextdir[0] = 0
        hs[0] = h0
        if h0 == 0 and np.array_equal(board, goal):
            return FOUND, cells[:1].copy(), expanded, generated, bound
        expanded += 1
        while depth >= 0:
            d = nextdir[depth]
            b = cells[depth]
            if d == 4:
                if depth > 0:  # undo the move into this node
                    prev = cells[depth - 1]
                    slide(board, pos, board[prev], prev, b)
                depth -= 1
                continue
            nextdir[depth] = d + 1
            c = nbrs[b, d]
            if c < 0 or (depth > 0 and c == cells[depth - 1]):
                continue
            t = board[c]
            slide(board, pos, t, c, b)
            generated += 1
            h = h_move(board, pos, H, hs[depth], t, c, b, scratch)
            f = depth + 1 + h
            if f > bound or depth + 1 >= MAX_DEPTH:
                if f < nxt:
                    nxt = f
                slide(board, pos, t, b, c)
                continue
            depth += 1
            cells[depth] = c
            hs[depth] = h
            nextdir[depth] = 0
            if h == 0 and np.array_equal(board, goal):
                return FOUND, cells[: depth + 1].copy(), expanded, generated, bound
            expanded += 1
            if max_nodes > 0 and expanded >= max_nodes:
                return LIMIT, cells[:1].copy(), expanded, generated, bound
        if nxt == np.int64(1) << 62:
            return EXHAUSTED, cells[:1].copy(), expanded, generated, bound
        bound = next_bound(nxt, parity)
