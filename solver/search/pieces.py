"""The biggest subtrees of a split iteration cut into pieces, so that many workers can share them.

A split iteration's queue holds frontier subtrees, the big, fast-growing
ones first (subtree_order). On many workers a few big subtrees at the head decide the
iteration's time: each is one worker's alone, in a complete iteration (the
last worker still searches the biggest when the others are done) and in the
solving one (the solution lies deep in one of them while the other workers
search subtrees the serial order never reaches). So a subtree that expanded
more than 1/(SHARE * jobs) of the last iteration's nodes is searched as pieces:
the paths a few moves below its root that the move-pruning machine allows,
in depth-first order, enough of them that each is expected to be about that
size. The pieces of one subtree stay together at its place in the queue, so
the workers search the biggest subtrees together, close to the order one
worker would.

Node counts stay exact: the pieces replace their subtree in the frontier's
list, and each node is counted by the first path in that list that reaches
it (subtrees.py: first[i], the depth where path i leaves path i - 1), so a
complete iteration counts what the serial search counts, whatever the cut.
The driver counts a frontier subtree as done (and adds its nodes) only once
all its pieces are, so a checkpoint, a bit per frontier subtree, never holds
half a subtree. With one worker nothing is cut: the search is the serial one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .aot import kernels
from .moves import NO_BOUND

SHARE = 32  # cut subtrees bigger than 1 / (SHARE * jobs) of the last iteration's nodes
MAX_PIECES = 256  # pieces of one subtree at most


@dataclass(frozen=True)
class Pieces:
    """A split iteration's work: paths and their counting depths (as the frontier's), the
    frontier subtree each piece belongs to, and the pieces in search order with their
    expected work (None where unknown)."""

    paths: np.ndarray
    first: np.ndarray
    base: np.ndarray
    order: np.ndarray
    weights: np.ndarray | None
    cut: bool = False  # some subtree is in pieces (else piece i is subtree i)


def uncut(paths: np.ndarray, first: np.ndarray, todo: np.ndarray, weights: np.ndarray | None) -> Pieces:
    """Every subtree whole: piece i is frontier subtree i."""
    return Pieces(paths, first, np.arange(len(paths), dtype=np.int64), todo, weights)


def cut(fsm: np.ndarray, nbrs: np.ndarray, state0: int, paths: np.ndarray, first: np.ndarray, todo: np.ndarray,
        last_sizes: np.ndarray | None, jobs: int) -> Pieces:
    """The pieces of an iteration whose subtrees todo (frontier indices, in search order) are
    to be searched by jobs workers; last_sizes: each subtree's nodes in the last complete
    split iteration (None: nothing is known, nothing is cut). jobs 1 (or a backend that
    searches only the frontier's own paths): nothing is cut."""
    weights = None if last_sizes is None else last_sizes[todo].astype(np.float64)
    if last_sizes is None or jobs <= 1:
        return uncut(paths, first, todo, weights)
    target = max(1.0, float(last_sizes[todo].sum()) / (SHARE * jobs))
    want = {int(i): int(min(MAX_PIECES, np.ceil(last_sizes[i] / target)))
            for i in todo if last_sizes[i] > target and paths[i, -1] >= 0}
    if not want:
        return uncut(paths, first, todo, weights)
    rows: list[np.ndarray] = []
    base: list[int] = []
    for i in range(len(paths)):
        if i in want:
            sub = _below(fsm, nbrs, state0, paths[i], want[i])
            rows.extend(sub)
            base.extend([i] * len(sub))
        else:
            rows.append(paths[i])
            base.append(i)
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -1, dtype=np.int64)
    for k, r in enumerate(rows):
        out[k, : len(r)] = r
    base_arr = np.array(base, dtype=np.int64)
    starts = np.searchsorted(base_arr, np.arange(len(paths)))  # each subtree's first piece
    counts = np.bincount(base_arr, minlength=len(paths))
    order = np.concatenate([np.arange(starts[i], starts[i] + counts[i]) for i in todo]).astype(np.int64)
    piece_weights = None if weights is None else (last_sizes[base_arr] / counts[base_arr]).astype(np.float64)[order]
    return Pieces(out, _first(out, first, base_arr, starts), base_arr, order, piece_weights, True)


def _below(fsm: np.ndarray, nbrs: np.ndarray, state0: int, path: np.ndarray, count: int) -> list[np.ndarray]:
    """At least count paths extending path (as many as the machine allows within 64 cells),
    in depth-first order; path itself where the machine allows no move below it."""
    state = state0
    for a, b in zip(path[:-1], path[1:]):
        d = int(np.flatnonzero(nbrs[a] == b)[0])
        state = fsm[state, d]
    sub, _ = kernels().frontier(fsm, nbrs, int(state), int(path[-1]), count)
    return [np.concatenate([path[:-1], s[s >= 0]]) for s in sub]


def _first(paths: np.ndarray, first: np.ndarray, base: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each piece's counting depth: where its path leaves the piece before (a subtree's first
    piece keeps its subtree's, which the frontier computed against the subtree before)."""
    out = np.empty(len(paths), dtype=np.int64)
    for k in range(len(paths)):
        if k == starts[base[k]]:
            out[k] = first[base[k]]
        else:
            j = 0
            while paths[k, j] == paths[k - 1, j]:
                j += 1
            out[k] = j
    return out


class Tally:
    """Each frontier subtree's nodes, gathered from its pieces until the last is done."""

    def __init__(self, pieces: Pieces, subtrees: int) -> None:
        self.left = np.bincount(pieces.base, minlength=subtrees)
        self.expanded = np.zeros(subtrees, dtype=np.int64)
        self.generated = np.zeros(subtrees, dtype=np.int64)
        self.next_f = np.full(subtrees, NO_BOUND, dtype=np.int64)

    def add(self, subtree: int, expanded: int, generated: int, next_f: int) -> bool:
        """A finished piece of subtree; True once every piece of it is finished."""
        self.expanded[subtree] += expanded
        self.generated[subtree] += generated
        self.next_f[subtree] = min(self.next_f[subtree], next_f)
        self.left[subtree] -= 1
        return bool(self.left[subtree] == 0)

    def partial(self) -> tuple[int, int, int]:
        """(expanded, generated, smallest next f) of the subtrees with some pieces finished, not all."""
        some = (self.left > 0) & ((self.expanded > 0) | (self.generated > 0) | (self.next_f < NO_BOUND))
        return (int(self.expanded[some].sum()), int(self.generated[some].sum()),
                int(self.next_f[some].min()) if some.any() else int(NO_BOUND))
