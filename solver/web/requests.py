"""What a request to the page's server may ask for, checked before any work: the board through
the command line's own parser, every other field against a fixed list or a bound. A request
that fails a check gets one line, as the command line would print it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from patterndb import Board, BoardError, Frame
from patterndb.puzzle.board import MAX_BOARD_CHARS
from patterndb.puzzle.geometry import MAX_SIDE, MIN_SIDE

from ..api import prepare
from ..heuristic_choice import HEURISTICS
from ..search import ALGORITHMS

MAX_BODY = 16 * 1024  # bytes of a request's JSON: a board is at most 4,096 characters
CLIENT = re.compile(r"[A-Za-z0-9_-]{1,64}")
PATTERN = re.compile(r"[A-Za-z0-9,+|-]{1,64}")  # a partition's name: no path can be spelt in it
GOALS = ("blank-last", "blank-first")
COMPARE_CELLS = 12  # the compare view: boards of at most this many cells (3x3, 2x4, 3x4 ...)
SCRAMBLE_MOVES = 1000
MAX_WITHIN = 10.0


class RequestError(ValueError):
    """A request the server refuses, with the line to show (HTTP status 400 unless said)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Limits:
    """What one request may cost at most (set when the server starts)."""

    seconds: float = 600.0  # a search's time-out
    nodes: int = 10**12  # a search's node limit
    searches: int = 2  # searches running at once, over every client


@dataclass(frozen=True)
class SolveRequest:
    client: str
    board: Board
    frame: Frame
    goal: str
    algorithm: str | None
    heuristic: str | None
    pattern: str | None
    timeout: float
    max_nodes: int | None
    within: float | None = (
        None  # a solution proven at most this times the optimum (solver.bounded.anytime)
    )
    anytime: bool = False  # better solutions and bounds until the optimum or a stop


def _field(body: dict, name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, kind):
        raise RequestError(f"{name} must be {_kind_name(kind)}, got {type(value).__name__}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds:
        return "a number"
    return " or ".join(
        {str: "a string", int: "a whole number", float: "a number", dict: "an object"}[k]
        for k in kinds
    )


def _choice(body: dict, name: str, choices: tuple[str, ...]) -> str | None:
    value = _field(body, name, str)
    if value in (None, "", "default"):
        return None
    if value not in choices:
        raise RequestError(f"unknown {name} {value[:40]!r}: choose from {', '.join(choices)}")
    return value


def client_of(body: dict) -> str:
    client = _field(body, "client", str)
    if client is None or not CLIENT.fullmatch(client):
        raise RequestError("a request names its client: 1 to 64 letters, digits, '-' or '_'")
    return client


def board_of(body: dict) -> tuple[Board, Frame, str]:
    """The board and its frame, as `solver solve BOARD --goal G [--rows R --cols C]` reads them."""
    text = _field(body, "board", str)
    if text is None or not text.strip():
        raise RequestError("empty board: type or paste one, e.g. 8 6 7 2 5 4 3 _ 1")
    goal = _field(body, "goal", str, "blank-last")
    if len(goal) > MAX_BOARD_CHARS:
        raise RequestError(
            f"a goal of {len(goal):,} characters: no board is longer than {MAX_BOARD_CHARS:,}"
        )
    rows, cols = (_field(body, k, int) for k in ("rows", "cols"))
    try:
        board, frame = prepare(text, goal, rows, cols)
    except BoardError as e:
        raise RequestError(str(e)) from None
    return board, frame, goal


def solve_request(body: dict, limits: Limits) -> SolveRequest:
    client = client_of(body)
    board, frame, goal = board_of(body)
    pattern = _field(body, "pattern", str)
    if pattern in ("", "default"):
        pattern = None
    if pattern is not None and not PATTERN.fullmatch(pattern):
        raise RequestError(
            f"no partition is named {pattern[:40]!r}: names are made of letters, digits and ,+|-"
        )
    timeout = _field(body, "timeout", (int, float), limits.seconds)
    if not (math.isfinite(timeout) and 0 < timeout <= limits.seconds):
        raise RequestError(
            f"the time-out must be above 0 and at most {limits.seconds:g} seconds on this server, "
            f"got {timeout!r}"
        )
    nodes = _field(body, "max_nodes", int)
    if nodes is not None and not 1 <= nodes <= limits.nodes:
        raise RequestError(
            f"the node limit must be from 1 to {limits.nodes:,} on this server, got {nodes:,}"
        )
    algorithm = _choice(body, "algorithm", ALGORITHMS)
    heuristic = _choice(body, "heuristic", HEURISTICS)
    within = _field(body, "within", (int, float))
    if within is not None and not (math.isfinite(within) and 1 <= within <= MAX_WITHIN):
        raise RequestError(f"within must be from 1 to {MAX_WITHIN:g}, got {within!r}")
    anytime = body.get("anytime", False)
    if not isinstance(anytime, bool):
        raise RequestError(f"anytime must be true or false, got {type(anytime).__name__}")
    if (anytime or within is not None) and algorithm not in (None, "idastar"):
        raise RequestError(
            "an answer with a proven bound is searched with IDA* and weighted A*: choose the "
            "best available algorithm or IDA*"
        )
    return SolveRequest(
        client,
        board,
        frame,
        goal,
        algorithm,
        heuristic,
        pattern,
        float(timeout),
        nodes,
        None if within is None else float(within),
        anytime,
    )


def random_request(body: dict) -> tuple[int, int, str, int | None]:
    """(rows, cols, goal, moves): a scramble of that many moves, or (None) a uniformly random board."""
    rows, cols = _field(body, "rows", int, 4), _field(body, "cols", int, 4)
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise RequestError(
            f"a board is {MIN_SIDE} to {MAX_SIDE} rows and columns, got {rows}x{cols}"
        )
    goal = _choice(body, "goal", GOALS) or "blank-last"
    moves = _field(body, "moves", int)
    if moves is not None and not 0 <= moves <= SCRAMBLE_MOVES:
        raise RequestError(f"a scramble is 0 to {SCRAMBLE_MOVES:,} moves, got {moves:,}")
    return rows, cols, goal, moves
