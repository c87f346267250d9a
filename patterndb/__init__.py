"""Pattern databases for sliding-tile puzzles: puzzle model, ranking, BFS builders, HDF5 store.

The names below are imported on first use (lazy.py)."""

from .lazy import lazy_exports

__version__ = "1.7.0"  # the one place the version is written (pyproject.toml reads it)

_EXPORTS = {
    "Board": ".puzzle.board",
    "is_solvable": ".puzzle.board",
    "make_goal": ".puzzle.board",
    "parse_board": ".puzzle.board",
    "random_board": ".puzzle.board",
    "scramble": ".puzzle.board",
    "scramble_to": ".puzzle.board",
    "BoardError": ".errors",
    "PatternError": ".errors",
    "PuzzleError": ".errors",
    "TableError": ".errors",
    "Frame": ".puzzle.frame",
    "Shape": ".puzzle.geometry",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
