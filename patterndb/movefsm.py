"""A finite-state machine that prunes duplicate blank-move sequences (Taylor & Korf 1993).

IDA* searches a tree of move sequences, and many of them reach the same state:
undoing the last move is the obvious case, but a blank that circles a 2x2 block
three times, or two routes round a 2x3 block, do as well. This module finds,
by a breadth-first search over blank paths from every start cell, every
minimal *forbidden* path: one whose effect on the board (the permutation of
cells it performs) an earlier path in length-then-direction order already
has. Paths are extended only while they contain no forbidden path, and an
Aho-Corasick automaton over the forbidden paths becomes the machine.

Why it keeps optimality: take, for any state, the first of its shortest
solutions in (length, direction string) order. If it contained a forbidden
path w, replacing w by the earlier path with w's effect would give a solution
that is shorter, or as long and earlier in that order; so it contains none and
the pruned search still finds it. Two paths from one start cell with equal
effect have equal effect on every board, whatever the tiles, so one machine
serves every board of a shape.

A machine state stands for the blank path read so far (the longest suffix of
it that is a prefix of a forbidden path), so it also fixes the blank's cell.
transitions[s, d] is the state after the blank moves in direction d (U, D, L,
R) or -1 when that move leaves the board or completes a forbidden path;
start[c] is the state of a search whose blank starts on cell c. The machine
of depth 2 forbids exactly the immediate undo.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from .jit import njit

from .geometry import Shape

_WORDS = 4  # hash keys: a tag word and three words of 5-bit cells (25 cells at most)


class MoveMachine(NamedTuple):
    """The pruning machine of one board shape, up to forbidden paths of `depth` moves."""

    transitions: np.ndarray  # (states, 4) int32: next state, or -1 = move not allowed
    start: np.ndarray  # (cells,) int32: the state of a search whose blank starts there
    depth: int  # the longest forbidden path searched for, in moves
    forbidden: np.ndarray  # (depth + 1,) int64: forbidden paths found per length


@njit(cache=True, inline="always")
def _hash(key):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in key:
        h = (h ^ w) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(cache=True)
def _slot(keys, used, key):
    """The slot holding key, or the empty slot where it belongs (linear probing)."""
    mask = np.uint64(keys.shape[0] - 1)
    i = _hash(key) & mask
    while used[i]:
        same = True
        for j in range(_WORDS):
            if keys[i, j] != key[j]:
                same = False
                break
        if same:
            return i
        i = (i + np.uint64(1)) & mask
    return i


@njit(cache=True)
def _grow(keys, used):
    big = np.zeros((keys.shape[0] * 2, _WORDS), dtype=np.uint64)
    bused = np.zeros(keys.shape[0] * 2, dtype=np.bool_)
    for i in range(keys.shape[0]):
        if used[i]:
            j = _slot(big, bused, keys[i])
            big[j] = keys[i]
            bused[j] = True
    return big, bused


@njit(cache=True, inline="always")
def _pack(tag, values, count, key):
    """key = (tag, values[0:count] at 5 bits each)."""
    key[:] = 0
    key[0] = np.uint64(tag)
    for i in range(count):
        w = 1 + i // 12
        key[w] |= np.uint64(values[i]) << np.uint64(5 * (i % 12))


@njit(cache=True)
def _search(nbrs, depth):
    """Breadth-first search over blank paths from every cell, all start cells a
    level at a time. Returns the forbidden paths as (cells[m, depth + 1], length[m]) and
    the number of live paths (kept to be extended) per length."""
    n = nbrs.shape[0]
    # the live paths of the current level: their cells and the board they leave
    paths = np.empty((n, depth + 1), dtype=np.int8)
    boards = np.empty((n, n), dtype=np.int8)
    for s in range(n):
        paths[s, 0] = s
        for c in range(n):
            boards[s, c] = c
    seen_k = np.zeros((1 << 12, _WORDS), dtype=np.uint64)  # effects: (start, board)
    seen_u = np.zeros(1 << 12, dtype=np.bool_)
    bad_k = np.zeros((1 << 10, _WORDS), dtype=np.uint64)  # forbidden paths: (length, cells)
    bad_u = np.zeros(1 << 10, dtype=np.bool_)
    seen = 0
    bad = 0
    key = np.zeros(_WORDS, dtype=np.uint64)
    for s in range(n):
        _pack(s, boards[s], n, key)
        i = _slot(seen_k, seen_u, key)
        seen_k[i] = key
        seen_u[i] = True
        seen += 1
    out_cells = np.empty((1024, depth + 1), dtype=np.int8)
    out_len = np.empty(1024, dtype=np.int64)
    nout = 0
    board = np.empty(n, dtype=np.int8)
    live = np.zeros(depth + 1, dtype=np.int64)
    live[0] = n
    for level in range(1, depth + 1):
        m = paths.shape[0]
        nxt_paths = np.empty((4 * m, depth + 1), dtype=np.int8)
        nxt_boards = np.empty((4 * m, n), dtype=np.int8)
        k = 0
        for i in range(m):
            b = paths[i, level - 1]
            for d in range(4):
                c = nbrs[b, d]
                if c < 0:
                    continue
                nxt_paths[k, :level] = paths[i, :level]
                nxt_paths[k, level] = c
                # a proper suffix already forbidden: not minimal, not extended
                pruned = False
                for j in range(1, level - 1):
                    _pack(level - j, nxt_paths[k, j:level + 1], level + 1 - j, key)
                    if bad_u[_slot(bad_k, bad_u, key)]:
                        pruned = True
                        break
                if pruned:
                    continue
                board[:] = boards[i]
                board[b] = board[c]
                board[c] = paths[i, 0]  # the blank is the start cell's label
                _pack(paths[i, 0], board, n, key)
                slot = _slot(seen_k, seen_u, key)
                if seen_u[slot]:  # an earlier path has this effect: forbidden
                    _pack(level, nxt_paths[k], level + 1, key)
                    slot = _slot(bad_k, bad_u, key)
                    bad_k[slot] = key
                    bad_u[slot] = True
                    bad += 1
                    if 2 * bad > bad_k.shape[0]:
                        bad_k, bad_u = _grow(bad_k, bad_u)
                    if nout == out_len.size:
                        more = np.empty((2 * nout, depth + 1), dtype=np.int8)
                        more[:nout] = out_cells
                        out_cells = more
                        more_len = np.empty(2 * nout, dtype=np.int64)
                        more_len[:nout] = out_len
                        out_len = more_len
                    out_cells[nout] = nxt_paths[k]
                    out_len[nout] = level
                    nout += 1
                    continue
                seen_k[slot] = key
                seen_u[slot] = True
                seen += 1
                if 2 * seen > seen_k.shape[0]:
                    seen_k, seen_u = _grow(seen_k, seen_u)
                nxt_boards[k] = board
                k += 1
        paths = nxt_paths[:k].copy()
        boards = nxt_boards[:k].copy()
        live[level] = k
    return out_cells[:nout], out_len[:nout], live


@njit(cache=True)
def _automaton(nbrs, cells, lengths):
    """Aho-Corasick over the forbidden paths; returns (transitions, start), live states only."""
    n = nbrs.shape[0]
    cap = 1 + n + int(lengths.sum())
    child = np.full((cap, 4), -1, dtype=np.int64)
    last = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.bool_)
    for c in range(n):  # node 1 + c: the one-cell path [c]; node 0 is the root
        last[1 + c] = c
    nodes = 1 + n
    for p in range(lengths.size):
        u = 1 + cells[p, 0]
        for j in range(1, lengths[p] + 1):
            a, b = cells[p, j - 1], cells[p, j]
            d = 0
            while nbrs[a, d] != b:
                d += 1
            if child[u, d] < 0:
                child[u, d] = nodes
                last[nodes] = b
                nodes += 1
            u = child[u, d]
        end[u] = True
    fail = np.zeros(nodes, dtype=np.int64)
    delta = np.full((nodes, 4), -1, dtype=np.int64)
    dead = end[:nodes].copy()
    order = np.empty(nodes, dtype=np.int64)  # breadth-first: a node after its failure target
    for c in range(n):
        order[c] = 1 + c
    head, tail = 0, n
    while head < tail:
        u = order[head]
        head += 1
        for d in range(4):
            c = nbrs[last[u], d]
            if c < 0:
                continue
            v = child[u, d]
            f = fail[u]
            via = delta[f, d] if f > 0 else 1 + c  # where the longest proper suffix goes
            if v >= 0:
                fail[v] = via
                dead[v] = dead[v] or dead[via]
                delta[u, d] = v
                order[tail] = v
                tail += 1
            else:
                delta[u, d] = via
    live = np.full(nodes, -1, dtype=np.int64)
    count = 0
    for u in range(1, nodes):
        if not dead[u]:
            live[u] = count
            count += 1
    transitions = np.full((count, 4), -1, dtype=np.int32)
    for u in range(1, nodes):
        if live[u] >= 0:
            for d in range(4):
                v = delta[u, d]
                if v >= 0 and not dead[v]:
                    transitions[live[u], d] = live[v]
    start = np.empty(n, dtype=np.int32)
    for c in range(n):
        start[c] = live[1 + c]
    return transitions, start


_OPPOSITE = (1, 0, 3, 2)  # U<->D, L<->R


def undo_machine(shape: Shape) -> MoveMachine:
    """The machine of depth 2, made directly (no search, no compiled code): state
    5c + d is "the blank is on cell c and came in direction d" (d = 4: the root)."""
    nbrs = shape.neighbours
    n = shape.n
    transitions = np.full((5 * n, 4), -1, dtype=np.int32)
    for c in range(n):
        for came in range(5):
            for d in range(4):
                if nbrs[c, d] >= 0 and (came == 4 or d != _OPPOSITE[came]):
                    transitions[5 * c + came, d] = 5 * nbrs[c, d] + d
    start = np.arange(n, dtype=np.int32) * 5 + 4
    forbidden = np.array([0, 0, int((nbrs >= 0).sum())], dtype=np.int64)
    return MoveMachine(transitions, start, 2, forbidden)


PROBE_DEPTH = 10  # a search this deep takes well under a second on 5x5
SECONDS_PER_PATH = 3e-6  # measured: 1.1-1.7 us per live path on 4x4 and 5x5 at depths 12-16 (2-core VM)


class BuildCost(NamedTuple):
    """What building a machine will take (an estimate that errs high)."""

    paths: int  # live paths over all lengths
    bytes: int  # peak memory of the search
    seconds: float


def build_cost(shape: Shape, depth: int) -> BuildCost:
    """The cost of build(shape, depth), from a search of at most PROBE_DEPTH moves: the live
    paths of the lengths beyond it are extrapolated with the last growth factor seen (which
    only falls with length: 1.95-2.02 per move on 4x4, 2.24-2.31 on 5x5, below 1 once a
    small board's effects run out). Memory: the hash of effects (33 bytes a slot, at least
    twice as many slots as paths, the old and new tables both held while it grows) and the
    longest level's paths with their next level's four times as many."""
    probe = min(depth, PROBE_DEPTH)
    live = [float(x) for x in _search(shape.neighbours, probe)[2]]
    growth = live[-1] / live[-2] if live[-2] else 0.0
    while len(live) <= depth:
        live.append(live[-1] * growth)
    paths = int(sum(live))
    slots = 1 << 12
    while 2 * paths > slots:
        slots *= 2
    row = depth + 1 + shape.n
    level = max((5 * a + b) * row for a, b in zip(live, live[1:]))
    return BuildCost(paths, int(1.5 * 33 * slots + level), SECONDS_PER_PATH * paths)


def build(shape: Shape, depth: int) -> MoveMachine:
    """The machine of this shape that prunes every duplicate path of up to depth moves."""
    if depth < 2:
        raise ValueError(f"the machine's depth must be at least 2 (the undo), got {depth}")
    if depth == 2:
        return undo_machine(shape)
    nbrs = shape.neighbours
    cells, lengths, _ = _search(nbrs, depth)
    transitions, start = _automaton(nbrs, cells, lengths)
    forbidden = np.bincount(lengths, minlength=depth + 1).astype(np.int64)
    return MoveMachine(transitions, start, depth, forbidden)
