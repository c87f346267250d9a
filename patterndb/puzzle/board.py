"""Boards: parsing every common notation, goals, solvability, random boards.

A board is stored cell -> tile (row-major, 0 = blank). Parsing is strict:
every malformed input raises BoardError with a message that says exactly
what is wrong, because the CLIs show that message as the only output.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import BoardError
from .geometry import Shape

BLANK_CHARS = "_.0"
MAX_BOARD_CHARS = (
    4096  # a 25-cell board with spaces and comments is about 100: anything longer is not a board
)
_SEPARATED = re.compile(r"[\s,;]+")


@dataclass(frozen=True, eq=False)
class Board:
    """An arrangement of tiles 0..n-1 (0 = blank) on a shape, cell -> tile."""

    shape: Shape
    tiles: np.ndarray

    def __post_init__(self) -> None:
        t = np.asarray(self.tiles, dtype=np.uint8).copy()
        t.setflags(write=False)
        object.__setattr__(self, "tiles", t)
        _check_tiles(self.shape, t)

    @classmethod
    def relabelled(cls, shape: Shape, board: Board, tiles: np.ndarray) -> Board:
        """A board of shape holding tiles, a renaming of board's by a permutation of 0..n-1:
        made without a second check where board has as many cells (Frame maps each board it
        solves twice; the check cost 30 us a 15-puzzle in Korf's 100), else checked."""
        if board.shape.n != shape.n:
            return cls(shape, tiles)
        t = tiles.astype(np.uint8)
        t.setflags(write=False)
        out = object.__new__(cls)
        object.__setattr__(out, "shape", shape)
        object.__setattr__(out, "tiles", t)
        return out

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.shape == other.shape
            and np.array_equal(self.tiles, other.tiles)
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.tiles.tobytes()))

    def __str__(self) -> str:
        return " ".join(str(int(t)) for t in self.tiles)

    def __repr__(self) -> str:
        return f"Board({self.shape}, '{self}')"

    @property
    def blank(self) -> int:
        return int(np.flatnonzero(self.tiles == 0)[0])

    def positions(self) -> np.ndarray:
        """tile -> cell."""
        pos = np.empty(self.shape.n, dtype=np.int64)
        pos[self.tiles] = np.arange(self.shape.n)
        return pos

    def grid(self) -> str:
        """Multi-line rendering with right-aligned numbers and '.' for the blank."""
        w = len(str(self.shape.n - 1))
        cells = [("." if t == 0 else str(int(t))).rjust(w) for t in self.tiles]
        c = self.shape.cols
        return "\n".join(" ".join(cells[i : i + c]) for i in range(0, self.shape.n, c))

    def move_blank(self, dst: int) -> Board:
        """The board after the blank slides into adjacent cell dst."""
        b = self.blank
        if dst not in self.shape.neighbours[b]:
            raise ValueError(f"cell {dst} is not adjacent to the blank at {b}")
        t = self.tiles.copy()
        t[b], t[dst] = t[dst], 0
        return Board(self.shape, t)

    def move_tile(self, tile: int) -> Board:
        """The board after sliding the given tile into the blank."""
        pos = self.positions()
        if not 0 < tile < self.shape.n:
            raise ValueError(f"no tile {tile} on a {self.shape} board")
        return self.move_blank(int(pos[tile]))


def _check_tiles(shape: Shape, tiles: np.ndarray) -> None:
    n = shape.n
    if tiles.shape != (n,):
        raise BoardError(f"a {shape} board has {n} tiles (blank included), got {tiles.size}")
    counts = np.bincount(tiles, minlength=n)
    if counts.size > n:
        bad = sorted(int(v) for v in np.flatnonzero(counts[n:]) + n)
        raise BoardError(f"tile {bad[0]} is out of range: a {shape} board has tiles 0..{n - 1}")
    dup = np.flatnonzero(counts > 1)
    if dup.size:
        what = "blank" if dup[0] == 0 else f"tile {int(dup[0])}"
        raise BoardError(f"{what} appears {int(counts[dup[0]])} times")
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        what = "the blank" if missing[0] == 0 else f"tile {int(missing[0])}"
        raise BoardError(f"{what} is missing")


def _tokenise_line(line: str) -> list[tuple[int, str]]:
    """(tile, source text) of one line: separated integers or letters, or one character per tile.

    Brackets around the line ("[1, 2, ...]", as Python and JSON print lists) are ignored."""
    line = line.strip().strip("[](){}").strip()
    if _SEPARATED.search(line):
        out = []
        for tok in _SEPARATED.split(line):
            if not tok:
                continue
            if tok in ("_", "."):
                out.append((0, tok))
            elif tok.isascii() and tok.isdigit():  # str.isdigit alone accepts '²'
                out.append((int(tok), tok))
            elif len(tok) == 1 and tok.isascii() and tok.isalpha():
                out.append((_letter(tok), tok))
            else:
                raise BoardError(
                    f"unexpected token {tok!r} in board: use integers or letters, 0 or _ for the blank"
                )
        return out
    out = []
    for ch in line:
        if ch in BLANK_CHARS:
            out.append((0, ch))
        elif ch.isascii() and ch.isdigit():
            out.append((int(ch), ch))
        elif ch.isascii() and ch.isalpha():
            out.append((_letter(ch), ch))
        else:
            raise BoardError(f"unexpected character {ch!r} in board")
    return out


def _letter(ch: str) -> int:
    """A = 10, B = 11, ... (tiles above 9 in compact notation)."""
    return ord(ch.upper()) - ord("A") + 10


def parse_board(text: str, rows: int | None = None, cols: int | None = None) -> Board:
    """Parse a board in any common notation.

    Accepted: compact strings ("12345678_", "863.54217", tiles above 9 as
    letters A..Z), whitespace- or comma-separated integers with 0 as the blank,
    and multi-line grids (which also give the number of rows). The size is
    inferred when the tile count is a square; otherwise rows/cols are needed.
    """
    if not isinstance(text, str):
        raise BoardError(f"a board must be a string, got {type(text).__name__}")
    if len(text) > MAX_BOARD_CHARS:  # refused before any work: a 10 MB line took 900 MB to tokenise
        raise BoardError(
            f"a board of {len(text):,} characters: no board is longer than {MAX_BOARD_CHARS:,}"
        )
    text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors write
    lines = [ln for ln in text.replace("/", "\n").splitlines() if ln.strip()]
    if not lines:
        raise BoardError("empty board")
    per_line = [_tokenise_line(ln) for ln in lines]
    tokens = [tok for line in per_line for tok in line]
    count = len(tokens)
    if rows is None and cols is None and len(lines) > 1:
        widths = {len(line) for line in per_line}
        if len(widths) != 1:
            raise BoardError(
                "grid rows have different lengths: " + ", ".join(str(len(p)) for p in per_line)
            )
        rows, cols = len(lines), widths.pop()
    if rows is None and cols is None:
        side = math.isqrt(count)
        if side * side != count:
            raise BoardError(f"{count} tiles do not make a square board: give --rows and --cols")
        rows = cols = side
    elif rows is None or cols is None:
        known = rows if rows is not None else cols
        if known <= 0 or count % known:
            raise BoardError(f"{count} tiles do not fill rows of {known}")
        rows, cols = (known, count // known) if rows is not None else (count // known, known)
    shape = Shape(rows, cols)
    if count != shape.n:
        raise BoardError(f"a {shape} board has {shape.n} tiles (blank included), got {count}")
    for value, text in tokens:
        if value >= shape.n:
            what = f"character {text!r}" if text.isalpha() else f"tile {value}"
            raise BoardError(f"{what} is out of range: a {shape} board has tiles 0..{shape.n - 1}")
    return Board(shape, np.array([v for v, _ in tokens], dtype=np.int64))


GOAL_NAMES = ("blank-last", "blank-first")


def make_goal(shape: Shape, spec: str | Board = "blank-last") -> Board:
    """The goal board: 'blank-last' (1..n-1 then the blank), 'blank-first', or explicit."""
    if isinstance(spec, Board):
        goal = spec
    elif spec == "blank-last":
        return Board(shape, np.r_[np.arange(1, shape.n), 0])
    elif spec == "blank-first":
        return Board(shape, np.arange(shape.n))
    else:
        try:
            goal = parse_board(spec, shape.rows, shape.cols)
        except BoardError as e:
            raise BoardError(f"bad goal {spec!r}: {e} (or use blank-last / blank-first)") from None
    if goal.shape != shape:
        raise BoardError(f"the goal is a {goal.shape} board but the puzzle is {shape}")
    return goal


def permutation_parity(perm: np.ndarray) -> int:
    """0 for an even permutation, 1 for odd (by cycle counting)."""
    seen = np.zeros(len(perm), dtype=bool)
    parity = 0
    for i in range(len(perm)):
        if not seen[i]:
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            parity ^= (length - 1) & 1
    return parity


def is_solvable(board: Board, goal: Board) -> bool:
    """True when the goal is reachable: every move is a transposition of two
    cells and changes the blank's taxicab parity, so the permutation parity
    (board relative to goal) must equal the parity of the blank's distance."""
    if board.shape != goal.shape:
        return False
    gpos = goal.positions()
    perm = gpos[board.tiles]  # cell -> cell where that tile belongs
    blank_dist = board.shape.manhattan(board.blank, goal.blank)
    return permutation_parity(perm) == blank_dist % 2


def check_solvable(board: Board, goal: Board) -> None:
    if board.shape != goal.shape:
        raise BoardError(f"the board is {board.shape} but the goal is {goal.shape}")
    if not is_solvable(board, goal):
        other = [name for name in GOAL_NAMES if is_solvable(board, make_goal(board.shape, name))]
        hint = f" (it is solvable for --goal {other[0]})" if other else ""
        raise BoardError(
            f"board '{board}' is not solvable: it has the wrong permutation parity for goal '{goal}'{hint}"
        )


def random_board(shape: Shape, goal: Board, rng: np.random.Generator) -> Board:
    """A uniformly random board from which the goal is reachable."""
    tiles = rng.permutation(shape.n)
    board = Board(shape, tiles)
    if not is_solvable(board, goal):
        nz = np.flatnonzero(tiles != 0)[:2]  # swapping two tiles flips parity: a bijection
        tiles[nz[0]], tiles[nz[1]] = tiles[nz[1]], tiles[nz[0]]
        board = Board(shape, tiles)
    return board


def _walk(goal: Board, rng: np.random.Generator):
    """The blank's random walk from the goal, never undoing the last move: after each move,
    (the tiles, the moved tile, the cell it left, the cell it came to). The tiles are one
    array, changed in place."""
    tiles = goal.tiles.copy()
    nb = goal.shape.neighbours
    b, prev = goal.blank, -1
    while True:
        options = [int(c) for c in nb[b] if c >= 0 and c != prev]
        c = options[rng.integers(len(options))]
        t = int(tiles[c])
        tiles[b], tiles[c] = t, 0
        yield tiles, t, c, b
        prev, b = b, c


def scramble_to(
    goal: Board, manhattan: int, rng: np.random.Generator, max_moves: int = 10_000_000
) -> Board:
    """A random walk of the blank from the goal (never undoing the last move) that stops
    the first time the tiles' Manhattan distance from the goal is manhattan: boards like a
    scrambled test set's, made to its distances rather than to its scrambles' lengths.
    Raises ValueError if none is met in max_moves moves."""
    shape = goal.shape
    if manhattan < 0:
        raise ValueError(f"a Manhattan distance is at least 0, not {manhattan}")
    if manhattan == 0:
        return goal
    home = goal.positions()
    md = 0
    for _, (tiles, t, left, to) in zip(range(max_moves), _walk(goal, rng)):
        md += shape.manhattan(to, home[t]) - shape.manhattan(left, home[t])
        if md == manhattan:
            return Board(shape, tiles)
    raise ValueError(f"no board at Manhattan distance {manhattan} in {max_moves:,} moves")


def scramble(goal: Board, moves: int, rng: np.random.Generator) -> Board:
    """A random walk of the blank from the goal, never undoing the last move."""
    tiles, walk = goal.tiles, _walk(goal, rng)
    for _ in range(moves):
        tiles = next(walk)[0]
    return Board(goal.shape, tiles)
