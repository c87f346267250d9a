"""Board symmetries that let one table file serve several tile groups.

A group's table is a function of where its tiles stand (and, zero-aware, of the
blank's region). A symmetry R of the board (a turn, a flip or a transpose that
maps the grid onto itself) maps each tile's goal cell c to R(c); call s(t) the
tile whose goal cell is R(goal cell of t). The moves of the group S, the
Manhattan distance and the blank's regions are carried by R onto those of the
group s(S), so

    table of s(S) at state X  =  table of S at R^-1(X)

provided the two searches start from corresponding goals: s(S) must not hold the
blank (no tile of S may sit where R puts the blank's goal cell), and the blank's
goal cell and its preimage under R must lie in one region among the cells S
leaves free (where S walls off a corner, the tables differ). So a catalogue
that needs S and s(S) stores one file and reads it twice, once through R's cell
map: Clausecker & Reinefeld's 14 groups of small-t come from 11 files, and the
four groups of 6-6-6-6 from two.

Groups are written as elsewhere (patterns.py): sorted tuples of canonical tiles,
with 0 when the table is zero-aware; a symmetry keeps that mark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .frame import Frame
from .patterns import Partition, is_zero_aware, pattern_tiles


@dataclass(frozen=True, eq=False)
class Symmetry:
    """A map of the board's cells onto themselves that keeps adjacency."""

    name: str
    cell: np.ndarray  # cell c -> R(c)

    @property
    def inverse(self) -> np.ndarray:
        """R^-1 as a cell map: what the search reads a mapped group's cells through."""
        inv = np.empty_like(self.cell)
        inv[self.cell] = np.arange(self.cell.size)
        return inv


def board_symmetries(rows: int, cols: int) -> tuple[Symmetry, ...]:
    """The board's symmetries, identity first: 8 on a square board, 4 on another."""
    out = []
    for name, transpose, flip_rows, flip_cols in (
        ("identity", False, False, False),
        ("transpose", True, False, False),
        ("rotate 180", False, True, True),
        ("anti-transpose", True, True, True),
        ("flip rows", False, True, False),
        ("flip columns", False, False, True),
        ("rotate 90", True, False, True),
        ("rotate 270", True, True, False),
    ):
        if transpose and rows != cols:
            continue
        cell = np.empty(rows * cols, dtype=np.int64)
        for c in range(rows * cols):
            r, k = divmod(c, cols)
            if transpose:
                r, k = k, r
            if flip_rows:
                r = rows - 1 - r
            if flip_cols:
                k = cols - 1 - k
            cell[c] = r * cols + k
        out.append(Symmetry(name, cell))
    return tuple(out)


def tile_map(frame: Frame, sym: Symmetry) -> np.ndarray:
    """s: tile t -> the tile whose goal cell is sym's image of t's goal cell."""
    goal = frame.canonical_goal
    return goal.tiles.astype(np.int64)[sym.cell[goal.positions()]]


def _region(seed: int, free: set[int], frame: Frame) -> set[int]:
    nbrs = frame.shape.neighbours
    seen, todo = {seed}, [seed]
    while todo:
        c = todo.pop()
        for d in nbrs[c]:
            if d >= 0 and int(d) in free and int(d) not in seen:
                seen.add(int(d))
                todo.append(int(d))
    return seen


def image(frame: Frame, group: tuple[int, ...], sym: Symmetry) -> tuple[int, ...] | None:
    """The group whose table equals group's read through sym (its tiles s(t)), or None where
    sym cannot carry group's table (the blank's goal cell would go to a tile, or the two
    goals' blank cells lie in different regions)."""
    s = tile_map(frame, sym)
    tiles = [int(s[t]) for t in pattern_tiles(group)]
    if 0 in tiles:
        return None
    goal = frame.canonical_goal.positions()
    blank = int(goal[0])
    free = set(range(frame.shape.n)) - {int(goal[t]) for t in pattern_tiles(group)}
    if int(sym.inverse[blank]) not in _region(blank, free, frame):
        return None
    return tuple(sorted(tiles + ([0] if is_zero_aware(group) else [])))


@dataclass(frozen=True)
class Served:
    """Group `group` is read from the table of `table` through symmetry `sym`: tile
    tiles[i] of the group stands for the table's i-th tile, and a cell c of the board
    is cell sym.inverse[c] of the table's frame."""

    group: tuple[int, ...]
    table: tuple[int, ...]
    sym: Symmetry

    def tiles(self, frame: Frame) -> list[int]:
        s = tile_map(frame, self.sym)
        return [int(s[t]) for t in pattern_tiles(self.table)]


def servers(frame: Frame, group: tuple[int, ...]) -> Iterable[Served]:
    """Every (table, symmetry) that can serve group, the group's own table first."""
    shape = frame.shape
    for sym in board_symmetries(shape.rows, shape.cols):
        inv = Symmetry(sym.name, sym.inverse)
        table = image(frame, group, inv)  # the table whose image under sym is group
        if table is not None and image(frame, table, sym) == group:
            yield Served(group, table, sym)


def serve(
    frame: Frame, groups: Iterable[tuple[int, ...]], have: Callable[[tuple[int, ...]], bool]
) -> list[Served]:
    """How each of groups is read, from few tables: a greedy cover (the table serving most
    groups still unserved, a group's own table on ties), over the tables that have() says
    exist first, then over all. A group is read from its own table where that is among
    them. So `pdb build` of a catalogue builds one table per family of symmetric groups,
    and the search finds the same tables."""
    groups = list(groups)
    options = {g: list(servers(frame, g)) for g in groups}
    serves: dict[tuple[int, ...], set] = {}  # table -> the groups it can serve
    for g in groups:
        for s in options[g]:
            serves.setdefault(s.table, set()).add(g)
    chosen: list[tuple[int, ...]] = []
    left = set(groups)
    for pool in ([t for t in serves if have(t)], list(serves)):  # the tables there, then any
        while left and any(serves[t] & left for t in pool):
            best = max(pool, key=lambda t: (len(serves[t] & left), t in groups, -pool.index(t)))
            chosen.append(best)
            left -= serves[best]
    out = []
    for g in groups:
        pick = [s for s in options[g] if s.table in chosen]
        out.append(
            next((s for s in pick if s.table == g), None)
            or min(pick, key=lambda s: chosen.index(s.table))
        )
    return out


def diagonal(frame: Frame) -> tuple[np.ndarray, np.ndarray] | None:
    """(tile map, cell map) of the transpose where it maps the canonical goal onto itself (a
    square board, the blank's goal on the diagonal: Korf & Felner's mirror), else None."""
    sym = next(
        (s for s in board_symmetries(frame.shape.rows, frame.shape.cols) if s.name == "transpose"),
        None,
    )
    if sym is None:
        return None
    tiles = tile_map(frame, sym)
    return (tiles, sym.cell) if tiles[0] == 0 else None


def mirrored(frame: Frame, part: Partition) -> Partition | None:
    """The partition read in the diagonal mirror (Korf & Felner's second lookup) as a partition
    of its own: the transposed groups, or None where the board or its goal has no such mirror."""
    mirror = diagonal(frame)
    if mirror is None:
        return None
    s = mirror[0]
    return tuple(sorted(tuple(sorted(int(s[t]) for t in g)) for g in part))


def catalogue_sums(
    frame: Frame, parts: tuple[Partition, ...], reflect: bool = True
) -> tuple[Partition, ...]:
    """The sums a catalogue's search takes the maximum of: each partition, followed (reflect)
    by its mirror where the goal has one, each sum once."""
    out: list[Partition] = []
    seen: set[frozenset] = set()
    for part in parts:
        for p in (part, mirrored(frame, part) if reflect else None):
            if p is not None and frozenset(p) not in seen:
                seen.add(frozenset(p))
                out.append(p)
    return tuple(out)
