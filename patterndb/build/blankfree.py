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
    """Expand the placements of distance level in ranks [start, end); returns how many there were."""
    seen = 0
    for r in range(start, end):
        if dist[r] != level:
            continue
        seen += 1
        used = unrank(r, k, n, pos)
        for i in range(k):
            occ[pos[i]] = i
        for i in range(k):
            c = pos[i]
            for d in range(4):
                b = nbrs[c, d]
                if b < 0 or (used >> np.uint64(b)) & np.uint64(1):
                    continue
                r2 = moved_rank(r, i, c, b, occ, weights)
                if dist[r2] == UNREACHED:
                    dist[r2] = level + 1
        for i in range(k):
            occ[pos[i]] = -1
    return seen


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
