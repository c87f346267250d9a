"""Four-bit pattern-database tables, lossless.

An entry h counts moves of the group's tiles, and each such move changes one
of their Manhattan distances by exactly one, so h and the group's Manhattan
distance md have the same parity and h >= md: (h - md) / 2 is a small
non-negative integer. Where it stays below 16 for every entry (it does for
every 4x4 and 5x5 group we build), the table keeps that number in 4 bits,
two entries a byte (entry r in byte r // 2, low nibble first), and the search
adds back md, which it computes while ranking the placement anyway. Half the
memory and half the page-cache traffic, the same values.
"""

from __future__ import annotations

import numpy as np

from ..jit import njit, prange
from ..puzzle.ranking import next_placement, unrank_digits
from .exact import UNREACHED

ENCODING = "nibble-md"
DECODING = (
    "h(rank) = Manhattan distance of the group's tiles in the placement "
    "+ 2 * ((table[rank // 2] >> (4 * (rank % 2))) & 15)"
)


def goal_md(cols: int, goal_cells: np.ndarray, n: int) -> np.ndarray:
    """(k, n): the Manhattan distance of the group's i-th tile on each cell."""
    cells = np.arange(n)
    return np.array(
        [np.abs(cells // cols - g // cols) + np.abs(cells % cols - g % cols) for g in goal_cells],
        dtype=np.int64,
    )


@njit(cache=True, inline="always")
def _md(pos, md, k):
    """The Manhattan distance of the group's tiles on the cells pos[0..k-1]."""
    m = 0
    for i in range(k):
        m += md[i, pos[i]]
    return m


@njit(cache=True, inline="always")
def nibble(packed, r):
    """Entry r of a 4-bit array (entry r in byte r // 2, low nibble first), as an int64."""
    return (np.int64(packed[r >> 1]) >> (4 * (r & 1))) & 15


@njit(cache=True, parallel=True)
def _pack(table, k, n, md, out):
    """Pack table into out; returns the number of entries that do not fit (then out is unusable).
    Each block of ranks is walked in order (next_placement), which costs a 7x7 5-tile
    table's 229 M entries a tenth of unranking each."""
    blocks = 256
    size = table.size
    per = (size + blocks - 1) // blocks
    per += per & 1  # blocks start on even ranks: no byte is shared by two blocks
    bad = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        lo, hi = b * per, min(size, (b + 1) * per)
        if lo >= hi:
            continue
        pos = np.empty(k, dtype=np.int64)
        digits = np.empty(k, dtype=np.int64)
        used = unrank_digits(lo, k, n, digits, pos)
        for r in range(lo, hi):
            if r > lo:
                used = next_placement(digits, pos, used, k, n)
            h = np.int64(table[r])
            v = h - _md(pos, md, k)
            if h == UNREACHED or v < 0 or v & 1 or v > 30:
                bad[b] += 1
                continue
            out[r >> 1] |= np.uint8((v >> 1) << (4 * (r & 1)))
    return bad.sum()


def pack(table: np.ndarray, k: int, n: int, md: np.ndarray) -> np.ndarray | None:
    """The 4-bit form of a group's byte table, or None if some entry does not fit."""
    out = np.zeros((table.size + 1) // 2, dtype=np.uint8)
    return out if _pack(table, k, n, md, out) == 0 else None


@njit(cache=True, parallel=True)
def unpack(packed, entries, k, n, md):
    """The h values (one byte each) of a packed table of `entries` entries."""
    out = np.empty(entries, dtype=np.uint8)
    blocks = 256
    per = (entries + blocks - 1) // blocks
    for b in prange(blocks):
        lo, hi = b * per, min(entries, (b + 1) * per)
        if lo >= hi:
            continue
        pos = np.empty(k, dtype=np.int64)
        digits = np.empty(k, dtype=np.int64)
        used = unrank_digits(lo, k, n, digits, pos)
        for r in range(lo, hi):
            if r > lo:
                used = next_placement(digits, pos, used, k, n)
            out[r] = _md(pos, md, k) + 2 * nibble(packed, r)
    return out


_SLICE = 1 << 22  # bytes counted at a time by nibble_histogram (32 MB of int64 at most)


def nibble_histogram(packed: np.ndarray, entries: int) -> np.ndarray:
    """Entries per 4-bit value (16 counts): the cheap check of a packed table's values.

    Counted a slice at a time: np.bincount casts its input to int64, which for a whole
    259 MB table took 2 GB."""
    per_byte = np.zeros(256, dtype=np.int64)
    for start in range(0, packed.size, _SLICE):
        per_byte += np.bincount(packed[start : start + _SLICE], minlength=256)
    values = np.arange(256)
    hist = np.bincount(values & 15, weights=per_byte, minlength=16) + np.bincount(
        values >> 4, weights=per_byte, minlength=16
    )
    hist = hist.astype(np.int64)
    if entries & 1:  # the last byte's high nibble is padding (0)
        hist[0] -= 1
    return hist


def entry(packed: np.ndarray, r: int) -> int:
    """The 4-bit value of entry r (not h: add the placement's Manhattan distance)."""
    return int(packed[r >> 1] >> (4 * (r & 1))) & 15
