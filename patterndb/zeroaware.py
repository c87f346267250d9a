"""Zero-aware pattern databases: an entry that knows which region the blank is in.

A plain table keeps, per placement of the group's tiles, the fewest pattern
moves over all regions the blank could be in (the connected parts of the
other cells). A zero-aware table (Clausecker & Reinefeld 2019) tells the
regions apart, so a blank shut in a corner behind pattern tiles counts the
moves needed to let it out. The values are as admissible and additive as
before (the abstraction is the same, less of it is forgotten).

Layout. One little-endian word per placement, at the placement's rank (as in
a plain table: no index tables to load, and the search's nearby placements
stay nearby in memory; Clausecker's index by covered cells and region is
smaller, 2.7 instead of 4 bytes a placement on 4x4, but needs map tables):
  bits 0-3: (minimum over regions - the group's Manhattan distance) / 2,
            the plain 4-bit table's nibble (patterndb.nibbles);
  bit 4 + j: the region whose lowest cell is the j-th uncovered cell (in
            cell order) needs 2 moves more than that minimum.
A region more than 2 moves above the minimum keeps minimum + 2: still a lower
bound; the build records up to 6 (additive.build_pattern's deltas), so
MAX_RAISE is where a wider word would go. Words are 2 bytes for up to 12
uncovered cells (4x4 boards), else 4 bytes (5x5 boards).
"""
from __future__ import annotations

import numpy as np

from .bits import flood, lowest_bit, ordinal
from .jit import njit, prange
from .ranking import unrank

MAX_RAISE = 1  # in units of 2 moves
ENCODING = "nibble-md-regions"
DECODING = ("w = little-endian word of word_bytes bytes at byte rank * word_bytes; h = Manhattan distance of "
            "the group's tiles + 2 * ((w & 15) + ((w >> (4 + j)) & 1)), j = how many uncovered cells lie "
            "below the lowest cell of the blank's region")


def word_bytes(free_cells: int) -> int:
    """Bytes of a zero-aware entry with free_cells uncovered cells."""
    if free_cells <= 12:
        return 2
    if free_cells <= 28:
        return 4
    raise ValueError(f"zero-aware tables need at most 28 uncovered cells, not {free_cells}")


@njit(cache=True, nogil=True)
def region_ordinal(used, blank, cols, n):
    """j of the blank's region: how many uncovered cells lie below its lowest cell (the
    builder's numbering of regions). A call of its own, made only for placements with a
    raised region; it takes numbers, not arrays, so the kernels' loops stay free of them."""
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    first = np.uint64(0)
    for c in range(0, n, cols):
        first |= np.uint64(1) << np.uint64(c)
    geo = (np.uint64(cols), full & ~first, full & ~(first << np.uint64(cols - 1)), full)
    free = full & ~np.uint64(used)
    return np.int64(ordinal(lowest_bit(flood(blank, free, geo)), free))


@njit(cache=True, inline="always")
def word_value(table, at, nbytes, m, where, cols, n):
    """h of the entry whose word starts at byte at, for Manhattan distance m; where: the
    covered cells' mask plus the blank's cell << 32. The blank's region is looked for only
    when some region of the placement is raised (most placements have none)."""
    w = np.int64(table[at]) | (np.int64(table[at + 1]) << 8)
    if nbytes == 4:
        w |= (np.int64(table[at + 2]) << 16) | (np.int64(table[at + 3]) << 24)
    if w >> 4:
        w += (w >> (4 + region_ordinal(where & 0xFFFFFFFF, where >> 32, cols, n))) & 1
    return m + 2 * (w & 15)


@njit(cache=True, parallel=True)
def _words(dist, deltas, k, n, md, nbytes, out):
    """Fill out (nbytes per placement); returns how many minima do not fit in 4 bits."""
    size = dist.size
    blocks = 256
    per = (size + blocks - 1) // blocks
    free_cells = n - k
    bad = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        pos = np.empty(k, dtype=np.int64)
        for r in range(b * per, min(size, (b + 1) * per)):
            unrank(r, k, n, pos)
            m = 0
            for i in range(k):
                m += md[i, pos[i]]
            v = np.int64(dist[r]) - m
            if v < 0 or v & 1 or v > 30:
                bad[b] += 1
                continue
            w = v >> 1
            d = np.uint64(deltas[r])
            for j in range(free_cells):
                if (d >> np.uint64(2 * j)) & np.uint64(3):
                    w |= np.int64(1) << (4 + j)
            for i in range(nbytes):
                out[r * nbytes + i] = (w >> (8 * i)) & 255
    return bad.sum()


def zero_aware_table(dist: np.ndarray, deltas: np.ndarray, n: int, md: np.ndarray) -> np.ndarray | None:
    """The zero-aware table (bytes) of a group built with deltas (additive.build_pattern),
    or None if some minimum does not fit in 4 bits. md: nibbles.goal_md of the group."""
    k = md.shape[0]
    nbytes = word_bytes(n - k)
    out = np.empty(dist.size * nbytes, dtype=np.uint8)
    return None if _words(dist, deltas, k, n, md, nbytes, out) else out


def nibble_histogram(data: np.ndarray, nbytes: int) -> np.ndarray:
    """Placements per stored minimum (16 counts): the cheap check of the values, a slice at a time."""
    counts = np.zeros(16, dtype=np.int64)
    step = nbytes << 22
    for at in range(0, data.size, step):
        counts += np.bincount(data[at:at + step:nbytes] & 15, minlength=16)
    return counts
