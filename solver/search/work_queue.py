"""How the subtrees of a split iteration are handed out to workers: chunks sized by expected work.

Workers take chunks of consecutive subtrees from the head of the queue (the
search order: the biggest of the last iteration first). A chunk holds at most
MAX_CHUNK subtrees and at most 1/(4 jobs) of the subtrees left (guided
self-scheduling: big chunks while much is left, single subtrees at the end).
With the subtrees' sizes in the last iteration, a chunk also holds at most
1/(WORK_SHARE jobs) of the expected work left, so the big subtrees at the head
of the queue go out one at a time, each to the next idle worker, close to the
order one worker would search them in. Counted in subtrees alone, the first chunk of
line 37's solving iteration (`best`, -j 2) held its three biggest subtrees,
the solution in the third: one thread searched all three (28 M nodes, 6.1 s)
while the other searched subtrees the serial order never reaches, and the
iteration took as long as with one thread. Replayed from a one-thread trace
of lines 37 and 28 (scripts/simulate_scaling.py), -j 2 went from 1.67x to
1.97x one thread's speed, and 16 workers from 3.4x to 13.7x (WORK_SHARE 16:
1.82x at -j 2; 32 and 64 the same as each other). A Dask task costs milliseconds more
than a kernel call, so the Dask backend's chunks do not shrink below the
first's share of the work (min_share) and may hold more subtrees (max_chunk):
about WORK_SHARE tasks per worker and iteration, the biggest subtrees (or
their pieces) still one at a time.
"""
from __future__ import annotations

import numpy as np

MAX_CHUNK = 16  # subtrees per kernel call at most
WORK_SHARE = 64  # a chunk holds at most 1 / (WORK_SHARE * jobs) of the expected work left


def chunk_size(remaining: int, jobs: int, max_chunk: int = MAX_CHUNK) -> int:
    """Guided self-scheduling by count: big chunks while there is much left, single subtrees at the end."""
    return max(1, min(max_chunk, remaining // (4 * jobs)))


class WorkQueue:
    """The queue of one split iteration (not thread-safe: callers hold a lock around take)."""

    def __init__(self, indices: np.ndarray, weights: np.ndarray | None, jobs: int, max_chunk: int = MAX_CHUNK,
                 min_share: float = 0.0) -> None:
        """indices: frontier subtrees in search order; weights: their expected work (their
        nodes in the last complete split iteration), or None where unknown; max_chunk:
        subtrees a chunk at most; min_share: a chunk may always hold this share of the whole
        queue's work (where a chunk costs more than a kernel call: Dask)."""
        self.indices = np.asarray(indices, dtype=np.int64)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.jobs = max(1, jobs)
        self.max_chunk = max_chunk
        self.head = 0
        self.left = 0.0 if self.weights is None else float(self.weights.sum())
        self.floor = self.left * min_share

    def __len__(self) -> int:
        return self.indices.size - self.head

    def take(self) -> np.ndarray:
        """The next chunk (empty once the queue is empty)."""
        start = self.head
        end = start + min(chunk_size(len(self), self.jobs, self.max_chunk), len(self))
        if self.weights is not None and end > start:
            limit = max(self.left / (WORK_SHARE * self.jobs), self.floor)
            w = self.weights
            stop, acc = start + 1, w[start]
            while stop < end and acc + w[stop] <= limit:
                acc += w[stop]
                stop += 1
            end = stop
            self.left -= float(w[start:end].sum())
        self.head = end
        return self.indices[start:end]
