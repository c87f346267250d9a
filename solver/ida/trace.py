"""A record of where one IDA* search spent its work, for replaying it on other machines.

`solver solve BOARD --trace FILE` (or Control(trace=...)) writes JSON lines:

    {"trace": 1, "board": ..., "heuristic": ..., "jobs": 2, "backend": "threads", "frontier": 8660, ...}
    {"started": 98, "subtrees": 8660, "t": 1.234}         an iteration begins (subtrees 1: from the root)
    {"chunk": [17, 4, ...], "bound": 98, "worker": "ida-0", "start": 1.24, "end": 1.31,
     "status": [...], "expanded": [...], "generated": [...], "goal_depth": [...]}
    {"iteration": 98, "expanded": ..., "generated": ..., "seconds": ..., "subtrees": 8660, "next_f": 100, "t": ...}

One chunk line per kernel call (a worker's batch of frontier subtrees, or the
whole unsplit iteration as subtree 0), with each subtree's status (0 found,
1 searched to the end, 2 node limit, 3 stopped, 4 pruned above the frontier),
its expanded and generated nodes (for the found subtree: up to the solution)
and the goal's depth. Times are seconds since the trace began, on this
process's monotonic clock (a Dask chunk's start is taken on the worker's wall
clock, its end is that plus the seconds it measured). scripts/simulate_scaling.py
replays a trace for any number of workers.

A trace that cannot be written (disk full) is reported once and dropped; it
never ends the search.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from patterndb import BoardError

from ..search.subtrees import EXPANDED, GENERATED, GOAL_DEPTH, STATUS
from .state import Iteration, SearchState

VERSION = 1


class Trace:
    """One trace file; a Listener of search.parallel plus the per-chunk record of Driver(record=...)."""

    def __init__(
        self, path: str | Path, header: dict[str, Any], warn: Callable[[str], None] | None = None
    ) -> None:
        self.path = Path(path)
        self.warn = warn or (lambda _: None)
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.bound = -1
        try:
            self.file = open(self.path, "w")
        except OSError as e:
            raise BoardError(f"cannot write trace {self.path}: {e.strerror or e}") from None
        self._write({"trace": VERSION, **header})

    def _write(self, record: dict[str, Any], flush: bool = False) -> None:
        with self.lock:
            if self.file is None:
                return
            try:
                self.file.write(json.dumps(record) + "\n")
                if flush:
                    self.file.flush()
            except OSError as e:
                self.warn(
                    f"warning: cannot write trace {self.path} ({e.strerror or e}); tracing stops, the search "
                    "goes on"
                )
                self.file = None

    def _now(self, t: float | None = None) -> float:
        return round((time.monotonic() if t is None else t) - self.t0, 6)

    def chunk(
        self, indices: np.ndarray, rows: np.ndarray, worker: str, start: float, end: float
    ) -> None:
        """One kernel call's result rows (called from any worker thread)."""
        self._write(
            {
                "chunk": indices.tolist(),
                "bound": self.bound,
                "worker": worker,
                "start": self._now(start),
                "end": self._now(end),
                "status": rows[:, STATUS].tolist(),
                "expanded": rows[:, EXPANDED].tolist(),
                "generated": rows[:, GENERATED].tolist(),
                "goal_depth": rows[:, GOAL_DEPTH].tolist(),
            }
        )

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        self.bound = bound
        self._write({"started": bound, "subtrees": subtrees, "t": self._now()})

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        pass

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        self._write(
            {
                "iteration": it.bound,
                "expanded": it.expanded,
                "generated": it.generated,
                "seconds": round(it.seconds, 6),
                "subtrees": it.subtrees,
                "next_f": it.next_f,
                "t": self._now(),
            },
            flush=True,
        )

    def close(self, outcome: dict[str, Any] | None = None) -> None:
        if outcome is not None:
            self._write({"end": outcome, "t": self._now()})
        with self.lock:
            if self.file is not None:
                try:
                    self.file.close()
                except OSError:
                    pass
                self.file = None


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The records of a trace file, in order."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
