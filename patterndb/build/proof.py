"""Proofs that a table is right, not only intact: `pdb verify --full`.

A checksum says a file is the one that was written; it cannot say that what was
written is right: a table forged with its digest recomputed (another group's
data under edited tiles, values doubled with the statistics recomputed) passes
every check of `pdb verify`. An exact table is proven in one pass: the goal's
value is 0, no move lowers a value by more than 1 (consistency: summed along any
path to the goal, every value is at most the path's length) and every other
state with a value has a neighbour one lower (so the goal is that many moves
away): every value is the exact distance, which the table walk relies on. Cost:
one ranking a move; 3x4's 239.5 M states in about a minute on 2 cores
(docs/benchmarks.md). `pdb build` runs it before the table's atomic rename up to
CHECK_AT_BUILD entries (3x3 in well under a second), and for larger ones says
that `--full` is the check.

A group table has no such local proof: the local condition (consistency of its
values over the abstract states, placement and the blank's region) does not hold
for the tables as stored: a plain table keeps a placement's minimum over the
blank's regions and a zero-aware one caps each region at 2 above it, and both
forms break consistency at honest states (every table tried: 23 to 42,599 moves
on 2x4 to 4x4). Those are proven by building them again (patterndb.files.rebuild).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..errors import TableError
from ..jit import njit, prange
from ..puzzle.ranking import rank, unrank
from .exact import UNREACHED

# an exact table up to this many entries (16.8 M: up to 11 cells) is proven before it is written
CHECK_AT_BUILD = 1 << 24
BLOCKS = 1024  # ranks are handed to the threads in this many blocks


class Verdict(NamedTuple):
    """What the pass over an exact table found: states with a value, moves checked, moves
    that lower the value by more than 1 (and the first such state's rank), the goal's value,
    and the states other than the goal with no neighbour one move nearer."""

    states: int
    moves: int
    violations: int
    first_violation: int
    goal_value: int
    no_descent: int


@njit(cache=True, parallel=True)
def _exact_pass(table, goal, n, nbrs, out):
    """Every move of every state of an exact table; out[b] = (moves, violations: a value
    lowered by more than 1 or a move between the unreachable half and the rest, the first
    violating rank or -1, states with a value but no neighbour one nearer (a 0 anywhere but
    at goal, the goal's rank, counts as one), states with a value)."""
    entries = table.size
    per = (entries + BLOCKS - 1) // BLOCKS
    for b in prange(BLOCKS):
        lo, hi = b * per, min(entries, (b + 1) * per)
        pos = np.empty(n, dtype=np.int64)
        tile_at = np.empty(n, dtype=np.int64)
        moves, bad, first, flat, states = 0, 0, np.int64(-1), 0, 0
        for r in range(lo, hi):
            h = np.int64(table[r])
            states += h != UNREACHED
            unrank(r, n, n, pos)
            for t in range(n):
                tile_at[pos[t]] = t
            blank = pos[0]
            down = False
            for d in range(4):
                c2 = nbrs[blank, d]
                if c2 < 0:
                    continue
                t = tile_at[c2]
                pos[0], pos[t] = c2, blank
                h2 = np.int64(table[rank(pos, n, n)])
                pos[0], pos[t] = blank, c2
                moves += 1
                if (h > h2 + 1) | (
                    (h == UNREACHED) != (h2 == UNREACHED)
                ):  # (the unreachable half is closed)
                    bad += 1
                    if first < 0:
                        first = r
                down |= h2 == h - 1
            if (h > 0 and h != UNREACHED and not down) or (h == 0 and r != goal):
                flat += 1
        out[b, 0] = moves
        out[b, 1] = bad
        out[b, 2] = first
        out[b, 3] = flat
        out[b, 4] = states


def check_exact(table: np.ndarray, attrs: dict[str, Any]) -> Verdict:
    """Consistency and descent of an exact table, and its goal's value."""
    from ..puzzle.geometry import Shape
    from ..puzzle.patterns import goal_index

    shape = Shape(int(attrs["rows"]), int(attrs["cols"]))
    out = np.zeros((BLOCKS, 5), dtype=np.int64)
    goal = goal_index(attrs)
    _exact_pass(table, goal, shape.n, shape.neighbours, out)
    firsts = out[:, 2][out[:, 2] >= 0]
    return Verdict(
        int(out[:, 4].sum()),
        int(out[:, 0].sum()),
        int(out[:, 1].sum()),
        int(firsts[0]) if firsts.size else -1,
        int(table[goal]),
        int(out[:, 3].sum()),
    )


def prove_exact(path: Path, table: np.ndarray, attrs: dict[str, Any]) -> str:
    """How an exact table was proven exact (one line); TableError if it is not."""
    v = check_exact(table, attrs)
    if v.goal_value != 0:
        raise TableError(f"{path} is not an exact table: the goal's value is {v.goal_value}, not 0")
    if v.violations:
        raise TableError(
            f"{path} is not an exact table: {v.violations:,} moves lower a value by more than 1 or "
            f"join the unreachable half to the rest (the first from the state of rank {v.first_violation})"
        )
    if v.no_descent:
        raise TableError(
            f"{path} is not an exact table: {v.no_descent:,} states have no neighbour one move nearer "
            "(or a 0 where the goal is not)"
        )
    return f"exact: {v.states:,} states, {v.moves:,} moves checked (consistent, every state one move from a nearer one)"
