"""The one interface every heuristic offers: a kernel tuple and a Python call."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from patterndb import Board
from patterndb.files.mapping import populate

from ..search.heuristic import TABLE

_DUMMY_I = np.zeros(1, dtype=np.int64)
_DUMMY_2D = np.zeros((1, 1), dtype=np.int64)
_DUMMY_U8 = np.zeros(1, dtype=np.uint8)
_EMPTY_I = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Heuristic:
    """An estimate of moves to the canonical goal.

    admissible: never overestimates; consistent: changes by at most 1 per
    move. H is the kernel tuple described in solver.search.heuristic.
    """

    name: str
    admissible: bool
    consistent: bool
    H: tuple
    tables: tuple[
        str, ...
    ] = ()  # "file name:crc32" of each table used (what a checkpoint is tied to)

    def __call__(self, board: Board) -> int:
        """Value on a board of the canonical frame."""
        # the compiled ones when built: no numba import for one value
        from ..search.aot import kernels

        k = kernels()
        G = k.scratch_size(self.H)
        tiles = board.tiles.astype(np.int64)
        return int(
            k.h_full(tiles, board.positions(), self.H, np.zeros(G, np.int64), np.zeros(G, np.int64))
        )

    def populate(self, settle: bool = False) -> bool:
        """Map every page of its tables into the process now (patterndb.files.mapping.populate: what
        a batch of boards does before its searches; settle: and read a byte of each, as a race
        does); False where that is not possible."""
        return populate(self.H[TABLE], settle)


def kernel_tuple(
    kind: int,
    goal: Board,
    table: np.ndarray = _DUMMY_U8,
    group_of: np.ndarray | None = None,
    group_tiles: np.ndarray = _DUMMY_2D,
    group_k: np.ndarray = _EMPTY_I,
    offsets: np.ndarray = _DUMMY_I,
    refl_tile: np.ndarray = _DUMMY_I,
    refl_cell: np.ndarray = _DUMMY_I,
    reflect: bool = False,
    packed: np.ndarray = _DUMMY_I,
    tile_inst: np.ndarray = _DUMMY_2D,
    inst_group: np.ndarray = _EMPTY_I,
    part_of: np.ndarray = _EMPTY_I,
    zinfo: np.ndarray | None = None,
    cellmap: np.ndarray = _DUMMY_2D,
) -> tuple:
    """Build H for goal (a canonical-frame board); see solver.search.heuristic for the layout."""
    shape = goal.shape
    n = shape.n
    goalpos = goal.positions()
    md = np.zeros((n, n), dtype=np.int64)
    for t in range(1, n):
        for c in range(n):
            md[t, c] = shape.manhattan(int(goalpos[t]), c)
    if group_of is None:
        group_of = np.full(n, -1, dtype=np.int64)
    rowcol = np.array([np.arange(n) // shape.cols, np.arange(n) % shape.cols], dtype=np.int64)
    return (
        np.int64(kind),
        goalpos,
        md,
        np.int64(shape.cols),
        table,
        group_of,
        group_tiles,
        group_k,
        offsets,
        refl_tile,
        refl_cell,
        bool(reflect),
        rowcol,
        packed,
        tile_inst,
        inst_group,
        part_of,
        np.zeros((max(group_k.size, 1), 7), dtype=np.int64) if zinfo is None else zinfo,
        cellmap,
    )
