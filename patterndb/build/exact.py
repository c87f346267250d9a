"""Complete exact-distance tables by breadth-first search from the goal.

Index: the rank (see ranking.py) of the positions of tiles 0..n-1, blank
first, in the canonical frame. Value: moves to the goal; 255 = unreachable
(the other parity half). The frontier holds packed boards (4 bits a cell)
so a state is expanded without unranking; each level is expanded by both
cores on separate slices with separate output regions.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import BoardError
from ..jit import njit, prange
from ..puzzle.frame import Frame
from ..puzzle.ranking import rank
from .progress import LevelProgress

UNREACHED = 255
MAX_EXACT_CELLS = 12
_CHUNKS = 64


def pack(tiles: np.ndarray) -> int:
    """A board (cell -> tile, n <= 16) as 4 bits a cell."""
    v = 0
    for c, t in enumerate(tiles):
        v |= int(t) << (4 * c)
    return v


@njit(cache=True)
def _expand_slice(frontier, lo, hi, table, depth, nbrs, n, out, base):
    board = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    m = base
    for i in range(lo, hi):
        s = frontier[i]
        for c in range(n):
            t = (s >> np.uint64(4 * c)) & np.uint64(15)
            board[c] = t
            pos[t] = c
        b = pos[0]
        for d in range(4):
            c = nbrs[b, d]
            if c < 0:
                continue
            t = board[c]
            pos[0] = c
            pos[t] = b
            r = rank(pos, n, n)
            if table[r] == UNREACHED:
                table[r] = depth + 1
                clear = ~(np.uint64(15) << np.uint64(4 * c))
                out[m] = (s & clear) | (np.uint64(t) << np.uint64(4 * b))
                m += 1
            pos[0] = b
            pos[t] = c
    return m - base


@njit(cache=True, parallel=True)
def _expand_level(frontier, count, table, depth, nbrs, n, out, mult, counts):
    """Expand frontier[:count]; chunk j writes its new states at out[lo_j*mult:]."""
    for j in prange(_CHUNKS):
        lo = count * j // _CHUNKS
        hi = count * (j + 1) // _CHUNKS
        counts[j] = _expand_slice(frontier, lo, hi, table, depth, nbrs, n, out, lo * mult)


@njit(cache=True)
def _compact(out, count, mult, counts):
    m = 0
    for j in range(_CHUNKS):
        lo = count * j // _CHUNKS * mult
        for i in range(counts[j]):
            out[m] = out[lo + i]
            m += 1
    return m


def table_size(n: int) -> int:
    return math.factorial(n)


def check_exact_size(frame: Frame) -> None:
    n = frame.shape.n
    if n > MAX_EXACT_CELLS:
        raise BoardError(
            f"a complete table for {frame.shape} would have {table_size(n):,} entries; "
            f"exact tables go up to {MAX_EXACT_CELLS} cells: use pattern databases (pdb build --pattern ...)"
        )


def build_exact(frame: Frame, progress: bool = False) -> tuple[np.ndarray, float]:
    """BFS over the whole state space. Returns (table, seconds)."""
    check_exact_size(frame)
    shape = frame.shape
    n = shape.n
    start = time.perf_counter()
    table = np.full(table_size(n), UNREACHED, dtype=np.uint8)
    goal = frame.canonical_goal
    table[rank(goal.positions(), n, n)] = 0
    frontier = np.array([pack(goal.tiles)], dtype=np.uint64)
    count, depth, done = 1, 0, 1
    counts = np.zeros(_CHUNKS, dtype=np.int64)
    bar = LevelProgress(f"exact {shape}", table.size // 2) if progress else None
    while count:
        mult = 4 if depth == 0 else 3  # every state beyond the goal has its parent visited
        out = np.empty(count * mult, dtype=np.uint64)
        _expand_level(frontier, count, table, depth, shape.neighbours, n, out, mult, counts)
        count = _compact(out, count, mult, counts)
        frontier = out
        depth += 1
        done += count
        if bar:
            bar.level(depth, done, count)
    seconds = time.perf_counter() - start
    if bar:
        bar.done(seconds)
    return table, seconds


@njit(cache=True)
def value_counts(table):
    """Entries per byte value, without np.bincount's cast of the whole table to intp."""
    counts = np.zeros(256, dtype=np.int64)
    for v in table:
        counts[v] += 1
    return counts


def histogram(table: np.ndarray) -> np.ndarray:
    """Entries per value (unreachable entries excluded), up to the largest value."""
    counts = value_counts(table)
    last = int(np.flatnonzero(counts[:UNREACHED])[-1])
    return counts[: last + 1]


def histogram_mean(hist: np.ndarray) -> float:
    return float((hist * np.arange(hist.size)).sum() / hist.sum())
