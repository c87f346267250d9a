"""A solved board: the moves, their cost, and what guarantees optimality."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from patterndb import Board


@dataclass
class Solution:
    board: Board
    goal: Board
    moves: list[int]  # tile numbers slid, in order
    directions: str  # the blank's direction per move (U, D, L, R)
    optimal: bool
    proof: str  # why it is optimal, or why that is not known
    algorithm: str
    heuristic: str
    nodes_expanded: int
    nodes_generated: int
    seconds: float

    @property
    def length(self) -> int:
        return len(self.moves)

    def boards(self) -> list[Board]:
        """Every board on the way, the start and the goal included."""
        out = [self.board]
        for t in self.moves:
            out.append(out[-1].move_tile(t))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "board": str(self.board),
            "goal": str(self.goal),
            "length": self.length,
            "moves": self.moves,
            "directions": self.directions,
            "optimal": self.optimal,
            "proof": self.proof,
            "algorithm": self.algorithm,
            "heuristic": self.heuristic,
            "nodes_expanded": self.nodes_expanded,
            "nodes_generated": self.nodes_generated,
            "seconds": round(self.seconds, 6),
        }
