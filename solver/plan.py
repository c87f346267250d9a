"""What a solve is asked for (Options), how a long search is watched (Control), and what it
searches with (Plan): the types the API, the command and the cluster workers share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from patterndb import Frame
from patterndb.build.movefsm import MoveMachine

from .heuristics import Heuristic
from .ida import Problem, StopFlag
from .ida.checkpoint import SAVE_INTERVAL
from .ida.parallel import SPLIT_NODES
from .ida.state import Backend, Listener

Log = Callable[[str], None]


def quiet(_: str) -> None:
    """A log that says nothing."""


@dataclass(frozen=True)
class Options:
    """What the caller asked for; None means 'the best available'."""

    algorithm: str | None = None
    heuristic: str | None = None
    weight: float = 2.0
    data_dir: Path | None = None
    max_nodes: int | None = None
    pattern: str | None = None
    pdb_files: tuple[Path, ...] = ()
    reflect: bool = True
    jobs: int | None = None  # IDA* worker threads for one board (None: every core)
    timeout: float | None = None  # seconds before IDA* stops with what it has proven
    prune: int | None = None  # IDA*'s move-pruning depth (2: only undo; None: the shape's default)


@dataclass
class Control:
    """How a long IDA* search is watched, stopped and resumed (all optional).

    stop: request() ends the search within milliseconds (SearchStopped; a request made
    before the search starts ends it at once), and is cleared when that search ends;
    listener: told of iterations and finished subtrees (progress);
    checkpoint: a file the search state is saved to (every checkpoint_every
    seconds as subtrees finish, after each iteration, on a stop, and with
    the solution) and resumed from when it exists (checked first: see
    solver.ida.checkpoint; a save that fails is reported to log and the search
    goes on);
    backend: where the subtrees run (default: threads of this process);
    trace: a file that records who searched which subtrees when (solver.ida.trace)."""

    stop: StopFlag = field(default_factory=StopFlag)
    listener: Listener | None = None
    checkpoint: Path | None = None
    checkpoint_every: float = SAVE_INTERVAL
    backend: Backend | None = None
    split_nodes: int = SPLIT_NODES  # iterations expected bigger than this are split into subtrees
    log: Log | None = (
        None  # told where a resumed search starts, and of checkpoints that cannot be saved
    )
    trace: Path | None = None  # a file to record every chunk of subtrees in (solver.ida.trace)


@dataclass(frozen=True)
class Plan:
    frame: Frame
    algorithm: str
    heuristic: Heuristic
    options: Options
    machine: MoveMachine  # the move-pruning machine IDA* uses
    load_seconds: float = 0.0  # making it: reading (or building) its tables and machine
    rival: Heuristic | None = (
        None  # "A|B": IDA* races heuristic (A) against this one per board (search.race)
    )

    def problem(self, tiles: np.ndarray, heuristic: Heuristic | None = None) -> Problem:
        """What IDA* searches for a board in this plan's frame (its canonical tiles): with
        this plan's heuristic, or the one given (the rival of a race), and its machine."""
        h = self.heuristic if heuristic is None else heuristic
        return Problem(
            np.asarray(tiles, dtype=np.int64),
            self.frame.canonical_goal.tiles.astype(np.int64),
            h.H,
            self.frame.shape.neighbours,
            self.machine,
        )

    def populate(self) -> None:
        """Map all of its tables' pages now (Heuristic.populate), for a batch of boards: in
        bulk, a quarter of what the page faults of the searches would cost."""
        for h in (self.heuristic, self.rival):
            if h is not None:
                h.populate()
