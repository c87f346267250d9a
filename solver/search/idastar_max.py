"""One IDA* iteration below a subtree root for a catalogue: the maximum over several
additive partitions (a partition's diagonal mirror is one of them: its transposed
groups, patterndb.puzzle.symmetry.mirrored).

Like idastar_pdb, but every partition keeps its own sum. Each (partition,
group) pair is an instance; a move changes one instance per partition (the
moved tile's group there). A group in several partitions (Clausecker &
Reinefeld's catalogues hold each group in two to three of their sums, mirrors
included) is one slot of the moved tile: it is read once a child, its value kept
once, and each partition's sum changes by its slot's change (tile_slots). A child
is judged in three stages, each only where the one before leaves it open (it
survives, or may set the next bound): the groups of the first AHEAD partitions
(put the strongest partition first), read one by one, since most pruned children
are pruned there; then every other group, located and asked for at once
(prefetch) so that the cache misses of a surviving child overlap instead of
following each other; last the regions of flagged zero-aware entries (as in
idastar_pdb), after which the child's sums are exact. Every group is read through
its cell map (kernels.mapped_entry): from its own table, or from another group's
under a board symmetry, so a table serves every group symmetric to it (a mirrored
group too) with one lookup code and no test per tile. Tables shared by two
partitions are stored once (instances point at the same table). A node's first
visit asks for its children's rows of the move-pruning machine (moves.ask_rows).
Same contract as idastar.dfs_generic.

Tried and not kept (docs/benchmarks.md): taking first only the partitions whose sum at the
parent lets them prune the child (the same nodes, 21% fewer reads, all of them pruned
children's: 1.07x the time compiled ahead of time); reading a partition only when it
may prune, keeping an upper bound for the groups not read (the reads again come one after
the other: 1.1-1.7x the time, and a value can rise by more than one a move, so some
prunes are missed); keeping each group's rank incrementally, and asking at a node's
first visit for its children's first entries (no gain: the time goes to the tables'
cache misses, about ten lines a surviving child, not to computing where they are).

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
def tile_slots(tile_inst, inst_group):
    """Per tile, the distinct groups that hold it (its slots, in the order the partitions
    first name them: slots[t, :nslot[t]]), each partition's slot for it (pslot[t, p]; the
    spare slot S = slots.shape[1] where a partition leaves the tile out: its change stays 0),
    and how many slots the first AHEAD partitions need (ahead[t])."""
    n, P = tile_inst.shape
    slots = np.full((n, max(P, 1)), -1, dtype=np.int64)
    nslot = np.zeros(n, dtype=np.int64)
    pslot = np.empty((n, P), dtype=np.int64)
    ahead = np.zeros(n, dtype=np.int64)
    for t in range(n):
        for p in range(P):
            i = tile_inst[t, p]
            if i < 0:
                pslot[t, p] = -1
                continue
            g = inst_group[i]
            k = 0
            while k < nslot[t] and slots[t, k] != g:
                k += 1
            if k == nslot[t]:
                slots[t, k] = g
                nslot[t] += 1
            pslot[t, p] = k
            if p < AHEAD:
                ahead[t] = max(ahead[t], k + 1)
    S = max(nslot.max(), 1)
    for t in range(n):
        for p in range(P):
            if pslot[t, p] < 0:
                pslot[t, p] = S
    return slots[:, :S].copy(), nslot, pslot, ahead


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
    A = min(AHEAD, P)
    n = pos.size
    NI = inst_group.size
    G = group_k.size
    slots, nslot, pslot, ahead = tile_slots(tile_inst, inst_group)
    S = slots.shape[1]
    ival = np.empty(NI, dtype=np.int64)
    h_full(board, pos, H, ival, ival)
    # each group's value (its instances in several sums share it)
    gval = np.empty(G, dtype=np.int64)
    hr = np.zeros((MAX_DEPTH + 1, P), dtype=np.int64)  # per depth: each partition's sum
    for i in range(NI):
        hr[d0, part_of[i]] += ival[i]
        gval[inst_group[i]] = ival[i]
    saved = np.empty((MAX_DEPTH + 1, S), dtype=np.int64)  # the moved tile's groups' old values
    # the child being judged, per slot of the moved tile: its group's entry (byte index, r,
    # Manhattan distance), value (without a flagged entry's region part until read), whether
    # flagged, and the change of the value; delta[S] stays 0 (partitions without the tile)
    sidx = np.empty(S, dtype=np.int64)
    sr = np.empty(S, dtype=np.int64)
    sm = np.empty(S, dtype=np.int64)
    slow = np.empty(S, dtype=np.int64)
    sfl = np.zeros(S, dtype=np.bool_)
    delta = np.zeros(S + 1, dtype=np.int64)
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
                for k in range(nslot[t]):
                    gval[slots[t, k]] = saved[depth, k]
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
        K = nslot[t]
        a = ahead[t]
        # The first partitions' groups one by one: most pruned children are pruned there.
        for k in range(a):
            g = slots[t, k]
            index, m, r = mapped_entry(
                pos, md, group_tiles, group_k, offsets, cellmap, packed, g, True
            )
            low, flagged = entry_low(table, packed, zinfo, g, index, m, r, True)
            sidx[k], sr[k], slow[k], sfl[k] = index, r, low, flagged
            delta[k] = low - gval[g]
        best = 0
        for p in range(A):
            best = max(best, hr[depth, p] + delta[pslot[t, p]])
        # (pruned, and cannot lower the next bound: the rest need not be read)
        if not bound < depth + 1 + best >= nxt:
            # The child likely needs every other group: located and asked for at once, so
            # that their cache misses overlap, with the first read of a flagged code's region.
            for k in range(a, K):
                g = slots[t, k]
                index, m, r = mapped_entry(
                    pos, md, group_tiles, group_k, offsets, cellmap, packed, g, True
                )
                sidx[k], sr[k], sm[k] = index, r, m
                prefetch(table, index)
                prefetch(table, zinfo[g, 4] + zinfo[g, 5] * ((r & 0xFFFFFFFF) >> zinfo[g, 6]))
            for k in range(a, K):
                g = slots[t, k]
                low, flagged = entry_low(table, packed, zinfo, g, sidx[k], sm[k], sr[k], True)
                slow[k], sfl[k] = low, flagged
                delta[k] = low - gval[g]
            best = 0
            for p in range(P):
                best = max(best, hr[depth, p] + delta[pslot[t, p]])
            # Flagged entries' regions only where the child survives their lower values (or
            # may set the next bound): then its sums must be exact.
            if not bound < depth + 1 + best >= nxt:
                for k in range(K):
                    if sfl[k]:
                        inputs = region_inputs(table, zinfo, slots[t, k])
                        x = region_raise(inputs, sidx[k], sr[k], cols, n)
                        slow[k] += x
                        delta[k] += x
                best = 0
                for p in range(P):
                    v = hr[depth, p] + delta[pslot[t, p]]
                    hr[depth + 1, p] = v
                    best = max(best, v)
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
        for k in range(K):
            g = slots[t, k]
            saved[depth, k] = gval[g]
            gval[g] = slow[k]
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
