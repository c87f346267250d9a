"""Pattern databases for sliding-tile puzzles: puzzle model, ranking, BFS builders, HDF5 store."""
from .board import Board, is_solvable, make_goal, parse_board, random_board, scramble
from .errors import BoardError, PatternError, PuzzleError, TableError
from .frame import Frame
from .geometry import Shape

__all__ = [
    "Board", "BoardError", "Frame", "PatternError", "PuzzleError", "Shape", "TableError",
    "is_solvable", "make_goal", "parse_board", "random_board", "scramble",
]
