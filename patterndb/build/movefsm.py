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

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from ..jit import njit
from ..puzzle.geometry import Shape
from . import handout
from .release import give_back_freed_memory


class MoveMachine(NamedTuple):
    """The pruning machine of one board shape, up to forbidden paths of `depth` moves."""

    transitions: np.ndarray  # (states, 4) int32: next state, or -1 = move not allowed
    start: np.ndarray  # (cells,) int32: the state of a search whose blank starts there
    depth: int  # the longest forbidden path searched for, in moves
    forbidden: np.ndarray  # (depth + 1,) int64: forbidden paths found per length


# an effects hash grows once filled past FILL/OF (whole numbers: the kernel compares ints),
# by a GROW-th of its slots: its memory follows its entries closely
FILL, OF = 7, 10
GROW = 4
SLOTS = 256  # a new hash's slots (a hash a start cell)
# an empty hash slot: no effect's key is (0, 0), as no two cells hold the same label
_EMPTY = np.uint64(0)


@njit(cache=True, inline="always")
def _hash(k0, k1):
    h = (k0 ^ np.uint64(0x9E3779B97F4A7C15)) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(31)
    h = (h ^ k1) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(29)
    return h


@njit(cache=True, inline="always")
def _find(keys, k0, k1):
    """The slot holding (k0, k1), or the empty slot where it belongs (linear probing from
    the slot the hash's top 32 bits scale to: any number of slots, below 2^32)."""
    size = np.uint64(keys.shape[0])
    i = ((_hash(k0, k1) >> np.uint64(32)) * size) >> np.uint64(32)
    while True:
        a, b = keys[i, 0], keys[i, 1]
        if (a == k0 and b == k1) or (a == _EMPTY and b == _EMPTY):
            return i
        i += np.uint64(1)
        if i == size:
            i = np.uint64(0)


@njit(cache=True, inline="always")
def _taken(keys, slot):
    return keys[slot, 0] != _EMPTY or keys[slot, 1] != _EMPTY


@njit(cache=True)
def _grow(keys, slots=0):
    """The hash with its keys in `slots` slots (0: a GROW-th more than now)."""
    big = np.zeros((slots or keys.shape[0] + keys.shape[0] // GROW, 2), dtype=np.uint64)
    for i in range(keys.shape[0]):
        if _taken(keys, i):
            j = _find(big, keys[i, 0], keys[i, 1])
            big[j, 0], big[j, 1] = keys[i, 0], keys[i, 1]
    return big


@njit(cache=True, inline="always")
def _put(keys, slot, k0, k1, stored):
    """Store (k0, k1) in the empty slot _find gave; returns (the hash, grown once it is
    filled past FILL/OF, and its count)."""
    keys[slot, 0], keys[slot, 1] = k0, k1
    stored += 1
    if OF * stored > FILL * keys.shape[0]:
        keys = _grow(keys)
    return keys, stored


@njit(cache=True, inline="always")
def _move(code, i):
    """The i-th move (0 U, 1 D, 2 L, 3 R) of a path code: its start cell in bits 0-4, then 2 bits a move."""
    return np.int64((code >> np.uint64(5 + 2 * i)) & np.uint64(3))


@njit(cache=True, inline="always")
def _field(p):
    """(word, shift) of cell p's 5-bit label in an effect's key; cell 24 is left out (a
    permutation's last label follows from the others), so word 2 means "not kept"."""
    return p // 12, np.uint64(5 * (p % 12))


@njit(cache=True, inline="always")
def _set(k0, k1, p, old, new):
    """The key with cell p's label changed from old to new."""
    w, sh = _field(p)
    x = np.uint64(old ^ new) << sh
    if w == 0:
        return k0 ^ x, k1
    if w == 1:
        return k0, k1 ^ x
    return k0, k1


@njit(cache=True)
def _replay(nbrs, code, length, board, tf, af):
    """Walk the path code (start cell in bits 0-4, then 2 bits a move) on an identity
    board: leaves the board it makes in board; returns (end cell, state in the automaton
    (tf, af), key of (start, board))."""
    n = nbrs.shape[0]
    s = np.int64(code & np.uint64(31))
    for c in range(n):
        board[c] = c
    cell, state = s, af[s]
    for i in range(length):
        d = _move(code, i)
        c = nbrs[cell, d]
        board[cell] = board[c]
        board[c] = s
        cell = c
        state = tf[state, d]
    k0 = np.uint64(s & 15) << np.uint64(60)
    k1 = np.uint64(s >> 4) << np.uint64(60)
    for p in range(min(n, 24)):
        k0, k1 = _set(k0, k1, p, 0, board[p])
    return cell, state, k0, k1


@njit(cache=True, nogil=True)
def _start(nbrs, s, tf, af):
    """The hash of start cell s's effects, holding the empty path's (the identity board)."""
    keys = np.zeros((SLOTS, 2), dtype=np.uint64)
    board = np.empty(nbrs.shape[0], dtype=np.int64)
    _, _, k0, k1 = _replay(nbrs, np.uint64(s), 0, board, tf, af)
    keys, _ = _put(keys, _find(keys, k0, k1), k0, k1, 0)
    return keys


@njit(cache=True, nogil=True)
def _extend(nbrs, codes, level, last, keys, stored, tf, af, expect):
    """Extend one start cell's live paths of level - 1 moves by a move each, in code order.

    A child whose effect (board) an earlier path of this start cell already has is
    forbidden; the others are live and their effects stored (on the last level, in a hash
    of their own: no level comes after). Returns (the live children's codes, keys and
    stored, the forbidden paths as cells[m, level + 1] and the last level's live count).
    Effects from different start cells never meet (a key holds its start cell), so start
    cells are extended side by side. expect: the live children foreseen, room made for them
    at once (one copy of the hash, not one a GROW-th at a time)."""
    n = nbrs.shape[0]
    if not last and OF * (stored + expect) > FILL * keys.shape[0]:
        keys = _grow(keys, OF * (stored + expect) // FILL + 1)
    board = np.empty(n, dtype=np.int64)
    m = codes.shape[0]
    nxt = np.empty(0 if last else 4 * m, dtype=np.uint64)
    mine = np.zeros((max(SLOTS, OF * expect // FILL + 1) if last else 1, 2), dtype=np.uint64)
    mine_stored = 0
    out = np.empty((16, level + 1), dtype=np.int8)
    nout = 0
    k = 0
    for i in range(m):
        code = codes[i]
        s = np.int64(code & np.uint64(31))
        b, state, p0, p1 = _replay(nbrs, code, level - 1, board, tf, af)
        for d in range(4):
            c = nbrs[b, d]
            if c < 0 or tf[state, d] < 0:  # off the board, or a proper suffix is forbidden
                continue
            k0, k1 = _set(p0, p1, b, s, board[c])  # the blank (labelled s) and the tile on c swap
            k0, k1 = _set(k0, k1, c, board[c], s)
            child = code | (np.uint64(d) << np.uint64(5 + 2 * (level - 1)))
            slot = _find(keys, k0, k1)
            seen = _taken(keys, slot)
            if last and not seen:
                slot = _find(mine, k0, k1)
                seen = _taken(mine, slot)
            if seen:  # an earlier path has this effect: forbidden
                if nout == out.shape[0]:
                    more = np.empty((2 * nout, level + 1), dtype=np.int8)
                    more[:nout] = out
                    out = more
                cell = s
                out[nout, 0] = cell
                for j in range(level):
                    cell = nbrs[cell, _move(child, j)]
                    out[nout, j + 1] = cell
                nout += 1
                continue
            k += 1
            if last:
                mine, mine_stored = _put(mine, slot, k0, k1, mine_stored)
                continue
            keys, stored = _put(keys, slot, k0, k1, stored)
            nxt[k - 1] = child
    return nxt[:k].copy(), keys, stored, out[:nout].copy(), k


def _search(nbrs: np.ndarray, depth: int, threads: int | None = None):
    """Breadth-first search over blank paths from every cell, a level at a time. Returns
    the forbidden paths as (cells[m, depth + 1], length[m]), the number of live paths
    (kept to be extended) per length, and the most live paths of the last length from one
    start cell.

    A path is a 64-bit code (its start cell, then 2 bits a move) and its board is
    replayed from it when it is extended; its effect is a 128-bit key (the start cell and
    24 cells' labels) in an open-addressing hash per start cell. A path is extended only
    if no proper suffix is forbidden: each level's Aho-Corasick automaton over the
    forbidden paths found so far (all shorter than the level) answers that with one
    transition a move. Each level's start cells are extended on `threads` threads (the
    kernels run without the GIL; default: numba's, as a table's build), their forbidden
    paths taken in start-cell order: the paths, and so the machine, are those of one
    thread."""
    nbrs = np.ascontiguousarray(nbrs, dtype=np.int64)
    n = nbrs.shape[0]
    found_cells = [np.zeros((0, depth + 1), dtype=np.int8)]
    found_len = [np.zeros(0, dtype=np.int64)]
    tf, af = _automaton(nbrs, found_cells[0], found_len[0])
    keys = [_start(nbrs, s, tf, af) for s in range(n)]
    stored = [1] * n
    codes = [np.array([s], dtype=np.uint64) for s in range(n)]
    live = np.zeros(depth + 1, dtype=np.int64)
    live[0] = n
    widest = 0  # the most last-level paths of one start cell
    grew = [1.0] * n  # each start cell's last growth in live paths a level
    with ThreadPoolExecutor(threads or handout.threads()) as pool:
        for level in range(1, depth + 1):
            last = level == depth

            def extend(s, level=level, last=last, tf=tf, af=af):
                m = len(codes[s])
                nxt, keys[s], stored[s], out, k = _extend(
                    nbrs, codes[s], level, last, keys[s], stored[s], tf, af, int(m * grew[s])
                )
                codes[s] = nxt  # (the parents' codes go at once)
                grew[s] = k / m if m else 0.0
                return out, k

            new = 0
            for out, k in handout.hand_out(
                extend, n, pool
            ):  # (Ctrl-C: no start cell begins after it)
                live[level] += k
                if last:
                    widest = max(widest, k)
                if len(out):
                    padded = np.zeros((len(out), depth + 1), dtype=np.int8)
                    padded[:, : level + 1] = out
                    found_cells.append(padded)
                    found_len.append(np.full(len(out), level, dtype=np.int64))
                    new += len(out)
            if new and not last:
                tf, af = _automaton(nbrs, np.concatenate(found_cells), np.concatenate(found_len))
    return np.concatenate(found_cells), np.concatenate(found_len), live, widest


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
# CPU a live path, measured: 0.17-0.32 us on 4x4 and 5x5 at depths 14-16 (2-core VM); doubled
SECONDS_PER_PATH = 0.6e-6
NODE_BYTES = 120  # the automaton's arrays per trie node (a forbidden path's move), at most


class BuildCost(NamedTuple):
    """What building a machine will take (an estimate that errs high)."""

    paths: int  # live paths over all lengths
    bytes: int  # peak memory of the search
    seconds: float


def _hash_bytes(entries: float, hashes: int = 1) -> int:
    """The most bytes `hashes` hashes of 16-byte slots holding entries between them can take
    (each just grown, GROW slots for every GROW - 1 filled to FILL/OF)."""
    return int(16 * (entries * OF * (GROW + 1) / (FILL * GROW) + hashes * SLOTS))


def build_cost(shape: Shape, depth: int) -> BuildCost:
    """The cost of build(shape, depth), from a search of at most PROBE_DEPTH moves: the live
    paths of the lengths beyond it are extrapolated with the last growth factor seen (which
    only falls with length: 1.95-2.02 per move on 4x4, 2.24-2.31 on 5x5, below 1 once a
    small board's effects run out), and so are the share of the last length's paths that
    one start cell holds (it falls with length) and the forbidden paths per live path.
    Memory, all added up: the hashes of the effects of every length but the last, the last
    length's hash of one start cell a thread, the hashes of one start cell a thread while
    they grow (a start cell holds at most twice its share), two levels of 8-byte path
    codes (4 a parent), and the automaton over the forbidden paths."""
    probe = min(depth, PROBE_DEPTH)
    _, lengths, counts, widest = _search(shape.neighbours, probe)
    live = [float(x) for x in counts]
    growth = live[-1] / live[-2] if live[-2] else 0.0
    share = widest / live[-1] if live[-1] else 1.0
    forbidden = float((lengths == probe).sum()) / live[-1] if live[-1] else 0.0
    while len(live) <= depth:
        live.append(live[-1] * growth)
    paths = int(sum(live))
    n, threads = shape.n, handout.threads()
    kept = sum(live[:depth])
    hashes = _hash_bytes(kept, n) + threads * (
        _hash_bytes(share * live[depth]) + 2 * _hash_bytes(2 * kept / n)
    )
    levels = max(32 * (a + b) for a, b in zip([0.0] + live, live[:depth]))
    automaton = NODE_BYTES * depth * (forbidden * live[depth] + len(lengths))
    return BuildCost(paths, int(hashes + levels + automaton), SECONDS_PER_PATH * paths / threads)


def build(shape: Shape, depth: int) -> MoveMachine:
    """The machine of this shape that prunes every duplicate path of up to depth moves."""
    if depth < 2:
        raise ValueError(f"the machine's depth must be at least 2 (the undo), got {depth}")
    if depth == 2:
        return undo_machine(shape)
    nbrs = shape.neighbours
    give_back_freed_memory()
    cells, lengths, _, _ = _search(nbrs, depth)
    transitions, start = _automaton(nbrs, cells, lengths)
    forbidden = np.bincount(lengths, minlength=depth + 1).astype(np.int64)
    return MoveMachine(transitions, start, depth, forbidden)
