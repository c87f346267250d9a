"""Optimal and classic solvers for sliding-tile puzzles over patterndb tables."""
from .api import distance, solve
from .solution import Solution

__all__ = ["Solution", "distance", "solve"]
