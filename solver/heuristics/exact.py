"""The exact distance from a complete table, as a heuristic (perfect: h = h*)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from patterndb.files.catalog import load_exact
from patterndb.puzzle.frame import Frame

from ..search.heuristic import EXACT
from .base import Heuristic, kernel_tuple


def exact(frame: Frame, data_dir: Path) -> Heuristic:
    return exact_in_memory(frame, load_exact(frame, data_dir))


def exact_in_memory(frame: Frame, table: np.ndarray) -> Heuristic:
    """The exact heuristic over a table already at hand (built in memory where it cannot be kept)."""
    return Heuristic("exact", True, True, kernel_tuple(EXACT, frame.canonical_goal, table=table))
