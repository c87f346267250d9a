"""Zero-aware pattern databases: one entry per placement and blank region.

A plain table keeps, per placement of the group's tiles, the fewest pattern
moves over all regions the blank could be in (the connected parts of the
other cells). A zero-aware table (Clausecker & Reinefeld 2019) keeps one
entry per region, so a blank shut in a corner behind pattern tiles counts
the moves needed to let it out. The values are as admissible and additive
as before (the abstraction is the same, less of it is forgotten).

Index. The regions depend only on which cells the group covers (its map),
not on which tile is where, so an entry is found from
  - the map's colexicographic rank (the k cells as a k-subset),
  - the blank's region number in that map (regions numbered by lowest cell),
  - the order of the tiles on the map's cells, as a mixed-radix number whose
    i-th digit (radix i + 1) counts the earlier tiles on lower cells:
    index = mapoff[map] + region * k! + order.
mapoff (prefix sums of k! x regions per map) and regid (map, cell -> region)
are small (C(25, 6) maps: 1.4 MB and 4.4 MB) and computed, not stored.

The build keeps each region's distance above its placement's minimum in
2 bits (additive.build_pattern's deltas), so a region more than
2 * MAX_RAISE moves above it keeps minimum + 2 * MAX_RAISE: still a lower
bound, and rare (0.1% of the regions of the 4x4 8-tile table).

Values are stored like plain 4-bit tables (patterndb.nibbles): the group's
Manhattan distance in the placement plus twice the nibble.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .bits import lowest_bit, popcount
from .jit import njit, prange
from .ranking import unrank

DECODING = ("h = Manhattan distance of the group's tiles + 2 * nibble(index), nibble(i) = "
            "(table[i // 2] >> (4 * (i % 2))) & 15, index = mapoff[colex rank of the covered cells] "
            "+ region * k! + order; regions of the uncovered cells numbered by their lowest cell; "
            "order: digit i (radix i + 1) = earlier tiles on lower cells")
MAX_RAISE = 3  # (see above)
INDEX = "zero-aware: (covered cells, blank region, order of the tiles on them); see decoding"


def binomials(n: int, k: int) -> np.ndarray:
    """binom[c, j] = C(c, j) for c <= n, j <= k (int64)."""
    return np.array([[math.comb(c, j) for j in range(k + 1)] for c in range(n + 1)], dtype=np.int64)


@functools.lru_cache(maxsize=8)
def map_index(rows: int, cols: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(mapoff[C(n, k) + 1], regid[C(n, k) * n]) for k covered cells on a rows x cols board.

    Plain numpy (no numba at start-up): a flood fill of every map from every
    cell at once, one step of all of them per round."""
    n = rows * cols
    masks = np.sort(np.array([sum(1 << c for c in m) for m in itertools.combinations(range(n), k)],
                             dtype=np.uint64))  # increasing masks: colexicographic order
    cell = np.uint64(1) << np.arange(n, dtype=np.uint64)
    free = (~masks & np.uint64((1 << n) - 1))[:, None]
    first = np.uint64(sum(1 << c for c in range(0, n, cols)))
    last = np.uint64(sum(1 << c for c in range(cols - 1, n, cols)))
    one, step = np.uint64(1), np.uint64(cols)
    reach = np.where((free & cell) != 0, cell[None, :], np.uint64(0))  # (maps, cells) regions
    while True:
        grown = (reach | ((reach & ~last) << one) | ((reach & ~first) >> one) | (reach << step)
                 | (reach >> step)) & free
        if (grown == reach).all():
            break
        reach = grown
    low = np.zeros(reach.shape, dtype=np.int64)  # each region's lowest cell
    low_bits = reach & (~reach + one)
    for c in range(n):
        low[low_bits == cell[c]] = c
    leader = (low == np.arange(n)[None, :]) & (reach != 0)
    number = np.cumsum(leader, axis=1) - 1  # regions numbered by lowest cell
    regid = np.take_along_axis(number, low, axis=1)
    regid[reach == 0] = 0
    mapoff = np.zeros(masks.size + 1, dtype=np.int64)
    np.cumsum(leader.sum(axis=1) * math.factorial(k), out=mapoff[1:])
    return mapoff, regid.astype(np.uint8).ravel()


def entries(rows: int, cols: int, k: int) -> int:
    """Entries of a zero-aware table of k tiles."""
    return int(map_index(rows, cols, k)[0][-1])


@njit(cache=True, inline="always")
def map_rank(used, binom):
    """Colexicographic rank of the set of cells in the mask used."""
    r = 0
    j = 1
    x = np.uint64(used)
    while x:
        r += binom[lowest_bit(x), j]
        j += 1
        x &= x - np.uint64(1)
    return r


@njit(cache=True, inline="always")
def entry_index(used, order, blank, n, kfact, binom, mapoff, regid):
    """Index of the entry of the placement covering used, with the tiles in the given
    order, and the blank on cell blank."""
    m = map_rank(used, binom)
    return mapoff[m] + np.int64(regid[m * n + blank]) * kfact + order


@njit(cache=True, parallel=True)
def _spread(dist, deltas, k, n, md, binom, mapoff, regid, out):
    """out[index] = (h - md) / 2 of every (placement, region); returns how many do not
    fit in 4 bits (then out is unusable). dist, deltas: patterndb.additive's build."""
    kfact = 1
    for i in range(2, k + 1):
        kfact *= i
    size = dist.size
    blocks = 256
    per = (size + blocks - 1) // blocks
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    bad = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        pos = np.empty(k, dtype=np.int64)
        for r in range(b * per, min(size, (b + 1) * per)):
            unrank(r, k, n, pos)
            used = np.uint64(0)
            order = 0
            m = 0
            for i in range(k):
                p = pos[i]
                order = order * (i + 1) + popcount(used & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
                used |= np.uint64(1) << np.uint64(p)
                m += md[i, p]
            free = full & ~used
            mr = map_rank(used, binom)
            seen = np.uint64(0)
            ordinal = 0
            for c in range(n):
                if not (free >> np.uint64(c)) & np.uint64(1):
                    continue
                j = regid[mr * n + c]
                if not (seen >> np.uint64(j)) & np.uint64(1):  # c is region j's lowest cell
                    seen |= np.uint64(1) << np.uint64(j)
                    up = np.int64((np.uint64(deltas[r]) >> np.uint64(2 * ordinal)) & np.uint64(3))
                    v = np.int64(dist[r]) + 2 * up - m
                    if v < 0 or v & 1 or v > 30:
                        bad[b] += 1
                    else:
                        out[mapoff[mr] + np.int64(j) * kfact + order] = v >> 1
                ordinal += 1
    return bad.sum()


@njit(cache=True, parallel=True)
def _pair(values, out):
    for i in prange(out.size):
        lo = values[2 * i]
        hi = values[2 * i + 1] if 2 * i + 1 < values.size else 0
        out[i] = lo | (hi << 4)


def zero_aware_table(dist: np.ndarray, deltas: np.ndarray, rows: int, cols: int, md: np.ndarray) -> np.ndarray | None:
    """The packed zero-aware table of a group built with deltas (additive.build_pattern),
    or None if some entry does not fit in 4 bits. md: nibbles.goal_md of the group."""
    k = md.shape[0]
    n = rows * cols
    mapoff, regid = map_index(rows, cols, k)
    values = np.zeros(int(mapoff[-1]), dtype=np.uint8)
    if _spread(dist, deltas, k, n, md, binomials(n, k), mapoff, regid, values):
        return None
    out = np.empty((values.size + 1) // 2, dtype=np.uint8)
    _pair(values, out)
    return out


def value(data: np.ndarray, rows: int, cols: int, md: np.ndarray, cells: tuple[int, ...], blank: int) -> int:
    """h of one entry of a packed zero-aware table, in plain Python (tests, tools): the
    group's i-th tile on cells[i], the blank on cell blank (not one of them)."""
    n, k = rows * cols, len(cells)
    order, used = 0, []
    for i, p in enumerate(cells):
        order = order * (i + 1) + sum(u < p for u in used)
        used.append(p)
    mapoff, regid = map_index(rows, cols, k)
    m = sum(math.comb(c, j + 1) for j, c in enumerate(sorted(cells)))
    index = int(mapoff[m]) + int(regid[m * n + blank]) * math.factorial(k) + order
    return int(sum(md[i, c] for i, c in enumerate(cells))) + 2 * ((int(data[index // 2]) >> (4 * (index % 2))) & 15)
