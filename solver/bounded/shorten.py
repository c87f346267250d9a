"""Shorter solutions from a found one, by searching its windows again.

A beam search's solution of a 35- or 48-puzzle wanders: it is 20-50% longer than the proven
lower bound. Each window of a few dozen moves (the boards at its two ends) is searched again
optimally, by IDA* with linear conflict toward the board at its end (a goal like any other,
built in a millisecond), held to a node limit; where a shorter way exists it replaces the
window's moves. Passes over the whole solution repeat while one shortens it, then wider windows
are tried (STAGES). The result is replayed to the goal; it proves nothing of its own (what is
claimed of it is the lower bound IDA* proves on the whole board).

A window that ends on a board whose blank lies in a corner can be searched with the board's
own pattern databases instead (shorten_anchored): a frame relabels the tiles so that the
window's last board is the canonical goal the tables were built for (patterndb.Frame, as for
any goal; a window ending with the blank in one of the other two corners is mirrored left to
right first), so IDA* with those tables searches windows of 30 to 100 moves, the solution's
last moves among them, to their optimum within a node limit."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from patterndb import Board, Frame

from ..plan import Control, Plan
from ..solution import SearchStopped, Solution

# (moves a window spans, moves from one window's start to the next one's, expansions a window's
# search may make), in the order tried: each while a pass over the solution shortens it. On a
# 6x6 beam solution of 304 moves (lower bound 154) they gave 296 in 0.5 s, 270 in 4 s more,
# 266 in 15 s more; windows of 60 moves gave 256 but took 4 minutes.
STAGES = ((24, 8, 100_000), (32, 8, 300_000), (40, 10, 1_000_000))


def shorten(
    sol: Solution,
    stopped: Callable[[], bool],
    on_shorter: Callable[[Solution], None] | None = None,
    stages: tuple[tuple[int, int, int], ...] = STAGES,
) -> Solution | None:
    """A shorter solution of sol's board, or None where no window can be shortened (or
    stopped() says to end before one is); on_shorter(solution) after each pass that shortens it."""
    from ..api import solve  # (api imports the searches this module sits beside)

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
                    part = solve(
                        boards[i],
                        goal=boards[j],
                        algorithm="idastar",
                        heuristic="linear-conflict",
                        max_nodes=nodes,
                        jobs=1,
                    )
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


# Anchored windows (shorten_anchored): moves spanned, tried in turn at each anchor while the
# last one found its optimum within ANCHOR_NODES expansions.
ANCHOR_WINDOWS = (30, 40, 50, 60, 70, 80, 90, 100)
ANCHOR_NODES = 2_000_000


def shorten_anchored(
    sol: Solution,
    plan: Plan,
    stopped: Callable[[], bool],
    on_shorter: Callable[[Solution], None] | None = None,
    windows: tuple[int, ...] = ANCHOR_WINDOWS,
    nodes: int = ANCHOR_NODES,
    searched: set[tuple[bytes, bytes]] | None = None,
    control: Control | None = None,
) -> Solution | None:
    """A shorter solution of sol's board, or None: the windows that end on an anchor (a board
    of the solution with its blank in a corner, the goal itself included), last anchor first,
    searched by IDA* with the plan's heuristic; each anchor's windows grow while their searches
    end within the node limit. on_shorter(solution) after each pass that shortens it; passes
    repeat while one does. searched: the windows (first and last board) searched already, to
    their optimum or to the node limit, skipped, and added to (a caller keeps it across calls
    for one board). control: its stop flag ends a window's search part way (with a node limit
    of millions, stopped() alone is looked at too seldom)."""
    from ..api import run  # (api imports the searches this module sits beside)

    started = time.perf_counter()
    boards = sol.boards()
    moves = list(sol.moves)
    generated = 0
    best = None
    known = searched if searched is not None else set()
    window_plan = dataclasses.replace(
        plan,
        algorithm="idastar",
        rival=None,
        options=dataclasses.replace(plan.options, max_nodes=nodes, jobs=1, timeout=None),
    )
    shorter = True
    while shorter and not stopped():
        shorter = False
        j = len(moves)
        while j > 0 and not stopped():
            anchor = _anchor(boards[j], plan.frame.key)
            if anchor is not None:
                flip, frame = anchor
                for window in windows:
                    i = max(0, j - window)
                    pair = (boards[i].tiles.tobytes(), boards[j].tiles.tobytes())
                    if pair in known:
                        continue
                    try:
                        # (the same tiles slide in the mirrored window: its moves are this window's)
                        part = run(
                            _mirrored(boards[i], flip),
                            dataclasses.replace(window_plan, frame=frame),
                            control,
                        )
                        generated += part.nodes_generated
                    except SearchStopped as e:
                        generated += e.nodes_generated
                        known.add(pair)
                        break
                    if part.length < j - i:
                        moves[i:j] = part.moves
                        boards[i : j + 1] = dataclasses.replace(part, board=boards[i]).boards()
                        shorter = True
                        j = i + part.length
                    known.add((boards[i].tiles.tobytes(), boards[j].tiles.tobytes()))
                    if i == 0 or stopped():
                        break
            j -= 1
        if shorter:
            best = _replayed(sol, moves, generated, time.perf_counter() - started)
            if on_shorter is not None:
                on_shorter(best)
    return best


def _anchor(board: Board, key: str) -> tuple[bool, Frame] | None:
    """Whether the plan's tables serve a window ending on this board as it is (False) or
    mirrored left to right (True), with the frame that makes the board their goal; None where
    neither does. They serve boards with the blank in a corner: Frame turns the goal about the
    centre, and the mirror brings the other two corners to those."""
    for flip in (False, True):
        frame = Frame.for_goal(_mirrored(board, flip))
        if frame.key == key:
            return flip, frame
    return None


def _mirrored(board: Board, flip: bool) -> Board:
    """The board mirrored left to right (a board symmetry: a slide stays a slide of the same tile)."""
    if not flip:
        return board
    rows, cols = board.shape.rows, board.shape.cols
    return Board(board.shape, board.tiles.reshape(rows, cols)[:, ::-1].reshape(-1))


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
    return dataclasses.replace(
        sol,
        moves=list(moves),
        directions=sol.board.shape.directions(blanks),
        optimal=False,
        algorithm="window",
        proof=f"{sol.proof}, then its windows searched again",
        nodes_expanded=0,
        nodes_generated=sol.nodes_generated + generated,
        seconds=sol.seconds + seconds,
        iterations=[],
    )
