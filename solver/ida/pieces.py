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
worker would. Fine pieces matter most in the solving iteration, where the
solution lies some way into one piece: on a 16-core Xeon (lines 37 + 28,
z6-6-6-6, -j 16, three rounds in turn) SHARE 128 took 4.8-5.4 s against
5.2-5.8 s with 32, the solving iterations 0.07 and 0.05 s against 0.47 and
0.29 s (docs/benchmarks.md); -j 2 lost nothing.

Node counts stay exact: the pieces replace their subtree in the frontier's
list, and each node is counted by the first path in that list that reaches
it (subtrees.py: first[i], the depth where path i leaves path i - 1), so a
complete iteration counts what the serial search counts, whatever the cut.
The driver counts a frontier subtree as done (and adds its nodes) only once
all its pieces are; until then its finished pieces, with their counts, are
kept apart (state.Partial), and a checkpoint saves them. The cut of a subtree
depends only on its size against the whole last iteration's and on the
workers, not on what is done, so a resume with as many workers cuts it alike
and skips the saved pieces (their paths' digest must match; a resume that
cuts otherwise searches the subtree whole again). With one worker nothing is
cut: the search is the serial one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..search.aot import kernels
from ..search.moves import NO_BOUND
from .state import Partial

SHARE = 128  # cut subtrees bigger than 1 / (SHARE * jobs) of the last iteration's nodes
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


def uncut(
    paths: np.ndarray, first: np.ndarray, todo: np.ndarray, weights: np.ndarray | None
) -> Pieces:
    """Every subtree whole: piece i is frontier subtree i."""
    return Pieces(paths, first, np.arange(len(paths), dtype=np.int64), todo, weights)


def cut(
    fsm: np.ndarray,
    nbrs: np.ndarray,
    state0: int,
    paths: np.ndarray,
    first: np.ndarray,
    todo: np.ndarray,
    last_sizes: np.ndarray | None,
    jobs: int,
) -> Pieces:
    """The pieces of an iteration whose subtrees todo (frontier indices, in search order) are
    to be searched by jobs workers; last_sizes: each subtree's nodes in the last complete
    split iteration (None: nothing is known, nothing is cut). jobs 1 (or a backend that
    searches only the frontier's own paths): nothing is cut. Whole arrays, no loop over the
    frontier: on 16 threads a loop per subtree held the driver 30 ms between iterations.
    The piece size is a share of the whole last iteration, not of what is left to do, so a
    resumed iteration cuts each subtree as the run before it did (Tally.resume)."""
    weights = None if last_sizes is None else last_sizes[todo].astype(np.float64)
    if last_sizes is None or jobs <= 1:
        return uncut(paths, first, todo, weights)
    target = max(1.0, float(last_sizes.sum()) / (SHARE * jobs))
    big = todo[(last_sizes[todo] > target) & (paths[todo, -1] >= 0)]
    if big.size == 0:
        return uncut(paths, first, todo, weights)
    big.sort()
    subs = [
        _below(fsm, nbrs, state0, paths[i], int(min(MAX_PIECES, np.ceil(last_sizes[i] / target))))
        for i in big
    ]
    counts = np.ones(len(paths), dtype=np.int64)
    counts[big] = [len(s) for s in subs]
    base_arr = np.repeat(np.arange(len(paths), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts  # each subtree's first piece
    out = np.full(
        (len(base_arr), max(paths.shape[1], max(s.shape[1] for s in subs))), -1, dtype=np.int64
    )
    whole = np.ones(len(paths), dtype=bool)
    whole[big] = False
    out[starts[whole], : paths.shape[1]] = paths[whole]
    for i, s in zip(big, subs):
        out[starts[i] : starts[i] + len(s), : s.shape[1]] = s
    n = counts[todo]  # todo's subtrees in its order, each one's pieces together
    order = np.repeat(starts[todo], n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    piece_weights = (last_sizes[base_arr] / counts[base_arr]).astype(np.float64)[order]
    return Pieces(out, _first(out, first, base_arr, starts), base_arr, order, piece_weights, True)


def _below(
    fsm: np.ndarray, nbrs: np.ndarray, state0: int, path: np.ndarray, count: int
) -> np.ndarray:
    """At least count paths extending path (as many as the machine allows within 64 cells),
    in depth-first order, one a row, padded with -1 after their ends (the frontier's rows
    are); path itself where the machine allows no move below it."""
    state = state0
    for a, b in zip(path[:-1], path[1:]):
        d = int(np.flatnonzero(nbrs[a] == b)[0])
        state = fsm[state, d]
    sub, _ = kernels().frontier(fsm, nbrs, int(state), int(path[-1]), count)
    return np.hstack([np.broadcast_to(path[:-1], (len(sub), len(path) - 1)), sub])


def _first(
    paths: np.ndarray, first: np.ndarray, base: np.ndarray, starts: np.ndarray
) -> np.ndarray:
    """Each piece's counting depth: where its path leaves the piece before (a subtree's first
    piece keeps its subtree's, which the frontier computed against the subtree before)."""
    out = first[base].astype(np.int64)
    later = np.ones(len(paths), dtype=bool)
    later[starts] = False
    k = np.flatnonzero(later)
    out[k] = np.argmax(paths[k] != paths[k - 1], axis=1)  # pieces are distinct: some cell differs
    return out


def digest(paths: np.ndarray) -> str:
    """A subtree's pieces, as a short hex digest of their paths (a saved Partial's check). Over
    the columns that hold a cell of some piece, not the padding after them: the cut's arrays
    are as wide as the longest piece of any subtree cut in that iteration, which a resume with
    other subtrees still to do may cut less deep."""
    used = int(np.flatnonzero((paths >= 0).any(axis=0)).max()) + 1 if paths.size else 0
    return hashlib.sha256(np.ascontiguousarray(paths[:, :used], dtype="<i8").tobytes()).hexdigest()[
        :16
    ]


class Tally:
    """Each frontier subtree's nodes, gathered from its pieces until the last is done."""

    def __init__(self, pieces: Pieces, subtrees: int) -> None:
        self.pieces = pieces
        self.left = np.bincount(pieces.base, minlength=subtrees)
        self.expanded = np.zeros(subtrees, dtype=np.int64)
        self.generated = np.zeros(subtrees, dtype=np.int64)
        self.next_f = np.full(subtrees, NO_BOUND, dtype=np.int64)
        self.finished = np.zeros(len(pieces.base), dtype=bool)  # pieces searched to their end

    def _span(self, subtree: int) -> slice:
        """The subtree's pieces (together in the cut: base is sorted)."""
        base = self.pieces.base
        return slice(
            int(np.searchsorted(base, subtree, "left")),
            int(np.searchsorted(base, subtree, "right")),
        )

    def resume(self, saved: dict[int, Partial]) -> dict[int, Partial]:
        """Count the saved pieces of unfinished subtrees as finished where this cut has the same
        pieces; returns the entries kept (the others' subtrees are searched whole again)."""
        kept = {}
        for subtree, p in saved.items():
            span = self._span(subtree)
            if span.stop - span.start != p.pieces or digest(self.pieces.paths[span]) != p.digest:
                continue
            self.finished[span] = p.done
            self.left[subtree] -= int(p.done.sum())
            self.expanded[subtree] += p.expanded
            self.generated[subtree] += p.generated
            self.next_f[subtree] = min(int(self.next_f[subtree]), p.next_f)
            kept[subtree] = p
        return kept

    def add(
        self, indices: np.ndarray, expanded: np.ndarray, generated: np.ndarray, next_f: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Finished pieces (their indices and counts); returns the subtrees whose last piece is
        among them and those left unfinished with more pieces done, each once."""
        self.finished[indices] = True
        subtrees = self.pieces.base[indices]
        np.add.at(self.expanded, subtrees, expanded)
        np.add.at(self.generated, subtrees, generated)
        np.minimum.at(self.next_f, subtrees, next_f)
        np.subtract.at(self.left, subtrees, 1)
        touched = np.unique(subtrees)
        return touched[self.left[touched] == 0], touched[self.left[touched] > 0]

    def progress(self, subtree: int) -> Partial:
        """An unfinished subtree's done pieces, to save."""
        span = self._span(subtree)
        return Partial(
            span.stop - span.start,
            digest(self.pieces.paths[span]),
            self.finished[span].copy(),
            int(self.expanded[subtree]),
            int(self.generated[subtree]),
            int(self.next_f[subtree]),
        )
