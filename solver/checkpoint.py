"""Checkpoints of a long IDA* search: written atomically, refused when they do not match.

The file is JSON (readable, diffable, small: a bit per frontier subtree).
It names what the search is for (board, goal, algorithm, heuristic, the
checksums of its tables, the frontier size) and where it stands (bound,
finished iterations, finished subtrees of the current one with their node
counts, and each subtree's nodes in the last complete iteration, which order
the next: a resumed search searches in the order it would have). It is
written to a temporary file, flushed and renamed, so a kill at any moment
leaves the previous checkpoint or the new one, never half of one. A solved
search stores its solution, so running the same command again answers at
once.
"""
from __future__ import annotations

import base64
import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from patterndb import BoardError

from .search.parallel import FRONTIER_TARGET, Iteration, SearchState

VERSION = 1
SAVE_INTERVAL = 5.0  # seconds between writes while subtrees finish


class CheckpointError(BoardError):
    """A checkpoint that cannot be used for this search (another board, other tables, damaged)."""


def identity(board: str, goal: str, algorithm: str, heuristic: str, tables: tuple[str, ...],
             prune: int) -> dict[str, Any]:
    """What a checkpoint must match to be resumed (the pruning depth changes the frontier)."""
    return {"board": board, "goal": goal, "algorithm": algorithm, "heuristic": heuristic,
            "tables": list(tables), "frontier_target": FRONTIER_TARGET, "prune": prune}


class Checkpoint:
    """One checkpoint file for one search; also a progress listener that saves as subtrees finish."""

    def __init__(self, path: str | os.PathLike, ident: dict[str, Any], interval: float = SAVE_INTERVAL) -> None:
        self.path = Path(path)
        self.ident = ident
        self.interval = interval
        self.last = time.monotonic()

    def load(self) -> tuple[SearchState | None, list[int] | None]:
        """(state to resume, or None for a fresh start; the solution if already solved)."""
        if not self.path.exists():
            return None, None
        try:
            data = json.loads(self.path.read_text())
            if data.get("version") != VERSION:
                raise CheckpointError(f"checkpoint {self.path} has version {data.get('version')}, expected {VERSION}")
            for key, want in self.ident.items():
                if data["search"].get(key) != want:
                    raise CheckpointError(
                        f"checkpoint {self.path} is for another search ({key} {data['search'].get(key)!r}, "
                        f"this one {want!r}): remove it or give another --checkpoint file")
            s = data["state"]
            state = SearchState(int(s["bound"]), [Iteration(**it) for it in s["iterations"]],
                                None, int(s["expanded"]), int(s["generated"]), int(s["next_f"]), float(s["seconds"]))
            if s["done"] is not None:
                bits = np.frombuffer(base64.b64decode(s["done"]), dtype=np.uint8)
                state.done = np.unpackbits(bits)[: int(s["subtrees"])].astype(bool)
            state.sizes, state.last_sizes = _counts(s.get("sizes")), _counts(s.get("last_sizes"))
            solution = data.get("solution")
        except CheckpointError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise CheckpointError(f"checkpoint {self.path} is damaged ({e.__class__.__name__}: {e})") from None
        return state, solution

    def save(self, state: SearchState, solution: list[int] | None = None) -> None:
        done = None if state.done is None else base64.b64encode(np.packbits(state.done).tobytes()).decode()
        data = {
            "version": VERSION,
            "search": self.ident,
            "state": {
                "bound": state.bound, "iterations": [vars(it) for it in state.iterations],
                "expanded": state.expanded, "generated": state.generated, "next_f": state.next_f,
                "seconds": state.seconds, "done": done,
                "subtrees": None if state.done is None else int(state.done.size),
                "subtrees_done": None if state.done is None else int(state.done.sum()),
                "sizes": _text(state.sizes), "last_sizes": _text(state.last_sizes),
            },
            "solution": solution,
        }
        tmp = self.path.with_name(f"{self.path.name}.tmp{os.getpid()}")
        try:
            with open(tmp, "w") as f:
                json.dump(data, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        finally:
            tmp.unlink(missing_ok=True)
        self.last = time.monotonic()

    # Listener: save after finished subtrees (at most every `interval` s) and after each iteration.
    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        pass

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        if time.monotonic() - self.last >= self.interval:
            self.save(dataclasses.replace(state, seconds=elapsed))  # the current iteration so far

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        self.save(state)


def _text(counts: np.ndarray | None) -> str | None:
    """Per-subtree node counts as base64 of little-endian int64."""
    return None if counts is None else base64.b64encode(counts.astype("<i8").tobytes()).decode()


def _counts(text: str | None) -> np.ndarray | None:
    """_text's counts back (None: a checkpoint written without them)."""
    return None if text is None else np.frombuffer(base64.b64decode(text), dtype="<i8").astype(np.int64)
