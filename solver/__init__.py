"""Optimal and classic solvers for sliding-tile puzzles over patterndb tables."""
from .api import distance, solve
from .solution import SearchStopped, Solution

__all__ = ["SearchStopped", "Solution", "distance", "solve"]
