"""Heuristics behind one interface (see base.Heuristic)."""

from .base import Heuristic
from .classic import blind, linear_conflict, manhattan, misplaced
from .exact import exact, exact_in_memory
from .pdb import pdb

CLASSIC = {"misplaced": misplaced, "manhattan": manhattan, "linear-conflict": linear_conflict}

__all__ = [
    "CLASSIC",
    "Heuristic",
    "blind",
    "exact",
    "exact_in_memory",
    "linear_conflict",
    "manhattan",
    "misplaced",
    "pdb",
]
