"""Board shapes: cells, adjacency and blank-move directions.

Cells are numbered row-major from 0. A move is named by the direction the
blank travels (U, D, L, R); the tile moved travels the opposite way.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import BoardError

DIRECTIONS = "UDLR"
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))
MIN_SIDE, MAX_SIDE = 2, 7
MAX_CELLS = 49  # a board's cells fit one uint64 bitmask (the table builders' free-cell masks)


@dataclass(frozen=True)
class Shape:
    """A rows x cols board (2..7 on each side, up to 7x7)."""

    rows: int
    cols: int

    def __post_init__(self) -> None:
        for name, v in (("rows", self.rows), ("cols", self.cols)):
            if not isinstance(v, (int, np.integer)) or not MIN_SIDE <= v <= MAX_SIDE:
                raise BoardError(
                    f"{name} must be an integer from {MIN_SIDE} to {MAX_SIDE}, got {v!r}"
                )
        if self.rows * self.cols > MAX_CELLS:
            raise BoardError(
                f"a {self.rows}x{self.cols} board has {self.rows * self.cols} cells; at most {MAX_CELLS}"
            )

    @property
    def n(self) -> int:
        """Number of cells (tiles including the blank)."""
        return self.rows * self.cols

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    @cached_property
    def neighbours(self) -> np.ndarray:
        """(n, 4) int64 array: the cell the blank reaches going U, D, L, R, or -1."""
        nb = np.full((self.n, 4), -1, dtype=np.int64)
        for cell in range(self.n):
            r, c = divmod(cell, self.cols)
            for d, (dr, dc) in enumerate(_DELTAS):
                rr, cc = r + dr, c + dc
                if 0 <= rr < self.rows and 0 <= cc < self.cols:
                    nb[cell, d] = rr * self.cols + cc
        return nb

    @cached_property
    def _moves(self) -> list[str]:
        """_moves[src * n + dst]: the direction letter of the blank move src -> dst, "" where
        there is none. A flat list: reading the neighbours array cell by cell cost 50 us a
        15-puzzle solution (3% of Korf's 100), a dict keyed by (src, dst) 15 us."""
        n = self.n
        moves = [""] * (n * n)
        for src, row in enumerate(self.neighbours.tolist()):
            for d, dst in enumerate(row):
                if dst >= 0:
                    moves[src * n + dst] = DIRECTIONS[d]
        return moves

    def direction(self, src: int, dst: int) -> str:
        """Direction letter of a blank move from cell src to adjacent cell dst."""
        n = self.n
        try:
            src, dst = operator.index(src), operator.index(dst)
        except TypeError:
            raise ValueError(f"cells {src!r} and {dst!r} are not adjacent") from None
        letter = self._moves[src * n + dst] if 0 <= src < n and 0 <= dst < n else ""
        if not letter:
            raise ValueError(f"cells {src} and {dst} are not adjacent")
        return letter

    def directions(self, path: list[int]) -> str:
        """Direction letters of a blank path (its cells, first to last): one join, not a
        direction() call a move."""
        moves, n = self._moves, self.n
        try:
            if len(path) < 2 or (0 <= min(path) and max(path) < n):
                letters = [moves[a * n + b] for a, b in zip(path, path[1:])]
                if "" not in letters:
                    return "".join(letters)
        except TypeError:  # not cell numbers: said below
            pass
        for a, b in zip(path, path[1:]):
            self.direction(a, b)  # raises for the first pair that is not a move
        raise AssertionError("unreachable: some pair is not a move")

    def manhattan(self, a: int, b: int) -> int:
        ra, ca = divmod(a, self.cols)
        rb, cb = divmod(b, self.cols)
        return abs(ra - rb) + abs(ca - cb)
