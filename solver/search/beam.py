"""Beam search: breadth-first by depth, keeping at each depth only the `width` states of least
h (ties in the order generated; the move that undoes the last one never made; a state kept
before, at this depth or an earlier one, not kept again: without that a beam on 7x7 ran in
circles until its depth limit). Kept states are remembered by a 64-bit fingerprint in a table
of SEEN_SLOTS, a newer one taking an older one's slot: memory stays fixed, and a state
forgotten can at worst be kept twice. Memory is width states a depth, and a solution of depth d is found
with about d * width * 3 heuristic evaluations: with wide beams on pattern databases it finds
solutions within a few per cent of the optimum in seconds (solver.anytime uses it for shorter
solutions once weighted A* runs out of nodes). It proves nothing: a solution it returns is
checked by replaying, and only bounds proven elsewhere are claimed of it.

`below`: only states with depth + h < below are kept (h admissible: no other can lead to a
solution shorter than below), so a search for a better solution than one of length L passes
below=L."""
from __future__ import annotations

import numpy as np

from patterndb.jit import njit

from ..heuristics.kernels import group_step, h_full, has_zero_aware, is_incremental, scratch_size

FOUND, EXHAUSTED, STOPPED = 0, 1, 3


SEEN_SLOTS = 1 << 22  # states remembered (32 MB): a newer one takes an older one's slot


@njit(cache=True, inline="always")
def _fingerprint(board):
    """A 64-bit hash of the board (FNV-1a over its cells, then mixed): never 0 for a board."""
    f = np.uint64(0xCBF29CE484222325)
    for c in range(board.size):
        f = (f ^ np.uint64(board[c] + 1)) * np.uint64(0x100000001B3)
    f ^= f >> np.uint64(29)
    return np.int64(f | np.uint64(1))


@njit(cache=True, inline="always")
def _step(pos, H, t, reflected, zero):
    """group_step with its zero-aware choice a constant in each branch."""
    if zero:
        return group_step(pos, H, t, reflected, True)
    return group_step(pos, H, t, reflected, False)


@njit(cache=True, inline="always")
def _by_h(h, m):
    """The candidates h[0:m] in order of h, ties in the order generated (as a stable sort), by
    counting: h spans a few dozen values. In place of numba's merge sort, a 24-puzzle beam of
    width 32,768 took 0.89x the time (same path and counts)."""
    lo, hi = h[0], h[0]
    for i in range(1, m):
        lo, hi = min(lo, h[i]), max(hi, h[i])
    start = np.zeros(hi - lo + 2, dtype=np.int64)
    for i in range(m):
        start[h[i] - lo + 1] += 1
    for v in range(1, start.size):
        start[v] += start[v - 1]
    order = np.empty(m, dtype=np.int64)
    for i in range(m):
        order[start[h[i] - lo]] = i
        start[h[i] - lo] += 1
    return order


@njit(cache=True, nogil=True)
def beam_kernel(board0, goal, H, nbrs, width, below, stop):
    """Returns (status, path of blank cells, states generated)."""
    n = board0.size
    greg = np.zeros(scratch_size(H), dtype=np.int64)
    gref = np.zeros(scratch_size(H), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    levels = min(max(below, 1), 256)  # (grown as the beam goes deeper: below may be far off)
    hist_parent = np.empty((levels, width), dtype=np.int32)
    hist_blank = np.empty((levels, width), dtype=np.int8)
    cur = np.empty((width, n), dtype=np.int8)
    nxt = np.empty((width, n), dtype=np.int8)
    cand_h = np.empty(4 * width, dtype=np.int64)
    cand_par = np.empty(4 * width, dtype=np.int64)
    cand_cell = np.empty(4 * width, dtype=np.int64)
    # Plain pattern databases: each state's group values and sums, so that a child costs the
    # lookups of its moved tile's group and that group's mirror, not every group's.
    inc = is_incremental(H)
    zero = has_zero_aware(H)
    refl = H[11]
    G = scratch_size(H)
    rows = width if inc else 1
    cur_reg = np.zeros((rows, G), dtype=np.int64)
    cur_ref = np.zeros((rows, G), dtype=np.int64)
    nxt_reg = np.zeros((rows, G), dtype=np.int64)
    nxt_ref = np.zeros((rows, G), dtype=np.int64)
    cur_sums = np.zeros((rows, 2), dtype=np.int64)
    nxt_sums = np.zeros((rows, 2), dtype=np.int64)
    cand_step = np.zeros((4 * width if inc else 1, 6), dtype=np.int64)  # g, value, mirror g, value, sums
    seen = np.zeros(SEEN_SLOTS, dtype=np.int64)
    cur[0] = board0
    if inc:
        for c in range(n):
            pos[board0[c]] = c
        h_full(board0, pos, H, greg, gref)
        cur_reg[0] = greg
        cur_ref[0] = gref
        cur_sums[0, 0] = greg.sum()
        cur_sums[0, 1] = gref.sum() if refl else 0
    seen[_fingerprint(board0) & (SEEN_SLOTS - 1)] = _fingerprint(board0)
    for c in range(n):
        if board0[c] == 0:
            hist_blank[0, 0] = c
    hist_parent[0, 0] = -1
    ncur = 1
    generated = 0
    if np.array_equal(board0, goal):
        path = np.empty(1, dtype=np.int64)
        path[0] = hist_blank[0, 0]
        return FOUND, path, generated
    for depth in range(1, below):
        if stop[0] != 0:
            return STOPPED, np.zeros(1, dtype=np.int64), generated
        m = 0
        for k in range(ncur):
            board = cur[k]
            for c in range(n):
                pos[board[c]] = c
            b = pos[0]
            prev = -1
            if depth >= 2:
                prev = hist_blank[depth - 2, hist_parent[depth - 1, k]]
            for d in range(4):
                c = nbrs[b, d]
                if c < 0 or c == prev:
                    continue
                t = board[c]
                board[b] = t
                board[c] = 0
                pos[t] = b
                pos[0] = c
                if inc:
                    g, v = _step(pos, H, t, False, zero)
                    hr = cur_sums[k, 0] + (v - cur_reg[k, g] if g >= 0 else 0)
                    gm, vm, hf = -1, 0, 0
                    if refl:
                        gm, vm = _step(pos, H, t, True, zero)
                        hf = cur_sums[k, 1] + (vm - cur_ref[k, gm] if gm >= 0 else 0)
                    h = max(hr, hf)
                else:
                    h = h_full(board, pos, H, greg, gref)
                generated += 1
                if h == 0 and np.array_equal(board, goal):
                    path = np.empty(depth + 1, dtype=np.int64)
                    path[depth] = c
                    j = k
                    for lv in range(depth - 1, -1, -1):
                        path[lv] = hist_blank[lv, j]
                        j = hist_parent[lv, j]
                    return FOUND, path, generated
                board[c] = t
                board[b] = 0
                pos[t] = c
                pos[0] = b
                if depth + h < below:
                    cand_h[m] = h
                    cand_par[m] = k
                    cand_cell[m] = c
                    if inc:
                        cand_step[m, 0] = g
                        cand_step[m, 1] = v
                        cand_step[m, 2] = gm
                        cand_step[m, 3] = vm
                        cand_step[m, 4] = hr
                        cand_step[m, 5] = hf
                    m += 1
        if m == 0:
            return EXHAUSTED, np.zeros(1, dtype=np.int64), generated
        order = _by_h(cand_h, m)
        if depth == hist_parent.shape[0]:
            grown_parent = np.empty((2 * depth, width), dtype=np.int32)
            grown_blank = np.empty((2 * depth, width), dtype=np.int8)
            grown_parent[:depth] = hist_parent
            grown_blank[:depth] = hist_blank
            hist_parent, hist_blank = grown_parent, grown_blank
        kept = 0
        for i in range(m):
            if kept == width:
                break
            idx = order[i]
            k = cand_par[idx]
            c = cand_cell[idx]
            b = hist_blank[depth - 1, k]
            nxt[kept] = cur[k]
            nxt[kept, b] = nxt[kept, c]
            nxt[kept, c] = 0
            f = _fingerprint(nxt[kept])
            slot = f & (seen.size - 1)
            if seen[slot] == f:
                continue
            seen[slot] = f
            hist_parent[depth, kept] = k
            hist_blank[depth, kept] = c
            if inc:
                nxt_reg[kept] = cur_reg[k]
                nxt_ref[kept] = cur_ref[k]
                if cand_step[idx, 0] >= 0:
                    nxt_reg[kept, cand_step[idx, 0]] = cand_step[idx, 1]
                if cand_step[idx, 2] >= 0:
                    nxt_ref[kept, cand_step[idx, 2]] = cand_step[idx, 3]
                nxt_sums[kept, 0] = cand_step[idx, 4]
                nxt_sums[kept, 1] = cand_step[idx, 5]
            kept += 1
        cur, nxt = nxt, cur
        cur_reg, nxt_reg = nxt_reg, cur_reg
        cur_ref, nxt_ref = nxt_ref, cur_ref
        cur_sums, nxt_sums = nxt_sums, cur_sums
        ncur = kept
    return EXHAUSTED, np.zeros(1, dtype=np.int64), generated
