"""The search kernels: each algorithm in its own module, all returning blank-cell paths, with the
heuristics' lookups they inline (heuristic, rank_steps) and the registry that serves them
compiled ahead of time or through numba's JIT (aot)."""

from .best_first import best_first_kernel
from .table_walk import table_walk

# algorithm -> (wg, wh) ordering key of the best-first search
BEST_FIRST_KEYS = {"bfs": (1.0, 0.0), "greedy": (0.0, 1.0), "astar": (1.0, 1.0)}
ALGORITHMS = ("table", "bfs", "iddfs", "greedy", "astar", "wastar", "idastar")

__all__ = ["ALGORITHMS", "BEST_FIRST_KEYS", "best_first_kernel", "table_walk"]
