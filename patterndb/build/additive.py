"""Disjoint additive pattern databases (Korf & Felner 2002), built by BFS.

A table covers one group of k tiles. Its abstract state is the placement of
those tiles plus the region of the blank: the blank wanders among the other
cells for free (moves of non-pattern tiles cost 0), so only the connected
region of non-pattern cells it is in matters. A move of a pattern tile into
the blank's region costs 1. The table stores, per placement (indexed by its
rank, ranking.py), the fewest pattern-tile moves to the goal over all blank
regions, so tables of disjoint groups add up admissibly.

Search state: one word per placement holding a 2-bit field for each cell not
covered by the pattern (by its ordinal among those cells), used for the
region whose lowest cell it is: 0 unseen, 1 frontier, 2 expanded at the
placement's distance, 3 expanded above it (a raised region: what a zero-aware
table keeps). The regions of a placement all have its distance's parity, so a
placement's frontier fields are the current level's when its distance has the
level's parity and the next level's otherwise: one frontier code serves both,
and no pass is needed between levels. A word is stored in as few bytes as its
fields need (5 for a 6- or 7-tile group on 5x5: 14.5 GB for a 7-tile build with
its distances, where 8-byte words and a second word of raises needed 41 GB).

Every core works without locks or atomics. A level is one pass over the
blocks of ranks with tile 0 on each cell, handed to the threads one at a
time (handout.py) (two where a move does not fit 4 bytes, below). Moves of
tiles 1..k-1 keep tile 0's cell, i.e. stay in the block, whose thread
writes them at once; moves of tile 0 leave it, and
are collected and then written by threads that each own a share of the
blocks (apply_moves). Each frontier placement is read, and its regions
found, once a level. Where a rank and a field do not fit 4 bytes, a
first pass writes the moves of tiles 1..k-1 by blocks and a second those
of tile 0 by the sets of ranks with tile 1 on each cell, which they keep.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import NamedTuple

import numpy as np

from ..bits import address, flood, load_u64, lowest_bit, nth_bit, ordinal, popcount, spread
from ..jit import njit
from ..puzzle.ranking import num_placements, rank, unrank
from .exact import UNREACHED
from .handout import hand_out, threads
from .progress import LevelProgress

FIELD_MASK = np.uint64(3)


class Cells(NamedTuple):
    """The board as the kernels see it: adjacency (nbrs: cell, direction -> cell or
    -1; nbmask: cell -> neighbours' bits), the flood's column masks (geo), and how a
    move's new region is found: regions, a table for boards of up to 16 cells (else a
    one-element dummy), or a fill helped by rings and bridges (_region_after_move)."""

    nbrs: np.ndarray
    nbmask: np.ndarray
    geo: np.ndarray
    regions: np.ndarray
    rings: np.ndarray
    bridges: np.ndarray


MARK_SHIFT = 6  # a mark per 64 ranks


class Layers(NamedTuple):
    """The breadth-first search's arrays: words ([rank, byte]: the region fields, see
    above, little-endian), dist (the table being built), and marks: [level % 2,
    rank >> MARK_SHIFT] -> 1 where some field in those 64 ranks is in that level's
    frontier, so a level's scan skips the rest of words (the sparse first and last
    levels were a fifth of a 5x5 6-tile build). Marks are only ever set to 1 by the
    threads and cleared between levels, so threads sharing a mark's byte lose nothing."""

    words: np.ndarray
    dist: np.ndarray
    marks: np.ndarray


ROUND = 1 << 26  # placements a round of a level's blocks in tables over 4 * ROUND (build_regions)
MAX_FREE_CELLS = 32  # a placement's fields fill at most one 64-bit word


def regions_fit(n: int, k: int) -> bool:
    """Can a group of k tiles on n cells keep its blank regions (else patterndb.build.blankfree)?"""
    return n - k <= MAX_FREE_CELLS


def word_bytes(free_cells: int) -> int:
    """Bytes of a placement's word: 2 bits per non-pattern cell."""
    if free_cells > MAX_FREE_CELLS:
        raise ValueError(f"more than {MAX_FREE_CELLS} non-pattern cells")
    return max(1, (2 * free_cells + 7) // 8)


def bytes_needed(n: int, k: int) -> int:
    """Memory of a build's arrays: a word, a distance and the marks per placement (a
    blank-free build, patterndb.build.blankfree: the distance alone)."""
    size = num_placements(n, k)
    if not regions_fit(n, k):
        return size
    return size * (1 + word_bytes(n - k)) + 2 * ((size >> MARK_SHIFT) + 1)


def new_words(size: int, free_cells: int) -> np.ndarray:
    """Zeroed words of size placements ([rank, byte]), with room after the last for an
    8-byte read (_word_at)."""
    wb = word_bytes(free_cells)
    return np.zeros(size * wb + 8, dtype=np.uint8)[: size * wb].reshape(size, wb)


@njit(cache=True, inline="always")
def _word_at(base, r, wb, mask):
    """word(words, r) for base = address(words), wb its bytes and mask their bits: one
    unaligned load (a loop over the bytes made a 5x5 build 14% slower)."""
    return load_u64(base + r * wb) & mask


@njit(cache=True, inline="always")
def word(words, r):
    """The fields of placement r (words: [rank, byte])."""
    w = np.uint64(0)
    for q in range(words.shape[1]):
        w |= np.uint64(words[r, q]) << np.uint64(8 * q)
    return w


@njit(cache=True, inline="always")
def raised_fields(w):
    """The fields of word w whose regions lie above the placement's distance (code 3),
    as their low bits."""
    return (w >> np.uint64(1)) & w & np.uint64(0x5555555555555555)


@njit(cache=True, inline="always")
def moved_rank(r, i, c, b, occ, weights, used):
    """Rank after tile i moves from cell c to free cell b, from the rank r before (used:
    the tiles' cells, as bits).

    Only tiles on cells strictly between c and b change their digits: tile i's
    digit moves by |b - c| less the earlier tiles in between, each later tile
    in between by one. A horizontal move (nothing in between) changes the
    rank by exactly weights[i]; a vertical one visits only the tiles in between."""
    lo = min(b, c)
    hi = max(b, c)
    between = (
        used
        & ((np.uint64(1) << np.uint64(hi)) - np.uint64(1))
        & ~((np.uint64(2) << np.uint64(lo)) - np.uint64(1))
    )
    earlier = 0
    later = 0
    while between:
        j = occ[lowest_bit(between)]
        between &= between - np.uint64(1)
        if j < i:
            earlier += 1
        else:
            later += weights[j]
    if b > c:
        return r + weights[i] * (b - c - earlier) + later
    return r - weights[i] * (c - b - earlier) - later


@njit(cache=True, inline="always")
def field_bits(n, k):
    """Bits of a field's number among the n - k non-pattern cells (at least 1)."""
    bits = 1
    while (1 << bits) < n - k:
        bits += 1
    return bits


@njit(cache=True)
def region_table(n, geo):
    """For boards of up to 16 cells: [free * n + c] -> the region of c among
    the free cells (2 MB for 4x4), replacing a flood fill per move."""
    out = np.zeros((1 << n) * n, dtype=np.uint16)
    for free in range(1 << n):
        f = np.uint64(free)
        for c in range(n):
            if (f >> np.uint64(c)) & np.uint64(1):
                out[free * n + c] = flood(c, f, geo)
    return out


@njit(cache=True, inline="always")
def _region(c, free, n, geo, regions):
    """The region of free cell c."""
    if regions.size > 1:
        return np.uint64(regions[np.int64(free) * n + c])
    return flood(c, free, geo)


def box_bridges(cols: int) -> np.ndarray:
    """[the free cells of a 3x3 box, bit r * cols + q for row r and column q] -> 1
    where the centre's free neighbours (at most one, or all) are connected through
    the box's other free cells; then the centre is no cut vertex of its region.
    With fewer than 3 columns the box's bits would overlap: all 0 (always fill
    from the cell)."""
    out = np.zeros(1 << (2 * cols + 3), dtype=np.uint8)
    if cols < 3:
        return out
    cells = [(r, q) for r in range(3) for q in range(3) if (r, q) != (1, 1)]
    for box in range(1 << 8):
        present = {cells[j] for j in range(8) if box >> j & 1}
        near = [x for x in ((0, 1), (1, 0), (1, 2), (2, 1)) if x in present]
        seen, todo = set(near[:1]), list(near[:1])
        while todo:
            r, q = todo.pop()
            for x in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1)):
                if x in present and x not in seen:
                    seen.add(x)
                    todo.append(x)
        out[sum(1 << (r * cols + q) for r, q in present)] = all(x in seen for x in near)
    return out


def box_rings(n: int, cols: int) -> np.ndarray:
    """[cell] -> the board's cells around it in its 3x3 box (not the cell itself)."""
    rows = n // cols
    out = np.zeros(n, dtype=np.uint64)
    for c in range(n):
        r, q = divmod(c, cols)
        for rr in range(max(r - 1, 0), min(r + 2, rows)):
            for qq in range(max(q - 1, 0), min(q + 2, cols)):
                if (rr, qq) != (r, q):
                    out[c] |= np.uint64(1) << np.uint64(rr * cols + qq)
    return out


@njit(cache=True, inline="always")
def _region_after_move(c, b, region, free2, cells):
    """The region of c among free2 = free + c - b, for b in region (a region of
    free) and c next to b. Where the 3x3 box around b shows that b's neighbours in
    region - b + c are connected without b, region - b + c is connected, and the
    new region is it and the other regions c touches: nothing to fill unless c
    touches one. Else (a cut, or the box cannot tell) fill from c, a pass per step."""
    cbit = np.uint64(1) << np.uint64(c)
    kept = (region | cbit) & ~(np.uint64(1) << np.uint64(b))
    box = ((kept & cells.rings[b]) << np.uint64(cells.geo[0] + np.uint64(1))) >> np.uint64(b)
    if cells.bridges[box]:
        if cells.nbmask[c] & free2 & ~kept:
            return spread(kept, free2, cells.geo)
        return kept
    return spread(cbit, free2, cells.geo)


@njit(cache=True, nogil=True)
def _expand_range(
    start,
    count,
    tile_lo,
    tile_hi,
    close,
    defer,
    out,
    moves_out,
    layers,
    level,
    k,
    n,
    cells,
    weights,
):
    """Expand the current level's frontier fields of ranks [start, start+count) by moves
    of tiles tile_lo..tile_hi-1; with close, mark the fields expanded (code 3 where the
    region lies above its placement's distance). With defer, tile 0's moves (which leave
    the block of ranks with tile 0's cell) are not written but put in out from moves_out
    on, each as its rank << field_bits(n, k) | its field in 4 bytes (build_regions defers
    only where every rank fits), for the thread that owns their block (apply_moves); a move
    whose field is already set is left out (a field, once set, stays set, so reading it
    while its owner writes its byte is safe). Returns (placements reached for the first
    time, fields marked for the next level, the moves in out, the rank it stopped before:
    start + count, or one whose moves might not fit in out, for the caller to go on from
    with a larger out (_expand_block)).

    (out is an argument and never reassigned here: grown in this loop, its reference count
    was raised and lowered around every move, an atomic operation each.)"""
    nbrs, nbmask, geo, regions = cells.nbrs, cells.nbmask, cells.geo, cells.regions
    words, dist = layers.words, layers.dist
    base, wb = address(words), words.shape[1]
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - 8 * wb)
    cur_marks = layers.marks[level % 2]
    next_marks = layers.marks[(level + 1) % 2]
    m1 = np.uint64(0x5555555555555555)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    pos = np.empty(k, dtype=np.int64)
    occ = np.full(n, -1, dtype=np.int64)  # cell -> index of the pattern tile on it
    new_placements = 0
    new_fields = 0
    fb = field_bits(n, k)
    end = start + count
    for chunk in range(start >> MARK_SHIFT, ((end - 1) >> MARK_SHIFT) + 1):
        if not cur_marks[chunk]:
            continue
        for r in range(max(start, chunk << MARK_SHIFT), min(end, (chunk + 1) << MARK_SHIFT)):
            w = _word_at(base, r, wb, mask)
            sel = w & ~(w >> np.uint64(1)) & m1  # frontier fields (code 1)
            if not sel or (np.int64(dist[r]) - level) & 1:  # none, or the next level's
                continue
            if defer and moves_out + 4 * popcount(sel) > out.size:  # tile 0: 4 moves a region
                return new_placements, new_fields, moves_out, r
            used = unrank(r, k, n, pos)
            free = full & ~used
            for i in range(k):
                occ[pos[i]] = i
            while sel:
                bit = lowest_bit(sel)
                sel &= sel - np.uint64(1)
                # the region's lowest cell is the (bit / 2)-th free cell
                region = _region(nth_bit(free, bit >> np.uint64(1)), free, n, geo, regions)
                for i in range(tile_lo, tile_hi):
                    c = pos[i]
                    if not (nbmask[c] & region):
                        continue
                    for d in range(4):
                        b = nbrs[c, d]
                        if b < 0 or not ((region >> np.uint64(b)) & np.uint64(1)):
                            continue
                        r2 = moved_rank(r, i, c, b, occ, weights, used)
                        free2 = (free | (np.uint64(1) << np.uint64(c))) & ~(
                            np.uint64(1) << np.uint64(b)
                        )
                        # (The table branch stays here, not in _region_after_move: routed through
                        # the helper, the 5x5 build was 5-20% slower in 4 pairs of runs.)
                        if regions.size > 1:
                            low = lowest_bit(regions[np.int64(free2) * n + c])
                        else:
                            low = lowest_bit(_region_after_move(c, b, region, free2, cells))
                        shift = np.uint64(2) * ordinal(low, free2)
                        if defer and i == 0:
                            if not ((_word_at(base, r2, wb, mask) >> shift) & FIELD_MASK):
                                out[moves_out] = (r2 << fb) | np.int64(shift >> np.uint64(1))
                                moves_out += 1
                            continue
                        w2 = _word_at(base, r2, wb, mask)
                        if not ((w2 >> shift) & FIELD_MASK):
                            q = shift >> np.uint64(3)  # a field never straddles two bytes
                            words[r2, q] |= np.uint8(np.uint64(1) << (shift & np.uint64(7)))
                            next_marks[r2 >> MARK_SHIFT] = 1
                            new_fields += 1
                            if not w2:  # no region reached before: the placement is new
                                dist[r2] = level + 1
                                new_placements += 1
                if close:
                    code = np.uint64(3 if dist[r] < level else 2)
                    q = bit >> np.uint64(3)
                    at = bit & np.uint64(7)
                    words[r, q] = np.uint8(
                        (np.uint64(words[r, q]) & ~(FIELD_MASK << at)) | (code << at)
                    )
            for i in range(k):
                occ[pos[i]] = -1
    return new_placements, new_fields, moves_out, end


@njit(cache=True, nogil=True)
def apply_moves(layers, level, blocks, fb, moves, parts, part):
    """Write the deferred moves (_expand_range; moves: a tuple of arrays of them, each a
    rank << fb | a field) whose rank's block (of tile 0's cell; there are `blocks`) is
    part modulo parts: a thread a part, each the sole writer of its blocks. Returns (new
    placements, new fields)."""
    words, dist = layers.words, layers.dist
    base, wb = address(words), words.shape[1]
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(64 - 8 * wb)
    next_marks = layers.marks[(level + 1) % 2]
    block = dist.size // blocks
    low = (1 << fb) - 1
    new_placements = 0
    new_fields = 0
    # (the field written as _expand_range writes it: a shared helper made the pass 2x slower)
    for some in moves:
        for e in some:
            r2 = np.int64(e >> fb)
            if (r2 // block) % parts != part:
                continue
            shift = np.uint64(2 * (e & low))
            w2 = _word_at(base, r2, wb, mask)
            if not ((w2 >> shift) & FIELD_MASK):
                q = shift >> np.uint64(3)
                words[r2, q] |= np.uint8(np.uint64(1) << (shift & np.uint64(7)))
                next_marks[r2 >> MARK_SHIFT] = 1
                new_fields += 1
                if not w2:
                    dist[r2] = level + 1
                    new_placements += 1
    return new_placements, new_fields


@njit(cache=True, nogil=True)
def _expand_block(layers, level, k, n, cells, weights, first, j):
    """Expand and close the frontier of the block of tile 0 on cell first + j: moves of
    tiles 1..k-1 written (they stay in the block), tile 0's returned (apply_moves)."""
    block = layers.dist.size // n
    r, end = (first + j) * block, (first + j + 1) * block
    out = np.empty(1024, dtype=np.uint32)
    placements, fields, moves = 0, 0, 0
    while True:
        p, f, moves, r = _expand_range(
            r, end - r, 0, k, True, True, out, moves, layers, level, k, n, cells, weights
        )
        placements, fields = placements + p, fields + f
        if r == end:
            return placements, fields, out[:moves].copy()
        more = np.empty(2 * out.size, dtype=np.uint32)
        more[:moves] = out[:moves]
        out = more


@njit(cache=True, nogil=True)
def _written(start, count, tile_lo, tile_hi, close, layers, level, k, n, cells, weights):
    """_expand_range with every move written at once, none deferred: (new placements, new
    fields)."""
    none = np.empty(0, dtype=np.uint32)
    p, f, _, _ = _expand_range(
        start, count, tile_lo, tile_hi, close, False, none, 0, layers, level, k, n, cells, weights
    )
    return p, f


@njit(cache=True, nogil=True)
def _phase_a(layers, level, k, n, cells, weights, c0):
    """Two passes a level: (new placements, new fields) of the block of tile 0 on cell c0
    by moves of tiles 1..k-1, the fields left open for _phase_b."""
    block = layers.dist.size // n
    return _written(c0 * block, block, 1, k, False, layers, level, k, n, cells, weights)


@njit(cache=True, nogil=True)
def _phase_b(layers, level, k, n, cells, weights, c1):
    """The second pass: (new placements, new fields) of the ranks with tile 1 on cell c1 (the
    moves of tile 0 keep it) by moves of tile 0, the fields closed."""
    block = layers.dist.size // n
    sub = block // (n - 1)
    placements, fields = 0, 0
    for c0 in range(n):
        if c0 != c1:
            d1 = c1 - (1 if c0 < c1 else 0)
            p, f = _written(
                c0 * block + d1 * sub, sub, 0, 1, True, layers, level, k, n, cells, weights
            )
            placements += p
            fields += f
    return placements, fields


def _neighbour_masks(nbrs: np.ndarray) -> np.ndarray:
    masks = np.zeros(len(nbrs), dtype=np.uint64)
    for c, row in enumerate(nbrs):
        for b in row:
            if b >= 0:
                masks[c] |= np.uint64(1) << np.uint64(b)
    return masks


def _geometry(n: int, cols: int) -> np.ndarray:
    first = sum(1 << c for c in range(0, n, cols))
    last = sum(1 << c for c in range(cols - 1, n, cols))
    full = (1 << n) - 1
    return np.array([cols, full & ~first, full & ~last, full], dtype=np.uint64)


def build_pattern(
    nbrs: np.ndarray,
    cols: int,
    goal_cells: np.ndarray,
    goal_blank: int,
    progress: str | None = None,
    table_cells: int = 16,
) -> tuple[np.ndarray, float, int]:
    """Build the table of the tiles whose goal cells are goal_cells (in rank order)
    on the board with adjacency nbrs and the given number of columns.

    table_cells: the largest board whose moves find their regions in a table
    (region_table, 2 MB for 16 cells); larger boards fill (tests set 0 to check
    the fill on small boards).

    Returns (table, seconds, levels). progress: a label for per-level output, or None.
    """
    dist, _, seconds, levels = build_regions(
        nbrs, cols, goal_cells, goal_blank, progress, table_cells
    )
    return dist, seconds, levels


def build_regions(
    nbrs: np.ndarray,
    cols: int,
    goal_cells: np.ndarray,
    goal_blank: int,
    progress: str | None = None,
    table_cells: int = 16,
    two_passes: bool = False,
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """build_pattern, and the words of the search ([rank, byte]; word() reads one): per
    placement, which blank regions lie above its distance (raised_fields), what a
    zero-aware table keeps (patterndb.build.zeroaware). Returns (table, words, seconds, levels).
    two_passes: expand each level in two passes, as tables whose tile 0's moves would not
    fit 4 bytes always are (see above; tests set it to check both ways on small boards)."""
    start = time.perf_counter()
    n = len(nbrs)
    k = len(goal_cells)
    size = num_placements(n, k)
    geo = _geometry(n, cols)
    regions = region_table(n, geo) if n <= table_cells else np.zeros(1, dtype=np.uint16)
    cells = Cells(
        np.ascontiguousarray(nbrs, dtype=np.int64),
        _neighbour_masks(nbrs),
        geo,
        regions,
        box_rings(n, cols),
        box_bridges(cols),
    )
    weights = np.array([num_placements(n - 1 - i, k - 1 - i) for i in range(k)], dtype=np.int64)
    dist = np.full(size, UNREACHED, dtype=np.uint8)
    words = new_words(size, n - k)
    pos = np.asarray(goal_cells, dtype=np.int64)
    r0 = rank(pos, k, n)
    free = np.uint64(((1 << n) - 1) & ~sum(1 << int(c) for c in pos))
    ordv = int(ordinal(lowest_bit(flood(goal_blank, free, geo)), free))
    words[r0, ordv // 4] = 1 << (2 * (ordv % 4))  # the goal's region: the frontier of level 0
    dist[r0] = 0
    layers = Layers(words, dist, np.zeros((2, (size >> MARK_SHIFT) + 1), dtype=np.uint8))
    layers.marks[0, r0 >> MARK_SHIFT] = 1
    # One pass a level where a deferred move fits 4 bytes (5x5's 6-tile tables, 6x6's 5-tile,
    # 4x4's 8-tile: 519 M ranks and 3 bits for the field of one of 8 cells); larger ones keep
    # two passes, whose memory is the table's alone.
    fb = field_bits(n, k)
    one_pass = size << fb <= 1 << 32 and not two_passes
    cores = threads()
    parts = min(n, cores)
    # A big table's level goes in rounds of about ROUND placements, each round's moves of tile 0
    # written before the next (they lead to placements of the other parity, which this level
    # neither expands nor closes): 4x4's 8-tile table in rounds of 2 of its 16 blocks, whose
    # moves take tens of MB rather than the 300 MB of a level's. Smaller tables (5x5's 6-tile)
    # take a level's blocks at once, with no wait for the slowest block of each round.
    per_round = n if size <= 4 * ROUND else max(cores, ROUND // (size // n))
    bar = LevelProgress(progress, size) if progress else None
    done, level = 1, 0
    with ThreadPoolExecutor(cores) as pool:
        while True:
            if k > 1 and not one_pass:
                args = (layers, level, k, n, cells, weights)
                counts = hand_out(partial(_phase_a, *args), n, pool)
                counts += hand_out(partial(_phase_b, *args), n, pool)
                new, frontier = (sum(x) for x in zip(*counts))
            elif k > 1:
                new, frontier = 0, 0
                for first in range(0, n, per_round):
                    expand = partial(_expand_block, layers, level, k, n, cells, weights, first)
                    expanded = hand_out(expand, min(per_round, n - first), pool)
                    moves = tuple(m for _, _, m in expanded)
                    apply = partial(apply_moves, layers, level, n, fb, moves, parts)
                    for p, f in [x[:2] for x in expanded] + hand_out(apply, parts, pool):
                        new, frontier = new + p, frontier + f
            else:
                new, frontier = _written(0, size, 0, 1, True, layers, level, k, n, cells, weights)
            layers.marks[level % 2] = 0
            level += 1
            done += new
            if bar:
                bar.level(level, done, new)
            if frontier == 0:
                break
    seconds = time.perf_counter() - start
    if bar:
        bar.done(seconds)
    return dist, words, seconds, level - 1
