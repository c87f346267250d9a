"""IDA* on every core: the driver of the iterations (parallel), the search's state and
stop flag (state), threads, work sharing, a race of two heuristics, checkpoints, traces
and progress listeners."""

from .parallel import Driver
from .state import Outcome, Problem, StopFlag
from .threads import ThreadBackend

__all__ = ["Driver", "Outcome", "Problem", "StopFlag", "ThreadBackend"]
