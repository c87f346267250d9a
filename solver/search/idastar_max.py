"""One IDA* iteration below a subtree root for a catalogue: the maximum over several
additive partitions (a partition's diagonal mirror is one of them: its transposed
groups, patterndb.puzzle.symmetry.mirrored).

Like idastar_pdb, but every partition keeps its own sum. Each (partition,
group) pair is an instance; a move changes one instance per partition (the
moved tile's group there), so a node costs a lookup per partition, taken in
order until one of them prunes the child (put the strongest partition first).
A group in several partitions (Clausecker & Reinefeld's catalogues hold each
group in two to three of their sums, mirrors included) is read once a child
and its value kept once. A child that the first AHEAD sums leave will most
likely need every other sum (it survives unless one prunes it): their entries
are located and asked for at once (prefetch), so that the cache misses of a
surviving child overlap instead of following each other. Every group is read
through its cell map (kernels.mapped_entry): from its own table, or from
another group's under a board symmetry, so a table serves every group
symmetric to it (a mirrored group too) with one lookup code and no test per
tile. Tables shared by two
partitions are stored once (instances point at the same table). A node's
first visit asks for its children's rows of the move-pruning machine
(moves.ask_rows). A flagged zero-aware entry's region is read only where the
child might survive without it (as in idastar_pdb). Same contract as
idastar.dfs_generic.

Tried and not kept (docs/benchmarks.md): taking first only the partitions whose sum at the
parent lets them prune the child (the same nodes, 21% fewer reads, all of them pruned
children's: 1.07x the time compiled ahead of time), and reading a partition only when it
may prune, keeping an upper bound for the groups not read (the reads again come one after
the other: 1.1-1.7x the time, and a value can rise by more than one a move, so some
prunes are missed).

The lookups are written out in the partition loop rather than called through an
inlined helper that returned early for partitions the move leaves alone: with
that helper numba kept a reference count on each of the ten lookup arrays per
call (perf: 76% of the time in NRT_incref/NRT_decref), and line 40 of
Korf & Felner's 50 with 6-6-6-6 + its pinwheel took 14.0 s instead of 2.7 s.
"""

from __future__ import annotations

import numpy as np

from patterndb.bits import prefetch
from patterndb.build.zeroaware import region_inputs, region_raise
from patterndb.jit import njit

from .heuristic import (
    CELLMAP,
    INST_GROUP,
    PART_OF,
    TILE_INST,
    entry_low,
    h_full,
    lookup_arrays,
    mapped_entry,
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

AHEAD = 2  # sums read one by one before the rest's entries are asked for together


@njit(cache=True, nogil=True)
def dfs_max(board_in, pos_in, goal, H, nbrs, fsm, path, state0, d0, bound, budget, stop):
    """Same contract as idastar.dfs_generic, for H of kind PDB_MAX."""
    board = board_in.copy()
    pos = pos_in.copy()
    cells = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    cells[: d0 + 1] = path[: d0 + 1]
    tile_inst, inst_group, part_of, cellmap = H[TILE_INST], H[INST_GROUP], H[PART_OF], H[CELLMAP]
    md, group_tiles, group_k, offsets, _, _, table, packed, zinfo, cols = lookup_arrays(H)
    P = tile_inst.shape[1]
    n = pos.size
    NI = inst_group.size
    G = group_k.size
    ival = np.empty(NI, dtype=np.int64)
    h_full(board, pos, H, ival, ival)
    # each group's value (its instances in several sums share it)
    gval = np.empty(G, dtype=np.int64)
    hr = np.zeros((MAX_DEPTH + 1, P), dtype=np.int64)  # per depth: each partition's sum
    for i in range(NI):
        hr[d0, part_of[i]] += ival[i]
        gval[inst_group[i]] = ival[i]
    saved = np.empty((MAX_DEPTH + 1, P), dtype=np.int64)  # the moved tile's groups' old values
    nr = np.empty(P, dtype=np.int64)  # the child's new values of those groups
    # A group in several sums is read once a child: which child read it last (its number
    # among those generated), and what it read: (index, r, value without the region's part,
    # flagged, the region's part or -1 while not read).
    seen = np.full(G, -1, dtype=np.int64)
    # (and its Manhattan distance, while located and not read)
    got = np.empty((G, 6), dtype=np.int64)
    located = np.full(G, -1, dtype=np.int64)  # which child located the group's entry last
    states = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    states[d0] = state0
    nextdir = np.empty(MAX_DEPTH + 1, dtype=np.int64)
    nxt = NO_BOUND
    expanded = 0
    generated = 0
    look = first_look(budget, stop)
    counted = 0  # expansions reported to the shared meter (moves.METER)
    depth = d0
    nextdir[d0] = 0
    rows = fsm.reshape(-1)
    while depth >= d0:
        d = nextdir[depth]
        b = cells[depth]
        if d == 0:
            ask_rows(rows, fsm, states[depth])
        if d == 4:
            if depth > d0:
                prev = cells[depth - 1]
                t = board[prev]
                slide(board, pos, t, prev, b)
                for p in range(P):
                    i = tile_inst[t, p]
                    if i >= 0:
                        gval[inst_group[i]] = saved[depth, p]
            depth -= 1
            continue
        nextdir[depth] = d + 1
        s = fsm[states[depth], d]
        if s < 0:
            continue
        c = nbrs[b, d]
        t = board[c]
        slide(board, pos, t, c, b)
        generated += 1
        # Partitions in order until one prunes the child (unless the child may set the
        # next bound: that takes the whole maximum).
        best = 0
        for p in range(P):
            # the first sums left the child: it likely needs every one, so ask for them at once
            if p == AHEAD:
                for q in range(AHEAD, P):
                    j = tile_inst[t, q]
                    if j >= 0:
                        h = inst_group[j]
                        if located[h] != generated:
                            located[h] = generated
                            index, m, r = mapped_entry(
                                pos, md, group_tiles, group_k, offsets, cellmap, packed, h, True
                            )
                            got[h, 0], got[h, 1], got[h, 5] = index, r, m
                            prefetch(table, index)
                            # and what a zero-aware group reads first if the code is flagged
                            prefetch(
                                table, zinfo[h, 4] + zinfo[h, 5] * ((r & 0xFFFFFFFF) >> zinfo[h, 6])
                            )
            i = tile_inst[t, p]
            v = hr[depth, p]
            if i >= 0:
                g = inst_group[i]
                if seen[g] != generated:
                    seen[g] = generated
                    if located[g] != generated:
                        located[g] = generated
                        index, m, r = mapped_entry(
                            pos, md, group_tiles, group_k, offsets, cellmap, packed, g, True
                        )
                        got[g, 0], got[g, 1], got[g, 5] = index, r, m
                    low, flagged = entry_low(
                        table, packed, zinfo, g, got[g, 0], got[g, 5], got[g, 1], True
                    )
                    got[g, 2], got[g, 3], got[g, 4] = low, flagged, -1
                low = got[g, 2]
                inputs = region_inputs(table, zinfo, g)
                v += low - gval[g]
                # else pruned, whatever the region
                if got[g, 3] and not bound < depth + 1 + max(best, v) >= nxt:
                    if got[g, 4] < 0:
                        got[g, 4] = region_raise(inputs, got[g, 0], got[g, 1], cols, n)
                    low += got[g, 4]
                    v += got[g, 4]
                nr[p] = low
            hr[depth + 1, p] = v
            best = max(best, v)
            if bound < depth + 1 + best >= nxt:  # pruned, and cannot lower the next bound
                break
        f = depth + 1 + best
        if f > bound or depth + 1 >= MAX_DEPTH:
            if f < nxt:
                nxt = f
            slide(board, pos, t, b, c)
            continue
        depth += 1
        cells[depth] = c
        states[depth] = s
        nextdir[depth] = 0
        for p in range(P):
            i = tile_inst[t, p]
            if i >= 0:
                g = inst_group[i]
                saved[depth, p] = gval[g]
        for p in range(P):  # (after all are saved: a group in two sums is saved before it changes)
            i = tile_inst[t, p]
            if i >= 0:
                gval[inst_group[i]] = nr[p]
        if best == 0 and np.array_equal(board, goal):
            path[: depth + 1] = cells[: depth + 1]
            return FOUND, depth, expanded, generated, nxt
        expanded += 1
        if expanded >= look:
            status, look, counted = look_at_limits(expanded, counted, budget, stop)
            if status != GO_ON:
                return status, -1, expanded, generated, nxt
    settle(stop, expanded, counted)
    return EXHAUSTED, -1, expanded, generated, nxt
