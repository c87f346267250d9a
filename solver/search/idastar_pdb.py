"""One IDA* iteration below a subtree root, specialised for additive pattern databases.

This is the hot path of the product. Per move only the moved tile's group
changes, so the kernel keeps each group's current value and the two sums
(regular and diagonally mirrored), updates one entry per move and restores
it on backtrack: two table lookups per node, no copies. It keeps each
group's rank too and steps it per move (rank_steps: a few operations, not a
ranking of the group's tiles; 3-4% less time on the 24-puzzle). The
look-ahead kernel (4x4), which locates both entries of every child on a
node's first visit, gains most: Korf's 100 with 7-8 took 0.73x the kernel
time of ranking each group there (10 passes in turn in one process, the
same nodes). An earlier comparison found rank steps slower there; the
same source compiled twice gives different machine code (4% apart in one
comparison: docs/benchmarks.md), so kernels are compared as two extensions
in one process, pass for pass (aot.open_extension). The
mirrored lookup is skipped when the regular sum alone already prunes the
child. Same contract as idastar.dfs_generic; the driver (parallel.py) runs
the iterations and keeps thresholds on the parity of the solution length.

Most of the time goes to waiting for table entries (a 259 MB table: each
read a cache miss; perf puts 60% of the kernel's samples on the two reads; with
the look-ahead and rank steps, 38% just after the reads and the prefetches).
dfs_pdb_ahead therefore locates the entries of all of a node's children,
regular and mirrored, when the node is first visited and asks the CPU for
them at once (prefetch), so that their reads overlap: Korf's 100 with 7-8
took 21% less search time. On the 24-puzzle the same cost 14% more (the
mirrored entries of children the regular one prunes are located in vain),
and still 6% more once located by rank steps (lines 25 + 32, z6-6-6-6,
two extensions in one process), so 5x5 boards keep dfs_pdb. Both are one function compiled twice, with
look_ahead a constant (no branch left in either). Both ask for the children's
rows of the move-pruning machine on the same first visit (moves.ask_rows).

Having asked for all the children's entries at once, the look-ahead kernel
also reads them at once, judging every child on the first visit, and visits
the survivors lowest f first, then lowest min(regular, mirrored) (the lookup
that did not decide f: the lower, the likelier the child is close to the goal),
then by direction. The iterations before the last visit the same nodes in
another order; the last one meets the goal sooner: Korf's 100 with best took
693,950 expanded nodes instead of 827,205 (the last iterations 300 K
instead of 433 K; by f alone 720 K). dfs_pdb visits the children as it
makes them, so the two agree on every iteration but the last. (On 5x5 the
same order, with a mirrored entry located only for a child the regular one
leaves, took 20% more time for 1-1.5% fewer nodes: not kept.)

On 5x5 a child's two lookups are taken one after the other, the second only
for a child the first leaves, and the first is the side whose sum is the
larger at the parent: a move changes a sum by one and both sums have the
solution's parity, so a side 2 or more below the other cannot prune any
child (lines 25, 37, 1 and 13 with z6-6-6-6: 4-22% of the children
are pruned by the mirrored lookup alone while the regular sum trails; their
regular lookup was wasted). The nodes are the same; search time 0.98x
(two extensions in one process, two sets of 4 passes: the saved reads were off the
critical path, the processor having issued them beside the needed ones).

A flagged zero-aware entry is worth its code's value or 2 more, depending on
the blank's region (a second read and a flood fill). The child is first
judged on the lower value; the region is read only if the child might
survive, or set the next bound, with it: node counts stay the same.
"""

from __future__ import annotations

import numpy as np

from patterndb.bits import prefetch
from patterndb.build.zeroaware import region_inputs, region_raise
from patterndb.jit import njit

from .heuristic import (
    GROUP_K,
    GROUP_OF,
    REFLECT,
    entry_low,
    group_key,
    h_full,
    key_entry,
    lookup_arrays,
)
from .moves import (
    EXHAUSTED,
    FOUND,
    GO_ON,
    MAX_DEPTH,
    NO_BOUND,
    ask_rows,
    first_look,
    look_at_limits,
    settle,
    slide,
)
from .rank_steps import KEY_BITS, rank_step, slide_key, tile_weights


@njit(cache=True, inline="always")
def _child_entry(
    board,
    md,
    offsets,
    packed,
    group_of,
    slot,
    weight,
    refl_tile,
    refl_cell,
    keys,
    mds,
    t,
    c,
    b,
    at,
    reflected,
    zero,
):
    """(group, byte index, Manhattan distance, r) of the entry of tile t's group after t slid
    from cell c into the blank at b: from the group's key and distance (keys[at + g], mds[at +
    g]: regular groups first, then the mirrored ones) and a rank step (rank_steps), not a
    ranking of the group. reflected: t, c and b are the mirror's, at is the number of groups.
    Group -1: the tile is in no group (the rest is then garbage)."""
    # No branch: array reads in a branch here made numba count references on every array
    # for every child (3x slower).
    g = group_of[t]
    key = slide_key(
        keys[at + g],
        rank_step(board, group_of, slot, weight, refl_tile, refl_cell, t, c, b, reflected),
        c,
        b,
        zero,
    )
    index, r = key_entry(offsets, packed, g, key, c, zero)
    return g, index, mds[at + g] + md[t, b] - md[t, c], r


@njit(cache=True, inline="always")
def _ask(table, zinfo, g, index, r, zero):
    """Ask the CPU for group g's entry at index (r: its key_entry word), and for what a
    zero-aware group reads first if the code is flagged (plain groups: byte 0)."""
    prefetch(table, index)
    if zero:
        prefetch(table, zinfo[g, 4] + zinfo[g, 5] * ((r & 0xFFFFFFFF) >> zinfo[g, 6]))


@njit(cache=True, inline="always")
def _judge(table, packed, zinfo, cols, n, g, index, m, r, old, h, depth, bound, nxt, zero):
    """(value, h) of a child whose group g entry was located (index, m, r), h being the
    parent's sum of which old is g's share: the flagged zero-aware entry's region read only
    if the child might survive, or set the next bound, with it (module docstring). No array
    read in the branch (region_inputs)."""
    v, flagged = entry_low(table, packed, zinfo, g, index, m, r, zero)
    inputs = region_inputs(table, zinfo, g)
    h += v - old
    if flagged and not bound < depth + 1 + h >= nxt:  # else pruned, whatever its region
        up = region_raise(inputs, index, r, cols, n)
        v += up
        h += up
    return v, h


def _kernel(look_ahead: bool, zero: bool):
    """The kernel, with or without prefetching the children's entries (see the module
    docstring), for plain tables only or for zero-aware ones too (kernels.key_entry)."""

    @njit(cache=True, nogil=True)
    def dfs_pdb(board_in, pos_in, goal, H, nbrs, fsm, path, state0, d0, bound, budget, stop):
        """Same contract as idastar.dfs_generic, for H of kind PDB."""
        # Private copies: LLVM then knows they do not alias (25% faster than working in place).
        board = board_in.copy()
        pos = pos_in.copy()
        cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        cells[: d0 + 1] = path[: d0 + 1]
        group_of, reflect = H[GROUP_OF], H[REFLECT]
        # Taken out of H once: see kernels.lookup_arrays.
        md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols = (
            lookup_arrays(H)
        )
        G = H[GROUP_K].size
        n = pos.size
        gval = np.empty(G, dtype=np.int64)
        fval = np.zeros(G, dtype=np.int64)
        h_full(board, pos, H, gval, fval)  # fills the per-group values
        # Each group's key and Manhattan distance (regular groups, then mirrored), stepped per
        # move (the look-ahead kernel ranks instead and keeps none).
        slot = np.zeros(n, dtype=np.int64)
        weight = np.zeros(n, dtype=np.int64)
        keys = np.zeros(2 * G, dtype=np.int64)
        mds = np.zeros(2 * G, dtype=np.int64)
        tile_weights(group_tiles, group_k, n, slot, weight)
        for g in range(G):
            keys[g], mds[g] = group_key(
                pos, md, group_tiles, group_k, refl_tile, refl_cell, g, False, zero
            )
            if reflect:
                keys[G + g], mds[G + g] = group_key(
                    pos, md, group_tiles, group_k, refl_tile, refl_cell, g, True, zero
                )
        # the next direction, or the next place in order
        nextdir = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        # the move-pruning machine's state per depth
        states = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        states[d0] = state0
        # group, its old value, key and distance; the same for the mirrored group
        saved = np.empty((MAX_DEPTH + 1, 8), dtype=np.int64)
        hrs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        hfs = np.empty(MAX_DEPTH + 1, dtype=np.int64)
        # Look-ahead, per depth and direction: the child's regular and mirrored entries
        # (_child_entry's quadruples), located on the parent's first visit; then, judged, the
        # survivor's (v, hr1, g2, v2, hf1); and per depth the survivors' directions in the
        # order they are visited, ended by 4.
        A = MAX_DEPTH + 1 if look_ahead else 1
        ahead = np.empty((A, 4, 8), dtype=np.int64)
        judged = np.empty((A, 4, 5), dtype=np.int64)
        order = np.empty((A, 5), dtype=np.int64)
        nxt = NO_BOUND
        expanded = 0
        generated = 0
        look = first_look(budget, stop)
        counted = 0  # expansions reported to the shared meter (moves.METER)
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
                        g, index, m, r = _child_entry(
                            board,
                            md,
                            offsets,
                            packed,
                            group_of,
                            slot,
                            weight,
                            refl_tile,
                            refl_cell,
                            keys,
                            mds,
                            t,
                            c,
                            b,
                            0,
                            False,
                            zero,
                        )
                        (
                            ahead[depth, e, 0],
                            ahead[depth, e, 1],
                            ahead[depth, e, 2],
                            ahead[depth, e, 3],
                        ) = g, index, m, r
                        if g >= 0:
                            _ask(table, zinfo, g, index, r, zero)
                        g2 = -1
                        if reflect:
                            g2, index, m, r = _child_entry(
                                board,
                                md,
                                offsets,
                                packed,
                                group_of,
                                slot,
                                weight,
                                refl_tile,
                                refl_cell,
                                keys,
                                mds,
                                refl_tile[t],
                                refl_cell[c],
                                refl_cell[b],
                                G,
                                True,
                                zero,
                            )
                            ahead[depth, e, 5], ahead[depth, e, 6], ahead[depth, e, 7] = index, m, r
                            if g2 >= 0:
                                _ask(table, zinfo, g2, index, r, zero)
                        ahead[depth, e, 4] = g2
                # Judge all the children now (their entries were asked for together) and visit
                # the survivors lowest f first, then lowest min(hr1, hf1) (the other lookup's
                # guess), then by direction: the last iteration meets the goal sooner (module
                # docstring). The earlier ones visit the same nodes in another order.
                survivors = 0
                for e in range(4):
                    if fsm[states[depth], e] < 0:
                        continue
                    generated += 1
                    g, hr1, v = ahead[depth, e, 0], hrs[depth], 0
                    if g >= 0:
                        v, hr1 = _judge(
                            table,
                            packed,
                            zinfo,
                            cols,
                            n,
                            g,
                            ahead[depth, e, 1],
                            ahead[depth, e, 2],
                            ahead[depth, e, 3],
                            gval[g],
                            hr1,
                            depth,
                            bound,
                            nxt,
                            zero,
                        )
                    f = depth + 1 + hr1
                    g2, hf1, v2 = -1, hfs[depth], 0
                    if f <= bound and reflect:
                        g2 = ahead[depth, e, 4]
                        if g2 >= 0:
                            v2, hf1 = _judge(
                                table,
                                packed,
                                zinfo,
                                cols,
                                n,
                                g2,
                                ahead[depth, e, 5],
                                ahead[depth, e, 6],
                                ahead[depth, e, 7],
                                fval[g2],
                                hf1,
                                depth,
                                bound,
                                nxt,
                                zero,
                            )
                        f = max(f, depth + 1 + hf1)
                    if f > bound or depth + 1 >= MAX_DEPTH:
                        if f < nxt:
                            nxt = f
                        continue
                    judged[depth, e, 0], judged[depth, e, 1], judged[depth, e, 2] = v, hr1, g2
                    judged[depth, e, 3], judged[depth, e, 4] = v2, hf1
                    key = (f * 128 + min(hr1, hf1)) * 4 + e  # (h < 128)
                    i = survivors
                    while i > 0 and order[depth, i - 1] > key:
                        order[depth, i] = order[depth, i - 1]
                        i -= 1
                    order[depth, i] = key
                    survivors += 1
                for i in range(survivors):
                    order[depth, i] &= 3
                order[depth, survivors] = 4
            if look_ahead:
                d = order[depth, d]
            if d == 4:
                if depth > d0:
                    prev = cells[depth - 1]
                    slide(board, pos, board[prev], prev, b)
                    g = saved[depth, 0]
                    if g >= 0:
                        gval[g] = saved[depth, 1]
                        keys[g], mds[g] = saved[depth, 2], saved[depth, 3]
                    g = saved[depth, 4]
                    if g >= 0:
                        fval[g] = saved[depth, 5]
                        keys[G + g], mds[G + g] = saved[depth, 6], saved[depth, 7]
                depth -= 1
                continue
            nextdir[depth] += 1
            s = fsm[states[depth], d]
            if s < 0:  # off the board, an undo, or the end of a duplicate move sequence
                continue
            c = nbrs[b, d]
            t = board[c]
            slide(board, pos, t, c, b)
            if look_ahead:  # judged: a survivor
                g, v, hr1, g2, v2, hf1 = (
                    ahead[depth, d, 0],
                    judged[depth, d, 0],
                    judged[depth, d, 1],
                    judged[depth, d, 2],
                    judged[depth, d, 3],
                    judged[depth, d, 4],
                )
                m, r, m2, r2 = (
                    ahead[depth, d, 2],
                    ahead[depth, d, 3],
                    ahead[depth, d, 6],
                    ahead[depth, d, 7],
                )
            else:
                generated += 1
                # the regular lookup cannot prune: mirrored first
                if reflect and hfs[depth] > hrs[depth]:
                    g2, index2, m2, r2 = _child_entry(
                        board,
                        md,
                        offsets,
                        packed,
                        group_of,
                        slot,
                        weight,
                        refl_tile,
                        refl_cell,
                        keys,
                        mds,
                        refl_tile[t],
                        refl_cell[c],
                        refl_cell[b],
                        G,
                        True,
                        zero,
                    )
                    hf1, v2 = hfs[depth], 0
                    if g2 >= 0:
                        v2, hf1 = _judge(
                            table,
                            packed,
                            zinfo,
                            cols,
                            n,
                            g2,
                            index2,
                            m2,
                            r2,
                            fval[g2],
                            hf1,
                            depth,
                            bound,
                            nxt,
                            zero,
                        )
                    f = depth + 1 + hf1
                    g, hr1, v, m, r = -1, hrs[depth], 0, 0, 0
                    if f <= bound:
                        g, index, m, r = _child_entry(
                            board,
                            md,
                            offsets,
                            packed,
                            group_of,
                            slot,
                            weight,
                            refl_tile,
                            refl_cell,
                            keys,
                            mds,
                            t,
                            c,
                            b,
                            0,
                            False,
                            zero,
                        )
                        if g >= 0:
                            v, hr1 = _judge(
                                table,
                                packed,
                                zinfo,
                                cols,
                                n,
                                g,
                                index,
                                m,
                                r,
                                gval[g],
                                hr1,
                                depth,
                                bound,
                                nxt,
                                zero,
                            )
                        f = max(f, depth + 1 + hr1)
                else:
                    g, index, m, r = _child_entry(
                        board,
                        md,
                        offsets,
                        packed,
                        group_of,
                        slot,
                        weight,
                        refl_tile,
                        refl_cell,
                        keys,
                        mds,
                        t,
                        c,
                        b,
                        0,
                        False,
                        zero,
                    )
                    hr1, v = hrs[depth], 0
                    if g >= 0:
                        v, hr1 = _judge(
                            table,
                            packed,
                            zinfo,
                            cols,
                            n,
                            g,
                            index,
                            m,
                            r,
                            gval[g],
                            hr1,
                            depth,
                            bound,
                            nxt,
                            zero,
                        )
                    f = depth + 1 + hr1
                    g2, hf1, v2, m2, r2 = -1, hfs[depth], 0, 0, 0
                    if f <= bound and reflect:
                        g2, index2, m2, r2 = _child_entry(
                            board,
                            md,
                            offsets,
                            packed,
                            group_of,
                            slot,
                            weight,
                            refl_tile,
                            refl_cell,
                            keys,
                            mds,
                            refl_tile[t],
                            refl_cell[c],
                            refl_cell[b],
                            G,
                            True,
                            zero,
                        )
                        if g2 >= 0:
                            v2, hf1 = _judge(
                                table,
                                packed,
                                zinfo,
                                cols,
                                n,
                                g2,
                                index2,
                                m2,
                                r2,
                                fval[g2],
                                hf1,
                                depth,
                                bound,
                                nxt,
                                zero,
                            )
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
            saved[depth, 4] = g2
            if g >= 0:
                saved[depth, 1] = gval[g]
                gval[g] = v
                saved[depth, 2], saved[depth, 3] = keys[g], mds[g]
                keys[g], mds[g] = r & KEY_BITS, m
            if g2 >= 0:
                saved[depth, 5] = fval[g2]
                fval[g2] = v2
                saved[depth, 6], saved[depth, 7] = keys[G + g2], mds[G + g2]
                keys[G + g2], mds[G + g2] = r2 & KEY_BITS, m2
            if max(hr1, hf1) == 0 and np.array_equal(board, goal):
                path[: depth + 1] = cells[: depth + 1]
                return FOUND, depth, expanded, generated, nxt
            expanded += 1
            if expanded >= look:  # one comparison per node for both the stop flag and the budget
                status, look, counted = look_at_limits(expanded, counted, budget, stop)
                if status != GO_ON:
                    return status, -1, expanded, generated, nxt
        settle(stop, expanded, counted)
        return EXHAUSTED, -1, expanded, generated, nxt

    return dfs_pdb


dfs_pdb = _kernel(False, False)
dfs_pdb_ahead = _kernel(True, False)
dfs_pdb_zero = _kernel(False, True)
dfs_pdb_ahead_zero = _kernel(True, True)
