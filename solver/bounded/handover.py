"""When a bounded search's IDA* hands its cores to the upper bound's searches.

In `solver solve --within R --timeout T` the lower bound rises only when an IDA* iteration
ends, and each iteration expands several times the nodes of the one before. An iteration
that cannot end before the time-out proves nothing more, while it holds every core: on
random 24-puzzles that missed 5% in 60 s, the lower bound's last rise came at 24-46 s and
the iteration then begun was still running at 60 s. IDA* is therefore stopped (what it
has proven stays proven) once the iteration under way is foreseen to need more than
SAFETY times the time left, and its cores go to the upper bound's searches.

The foresight: the iteration's nodes as the driver expects them (the last iteration's times
their growth from the one before), at the faster of two rates, the last iteration's and the
one of the subtrees this iteration has finished (both read low: the first counts a short
iteration's overhead, the second leaves out the subtrees under way), judged only after
MIN_SECONDS of the iteration. SAFETY covers iterations that grow less than the last did.
"""

from __future__ import annotations

from ..ida.parallel import expected_expansions
from ..ida.state import Iteration

SAFETY = 2.0  # the iteration's foreseen remaining time must exceed this times the time left
MIN_SECONDS = 2.0  # an iteration younger than this is not judged (its rate is not yet known)


def cannot_end(
    iterations: list[Iteration], expanded: int, elapsed: float, left: float, safety: float = SAFETY
) -> bool:
    """Whether the iteration under way (after these iterations; expanded: the nodes of its
    finished subtrees, in elapsed seconds) is foreseen to need more than safety times the
    left seconds to end. False while too young to judge, or without a finished iteration."""
    if elapsed < MIN_SECONDS or not iterations or iterations[-1].seconds <= 0:
        return False
    if left <= 0:
        return True
    last = iterations[-1]
    rate = max(last.expanded / last.seconds, expanded / elapsed)
    if rate <= 0:
        return False
    remaining = (expected_expansions(iterations) - expanded) / rate
    return remaining > safety * left
