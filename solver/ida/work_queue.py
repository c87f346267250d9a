"""How the subtrees of a split iteration are handed out to workers: chunks sized by expected work and time.

Workers take chunks of consecutive subtrees from the head of the queue (the
search order: the big, fast-growing subtrees first). Where nothing is
expected of them (no weights), a chunk holds at most MAX_CHUNK subtrees and
1/(4 jobs) of those left (guided self-scheduling: big chunks while much is left,
single subtrees at the end); with weights, at most 1/jobs of those left. (The
driver gives weights from the first split iteration on: equal shares of its
estimate until the subtrees' sizes are known, search.parallel._expected.)

With their expected sizes (the driver's: each subtree's nodes in the last
iteration times the iteration's expected growth), a chunk also holds at most
1/(WORK_SHARE jobs) of the expected work left, so the big subtrees at the head
of the queue go out one at a time, each to the next idle worker, close to the
order one worker would search them in. Counted in subtrees alone, the first
chunk of line 37's solving iteration (`best`, -j 2) held its three biggest
subtrees, the solution in the third: one thread searched all three while the
other searched subtrees the serial order never reaches.

But a chunk may always hold `floor` expected nodes (chunk_floor): a chunk costs
its worker time outside the search (a kernel call, the driver's bookkeeping, a
Dask task's round trip), and on many workers that time is shared (threads take
turns at the GIL). On a 16-core Xeon, line 37 at -j 16 went out in 8,653 chunks
of one subtree each (median 1,532 nodes, 0.8 ms) for its complete iteration, and
the threads waited 2 ms between chunks: busy 72% of the time. The floor is the
work of a few hundredths of a second for threads and of a second for a Dask
task (at the rate the backend measured), but never more than 1/(per_worker
jobs) of the iteration, so the last chunks still spread over every worker.
"""

from __future__ import annotations

import numpy as np

MAX_CHUNK = 16  # subtrees per chunk at most where their sizes are unknown
WORK_SHARE = (
    64  # a chunk holds at most 1 / (WORK_SHARE * jobs) of the expected work left (or floor)
)


def chunk_size(remaining: int, jobs: int) -> int:
    """Guided self-scheduling by count: big chunks while there is much left, single subtrees at the end."""
    return max(1, min(MAX_CHUNK, remaining // (4 * jobs)))


def chunk_floor(
    weights: np.ndarray | None, jobs: int, seconds: float, rate: float, per_worker: int
) -> float:
    """Expected nodes a chunk may always hold: `seconds` of a worker's search at `rate` nodes a
    second, but at most 1/(per_worker jobs) of the whole queue's expected nodes (`weights`)."""
    if weights is None:
        return 0.0
    return min(seconds * rate, float(np.sum(weights)) / (per_worker * max(1, jobs)))


class WorkQueue:
    """The queue of one split iteration (not thread-safe: callers hold a lock around take)."""

    def __init__(
        self, indices: np.ndarray, weights: np.ndarray | None, jobs: int, floor: float = 0.0
    ) -> None:
        """indices: frontier subtrees in search order; weights: their expected work (nodes), or
        None where unknown; floor: expected work a chunk may always hold (chunk_floor)."""
        self.indices = np.asarray(indices, dtype=np.int64)
        self.jobs = max(1, jobs)
        self.head = 0
        self.floor = floor
        self.cum = None if weights is None else np.cumsum(np.asarray(weights, dtype=np.float64))

    def __len__(self) -> int:
        return self.indices.size - self.head

    def take(self) -> np.ndarray:
        """The next chunk (empty once the queue is empty)."""
        start, n = self.head, len(self)
        if n == 0:
            return self.indices[start:start]
        if self.cum is None:
            end = start + chunk_size(n, self.jobs)
        else:
            before = self.cum[start - 1] if start else 0.0
            limit = max((self.cum[-1] - before) / (WORK_SHARE * self.jobs), self.floor)
            # while the work fits
            end = int(np.searchsorted(self.cum, before + limit, side="right"))
            # (guided by count too: weights may lie)
            end = min(max(end, start + 1), start + max(1, n // self.jobs))
        self.head = end
        return self.indices[start:end]

    def chunks(self) -> list[np.ndarray]:
        """Every chunk left, in order (for a backend that cuts them all before it submits any: Dask)."""
        out = []
        while len(self):
            out.append(self.take())
        return out


class Rate:
    """Nodes a second one worker searches, over the chunks it has been told of (a low guess
    before any, so that a first floor errs on the small side)."""

    GUESS = 1e6

    def __init__(self, nodes: int = 0, seconds: float = 0.0) -> None:
        self.nodes = nodes
        self.seconds = seconds

    def add(self, nodes: int, seconds: float) -> None:
        self.nodes += nodes
        self.seconds += seconds

    @property
    def value(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0.01 and self.nodes > 0 else self.GUESS
