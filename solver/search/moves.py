"""The board update, the bound arithmetic and the early read of the move-pruning machine
that every search kernel shares."""
import numpy as np
from patterndb.bits import prefetch
from patterndb.jit import njit

# Kernel status codes; int64, not int literals: ahead-of-time compilation cannot unify literals.
FOUND, EXHAUSTED, LIMIT, STOPPED = (np.int64(s) for s in range(4))
NO_BOUND = np.int64(1) << 62  # "no f over the bound was seen"
STOP_EVERY = 4096  # expansions between two looks at the stop flag (well under a millisecond)
MAX_DEPTH = 512  # longest path a kernel searches


@njit(cache=True, inline="always")
def slide(board, pos, tile, src, dst):
    """Tile slides from cell src into the blank at dst; the blank goes to src."""
    board[dst] = tile
    board[src] = 0
    pos[tile] = dst
    pos[0] = src


@njit(cache=True, inline="always")
def solution_parity(blank, goal, cols):
    """Parity of every solution's length: the blank's taxicab distance to its goal cell."""
    g = 0
    for c in range(goal.size):
        if goal[c] == 0:
            g = c
    return (abs(blank // cols - g // cols) + abs(blank % cols - g % cols)) & 1


@njit(cache=True, inline="always")
def next_bound(f, parity):
    """The smallest threshold >= f that a solution's length can equal."""
    return f + ((f & 1) ^ parity)


@njit(cache=True, inline="always")
def next_look(expanded, budget):
    """When a kernel next looks at its stop flag and budget (budget <= 0: none)."""
    look = expanded + STOP_EVERY
    return min(look, budget) if budget > 0 else look


@njit(cache=True, inline="always")
def ask_rows(rows, fsm, state):
    """Ask the CPU for the move-pruning machine's rows of a node's children (state: the
    node's; rows: fsm.reshape(-1)), on the node's first visit: each child reads its row
    first thing, and 5x5's machine (3.2 MB) is larger than L2 (perf: 9% of the catalogue
    kernel's time on that read; asked for early, line 44 with max3 took 6% less time)."""
    for e in range(4):
        s = fsm[state, e]
        if s >= 0:
            prefetch(rows, s * fsm.shape[1])
