"""The one board update every search kernel makes."""
from numba import njit


@njit(cache=True, inline="always")
def slide(board, pos, tile, src, dst):
    """Tile slides from cell src into the blank at dst; the blank goes to src."""
    board[dst] = tile
    board[src] = 0
    pos[tile] = dst
    pos[0] = src
