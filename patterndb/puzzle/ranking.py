"""Ranking and unranking of (partial) permutations as numba kernels.

A placement of k distinct tiles on n cells is the array pos[0..k-1] of their
cells. Its rank is the mixed-radix number whose i-th digit is pos[i] minus
the number of earlier tiles on lower cells (radices n, n-1, ..., n-k+1), so
ranks run over 0 .. P(n, k) - 1 and the first tile is the most significant
digit: all placements with tile 0 on cell c form one contiguous block.
With k == n this is the Lehmer rank of a full permutation (0 .. n! - 1).
Ranks are int64: P(n, k) must stay below 2**63 (any table does).
"""

from __future__ import annotations

import math

import numpy as np

from ..bits import lowest_bit, nth_bit, popcount
from ..jit import njit


def num_placements(n: int, k: int) -> int:
    """P(n, k) = n! / (n-k)!: the number of ranks."""
    return math.perm(n, k)


@njit(cache=True)
def rank(pos, k, n):
    """Rank of the placement pos[0..k-1] of k tiles on n cells."""
    used = np.uint64(0)
    r = 0
    for i in range(k):
        p = pos[i]
        below = popcount(used & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
        r = r * (n - i) + (p - below)
        used |= np.uint64(1) << np.uint64(p)
    return r


@njit(cache=True)
def unrank(r, k, n, pos):
    """Inverse of rank: writes the cells into pos[0..k-1]; returns their bitmask."""
    for i in range(k - 1, -1, -1):
        radix = n - i
        pos[i] = r % radix
        r //= radix
    used = np.uint64(0)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    for i in range(k):
        c = nth_bit(full & ~used, pos[i])  # the pos[i]-th free cell
        pos[i] = c
        used |= np.uint64(1) << np.uint64(c)
    return used


@njit(cache=True)
def unrank_digits(r, k, n, digits, pos):
    """unrank, also writing the rank's digits (digits[i]: pos[i]'s ordinal among the
    cells free of tiles 0..i-1) for next_placement; returns the cells' bitmask."""
    q = r
    for i in range(k - 1, -1, -1):
        digits[i] = q % (n - i)
        q //= n - i
    return unrank(r, k, n, pos)


@njit(cache=True, inline="always")
def next_placement(digits, pos, used, k, n):
    """Step digits, pos and used (as from unrank_digits) from rank r to r + 1 in
    place and return the new used: a pass over every rank of a range pays a carry
    instead of k divisions and nth_bit's loops (not past the last rank; a scan
    that skips most ranks is better off unranking the few it needs)."""
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    i = k - 1
    while i >= 0:
        used &= ~(np.uint64(1) << np.uint64(pos[i]))
        if digits[i] + 1 < n - i:
            digits[i] += 1  # the next cell above pos[i] free of tiles 0..i-1
            c = lowest_bit(full & ~used & ~((np.uint64(2) << np.uint64(pos[i])) - np.uint64(1)))
            pos[i] = c
            used |= np.uint64(1) << np.uint64(c)
            break
        digits[i] = 0
        i -= 1
    for j in range(i + 1, k):  # digit 0: the lowest free cell
        c = lowest_bit(full & ~used)
        pos[j] = c
        used |= np.uint64(1) << np.uint64(c)
    return used


@njit(cache=True)
def rank_many(positions, n):
    """Ranks of each row of a (m, k) array of placements."""
    m, k = positions.shape
    out = np.empty(m, dtype=np.int64)
    for i in range(m):
        out[i] = rank(positions[i], k, n)
    return out


@njit(cache=True)
def unrank_many(ranks, k, n):
    """Placements (m, k) of each rank."""
    out = np.empty((ranks.size, k), dtype=np.int64)
    for i in range(ranks.size):
        unrank(ranks[i], k, n, out[i])
    return out
