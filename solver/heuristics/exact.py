"""The exact distance from a complete table, as a heuristic (perfect: h = h*)."""
from __future__ import annotations

from pathlib import Path

from patterndb.catalog import load_exact
from patterndb.frame import Frame

from .base import Heuristic, kernel_tuple
from .kernels import EXACT


def exact(frame: Frame, data_dir: Path) -> Heuristic:
    table = load_exact(frame, data_dir)
    return Heuristic("exact", True, True, kernel_tuple(EXACT, frame.canonical_goal, table=table))
