"""The board update, the bound arithmetic and the early read of the move-pruning machine
that every search kernel shares."""

import numpy as np

from patterndb.bits import fetch_add, prefetch
from patterndb.jit import njit

# Kernel status codes; int64, not int literals: ahead-of-time compilation cannot unify literals.
FOUND, EXHAUSTED, LIMIT, STOPPED = (np.int64(s) for s in range(4))
NO_BOUND = np.int64(1) << 62  # "no f over the bound was seen"
STOP_EVERY = 4096  # expansions between two looks at the stop flag (well under a millisecond)
# A node limit shared by the threads of one split iteration (search.threads): stop[METER] counts
# the expansions every kernel call has reported at its looks, stop[METER_LIMIT] is their limit
# (0: none). Near it a kernel looks after 1/LOOK_SHARE of what is left, so that the threads
# together pass it by a few nodes, not by a look's 4,096 each.
METER, METER_LIMIT = 1, 2
LOOK_SHARE = 1024
GO_ON = np.int64(-1)  # look_at_limits: no limit reached
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
def metered(stop):
    """Is a shared node meter armed on this stop flag (the flag arrays of Dask tasks have none)?"""
    return stop.size > METER_LIMIT and stop[METER_LIMIT] > 0


@njit(cache=True, inline="always")
def first_look(budget, stop):
    """When a kernel call first looks at its limits: at once under a shared meter (which may be
    nearly spent), else after STOP_EVERY expansions or its budget (budget <= 0: none)."""
    if metered(stop):
        return 1
    return min(STOP_EVERY, budget) if budget > 0 else STOP_EVERY


@njit(cache=True, inline="always")
def look_at_limits(expanded, counted, budget, stop):
    """A kernel call's look at its limits after `expanded` expansions, `counted` of them
    already reported to the shared meter: (STOPPED, LIMIT or GO_ON, the next look, counted).
    LIMIT when the call's own budget (> 0) or the meter's limit is spent."""
    left = NO_BOUND
    if metered(stop):
        total = fetch_add(stop, METER, expanded - counted) + expanded - counted
        counted = expanded
        left = stop[METER_LIMIT] - total
    if stop[0] != 0:
        return STOPPED, expanded, counted
    if (budget > 0 and expanded >= budget) or left <= 0:
        return LIMIT, expanded, counted
    look = expanded + min(STOP_EVERY, max(1, left // LOOK_SHARE))
    return GO_ON, (min(look, budget) if budget > 0 else look), counted


@njit(cache=True, inline="always")
def meter_spent(stop, pending):
    """Whether a shared meter is armed and its count, with `pending` expansions not yet
    reported, has reached its limit."""
    return metered(stop) and stop[METER] + pending >= stop[METER_LIMIT]


@njit(cache=True, inline="always")
def settle(stop, expanded, counted):
    """Report a kernel call's last expansions to the shared meter (if any) as it returns."""
    if metered(stop) and expanded > counted:
        fetch_add(stop, METER, expanded - counted)


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
