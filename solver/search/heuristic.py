"""Heuristic evaluation inside numba search kernels.

Every heuristic is described by one tuple H of fixed layout, so each search
kernel compiles once and branches on H[KIND] (the kind):

  H = (kind, goalpos[n], md[n, n], cols, table[:], group_of[n],
       group_tiles[G, kmax], group_k[G], offsets[G], refl_tile[n],
       refl_cell[n], reflect, rowcol[2, n], packed[G],
       tile_inst[n, P], inst_group[I], part_of[I],
       zinfo[G, 7], cellmap[G, n])

md[t, c] is the Manhattan distance of tile t on cell c from its goal cell;
rowcol[0, c] and rowcol[1, c] are cell c's row and column (no division in
the hot loops).
For pattern databases, table is every group's table concatenated (group g at
offsets[g]), indexed by the rank of the group's tile cells; with reflect,
the state mirrored about the main diagonal is looked up too and the larger
sum is used. A group with packed[g] != 0 has a 4-bit table (patterndb.build.nibbles):
its value is the group's Manhattan distance, summed while ranking, plus twice
the stored nibble. For the exact kind, table is indexed by the full rank.
A catalogue (PDB_MAX) is the maximum over P partitions' sums (a partition's
diagonal mirror is a partition of its own there, its transposed groups): instance
i is group inst_group[i] counted in partition part_of[i], and tile_inst[t, p] is
the instance holding tile t in partition p (or -1). A catalogue's group g is read
from a table that may be another group's under a board symmetry
(patterndb.puzzle.symmetry): group_tiles[g] are the board's tiles standing for the
table's, and cellmap[g, c] is the table frame's cell for the board's cell c.
A zero-aware group (patterndb.build.zeroaware) has a 4-bit code per rank (packed[g]
= 2) and zinfo[g] = (region_bytes > 0, flag_code, prefix_at (-1: dense),
regions_at, and where a flagged code's first read is: base, mul, shift), the
offsets absolute in table: a flagged code's region bits say which blank
regions need 2 more moves (the blank's found by a flood fill).
Unused fields hold one-element dummies.
"""

from __future__ import annotations

import numpy as np

from patterndb.bits import popcount
from patterndb.build.zeroaware import code_value, cover_key, region_inputs, region_raise, where
from patterndb.jit import njit
from patterndb.puzzle.ranking import rank

BLIND, MISPLACED, MANHATTAN, LINEAR_CONFLICT, EXACT, PDB, PDB_MAX = range(7)

# The fields of H, by position (numba reads a tuple's fields by constant index: these are
# compile-time constants to it).
(
    KIND,
    GOALPOS,
    MD,
    COLS,
    TABLE,
    GROUP_OF,
    GROUP_TILES,
    GROUP_K,
    OFFSETS,
    REFL_TILE,
    REFL_CELL,
    REFLECT,
    ROWCOL,
    PACKED,
    TILE_INST,
    INST_GROUP,
    PART_OF,
    ZINFO,
    CELLMAP,
) = range(19)


@njit(cache=True, inline="always")
def scratch_size(H):
    """Slots h_full needs in each of greg and gref: one per group, or per catalogue instance."""
    return max(H[GROUP_K].size, H[INST_GROUP].size, 1)


@njit(cache=True, inline="always")
def has_zero_aware(H):
    """Is some group's table zero-aware (then the search runs the kernels that look)?"""
    return (H[ZINFO][:, 0] > 0).any()


@njit(cache=True, inline="always")
def lookup_arrays(H):
    """The fields of H a table lookup reads, taken out once: (md, group_tiles, group_k,
    offsets, refl_tile, refl_cell, table, packed, zinfo, cols). Search kernels take them
    before their loop and pass them on; taken from H inside the loop, every lookup makes
    new references that numba must prune, and where it could not (a zero-aware branch was
    enough) each node cost 6-10 times more."""
    return (
        H[MD],
        H[GROUP_TILES],
        H[GROUP_K],
        H[OFFSETS],
        H[REFL_TILE],
        H[REFL_CELL],
        H[TABLE],
        H[PACKED],
        H[ZINFO],
        H[COLS],
    )


@njit(cache=True, inline="always")
def group_key(pos, md, group_tiles, group_k, refl_tile, refl_cell, g, reflected, zero):
    """(group g's key, its Manhattan distance) in the state or its diagonal mirror: the
    key is the rank of the group's tile cells, and with zero their mask from bit 32
    (rank_steps: the search updates it per move)."""
    n = pos.size
    used = np.uint64(0)
    r = 0
    m = 0
    for i in range(group_k[g]):
        t = group_tiles[g, i]
        p = refl_cell[pos[refl_tile[t]]] if reflected else pos[t]
        r, used = rank_digit(r, used, p, n, i)
        m += md[t, p]
    return cover_key(r, used) if zero else r, m


@njit(cache=True, inline="always")
def rank_digit(r, used, p, n, i):
    """ranking.rank's step: (the rank so far with the group's i-th tile on cell p, the cells
    used), the cells of the tiles before it in used."""
    below = popcount(used & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
    return r * (n - i) + (p - below), used | (np.uint64(1) << np.uint64(p))


@njit(cache=True, inline="always")
def key_entry(offsets, packed, g, key, blank, zero):
    """(byte index into the table, r) of group g's entry for its key (group_key) with the
    blank on cell blank: r is the rank, or with zero zeroaware.where's word (rank, covered
    cells, blank's cell)."""
    rank = key & 0xFFFFFFFF if zero else key
    index = offsets[g] + (rank >> 1 if packed[g] else rank)
    # r: where() for every group with zero: a test of the group's kind here made numba
    # count references in the loop (2x slower per node)
    return index, where(key, blank) if zero else key


@njit(cache=True, inline="always")
def group_entry(
    pos,
    md,
    group_tiles,
    group_k,
    offsets,
    refl_tile,
    refl_cell,
    packed,
    zinfo,
    cols,
    g,
    reflected,
    zero,
):
    """Where group g's entry for the state (or its diagonal mirror) is: (byte index into
    the table, the group's Manhattan distance, r as key_entry); entry_value reads it. The
    arrays: lookup_arrays(H), unpacked by the caller before its loop. zero: whether
    zero-aware groups may occur (a constant in the search kernels: the plain ones keep no
    test)."""
    key, m = group_key(pos, md, group_tiles, group_k, refl_tile, refl_cell, g, reflected, zero)
    index, r = key_entry(offsets, packed, g, key, refl_cell[pos[0]] if reflected else pos[0], zero)
    return index, m, r


@njit(cache=True, inline="always")
def mapped_entry(pos, md, group_tiles, group_k, offsets, cellmap, packed, g, zero):
    """group_entry for a catalogue's group g, read through its cell map (a table of another
    group under a board symmetry, or its own under the identity): the rank of the mapped
    cells of its tiles, in the table's tile order. The Manhattan distance needs no map
    (a symmetry keeps it)."""
    used = np.uint64(0)
    r = m = 0
    for i in range(group_k[g]):
        q = pos[group_tiles[g, i]]
        r, used = rank_digit(r, used, cellmap[g, q], pos.size, i)
        m += md[group_tiles[g, i], q]
    index, r = key_entry(
        offsets, packed, g, cover_key(r, used) if zero else r, cellmap[g, pos[0]], zero
    )
    return index, m, r


@njit(cache=True, inline="always")
def entry_value(table, packed, zinfo, cols, n, g, index, m, r, zero):
    """The heuristic value of group g's entry found by group_entry (a byte, a 4-bit entry,
    or a zero-aware code and, if flagged, its region word); zero as there, cols and n the
    board's."""
    v, flagged = entry_low(table, packed, zinfo, g, index, m, r, zero)
    inputs = region_inputs(table, zinfo, g)
    if flagged:
        return v + region_raise(inputs, index, r, cols, n)
    return v


@njit(cache=True, inline="always")
def entry_low(table, packed, zinfo, g, index, m, r, zero):
    """(entry_value without a flagged zero-aware entry's region part, whether the entry is
    flagged): a search prunes on the lower value first and adds region_raise only for the
    children that survive it."""
    if zero and zinfo[g, 0]:
        return code_value(table, index, zinfo, g, m, r)
    if packed[g]:
        return m + 2 * ((np.int64(table[index]) >> (4 * (r & 1))) & 15), False
    return np.int64(table[index]), False


@njit(cache=True, inline="always")
def group_value(
    pos,
    md,
    group_tiles,
    group_k,
    offsets,
    refl_tile,
    refl_cell,
    table,
    packed,
    zinfo,
    cols,
    g,
    reflected,
    zero,
):
    """Table entry of group g for the state (or its diagonal mirror); as group_entry."""
    index, m, r = group_entry(
        pos,
        md,
        group_tiles,
        group_k,
        offsets,
        refl_tile,
        refl_cell,
        packed,
        zinfo,
        cols,
        g,
        reflected,
        zero,
    )
    return entry_value(table, packed, zinfo, cols, pos.size, g, index, m, r, zero)


@njit(cache=True, inline="always")
def _lis(buf, m):
    """Longest increasing run of buf[0:m], using buf[8:8+m] as scratch (no allocation)."""
    best = 0
    for i in range(m):
        buf[8 + i] = 1
        for j in range(i):
            if buf[j] < buf[i] and buf[8 + j] + 1 > buf[8 + i]:
                buf[8 + i] = buf[8 + j] + 1
        best = max(best, buf[8 + i])
    return best


@njit(cache=True, inline="always")
def line_conflicts(board, H, is_row, index, seq):
    """2 x the tiles that must leave this goal row (column) so the others can
    pass: the line's tiles at home in it, minus its longest in-order run.
    seq: a 16-slot buffer (lines are at most 7 long; _lis uses slots 8..14)."""
    goalpos, cols, rowcol = H[GOALPOS], H[COLS], H[ROWCOL]
    m = 0
    if is_row:
        for j in range(index * cols, index * cols + cols):
            t = board[j]
            if t and rowcol[0, goalpos[t]] == index:
                seq[m] = rowcol[1, goalpos[t]]
                m += 1
    else:
        for j in range(index, board.size, cols):
            t = board[j]
            if t and rowcol[1, goalpos[t]] == index:
                seq[m] = rowcol[0, goalpos[t]]
                m += 1
    return 2 * (m - _lis(seq, m))


@njit(cache=True)
def linear_conflict(board, H):
    """Manhattan plus the line conflicts of every row and column
    (Hansson, Mayer & Yung's admissible form of Korf & Taylor's idea)."""
    md, cols = H[MD], H[COLS]
    n = board.size
    rows = n // cols
    seq = np.empty(16, dtype=np.int64)
    h = 0
    for c in range(n):
        t = board[c]
        if t:
            h += md[t, c]
    for r in range(rows):
        h += line_conflicts(board, H, True, r, seq)
    for c in range(cols):
        h += line_conflicts(board, H, False, c, seq)
    return h


@njit(cache=True, inline="always")
def conflicts_change(board, H, t, src, dst, seq):
    """How the line conflicts of the board (before the move) change when tile t slides from src
    to dst: only t's goal row (a vertical slide) or goal column (a horizontal one) can change,
    and only when t leaves or enters it; a slide along a line keeps the order of its tiles.
    At most two line scans (a scan of the three lines a move touches, before and after, made a
    beam's child cost 2x instead of 1.2x). seq: line_conflicts' buffer."""
    rowcol = H[ROWCOL]
    vertical = rowcol[1, src] == rowcol[1, dst]
    axis = 0 if vertical else 1
    line = rowcol[axis, H[GOALPOS][t]]
    if rowcol[axis, src] != line and rowcol[axis, dst] != line:
        return 0
    before = line_conflicts(board, H, vertical, line, seq)
    board[dst] = t
    board[src] = 0
    after = line_conflicts(board, H, vertical, line, seq)
    board[src] = t
    board[dst] = 0
    return after - before


@njit(cache=True)
def h_full(board, pos, H, greg, gref):
    """Heuristic of a state from scratch; for PDBs fills greg/gref (per-group values)."""
    kind = H[KIND]
    n = board.size
    if kind == BLIND:
        return 0
    if kind == MISPLACED:
        h = 0
        for c in range(n):
            if board[c] and H[GOALPOS][board[c]] != c:
                h += 1
        return h
    if kind == MANHATTAN:
        h = 0
        for c in range(n):
            if board[c]:
                h += H[MD][board[c], c]
        return h
    if kind == LINEAR_CONFLICT:
        return linear_conflict(board, H)
    if kind == EXACT:
        return np.int64(H[TABLE][rank(pos, n, n)])
    md, group_tiles, group_k, offsets, refl_tile, refl_cell, table, packed, zinfo, cols = (
        lookup_arrays(H)
    )
    if kind == PDB_MAX:  # greg: per instance (gref unused: a mirror is a partition of its own)
        inst_group, part_of, cellmap = H[INST_GROUP], H[PART_OF], H[CELLMAP]
        sums = np.zeros(H[TILE_INST].shape[1], dtype=np.int64)
        for i in range(inst_group.size):
            g = inst_group[i]
            index, m, r = mapped_entry(
                pos, md, group_tiles, group_k, offsets, cellmap, packed, g, True
            )
            greg[i] = entry_value(table, packed, zinfo, cols, n, g, index, m, r, True)
            sums[part_of[i]] += greg[i]
        return sums.max()
    hr = 0
    hf = 0
    for g in range(H[GROUP_K].size):
        greg[g] = group_value(
            pos,
            md,
            group_tiles,
            group_k,
            offsets,
            refl_tile,
            refl_cell,
            table,
            packed,
            zinfo,
            cols,
            g,
            False,
            True,
        )
        hr += greg[g]
        if H[REFLECT]:
            gref[g] = group_value(
                pos,
                md,
                group_tiles,
                group_k,
                offsets,
                refl_tile,
                refl_cell,
                table,
                packed,
                zinfo,
                cols,
                g,
                True,
                True,
            )
            hf += gref[g]
    return max(hr, hf)


@njit(cache=True, inline="always")
def is_incremental(H):
    """Does a move change only its tile's group and that group's mirror (one partition's
    pattern databases: step_entry applies), rather than calling for h_full (catalogues)?
    Zero-aware groups too: a group's value follows the blank only from one region of the
    cells its tiles leave free to another, and a move of another group's tile takes the
    blank to the next cell, which that tile left free: the same region."""
    return H[KIND] == PDB


@njit(cache=True, inline="always")
def step_entry(
    pos,
    md,
    group_tiles,
    group_k,
    offsets,
    refl_tile,
    refl_cell,
    packed,
    zinfo,
    cols,
    group_of,
    t,
    reflected,
    zero,
):
    """Where the value of the group that the move of tile t changed is, pos already moved:
    (that group, and its entry as group_entry gives it: byte index, Manhattan distance, r);
    the group is tile t's, or with reflected the one whose mirrored lookup reads t's cell
    (the group of t's mirror tile); group -1 when no group holds it (the rest is then
    garbage). One partition only (is_incremental): entry_value reads the entry, which a
    search may ask the CPU for first (the beam asks for a block of children's at once).
    The arrays: lookup_arrays(H) and H[GROUP_OF] (group_of), unpacked by the caller before its
    loop; zero: has_zero_aware(H), best passed as a constant (the lookup's zero-aware
    branches then fold away: a 7x7 beam took 1.7x the time without). No branch here: taken
    from H, or with a branch for the group -1, a beam's child took 1.25-1.4x the time
    (numba counts references on every array read after a branch)."""
    g = group_of[refl_tile[t]] if reflected else group_of[t]
    index, m, r = group_entry(
        pos,
        md,
        group_tiles,
        group_k,
        offsets,
        refl_tile,
        refl_cell,
        packed,
        zinfo,
        cols,
        g,
        reflected,
        zero,
    )
    return g, index, m, r


@njit(cache=True, inline="always")
def h_move(board, pos, H, h, t, src, dst, scratch):
    """Heuristic after tile t slid from src to dst (board/pos already updated).

    Incremental for misplaced and Manhattan (only the moved tile's term
    changes) and linear conflict (only the lines the move touches); the exact
    table is looked up. Pattern databases have their own
    incremental kernel (search/idastar_pdb.py). scratch: 16 free int64 slots."""
    kind = H[KIND]
    if kind == BLIND:
        return 0
    if kind == MANHATTAN:
        return h - H[MD][t, src] + H[MD][t, dst]
    if kind == MISPLACED:
        goal = H[GOALPOS][t]
        return h - (goal != src) + (goal != dst)
    if kind == LINEAR_CONFLICT:
        # (the board is after the move: the slide back, dst to src, changes the conflicts by minus
        # this move's change)
        return h - H[MD][t, src] + H[MD][t, dst] - conflicts_change(board, H, t, dst, src, scratch)
    return h_full(board, pos, H, scratch, scratch)


@njit(cache=True)
def h_many(boards, H):
    """Heuristic of each row of a (m, n) array of boards (for tests and tools)."""
    m, n = boards.shape
    out = np.empty(m, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    G = scratch_size(H)
    greg = np.zeros(G, dtype=np.int64)
    gref = np.zeros(G, dtype=np.int64)
    for i in range(m):
        for c in range(n):
            pos[boards[i, c]] = c
        out[i] = h_full(boards[i], pos, H, greg, gref)
    return out
