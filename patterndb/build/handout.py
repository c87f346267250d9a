"""A level's pieces handed to the cores one at a time, as each finishes its last.

numba's prange splits its range among the threads before the loop starts (its chunk
size does not make the split dynamic under the omp and workqueue threading layers). A
breadth-first level's pieces differ in work: the placements of a level gather where
their tiles are near home, so the thread that drew the busy half of the cells kept the
other waiting at the end of every level (a 6x6 5-tile table's build kept 1.5 of 2 cores
busy). Here the pieces are kernels that release the GIL, run on a pool of Python
threads that each take the next piece when done.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def threads() -> int:
    """How many pieces run at once: numba's thread count, as a prange would use."""
    import numba

    return numba.get_num_threads()


def hand_out(piece: Callable[[int], T], count: int, pool: ThreadPoolExecutor | None) -> list[T]:
    """[piece(0), ..., piece(count - 1)], run on pool's threads (in this thread without
    one); on an exception (Ctrl-C included) the pieces not yet begun are cancelled and
    those running finish before it is raised."""
    if pool is None or count <= 1:
        return [piece(i) for i in range(count)]
    jobs = [pool.submit(piece, i) for i in range(count)]
    try:
        return [job.result() for job in jobs]
    except BaseException:
        for job in jobs:
            job.cancel()
        for job in jobs:
            if not job.cancelled():
                job.exception()  # (wait for it: a kernel still writing must not outlive the build)
        raise
