"""The textbook heuristics: blind, misplaced tiles, Manhattan, linear conflict."""

from __future__ import annotations

from patterndb import Board

from ..search.heuristic import BLIND, LINEAR_CONFLICT, MANHATTAN, MISPLACED
from .base import Heuristic, kernel_tuple


def blind(goal: Board) -> Heuristic:
    return Heuristic("blind", True, True, kernel_tuple(BLIND, goal))


def misplaced(goal: Board) -> Heuristic:
    return Heuristic("misplaced", True, True, kernel_tuple(MISPLACED, goal))


def manhattan(goal: Board) -> Heuristic:
    return Heuristic("manhattan", True, True, kernel_tuple(MANHATTAN, goal))


def linear_conflict(goal: Board) -> Heuristic:
    # Admissible; not consistent in general (a move can drop h by 3).
    return Heuristic("linear-conflict", True, False, kernel_tuple(LINEAR_CONFLICT, goal))
