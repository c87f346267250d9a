"""The one board update every search kernel makes."""
from numba import njit


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
