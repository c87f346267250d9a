"""Shorter solutions from a found one, by searching its windows again.

A beam search's solution of a 35- or 48-puzzle wanders: it is 20-50% longer than the proven
lower bound. Each window of a few dozen moves (the boards at its two ends) is searched again
optimally, by IDA* with linear conflict toward the board at its end (a goal like any other,
built in a millisecond), held to a node limit; where a shorter way exists it replaces the
window's moves. Passes over the whole solution repeat while one shortens it, then wider windows
are tried (STAGES). The result is replayed to the goal; it proves nothing of its own (what is
claimed of it is the lower bound IDA* proves on the whole board)."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from .solution import SearchStopped, Solution

# (moves a window spans, moves from one window's start to the next one's, expansions a window's
# search may make), in the order tried: each while a pass over the solution shortens it. On a
# 6x6 beam solution of 304 moves (lower bound 154) they gave 296 in 0.5 s, 270 in 4 s more,
# 266 in 15 s more; windows of 60 moves gave 256 but took 4 minutes.
STAGES = ((24, 8, 100_000), (32, 8, 300_000), (40, 10, 1_000_000))


def shorten(sol: Solution, stopped: Callable[[], bool], on_shorter: Callable[[Solution], None] | None = None,
            stages: tuple[tuple[int, int, int], ...] = STAGES) -> Solution | None:
    """A shorter solution of sol's board, or None where no window can be shortened (or
    stopped() says to end before one is); on_shorter(solution) after each pass that shortens it."""
    from .api import solve  # (api imports the searches this module sits beside)

    started = time.perf_counter()
    boards = sol.boards()
    moves = list(sol.moves)
    generated = 0
    best = None
    for window, step, nodes in stages:
        shorter = True
        while shorter and not stopped():
            shorter = False
            i = 0
            while i + 2 <= len(moves) and not stopped():
                j = min(i + window, len(moves))
                try:
                    part = solve(boards[i], goal=boards[j], algorithm="idastar", heuristic="linear-conflict",
                                 max_nodes=nodes, jobs=1)
                    generated += part.nodes_generated
                except SearchStopped as e:
                    generated += e.nodes_generated
                    part = None
                if part is not None and part.length < j - i:
                    moves[i:j] = part.moves
                    boards[i : j + 1] = part.boards()
                    shorter = True
                i += step
            if shorter:
                best = _replayed(sol, moves, generated, time.perf_counter() - started)
                if on_shorter is not None:
                    on_shorter(best)
    return best


def _replayed(sol: Solution, moves: list[int], generated: int, seconds: float) -> Solution:
    """sol with these moves instead, each checked to be a slide into the blank and the last
    board against the goal."""
    board = sol.board
    blanks = [int(board.blank)]
    for t in moves:
        board = board.move_tile(t)
        blanks.append(int(board.blank))
    if board != sol.goal:
        raise AssertionError("internal error: a shortened solution does not reach the goal")
    return dataclasses.replace(sol, moves=list(moves), directions=sol.board.shape.directions(blanks), optimal=False,
                               algorithm="window", proof=f"{sol.proof}, then its windows searched again",
                               nodes_expanded=0, nodes_generated=sol.nodes_generated + generated,
                               seconds=sol.seconds + seconds, iterations=[])
