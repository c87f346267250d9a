"""Beam search: breadth-first by depth, keeping at each depth only the `width` states of least
2h + c, c the line conflicts (2 for each tile that must leave its goal row or column so that the
others there can pass: solver.search.heuristic.line_conflicts) and h the heuristic, ties in the
order generated (the move that undoes the last one never made; a state kept before, at this depth
or an earlier one, not kept again: without that a beam on 7x7 ran in circles until its depth
limit). The conflicts only rank: pattern databases of 5 tiles on 6x6 and 7x7 meet few of them
(their h is 0.7-3% above Manhattan distance), and on random boards, with the same width, beams
ranked by 2h + c found solutions 5-6% shorter on 6x6, 5% on 7x7 and 0.5-1.2% on 24-puzzles than
beams ranked by h, for 1.2-1.4x the time a child (docs/benchmarks.md); an exact h ranks alone.
Kept states are remembered by a 64-bit fingerprint in a table of SEEN_SLOTS, a newer one taking
an older one's slot: memory stays fixed, and a state forgotten can at worst be kept twice. Memory
is width states a depth, and a solution of depth d is found with about d * width * 3 heuristic
evaluations: with wide beams on pattern databases it finds solutions within a few per cent of the
optimum in seconds (solver.bounded.anytime uses it for shorter solutions once weighted A* runs out of
nodes). It proves nothing: a solution it returns is checked by replaying, and only bounds proven
elsewhere are claimed of it.

`below`: only states with depth + h < below are kept (h admissible: no other can lead to a
solution shorter than below), so a search for a better solution than one of length L passes
below=L."""

from __future__ import annotations

import numpy as np

from patterndb.bits import prefetch
from patterndb.jit import njit

from .heuristic import (
    CELLMAP,
    EXACT,
    GROUP_K,
    GROUP_OF,
    INST_GROUP,
    KIND,
    PART_OF,
    PDB_MAX,
    REFLECT,
    TILE_INST,
    conflicts_change,
    entry_value,
    h_full,
    has_zero_aware,
    is_incremental,
    linear_conflict,
    lookup_arrays,
    mapped_entry,
    scratch_size,
    step_entry,
)

FOUND, EXHAUSTED, STOPPED = 0, 1, 3
FULL, PARTITION, CATALOGUE = range(3)  # how a child's h is found (_mode)


SEEN_SLOTS = 1 << 22  # states remembered (32 MB): a newer one takes an older one's slot
# Children of pattern databases are judged BLOCK parents at a time: every child's entries of
# the block are located and asked for (prefetch) before any is read, so that their cache misses
# overlap instead of following one another. On random 24-puzzles, with the same paths and
# counts, a child took 0.78x the time so on one partition (z6-6-6-6, width 65,536) and 0.69-0.73x
# on a catalogue (cr14, widths 16,384 and 65,536; docs/benchmarks.md).
BLOCK = 16


@njit(cache=True, inline="always")
def _fingerprint(board):
    """A 64-bit hash of the board (FNV-1a over its cells, then mixed): never 0 for a board."""
    f = np.uint64(0xCBF29CE484222325)
    for c in range(board.size):
        f = (f ^ np.uint64(board[c] + 1)) * np.uint64(0x100000001B3)
    f ^= f >> np.uint64(29)
    return np.int64(f | np.uint64(1))


@njit(cache=True, inline="always")
def _entry(
    pos,
    md,
    group_tiles,
    group_k,
    offsets,
    refl_tile,
    refl_cell,
    packed,
    zinfo,
    cols,
    group_of,
    t,
    reflected,
    zero,
):
    """step_entry with its zero-aware choice a constant in each branch."""
    if zero:
        return step_entry(
            pos,
            md,
            group_tiles,
            group_k,
            offsets,
            refl_tile,
            refl_cell,
            packed,
            zinfo,
            cols,
            group_of,
            t,
            reflected,
            True,
        )
    return step_entry(
        pos,
        md,
        group_tiles,
        group_k,
        offsets,
        refl_tile,
        refl_cell,
        packed,
        zinfo,
        cols,
        group_of,
        t,
        reflected,
        False,
    )


@njit(cache=True, inline="always")
def _value(table, packed, zinfo, cols, n, g, index, m, r, zero):
    """entry_value, likewise."""
    if zero:
        return entry_value(table, packed, zinfo, cols, n, g, index, m, r, True)
    return entry_value(table, packed, zinfo, cols, n, g, index, m, r, False)


@njit(cache=True, inline="always")
def _ask(table, zinfo, g, index, r, zero):
    """Ask the CPU for group g's entry at index (r: its key_entry word), and for what a
    zero-aware group reads first if the code is flagged (as idastar_pdb does)."""
    prefetch(table, index)
    if zero:
        prefetch(table, zinfo[g, 4] + zinfo[g, 5] * ((r & 0xFFFFFFFF) >> zinfo[g, 6]))


@njit(cache=True, inline="always")
def _place(board, pos, hist_blank, hist_parent, depth, k):
    """pos filled from board, the k-th state kept at depth - 1; returns (its blank's cell, the
    cell the blank came from, whose move back is never made: -1 at the root)."""
    for c in range(board.size):
        pos[board[c]] = c
    prev = -1
    if depth >= 2:
        prev = hist_blank[depth - 2, hist_parent[depth - 1, k]]
    return pos[0], prev


@njit(cache=True, inline="always")
def _slide(board, nbrs, b, prev, d):
    """The d-th slide from a state whose blank is on b: (the cell the blank moves to, the tile
    that moves), or (-1, 0) where there is no cell that way or it is the cell the blank came from."""
    c = nbrs[b, d]
    if c < 0 or c == prev:
        return -1, 0
    return c, board[c]


@njit(cache=True, inline="always")
def _mode(H):
    """How a child's h is found: FULL (h_full), PARTITION (one partition's pattern databases:
    the moved tile's group and its mirror's, step_entry) or CATALOGUE (the moved tile's group
    in each partition of a catalogue)."""
    if is_incremental(H):
        return PARTITION
    if H[KIND] == PDB_MAX:
        return CATALOGUE
    return FULL


@njit(cache=True, inline="always")
def _root_values(board, pos, H, mode, vals, sums):
    """A state's kept values (vals: PARTITION each group's then each mirrored group's,
    CATALOGUE each group's) and sums (PARTITION the regular and mirrored sums, CATALOGUE
    each partition's), from scratch."""
    G = H[GROUP_K].size
    scratch = np.zeros(scratch_size(H), dtype=np.int64)
    mirror = np.zeros(scratch_size(H), dtype=np.int64)
    h_full(board, pos, H, scratch, mirror)
    if mode == PARTITION:
        vals[:G] = scratch[:G]
        vals[G:] = mirror[:G]
        sums[0] = scratch[:G].sum()
        sums[1] = mirror[:G].sum() if H[REFLECT] else 0
    else:
        sums[:] = 0
        for i in range(H[INST_GROUP].size):
            vals[H[INST_GROUP][i]] = scratch[i]
            sums[H[PART_OF][i]] += scratch[i]


@njit(cache=True, inline="always")
def _by_key(h, m):
    """The candidates h[0:m] in order of their key h, ties in the order generated (as a stable
    sort), by counting: the keys of a depth span a few dozen values. In place of numba's merge
    sort, a 24-puzzle beam of width 32,768 took 0.89x the time (same path and counts)."""
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
    scratch = np.zeros(scratch_size(H), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    levels = min(max(below, 1), 256)  # (grown as the beam goes deeper: below may be far off)
    hist_parent = np.empty((levels, width), dtype=np.int32)
    hist_blank = np.empty((levels, width), dtype=np.int8)
    cur = np.empty((width, n), dtype=np.int8)
    nxt = np.empty((width, n), dtype=np.int8)
    cand_key = np.empty(4 * width, dtype=np.int64)  # (2h + c, or h where h is exact)
    cand_lc = np.empty(4 * width, dtype=np.int64)
    cand_par = np.empty(4 * width, dtype=np.int64)
    cand_cell = np.empty(4 * width, dtype=np.int64)
    # Pattern databases: each state keeps its groups' values and its sums, so that a child
    # costs the lookups of the groups its moved tile is in (one partition: its group and its
    # mirror's; a catalogue: its group in each partition), not every group's. A candidate
    # keeps the (slot, value) pairs it changed and its sums, applied once it is kept.
    mode = _mode(H)
    zero = has_zero_aware(H)
    refl = H[REFLECT]
    G = H[GROUP_K].size
    tile_inst, inst_group = H[TILE_INST], H[INST_GROUP]
    P = tile_inst.shape[1]
    md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols = (
        lookup_arrays(H)
    )
    group_of = H[GROUP_OF]
    # A block's children's entries, located before any is read (BLOCK). PARTITION: per parent
    # of the block and direction, the regular and the mirrored entry's (index, m, r).
    ahead = np.zeros((BLOCK, 4, 2, 3), dtype=np.int64)
    V, S, K = (2 * G, 2, 2) if mode == PARTITION else (G, P, P)
    rows, crows = (width, 4 * width) if mode != FULL else (1, 1)
    cur_vals = np.zeros((rows, V), dtype=np.int64)
    nxt_vals = np.zeros((rows, V), dtype=np.int64)
    cur_sums = np.zeros((rows, S), dtype=np.int64)
    nxt_sums = np.zeros((rows, S), dtype=np.int64)
    cand_pairs = np.zeros((crows, K, 2), dtype=np.int16)
    cand_sums = np.zeros((crows, S), dtype=np.int16)
    # CATALOGUE: per parent of the block and direction, the moved tile's groups (each once,
    # however many partitions hold it: seen_group stamps them) and their entries (g, index, m, r)
    cat_ahead = np.zeros((BLOCK, 4, P if mode == CATALOGUE else 1, 4), dtype=np.int64)
    cat_count = np.zeros((BLOCK, 4), dtype=np.int64)
    seen_group = np.full(G, -1, dtype=np.int64)
    stamp = 0
    group_val = np.zeros(G, dtype=np.int64)  # (a child's groups' values, read before its sums)
    seen = np.zeros(SEEN_SLOTS, dtype=np.int64)
    ranked = H[KIND] != EXACT  # (ranked by 2h + c: each kept state keeps its line conflicts c)
    seq = np.empty(16, dtype=np.int64)
    cur_lc = np.zeros(width, dtype=np.int64)
    nxt_lc = np.zeros(width, dtype=np.int64)
    if ranked:
        cur_lc[0] = linear_conflict(board0, H)
        for c in range(n):
            if board0[c]:
                cur_lc[0] -= md[board0[c], c]
    cur[0] = board0
    for c in range(n):
        pos[board0[c]] = c
    if mode != FULL:
        _root_values(board0, pos, H, mode, cur_vals[0], cur_sums[0])
    seen[_fingerprint(board0) & (SEEN_SLOTS - 1)] = _fingerprint(board0)
    hist_blank[0, 0] = pos[0]
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
            if mode != FULL and k % BLOCK == 0:
                for j in range(min(BLOCK, ncur - k)):
                    board = cur[k + j]
                    b, prev = _place(board, pos, hist_blank, hist_parent, depth, k + j)
                    for d in range(4):
                        c, t = _slide(board, nbrs, b, prev, d)
                        if c < 0:
                            continue
                        pos[t] = b
                        pos[0] = c
                        if mode == PARTITION:
                            g, index, mg, r = _entry(
                                pos,
                                md,
                                group_tiles,
                                group_k,
                                offsets,
                                refl_tile,
                                refl_cell,
                                packed,
                                zinfo,
                                cols,
                                group_of,
                                t,
                                False,
                                zero,
                            )
                            ahead[j, d, 0, 0], ahead[j, d, 0, 1], ahead[j, d, 0, 2] = index, mg, r
                            if g >= 0:
                                _ask(table, zinfo, g, index, r, zero)
                            if refl:
                                g, index, mg, r = _entry(
                                    pos,
                                    md,
                                    group_tiles,
                                    group_k,
                                    offsets,
                                    refl_tile,
                                    refl_cell,
                                    packed,
                                    zinfo,
                                    cols,
                                    group_of,
                                    t,
                                    True,
                                    zero,
                                )
                                ahead[j, d, 1, 0], ahead[j, d, 1, 1], ahead[j, d, 1, 2] = (
                                    index,
                                    mg,
                                    r,
                                )
                                if g >= 0:
                                    _ask(table, zinfo, g, index, r, zero)
                        else:  # (each group of t's read once a child, however many partitions hold it)
                            stamp += 1
                            u = 0
                            for q in range(P):
                                i = tile_inst[t, q]
                                if i >= 0 and seen_group[inst_group[i]] != stamp:
                                    g = inst_group[i]
                                    seen_group[g] = stamp
                                    index, mg, r = mapped_entry(
                                        pos,
                                        md,
                                        group_tiles,
                                        group_k,
                                        offsets,
                                        H[CELLMAP],
                                        packed,
                                        g,
                                        True,
                                    )
                                    cat_ahead[j, d, u, 0], cat_ahead[j, d, u, 1] = g, index
                                    cat_ahead[j, d, u, 2], cat_ahead[j, d, u, 3] = mg, r
                                    _ask(table, zinfo, g, index, r, True)
                                    u += 1
                            cat_count[j, d] = u
                        pos[t] = c
                        pos[0] = b
            board = cur[k]
            b, prev = _place(board, pos, hist_blank, hist_parent, depth, k)
            for d in range(4):
                c, t = _slide(board, nbrs, b, prev, d)
                if c < 0:
                    continue
                board[b] = t
                board[c] = 0
                pos[t] = b
                pos[0] = c
                generated += 1
                # (the pairs and sums go to row m, the next candidate's, kept or not)
                if mode == PARTITION:
                    j = k % BLOCK
                    g = group_of[t]
                    v = 0
                    if g >= 0:
                        v = _value(
                            table,
                            packed,
                            zinfo,
                            cols,
                            n,
                            g,
                            ahead[j, d, 0, 0],
                            ahead[j, d, 0, 1],
                            ahead[j, d, 0, 2],
                            zero,
                        )
                    hr = cur_sums[k, 0] + (v - cur_vals[k, g] if g >= 0 else 0)
                    cand_pairs[m, 0, 0], cand_pairs[m, 0, 1] = g, v
                    hf = 0
                    cand_pairs[m, 1, 0] = -1
                    if refl:
                        gm = group_of[refl_tile[t]]
                        if gm >= 0:
                            vm = _value(
                                table,
                                packed,
                                zinfo,
                                cols,
                                n,
                                gm,
                                ahead[j, d, 1, 0],
                                ahead[j, d, 1, 1],
                                ahead[j, d, 1, 2],
                                zero,
                            )
                            hf = cur_sums[k, 1] + vm - cur_vals[k, G + gm]
                            cand_pairs[m, 1, 0], cand_pairs[m, 1, 1] = G + gm, vm
                        else:
                            hf = cur_sums[k, 1]
                    cand_sums[m, 0], cand_sums[m, 1] = hr, hf
                    h = max(hr, hf)
                elif mode == CATALOGUE:
                    j = k % BLOCK
                    for u in range(cat_count[j, d]):
                        g = cat_ahead[j, d, u, 0]
                        group_val[g] = entry_value(
                            table,
                            packed,
                            zinfo,
                            cols,
                            n,
                            g,
                            cat_ahead[j, d, u, 1],
                            cat_ahead[j, d, u, 2],
                            cat_ahead[j, d, u, 3],
                            True,
                        )
                    h = 0
                    for q in range(P):
                        i = tile_inst[t, q]
                        s = cur_sums[k, q]
                        cand_pairs[m, q, 0] = -1
                        if i >= 0:
                            g = inst_group[i]
                            s += group_val[g] - cur_vals[k, g]
                            cand_pairs[m, q, 0], cand_pairs[m, q, 1] = g, group_val[g]
                        cand_sums[m, q] = s
                        h = max(h, s)
                else:
                    h = h_full(board, pos, H, scratch, scratch)
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
                    key = h
                    if ranked:
                        cand_lc[m] = cur_lc[k] + conflicts_change(board, H, t, c, b, seq)
                        key = 2 * h + cand_lc[m]
                    cand_key[m] = key
                    cand_par[m] = k
                    cand_cell[m] = c
                    m += 1
        if m == 0:
            return EXHAUSTED, np.zeros(1, dtype=np.int64), generated
        order = _by_key(cand_key, m)
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
            if mode != FULL:
                nxt_vals[kept] = cur_vals[k]
                for q in range(K):
                    if cand_pairs[idx, q, 0] >= 0:
                        nxt_vals[kept, cand_pairs[idx, q, 0]] = cand_pairs[idx, q, 1]
                nxt_sums[kept] = cand_sums[idx]
            nxt_lc[kept] = cand_lc[idx]
            kept += 1
        cur, nxt = nxt, cur
        cur_lc, nxt_lc = nxt_lc, cur_lc
        cur_vals, nxt_vals = nxt_vals, cur_vals
        cur_sums, nxt_sums = nxt_sums, cur_sums
        ncur = kept
    return EXHAUSTED, np.zeros(1, dtype=np.int64), generated
