"""Korf's 100 15-puzzles (data/korf100.txt) as the tests read them, and the ones they name."""

from pathlib import Path

# Each line: the 16 cells (0 the blank), then the optimal length to the blank-first goal.
KORF = [
    ln.split()
    for ln in open(Path(__file__).parent.parent / "data" / "korf100.txt")
    if not ln.startswith("#")
]


def korf(i: int) -> tuple[str, int]:
    """Line i of the file (0-based: Korf's #i+1): the board and its optimal length."""
    return " ".join(KORF[i][:16]), int(KORF[i][16])


# Korf's #1: 57 moves; a long search without tables (minutes with Manhattan distance).
KORF_1 = korf(0)[0]

# Korf's #12: 45 moves; with Manhattan distance 6 iterations and 2 x 10^5 nodes, a search that
# takes a fraction of a second but is long enough to split, trace and plot.
KORF_12, KORF_12_LENGTH = korf(11)
