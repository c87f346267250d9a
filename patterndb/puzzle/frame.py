"""The canonical frame in which tables are built and looked up.

A table depends on the goal only through where each tile sits in it. So
tiles are relabelled by their goal cell, and the board is turned 180 degrees
when that brings the goal blank nearer cell 0. Blank-first and blank-last
(and any goal with the blank in a corner of the first or last cell) then
share one set of tables: users never build twice for the two conventions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .board import Board
from .geometry import Shape

_FLIP = str.maketrans("UDLR", "DURL")


@dataclass(frozen=True, eq=False)
class Frame:
    """The map from a user's goal convention onto the canonical goal."""

    goal: Board
    rotated: bool
    label: np.ndarray  # user tile -> canonical tile
    unlabel: np.ndarray  # canonical tile -> user tile

    @classmethod
    def for_goal(cls, goal: Board) -> Frame:
        n = goal.shape.n
        b = goal.blank
        rotated = (n - 1 - b) < b
        cell = (n - 1 - np.arange(n)) if rotated else np.arange(n)
        cb = int(cell[b])
        label = np.empty(n, dtype=np.int64)
        for c in range(n):
            t = int(goal.tiles[c])
            cc = int(cell[c])
            label[t] = 0 if t == 0 else (cc + 1 if cc < cb else cc)
        unlabel = np.empty(n, dtype=np.int64)
        unlabel[label] = np.arange(n)
        return cls(goal, rotated, label, unlabel)

    @property
    def shape(self) -> Shape:
        return self.goal.shape

    @property
    def blank_cell(self) -> int:
        """The blank's cell in the canonical goal."""
        return self.shape.n - 1 - self.goal.blank if self.rotated else self.goal.blank

    @property
    def key(self) -> str:
        """Names the canonical goal in file names: '4x4-b0' is blank-first."""
        return f"{self.shape}-b{self.blank_cell}"

    @cached_property
    def canonical_goal(self) -> Board:
        """(Kept: every solve reads it, and a Board checks its tiles when made.)"""
        return self.to_canonical(self.goal)

    def to_canonical(self, board: Board) -> Board:
        tiles = self.label[board.tiles]
        return Board.relabelled(self.shape, board, tiles[::-1] if self.rotated else tiles)

    def from_canonical(self, board: Board) -> Board:
        tiles = self.unlabel[board.tiles]
        return Board.relabelled(self.shape, board, tiles[::-1] if self.rotated else tiles)

    def tiles_from_canonical(self, tiles: list[int]) -> list[int]:
        unlabel = self._unlabel_list
        return [unlabel[t] for t in tiles]

    @cached_property
    def _unlabel_list(self) -> list[int]:
        """unlabel as a list: a solution's tiles are mapped one by one, in Python."""
        return self.unlabel.tolist()

    def directions_from_canonical(self, directions: str) -> str:
        return directions.translate(_FLIP) if self.rotated else directions
