"""Exceptions that carry a one-line, user-facing message.

The CLIs turn them into a single stderr line and exit status 2, so every
message here must make sense on its own, without a traceback.
"""


class PuzzleError(ValueError):
    """Base class for every error a user can cause."""


class BoardError(PuzzleError):
    """A board, goal or size that cannot be parsed or is not solvable."""


class PatternError(PuzzleError):
    """A pattern (tile group) specification that is malformed or inconsistent."""


class TableError(PuzzleError):
    """A table file that is missing, damaged, or built for another puzzle."""


class WriteError(TableError):
    """A table or machine that could not be written (disk full, a file size limit): the
    file is not kept, so nothing half-written is ever read."""
