"""Heuristics behind one interface (see base.Heuristic)."""
from .base import Heuristic
from .classic import blind, linear_conflict, manhattan, misplaced
from .exact import exact
from .pdb import pdb

CLASSIC = {"misplaced": misplaced, "manhattan": manhattan, "linear-conflict": linear_conflict}

__all__ = ["CLASSIC", "Heuristic", "blind", "exact", "linear_conflict", "manhattan", "misplaced", "pdb"]
