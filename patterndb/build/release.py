"""Freed memory given back to the system at once, so a build's peak is its own arrays'.

glibc keeps freed blocks under its mmap threshold for reuse, and raises that threshold
(up to 32 MiB) as big blocks are freed: a build that frees and allocates many arrays of
a few MiB (a start cell's hash as it grows, in a move-pruning machine's build) then
holds them all. Blocks of 1 MiB or more are made with mmap here, and unmapped when
freed: 5x5's depth-18 machine peaks 3.3 GB instead of 3.6.
"""

from __future__ import annotations

import ctypes

M_MMAP_THRESHOLD = -3


def give_back_freed_memory() -> None:
    """Have the C allocator return freed blocks of 1 MiB or more at once (glibc; elsewhere
    nothing changes)."""
    try:
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, 1 << 20)
    except (AttributeError, OSError):
        pass
