"""One IDA* iteration below a subtree root, specialised for additive pattern databases.

This is the hot path of the product. Per move only the moved tile's group
changes, so the kernel keeps each group's current value and the two sums
(regular and diagonally mirrored), updates one entry per move and restores
it on backtrack: O(group size) per node, two table lookups, no copies. The
mirrored lookup is skipped when the regular sum alone already prunes the
child. Same contract as idastar.dfs_generic; the driver (parallel.py) runs
the iterations and keeps thresholds on the parity of the solution length.

Most of the time goes to waiting for table entries (a 259 MB table: each
read a cache miss; perf puts 60% of the kernel's samples on the two reads).
dfs_pdb_ahead therefore locates the entries of all of a node's children,
regular and mirrored, when the node is first visited and asks the CPU for
them at once (prefetch), so that their reads overlap: Korf's 100 with 7-8
took 21% less search time. On the 24-puzzle the same cost 14% more (the
mirrored entries of children the regular one prunes are located in vain),
so 5x5 boards keep dfs_pdb. Both are one function compiled twice, with
look_ahead a constant (no branch left in either). Node counts are the same.
Both ask for the children's rows of the move-pruning machine on the same first
visit (moves.ask_rows).

A flagged zero-aware entry is worth its code's value or 2 more, depending on
the blank's region (a second read and a flood fill). The child is first
judged on the lower value; the region is read only if the child might
survive, or set the next bound, with it: node counts stay the same.
"""
from __future__ import annotations

import numpy as np
from patterndb.jit import njit

from patterndb.bits import prefetch
from patterndb.zeroaware import region_inputs, region_raise

from ..heuristics.kernels import entry_low, group_entry, h_full, lookup_arrays
from .moves import FOUND, EXHAUSTED, LIMIT, MAX_DEPTH, NO_BOUND, STOPPED, ask_rows, next_look, slide


@njit(cache=True, inline="always")
def _locate(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols, g, reflected,
            zero, ahead, depth, e, at):
    """Locate group g's entry into ahead[depth, e, at:at + 3] and ask the CPU for it."""
    index, m, r = group_entry(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, packed, zinfo, cols, g,
                              reflected, zero)
    prefetch(table, index)
    if zero:  # and what a zero-aware group reads first if the code is flagged (plain groups: byte 0)
        prefetch(table, zinfo[g, 4] + zinfo[g, 5] * ((r & 0xFFFFFFFF) >> zinfo[g, 6]))
    ahead[depth, e, at], ahead[depth, e, at + 1], ahead[depth, e, at + 2] = index, m, r


@njit(cache=True, inline="always")
def _entry(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, packed, zinfo, cols, g, reflected, zero,
           look_ahead, ahead, depth, e, at):
    """Where group g's entry is (group_entry's triple): as _locate found it, or located now."""
    if look_ahead:
        return ahead[depth, e, at], ahead[depth, e, at + 1], ahead[depth, e, at + 2]
    return group_entry(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, packed, zinfo, cols, g,
                       reflected, zero)


def _kernel(look_ahead: bool, zero: bool):
    """The kernel, with or without prefetching the children's entries (see the module
    docstring), for plain tables only or for zero-aware ones too (kernels.group_entry)."""

    @njit(cache=True, nogil=True)
    def dfs_pdb(board_in, pos_in, goal, H, nbrs, fsm, path, state0, d0, bound, budget, stop):
        """Same contract as idastar.dfs_generic, for H of kind PDB."""
        # Private copies: LLVM then knows they do not alias (25% faster than working in place).
        board = board_in.copy()
        pos = pos_in.copy()
        cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        cells[: d0 + 1] = path[: d0 + 1]
        group_of, reflect = H[5], H[11]
        # Taken out of H once: see kernels.lookup_arrays.
        md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols = lookup_arrays(H)
        G = H[7].size
        n = pos.size
        gval = np.empty(G, dtype=np.int64)
        fval = np.zeros(G, dtype=np.int64)
        h_full(board, pos, H, gval, fval)  # fills the per-group values
        nextdir = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        states = np.empty(MAX_DEPTH + 1, dtype=np.int64)  # the move-pruning machine's state per depth
        states[d0] = state0
        saved = np.empty((MAX_DEPTH + 1, 4), dtype=np.int64)  # group, old value, mirrored group, old value
        hrs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        # Per depth and direction: where the child's regular and mirrored entries are
        # (index, Manhattan distance, rank; twice), located on the parent's first visit.
        ahead = np.empty((MAX_DEPTH + 1 if look_ahead else 1, 4, 6), dtype=np.int64)
        hfs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        nxt = NO_BOUND
        expanded = 0
        generated = 0
        look = next_look(0, budget)
        depth = d0
        nextdir[d0] = 0
        hrs[d0] = gval.sum()
        hfs[d0] = fval.sum()
        rows = fsm.reshape(-1)
        while depth >= d0:
            d = nextdir[depth]
            b = cells[depth]
            if d == 0:
                ask_rows(rows, fsm, states[depth])
            if look_ahead and d == 0:
                for e in range(4):
                    if fsm[states[depth], e] >= 0:
                        c = nbrs[b, e]
                        t = board[c]
                        pos[t] = b  # (the lookups read only the pattern tiles' and the blank's cells)
                        pos[0] = c
                        g = group_of[t]
                        if g >= 0:
                            _locate(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols,
                                    g, False, zero, ahead, depth, e, 0)
                        g2 = group_of[refl_tile[t]] if reflect else -1
                        if g2 >= 0:
                            _locate(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols,
                                    g2, True, zero, ahead, depth, e, 3)
                        pos[t] = c
                        pos[0] = b
            if d == 4:
                if depth > d0:
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
            s = fsm[states[depth], d]
            if s < 0:  # off the board, an undo, or the end of a duplicate move sequence
                continue
            c = nbrs[b, d]
            t = board[c]
            slide(board, pos, t, c, b)
            generated += 1
            g = group_of[t]
            hr1 = hrs[depth]
            v = 0
            if g >= 0:
                index, m, r = _entry(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, packed, zinfo, cols, g,
                                     False, zero, look_ahead, ahead, depth, d, 0)
                v, flagged = entry_low(table, packed, zinfo, g, index, m, r, zero)
                inputs = region_inputs(table, zinfo, g)
                hr1 += v - gval[g]
                if flagged and not bound < depth + 1 + hr1 >= nxt:  # else pruned, whatever its region
                    up = region_raise(inputs, index, r, cols, n)
                    v += up
                    hr1 += up
            f = depth + 1 + hr1
            hf1 = hfs[depth]
            g2 = -1
            v2 = 0
            if f <= bound and reflect:
                g2 = group_of[refl_tile[t]]
                if g2 >= 0:
                    index, m, r = _entry(pos, md, group_tiles, group_k, offsets, refl_tile, refl_cell, packed, zinfo, cols,
                                         g2, True, zero, look_ahead, ahead, depth, d, 3)
                    v2, flagged = entry_low(table, packed, zinfo, g2, index, m, r, zero)
                    inputs = region_inputs(table, zinfo, g2)
                    hf1 += v2 - fval[g2]
                    if flagged and not bound < depth + 1 + hf1 >= nxt:
                        up = region_raise(inputs, index, r, cols, n)
                        v2 += up
                        hf1 += up
                f = max(f, depth + 1 + hf1)
            if f > bound or depth + 1 >= MAX_DEPTH:
                if f < nxt:
                    nxt = f
                slide(board, pos, t, b, c)
                continue
            depth += 1
            cells[depth] = c
            states[depth] = s
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
                path[: depth + 1] = cells[: depth + 1]
                return FOUND, depth, expanded, generated, nxt
            expanded += 1
            if expanded >= look:  # one comparison per node for both the stop flag and the budget
                if stop[0] != 0:
                    return STOPPED, -1, expanded, generated, nxt
                if budget > 0 and expanded >= budget:
                    return LIMIT, -1, expanded, generated, nxt
                look = next_look(expanded, budget)
        return EXHAUSTED, -1, expanded, generated, nxt

    return dfs_pdb


dfs_pdb = _kernel(False, False)
dfs_pdb_ahead = _kernel(True, False)
dfs_pdb_zero = _kernel(False, True)
dfs_pdb_ahead_zero = _kernel(True, True)
