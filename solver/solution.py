"""A solved board: the moves, their cost, and what guarantees optimality."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    # IDA*: bound, expanded, generated, seconds each
    iterations: list[dict] = field(default_factory=list)
    resumed_from: dict | None = (
        None  # IDA* resumed from a checkpoint: its file, bound, subtrees done
    )
    race: dict | None = (
        None  # IDA* raced two heuristics (search.race): the winner, each one's bound, nodes, seconds
    )

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
        return (
            {
                "board": str(self.board),
                "goal": str(self.goal),
                "rows": self.board.shape.rows,
                "cols": self.board.shape.cols,
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
                "iterations": self.iterations,
            }
            | ({} if self.resumed_from is None else {"resumed_from": self.resumed_from})
            | ({} if self.race is None else {"race": self.race})
        )


STOP_REASONS = {
    "limit": "stopped at its node limit",
    "timeout": "stopped at its time limit",
    "interrupted": "interrupted",
    "terminated": "terminated",
    "stopped": "stopped by its user",  # the page's stop button (solver serve)
}


class NodeLimitReached(RuntimeError):
    """A best-first search stopped at its node limit (it proves no bound)."""


class SearchStopped(RuntimeError):
    """A search that ended before proving a solution, with what it did prove.

    reason: "limit", "timeout", "interrupted" (SIGINT) or "terminated"
    (SIGTERM); lower_bound: no solution is shorter."""

    def __init__(
        self,
        reason: str,
        algorithm: str,
        lower_bound: int,
        expanded: int,
        generated: int,
        seconds: float,
        iterations: list[dict],
        resumed_from: dict | None = None,
        heuristic: str | None = None,
        race: dict | None = None,
    ) -> None:
        self.reason, self.algorithm, self.lower_bound = reason, algorithm, lower_bound
        self.resumed_from = resumed_from
        # the heuristic whose iterations these are, and the race that chose it (if any)
        self.heuristic, self.race = heuristic, race
        self.nodes_expanded, self.nodes_generated = expanded, generated
        self.seconds, self.iterations = seconds, iterations
        hint = ": raise --max-nodes" if reason == "limit" else ""
        super().__init__(
            f"{algorithm} {STOP_REASONS.get(reason, reason)} after {expanded:,} nodes expanded "
            f"({generated:,} generated) and {seconds:.1f}s: no solution is shorter than {lower_bound} "
            f"moves{hint}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "optimal": False,
            "interrupted": True,
            "reason": self.reason,
            "lower_bound": self.lower_bound,
            "algorithm": self.algorithm,
            "nodes_expanded": self.nodes_expanded,
            "nodes_generated": self.nodes_generated,
            "seconds": round(self.seconds, 6),
            "iterations": self.iterations,
        } | {
            k: v
            for k, v in (
                ("heuristic", self.heuristic),
                ("race", self.race),
                ("resumed_from", self.resumed_from),
            )
            if v is not None
        }


class ClusterError(RuntimeError):
    """The Dask cluster failed mid-search (its scheduler went away, or a task failed): the
    search cannot go on (exit status 5)."""
