"""Optimal moves read off a complete distance table: step to any neighbour one closer."""

from __future__ import annotations

import numpy as np

from patterndb import Board, TableError
from patterndb.build.exact import UNREACHED

from .aot import kernels


def table_walk(board: Board, table: np.ndarray) -> tuple[list[int], int]:
    """Blank cells along an optimal path (canonical frame) and lookups made."""
    n = board.shape.n
    nbrs = board.shape.neighbours
    pos = board.positions()
    tiles = board.tiles.astype(np.int64)
    rank = kernels().rank
    d = int(table[rank(pos, n, n)])
    if d == UNREACHED:
        raise TableError("the board is not in the table (wrong parity for this goal)")
    path = [int(pos[0])]
    lookups = 1
    while d > 0:
        b = int(pos[0])
        for c in nbrs[b]:
            if c < 0:
                continue
            t = tiles[c]
            pos[0], pos[t] = c, b
            lookups += 1
            if table[rank(pos, n, n)] == d - 1:
                tiles[b], tiles[c] = t, 0
                path.append(int(c))
                d -= 1
                break
            pos[0], pos[t] = b, c
        else:
            raise TableError(
                "the exact table is inconsistent (no neighbour one move closer): rebuild it"
            )
    return path, lookups
