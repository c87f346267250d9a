"""Additive tables whose blank may be anywhere: for groups too sparse for blank regions.

additive.py keeps, per placement of a group's tiles, which region of the other cells
the blank is in, in a 64-bit word of 2-bit fields: at most 32 non-pattern cells. On
6x6 and 7x7 a group of a few tiles leaves more, and on such an open board the tiles
rarely cut it into regions at all. This abstraction forgets the blank: a pattern tile
moves, at cost 1, to any neighbouring cell no other pattern tile holds (the blank is
taken to be there for free). Every real move of a pattern tile is such a move and every
other real move costs 0, so the fewest moves here are at most the real pattern-tile
moves: the tables add up admissibly over disjoint groups, as additive.py's do (Korf &
Felner 2002 built their first additive tables this way). Values are never above the
region-aware table's, which takes the blank's region into account.

The search is a plain BFS over ranks (one byte each, the table itself): each level
scans the table for its own distance and writes the next one into unreached
neighbours. Threads share the table without locks: two threads that reach one
placement write the same value.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ..bits import address, load_u64, prefetch
from ..jit import njit
from ..puzzle.ranking import num_placements, rank, unrank
from .additive import moved_rank
from .exact import UNREACHED
from .handout import hand_out, threads
from .progress import LevelProgress

CHUNK = 1 << 16  # the fewest ranks of a piece a thread takes at a time
PIECES = 256  # the most pieces a level is cut into


@njit(cache=True, nogil=True)
def _expand_chunk(dist, start, end, level, k, n, nbrs, weights, pos, occ):
    """Expand the placements of distance level in ranks [start, end); returns how many there were.

    A placement's moves land all over the table, far beyond the caches for 5 tiles on
    49 cells: their entries are asked for (prefetch) when the moves are made and read
    and written one placement later, so the waits for memory overlap."""
    seen = 0
    # the ranks of a placement's moves, in one half, while the other half's (the previous
    # placement's) are read and written
    ranks = np.empty(8 * k, dtype=np.int64)
    half, waiting = 0, 0
    at = address(dist)
    ones = np.uint64(0x0101010101010101)
    wanted = ones * np.uint64(level)
    r = start - 1
    while r + 1 < end:
        r += 1
        if r + 8 <= end:
            x = load_u64(at + r) ^ wanted  # a zero byte where a placement of this level is
            if not ((x - ones) & ~x & (ones << np.uint64(7))):
                r += 7  # (none of these 8: a level's scan passes 8 ranks at a time)
                continue
        if dist[r] != level:
            continue
        seen += 1
        used = unrank(r, k, n, pos)
        for i in range(k):
            occ[pos[i]] = i
        m = 0
        for i in range(k):
            c = pos[i]
            for d in range(4):
                b = nbrs[c, d]
                if b < 0 or (used >> np.uint64(b)) & np.uint64(1):
                    continue
                r2 = moved_rank(r, i, c, b, occ, weights, used)
                prefetch(dist, r2)
                ranks[half + m] = r2
                m += 1
        for i in range(k):
            occ[pos[i]] = -1
        half = 4 * k - half
        _settle(dist, ranks, half, waiting, level)
        waiting = m
    _settle(dist, ranks, 4 * k - half, waiting, level)
    return seen


@njit(cache=True, inline="always")
def _settle(dist, ranks, at, count, level):
    """Give the unreached placements among ranks[at:at + count] the distance level + 1 (a
    placement of this level is never among them, so the delay changes nothing)."""
    for j in range(at, at + count):
        r2 = ranks[j]
        if dist[r2] == UNREACHED:
            dist[r2] = level + 1


@njit(cache=True, nogil=True)
def _piece(dist, level, k, n, nbrs, weights, pieces, j):
    """Expand the placements of distance level in piece j of pieces (a range of ranks);
    returns how many there were."""
    pos = np.empty(k, dtype=np.int64)
    occ = np.full(n, -1, dtype=np.int64)
    start, end = dist.size * j // pieces, dist.size * (j + 1) // pieces
    return _expand_chunk(dist, start, end, level, k, n, nbrs, weights, pos, occ)


def build_blank_free(
    nbrs: np.ndarray, goal_cells: np.ndarray, progress: str | None = None
) -> tuple[np.ndarray, float, int]:
    """The table of the tiles whose goal cells are goal_cells (in rank order), the blank
    anywhere: (table, seconds, levels). progress: a label for per-level output, or None."""
    start = time.perf_counter()
    n, k = len(nbrs), len(goal_cells)
    size = num_placements(n, k)
    weights = np.array([num_placements(n - 1 - i, k - 1 - i) for i in range(k)], dtype=np.int64)
    nbrs = np.ascontiguousarray(nbrs, dtype=np.int64)
    dist = np.full(size, UNREACHED, dtype=np.uint8)
    dist[rank(np.asarray(goal_cells, dtype=np.int64), k, n)] = 0
    pieces = max(1, min(PIECES, size // CHUNK))
    bar = LevelProgress(progress, size) if progress else None
    done, level = 0, 0
    with ThreadPoolExecutor(threads()) as pool:
        while True:
            piece = partial(_piece, dist, level, k, n, nbrs, weights, pieces)
            found = sum(hand_out(piece, pieces, pool))
            if found == 0:
                break
            done += found
            level += 1
            if bar:
                bar.level(level, done, found)
    seconds = time.perf_counter() - start
    if bar:
        bar.done(seconds)
    return dist, seconds, level - 1
