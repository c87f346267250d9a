"""Search algorithms: each in its own module, all returning blank-cell paths."""
from .best_first import best_first_kernel
from .parallel import Driver
from .state import Outcome, Problem, StopFlag
from .threads import ThreadBackend
from .table_walk import table_walk

# algorithm -> (wg, wh) ordering key of the best-first search
BEST_FIRST_KEYS = {"bfs": (1.0, 0.0), "greedy": (0.0, 1.0), "astar": (1.0, 1.0)}
ALGORITHMS = ("table", "bfs", "iddfs", "greedy", "astar", "wastar", "idastar")

__all__ = ["ALGORITHMS", "BEST_FIRST_KEYS", "Driver", "Outcome", "Problem", "StopFlag", "ThreadBackend",
           "best_first_kernel", "table_walk"]
