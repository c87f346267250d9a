"""Zero-aware pattern databases: an entry that knows which region the blank is in.

A plain table keeps, per placement of the group's tiles, the fewest pattern
moves over all regions the blank could be in (the connected parts of the
other cells). A zero-aware table (Clausecker & Reinefeld 2019) tells the
regions apart, so a blank shut in a corner behind pattern tiles counts the
moves needed to let it out. The values are as admissible and additive as
before (the abstraction is the same, less of it is forgotten).

Layout: one uint8 dataset of three parts, so the search reads what a plain
4-bit table would for most placements and more only where the regions differ.
  codes:   a 4-bit code per placement at its rank, as in a plain 4-bit table
           (patterndb.build.nibbles). c < flag_code: the placement's regions are alike,
           h = md + 2c (the plain nibble; flag_code is one more than the largest).
           c >= flag_code: some region needs 2 moves more than the minimum
           md + 2(c - flag_code); the placement is "flagged".
  prefix:  at prefix_at, a little-endian uint32 per block of 64 ranks: the
           flagged placements before the block.
  regions: at regions_at, region_bytes bytes per flagged placement, in rank
           order: bit j set when the region whose lowest cell is the j-th
           uncovered cell (in cell order) needs the 2 moves more.
A flagged placement's word is found by the prefix and a count of the flagged
codes before it in its block (one cache line). A table with many flagged
placements is dense instead (is_dense): no prefix (prefix_at = -1), and a
word at every rank, so the search can ask for it together with the code.
A region more than 2 moves above the minimum counts 2 (the build records which
regions lie above it: additive.build_regions), and a placement whose minimum is too
large for a flagged code keeps the plain value: both still lower bounds.
On 5x5 the 6-tile tables flag 16% of placements (133 MB a table, against
510 MB for a 4-byte word at every rank); 4x4's 7- and 8-tile tables flag 40
and 46% and are dense.
"""

from __future__ import annotations

import numpy as np

from ..bits import address, flood, load_u8, lowest_bit, ordinal
from ..jit import njit, prange
from ..puzzle.patterns import ZERO_AWARE_MAX_CELLS
from ..puzzle.ranking import next_placement, num_placements, unrank_digits
from .additive import raised_fields, word
from .nibbles import nibble, nibble_histogram

MAX_RAISE = 1  # in units of 2 moves
# the search packs a rank (32 bits), the covered cells and the blank's cell in one int64
MAX_CELLS = ZERO_AWARE_MAX_CELLS
BLOCK = 64  # ranks per prefix entry (their codes: 32 bytes, within one cache line)
ENCODING = "nibble-md-flagged"
DECODING = (
    "c = (data[rank // 2] >> (4 * (rank % 2))) & 15; h = Manhattan distance of the group's tiles + 2 * c "
    "if c < flag_code, else + 2 * (c - flag_code + ((w >> j) & 1)): w = the little-endian region_bytes "
    "bytes at regions_at + region_bytes * i, i = the little-endian uint32 at prefix_at + 4 * (rank // 64) "
    "+ how many codes >= flag_code the ranks rank // 64 * 64 .. rank - 1 have (i = rank if prefix_at = -1), "
    "j = how many uncovered cells lie below the lowest cell of the blank's region"
)


def region_bytes(n: int, k: int) -> int:
    """Bytes of a flagged placement's region bits, k tiles on n cells."""
    if n > MAX_CELLS:
        raise ValueError(f"zero-aware tables are for boards of at most {MAX_CELLS} cells, not {n}")
    if num_placements(n, k) >= 1 << 32:
        raise ValueError(f"zero-aware tables of {k} tiles on {n} cells: ranks beyond 32 bits")
    return (n - k + 7) // 8


def layout(entries: int, flagged: int, nbytes: int, dense: bool = False) -> tuple[int, int, int]:
    """(prefix_at, regions_at, total bytes) of a table of entries placements, flagged of
    them; dense: a word at every rank and no prefix (prefix_at -1)."""
    codes_end = ((entries + 1) // 2 + 3) & ~3
    if dense:
        return -1, codes_end, codes_end + entries * nbytes
    regions_at = codes_end + 4 * ((entries + BLOCK - 1) // BLOCK)
    return codes_end, regions_at, regions_at + flagged * nbytes


def is_dense(entries: int, flagged: int) -> bool:
    """Keep a region word at every rank? Where over a quarter of the placements are flagged
    (4x4's 7- and 8-tile tables: 40 and 46%): the word's place is then known with the code's,
    and the search asks for both at once; with few flagged (5x5's 6-tile tables: 16%) the
    prefix keeps the table small."""
    return 4 * flagged > entries


def max_stored_bytes(n: int, k: int, entries: int) -> int:
    """The largest a zero-aware table of entries placements can be (a word at every rank)."""
    return layout(entries, entries, region_bytes(n, k), True)[2]


def encoding_bytes(n: int, k: int, entries: int) -> int:
    """The memory zero_aware_table adds to a build's: the codes, a count per block and a
    table with a quarter of its placements flagged, the most a table holds before it is
    dense (is_dense); 5x5's 6-tile tables flag 16%. A dense table (4x4's) takes up to
    max_stored_bytes, which is small there."""
    blocks = (entries + BLOCK - 1) // BLOCK
    return (entries + 1) // 2 + 8 * blocks + layout(entries, entries // 4, region_bytes(n, k))[2]


# Per column count c (1-64): the cells of the first column of a board c wide, as bits.
_FIRST_COLUMN = np.array(
    [0] + [sum(1 << x for x in range(0, 64, c)) for c in range(1, 65)], dtype=np.uint64
)


@njit(cache=True, nogil=True)
def region_ordinal(used, blank, cols, n):
    """j of the blank's region: how many uncovered cells lie below its lowest cell (the
    builder's numbering of regions). A call of its own, made only for flagged placements;
    it takes numbers, not arrays, so the kernels' loops stay free of them."""
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    # (a loop over the rows cost a division: 5% of best's 4x4 search)
    first = _FIRST_COLUMN[cols] & full
    geo = (np.uint64(cols), full & ~first, full & ~(first << np.uint64(cols - 1)), full)
    free = full & ~np.uint64(used)
    return np.int64(ordinal(lowest_bit(flood(blank, free, geo)), free))


@njit(cache=True, inline="always")
def cover_key(rank, used):
    """A placement's rank (bits 0-31) and its covered cells' mask (bits 32-57) in one int64:
    what a search keeps per group (it moves a tile's bit with a move)."""
    return rank | (np.int64(used) << 32)


@njit(cache=True, inline="always")
def where(key, blank):
    """One int64 for a zero-aware lookup: cover_key's and the blank's cell (bits 58-62)."""
    return key | (np.int64(blank) << 58)


@njit(cache=True, inline="always")
def code_value(table, at, zinfo, g, m, w):
    """(h of group g's zero-aware entry whose code is in byte at, for Manhattan distance m,
    without its region's part; whether the code is flagged); w: where(); zinfo[g, :4]:
    (region_bytes, flag_code, prefix_at, regions_at), the last two offsets into table
    (prefix_at -1: dense). A flagged entry's h is this or 2 more (region_raise), so a
    search can judge a child on the lower value first and read the region only where the
    child survives it."""
    rank = w & 0xFFFFFFFF
    c = (np.int64(table[at]) >> (4 * (rank & 1))) & 15
    fc = zinfo[g, 1]
    if c < fc:
        return m + 2 * c, False
    return m + 2 * (c - fc), True


@njit(cache=True, inline="always")
def region_inputs(table, zinfo, g):
    """What region_raise needs of group g's table, as numbers: read before the branch that
    calls it. Array reads in that rarely taken branch made the search kernels 1.6x slower
    per node, even where never taken (numba's reference counting), and 1.4x in the
    catalogue kernel."""
    return address(table), zinfo[g, 0], zinfo[g, 1], zinfo[g, 2], zinfo[g, 3]


@njit(cache=True, inline="always")
def region_raise(inputs, at, w, cols, n):
    """2 if the blank's region of a flagged entry (code in byte at; w: where()) needs 2 moves
    more than code_value says, else 0; inputs: region_inputs."""
    base, nbytes, fc, prefix_at, regions_at = inputs
    return 2 * raised(base, at, nbytes, fc, prefix_at, regions_at, w, cols, n)


@njit(cache=True, nogil=True)
def raised(base, at, nbytes, fc, prefix_at, regions_at, w, cols, n):
    """1 if the blank's region of the flagged placement (code in byte at of the table at
    address base; w: where()) needs 2 moves more than its minimum, else 0: its word is the
    i-th, i = its rank in a dense table, else the prefix of its block of 64 ranks + the
    flagged codes before it in the block (one cache line)."""
    rank = w & 0xFFFFFFFF
    i = rank  # (a dense table: prefix_at < 0)
    if prefix_at >= 0:
        p = base + prefix_at + 4 * (rank >> 6)
        i = load_u8(p) | (load_u8(p + 1) << 8) | (load_u8(p + 2) << 16) | (load_u8(p + 3) << 24)
        for b in range(base + at - ((rank >> 1) & 31), base + at):
            x = load_u8(b)
            i += ((x & 15) >= fc) + ((x >> 4) >= fc)
        if rank & 1:
            i += (load_u8(base + at) & 15) >= fc
    word = base + regions_at + nbytes * i
    bits = np.int64(0)
    for q in range(nbytes):
        bits |= load_u8(word + q) << (8 * q)
    return (bits >> region_ordinal((w >> 32) & 0x3FFFFFF, w >> 58, cols, n)) & 1


@njit(cache=True, parallel=True)
def _minima(dist, k, n, md, codes):
    """Write each placement's (minimum - md) / 2 as its 4-bit code; returns (the largest,
    how many do not fit in 4 bits)."""
    size = dist.size
    blocks = 256
    per = ((size + blocks - 1) // blocks + 1) & ~1  # (blocks start on even ranks: no byte shared)
    bad = np.zeros(blocks, dtype=np.int64)
    top = np.zeros(blocks, dtype=np.int64)
    for b in prange(blocks):
        if b * per >= size:
            continue
        pos = np.empty(k, dtype=np.int64)
        digits = np.empty(k, dtype=np.int64)
        used = unrank_digits(b * per, k, n, digits, pos)
        for r in range(b * per, min(size, (b + 1) * per)):
            if r > b * per:
                used = next_placement(digits, pos, used, k, n)
            m = 0
            for i in range(k):
                m += md[i, pos[i]]
            v = np.int64(dist[r]) - m
            if v < 0 or v & 1 or v > 30:
                bad[b] += 1
                continue
            v >>= 1
            top[b] = max(top[b], v)
            codes[r >> 1] |= np.uint8(v << (4 * (r & 1)))
    return top.max(), bad.sum()


@njit(cache=True, parallel=True)
def _flag(codes, words, size, fc, counts):
    """Turn the codes of placements with a raised region into flagged codes (where the
    minimum leaves room); counts[b]: flagged placements in block b of 64 ranks."""
    for b in prange(counts.size):
        c = 0
        for r in range(b * BLOCK, min(size, (b + 1) * BLOCK)):
            if raised_fields(word(words, r)) and nibble(codes, r) + fc <= 15:
                codes[r >> 1] += np.uint8(fc << (4 * (r & 1)))
                c += 1
        counts[b] = c


@njit(cache=True, parallel=True)
def _regions(codes, words, size, fc, free_cells, starts, dense, nbytes, out):
    """Write each flagged placement's region bits: at its rank (dense), or in rank order
    from starts[block], the prefix."""
    for b in prange(starts.size):
        i = starts[b]
        for r in range(b * BLOCK, min(size, (b + 1) * BLOCK)):
            if nibble(codes, r) >= fc:
                d = raised_fields(word(words, r))
                bits = np.int64(0)
                for j in range(free_cells):
                    if (d >> np.uint64(2 * j)) & np.uint64(1):
                        bits |= np.int64(1) << j
                at = r if dense else i
                for q in range(nbytes):
                    out[at * nbytes + q] = (bits >> (8 * q)) & 255
                i += 1


def zero_aware_table(
    dist: np.ndarray, words: np.ndarray, n: int, md: np.ndarray, dense: bool | None = None
) -> tuple[np.ndarray, dict] | None:
    """(data, its layout attributes) of the zero-aware table of a group from its build's
    distances and words (additive.build_regions), or None if some minimum does not fit in 4 bits. md:
    nibbles.goal_md of the group; dense: a region word at every rank (None: is_dense)."""
    k, size = md.shape[0], dist.size
    codes = np.zeros((size + 1) // 2, dtype=np.uint8)
    top, bad = _minima(dist, k, n, md, codes)
    if bad:
        return None
    fc = int(top) + 1
    counts = np.zeros((size + BLOCK - 1) // BLOCK, dtype=np.int64)
    _flag(codes, words, size, fc, counts)
    nbytes = region_bytes(n, k)
    flagged = int(counts.sum())
    dense = is_dense(size, flagged) if dense is None else dense
    prefix_at, regions_at, total = layout(size, flagged, nbytes, dense)
    data = np.zeros(total, dtype=np.uint8)
    data[: codes.size] = codes
    starts = np.arange(counts.size, dtype=np.int64) * BLOCK  # dense: a placement's word at its rank
    if not dense:
        prefix = data[prefix_at:regions_at].view("<u4")
        prefix[1:] = np.cumsum(counts[:-1])
        starts = prefix.astype(np.int64)
    _regions(codes, words, size, fc, n - k, starts, dense, nbytes, data[regions_at:])
    return data, {
        "flag_code": fc,
        "region_bytes": nbytes,
        "prefix_at": prefix_at,
        "regions_at": regions_at,
        "flagged": flagged,
        "nibble_histogram": nibble_histogram(codes, size),
    }
