"""Pattern databases for sliding-tile puzzles: puzzle model, ranking, BFS builders, HDF5 store.

The names below are imported on first use (PEP 562), so that a command can
configure the process (see cli.py) before numpy is imported.
"""
from importlib import import_module

_EXPORTS = {
    "Board": ".board", "is_solvable": ".board", "make_goal": ".board", "parse_board": ".board",
    "random_board": ".board", "scramble": ".board",
    "BoardError": ".errors", "PatternError": ".errors", "PuzzleError": ".errors", "TableError": ".errors",
    "Frame": ".frame", "Shape": ".geometry",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
