"""The order a split iteration searches its subtrees in: the fastest-growing big subtrees first.

Any order searches the same nodes in an iteration that finds no solution. The last
iteration stops at its first solution, though, and it holds most of a search's nodes
(each iteration expands 5-10 times the last one's). A subtree that expanded many nodes
at the previous bound holds many paths the heuristic rates near the goal, and one whose
count grew fast from the bound before holds more of them at each step: the key is
s * (s / s_before)^GROWTH_POWER, s being a subtree's nodes in the last complete split
iteration and s_before in the one before it (each plus one).

Measured with each subtree searched alone at the solving
bound and the two before it; z6-6-6-6, move pruning to depth 16; docs/benchmarks.md),
nodes of the solving iteration up to the first subtree holding a solution, one subtree
after another, over 15 of Korf & Felner's 24-puzzles (the 13 easiest, 26 and 3):
1.36 G with power 3 against 2.78 G biggest first (power 0, the order before), 2.35 G with
power 1, 1.87 G with 2 and 1.18 G with 4; the geometric mean of the share of the whole
iteration 0.040 against 0.080; on three lines measured after the power was chosen (16, 29
and 4), 179 M against 203 M. Not better on every board (lines 40 and 25 lose a little).
Biggest first had been chosen over the frontier's depth-first order (940 M on the 10
easiest, against 439 M), random order (1.47 G) and lowest h first (Powley & Korf's
frontier order, 1.36 G). Big subtrees first also even out the workers' loads at the end
of an iteration (longest first).

The first split iteration has no sizes yet and keeps the depth-first order; the second
has one iteration's sizes and searches biggest first.
"""

from __future__ import annotations

import numpy as np

GROWTH_POWER = 3


def search_order(
    todo: np.ndarray,
    sizes: np.ndarray | None,
    before: np.ndarray | None = None,
    power: float = GROWTH_POWER,
) -> np.ndarray:
    """The subtrees todo (frontier indices, in frontier order) in the order to search them:
    by sizes (nodes each expanded in the last complete split iteration) times their growth
    from before (the split iteration before that) to the power `power` (other powers were
    measured: docs/benchmarks.md), highest first, ties in frontier order; biggest first
    without before; todo as it is without sizes."""
    if sizes is None:
        return todo
    s = sizes[todo].astype(np.float64) + 1.0
    key = s if before is None else s * (s / (before[todo].astype(np.float64) + 1.0)) ** power
    return todo[np.argsort(-key, kind="stable")]
