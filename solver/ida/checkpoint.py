"""Checkpoints of a long IDA* search: written atomically, checked before they are believed.

The file is JSON (readable, diffable, small: a bit per frontier subtree).
It names what the search is for (board, goal, algorithm, heuristic, the
checksums of its tables, the frontier size) and where it stands (bound,
finished iterations, finished subtrees of the current one with their node
counts, the finished pieces of subtrees cut for many workers and not yet whole,
and each subtree's nodes in the last complete iteration, which order the next:
a resumed search searches in the order it would have). It is
written to a temporary file, flushed and renamed, so a kill at any moment
leaves the previous checkpoint or the new one, never half of one. A solved
search stores its solution, so running the same command again answers at
once.

A resumed answer is called optimal only on what the file says, so the file is
checked before anything in it is used (CheckpointError, one line naming the
file, otherwise): a sha256 digest over its content catches damage; the shape
of every field is checked (no traceback on valid JSON of the wrong shape);
and what the search itself can recompute is recomputed: the first bound is
h(root) from the tables in use, each later bound follows from the previous
iteration's smallest f over its bound and the solution's parity, complete
iterations never expand fewer nodes than the one before, the subtree arrays
match the frontier, and a stored solution replays to the goal, visits no
board twice and is exactly as long as the bound it was found at. A forger who
keeps all of that consistent and recomputes the digest can still lie (only a
new search could tell); everything short of that is refused.

A checkpoint that cannot be written (directory gone, disk full) never ends
the search: the first failure is reported, the search goes on, and a later
save that works is said to have worked.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from patterndb import BoardError
from patterndb.files.locks import exclusive

from ..search.moves import MAX_DEPTH, NO_BOUND
from .state import FRONTIER_TARGET, Iteration, Partial, Problem, SearchState

VERSION = 2  # 2: with a digest (version 1 files cannot be checked and are refused)
SAVE_INTERVAL = 5.0  # seconds between writes while subtrees finish
_INT_MAX = 1 << 62


class CheckpointError(BoardError):
    """A checkpoint that cannot be used for this search (another board, other tables, damaged)."""


def identity(
    board: str, goal: str, algorithm: str, heuristic: str, tables: tuple[str, ...], prune: int
) -> dict[str, Any]:
    """What a checkpoint must match to be resumed (the pruning depth changes the frontier)."""
    return {
        "board": board,
        "goal": goal,
        "algorithm": algorithm,
        "heuristic": heuristic,
        "tables": list(tables),
        "frontier_target": FRONTIER_TARGET,
        "prune": prune,
    }


def saved_heuristic(path: str | os.PathLike) -> str | None:
    """The heuristic a checkpoint file says it was saved for (a race's winner: solver.api),
    or None where there is no file or it cannot be read (Checkpoint.load then says why)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    search = data.get("search") if isinstance(data, dict) else None
    name = search.get("heuristic") if isinstance(search, dict) else None
    return name if isinstance(name, str) else None


def digest(data: dict[str, Any]) -> str:
    """sha256 of the checkpoint's content (every key but "digest"), in a canonical JSON form."""
    body = {k: v for k, v in data.items() if k != "digest"}
    return hashlib.sha256(
        json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


@dataclasses.dataclass(frozen=True)
class Resumed:
    """Where a resumed search started: what the checkpoint had proven and done."""

    path: str
    bound: int
    iterations: int
    subtrees_done: int | None
    subtrees: int | None
    solved: bool
    pieces_done: int = 0  # finished pieces of subtrees not yet whole

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        if self.solved:
            return f"answered from checkpoint {self.path}: solved at bound {self.bound}"
        where = (
            ""
            if self.subtrees is None
            else f", {self.subtrees_done:,} of {self.subtrees:,} subtrees done"
        )
        if self.pieces_done:
            where += f" and {self.pieces_done:,} piece{'s' * (self.pieces_done != 1)} of others"
        return (
            f"resuming from checkpoint {self.path}: bound {self.bound}{where} "
            f"({self.iterations} iteration{'s' * (self.iterations != 1)} finished)"
        )


class Checkpoint:
    """One checkpoint file for one search; also a progress listener that saves as subtrees finish."""

    def __init__(
        self,
        path: str | os.PathLike,
        ident: dict[str, Any],
        interval: float = SAVE_INTERVAL,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.ident = ident
        self.interval = interval
        self.warn = warn or (lambda _: None)
        self.failing = False  # the last save failed (warned once until one works again)
        self.last = time.monotonic()

    def check_writable(self) -> None:
        """Refuse, before any search, a checkpoint whose directory is missing or not writable."""
        parent = self.path.parent
        if self.path.is_dir():
            raise CheckpointError(f"checkpoint {self.path} is a directory: give a file name")
        if not parent.is_dir():
            raise CheckpointError(
                f"cannot write checkpoint {self.path}: directory {parent} does not exist"
            )
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{self.path.name}.probe"):
                pass
        except OSError as e:
            raise CheckpointError(
                f"cannot write checkpoint {self.path}: {e.strerror or e}"
            ) from None

    def load(self, problem: Problem) -> tuple[SearchState | None, list[int] | None]:
        """(state to resume, or None for a fresh start; the solution if already solved),
        every field checked against the search problem (see the module docstring)."""
        if not self.path.exists():
            return None, None
        try:
            text = self.path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise self._foreign(f"unreadable as text: {e}") from None
        try:
            data = json.loads(text)
        # a JSON object cut or garbled is ours damaged; anything else is not ours
        except ValueError as e:
            raise (self._damaged if text.lstrip().startswith("{") else self._foreign)(
                f"not JSON: {e}"
            ) from None
        if not isinstance(data, dict) or not {"version", "search"} <= set(data):
            raise self._foreign("JSON without a checkpoint's version and search")
        if data.get("version") != VERSION:
            raise CheckpointError(
                f"checkpoint {self.path} has version {data.get('version')!r}, expected {VERSION} "
                "(older ones carry no digest and cannot be checked): remove it to start afresh"
            )
        if data.get("digest") != digest(data):
            raise self._damaged("its digest does not match its content")
        search = data.get("search")
        if not isinstance(search, dict):
            raise self._damaged("no 'search' object")
        for key, want in self.ident.items():
            if search.get(key) != want:
                raise CheckpointError(
                    f"checkpoint {self.path} is for another search ({key} {search.get(key)!r}, "
                    f"this one {want!r}): remove it or give another --checkpoint file"
                )
        try:
            state, solution = _parse(data)
        except (ValueError, KeyError, TypeError) as e:
            raise self._damaged(str(e)) from None
        problem_msg = _inconsistency(state, solution, problem)
        if problem_msg:
            raise CheckpointError(
                f"checkpoint {self.path} is inconsistent with this search ({problem_msg}): "
                "remove it to start afresh"
            )
        return state, solution

    def _damaged(self, why: str) -> CheckpointError:
        return CheckpointError(
            f"checkpoint {self.path} is damaged ({why}): remove it to start afresh"
        )

    def _foreign(self, why: str) -> CheckpointError:
        """A file that is no checkpoint of this solver: named, and left alone."""
        return CheckpointError(
            f"--checkpoint {self.path} is not a checkpoint ({why}): give another file; this "
            "one was left as it is"
        )

    @contextmanager
    def claimed(self) -> Iterator[None]:
        """This search's hold on the checkpoint (a lock beside it, .NAME.lock): a second search
        with the same file is refused while this one runs, not left to overwrite it."""
        lock = self.path.parent / f".{self.path.name}.lock"
        try:
            with exclusive(lock, wait=False):
                yield
        except BlockingIOError:
            raise CheckpointError(
                f"checkpoint {self.path} is in use by another search: wait for it to end, or give "
                "another --checkpoint file"
            ) from None

    def resumed(self, state: SearchState, solution: list[int] | None) -> Resumed:
        done = None if state.done is None else int(state.done.sum())
        return Resumed(
            str(self.path),
            state.bound,
            len(state.iterations),
            done,
            None if state.done is None else int(state.done.size),
            solution is not None,
            sum(int(p.done.sum()) for p in state.partial.values()),
        )

    def save(self, state: SearchState, solution: list[int] | None = None) -> bool:
        """Write the checkpoint atomically; False (after a warning, once) if it cannot be written."""
        done = None if state.done is None else _flags(state.done)
        data = {
            "version": VERSION,
            "search": self.ident,
            "state": {
                "bound": state.bound,
                "iterations": [vars(it) for it in state.iterations],
                "expanded": state.expanded,
                "generated": state.generated,
                "next_f": state.next_f,
                "seconds": state.seconds,
                "done": done,
                "subtrees": None if state.done is None else int(state.done.size),
                "subtrees_done": None if state.done is None else int(state.done.sum()),
                "sizes": _text(state.sizes),
                "last_sizes": _text(state.last_sizes),
                "prior_sizes": _text(state.prior_sizes),
                "partial": {
                    str(k): {
                        "pieces": p.pieces,
                        "digest": p.digest,
                        "expanded": p.expanded,
                        "generated": p.generated,
                        "next_f": p.next_f,
                        "done": _flags(p.done),
                    }
                    for k, p in sorted(state.partial.items())
                },
            },
            "solution": solution,
        }
        data["digest"] = digest(data)
        tmp = self.path.with_name(f"{self.path.name}.tmp{os.getpid()}")
        self.last = time.monotonic()
        try:
            try:
                with open(tmp, "w") as f:
                    json.dump(data, f)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            finally:
                tmp.unlink(missing_ok=True)
        except OSError as e:
            if not self.failing:
                self.warn(
                    f"warning: cannot save checkpoint {self.path} ({e.strerror or e}); "
                    "the search goes on and tries again"
                )
            self.failing = True
            return False
        if self.failing:
            self.warn(f"checkpoint {self.path} saved again")
        self.failing = False
        return True

    # Listener: save after finished subtrees (at most every `interval` s) and after each iteration.
    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        pass

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        if time.monotonic() - self.last >= self.interval:
            self.save(dataclasses.replace(state, seconds=elapsed))  # the current iteration so far

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        self.save(state)


def _int(value: Any, what: str, low: int = 0, high: int = _INT_MAX) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} is {value!r}, not an integer from {low} to {high}")
    return value


def _float(value: Any, what: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 <= value < float("inf")
    ):
        raise ValueError(f"{what} is {value!r}, not a number of seconds")
    return float(value)


def _parse(data: dict[str, Any]) -> tuple[SearchState, list[int] | None]:
    """The state and solution of a checkpoint's JSON, every field's type and range checked."""
    s = data["state"]
    if not isinstance(s, dict):
        raise ValueError("'state' is not an object")
    its = s["iterations"]
    if not isinstance(its, list):
        raise ValueError("'iterations' is not a list")
    iterations = []
    for k, it in enumerate(its):
        if not isinstance(it, dict):
            raise ValueError(f"iteration {k} is not an object")
        iterations.append(
            Iteration(
                _int(it["bound"], "a bound", 0, MAX_DEPTH),
                _int(it["expanded"], "a node count"),
                _int(it["generated"], "a node count"),
                _float(it["seconds"], "an iteration's time"),
                _int(it["subtrees"], "a subtree count", 1),
                _int(it["next_f"], "an iteration's next f", 0, int(NO_BOUND)),
            )
        )
    state = SearchState(
        _int(s["bound"], "the bound", 0, MAX_DEPTH),
        iterations,
        None,
        _int(s["expanded"], "expanded"),
        _int(s["generated"], "generated"),
        _int(s["next_f"], "next f", 0, int(NO_BOUND)),
        _float(s["seconds"], "seconds"),
    )
    if s["done"] is not None:
        subtrees = _int(s["subtrees"], "the subtree count", 1, 1 << 30)
        state.done = _unflags(s["done"], subtrees, "done", "subtrees")
        if s.get("subtrees_done") != int(state.done.sum()):
            raise ValueError(
                f"'subtrees_done' is {s.get('subtrees_done')!r}, 'done' has {int(state.done.sum())}"
            )
    state.sizes, state.last_sizes = (
        _counts(s.get("sizes"), "sizes"),
        _counts(s.get("last_sizes"), "last_sizes"),
    )
    # (absent from checkpoints before it was kept)
    state.prior_sizes = _counts(s.get("prior_sizes"), "prior_sizes")
    state.partial = _partial(s.get("partial") or {})  # (likewise)
    solution = data.get("solution")
    if solution is not None:
        if not isinstance(solution, list) or not solution or len(solution) > MAX_DEPTH + 1:
            raise ValueError("'solution' is not a list of cells")
        solution = [_int(c, "a solution cell", 0, 63) for c in solution]
    return state, solution


def _partial(saved: Any) -> dict[int, Partial]:
    """The finished pieces of unfinished subtrees, by subtree, each field checked."""
    if not isinstance(saved, dict):
        raise ValueError("'partial' is not an object")
    out = {}
    for key, p in saved.items():
        if not isinstance(key, str) or not key.isdigit() or not isinstance(p, dict):
            raise ValueError(f"'partial' has an entry {key!r} that is not a subtree's pieces")
        pieces = _int(p["pieces"], "a subtree's piece count", 2, 1 << 20)
        done = _unflags(p["done"], pieces, f"subtree {key}'s done pieces", "pieces")
        if done.all() or not done.any():
            raise ValueError(
                f"subtree {key} is kept as partly searched with {int(done.sum())} of {pieces} pieces done"
            )
        digest_ = _str(p["digest"], "a subtree's pieces' digest")
        if len(digest_) != 16 or any(c not in "0123456789abcdef" for c in digest_):
            raise ValueError(f"subtree {key}'s pieces' digest is {digest_!r}")
        out[int(key)] = Partial(
            pieces,
            digest_,
            done,
            _int(p["expanded"], "a node count"),
            _int(p["generated"], "a node count"),
            _int(p["next_f"], "a next f", 0, int(NO_BOUND)),
        )
    return out


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"'{what}' is not a string")
    return value


def _inconsistency(state: SearchState, solution: list[int] | None, problem: Problem) -> str | None:
    """What in a parsed checkpoint the search can recompute and finds otherwise (None: nothing)."""
    from ..search.aot import kernels

    root, parity = problem.root_bound()
    step = kernels().next_bound
    its = state.iterations
    want = root
    for k, it in enumerate(its):
        if it.bound != want:
            return f"iteration {k + 1} has bound {it.bound}, the search gives {want}"
        if k > 0 and k < len(its) - 1 + (solution is None) and it.expanded < its[k - 1].expanded:
            return f"iteration {k + 1} expanded fewer nodes than the one before"
        if k < len(its) - 1 or solution is None:
            if not it.bound < it.next_f < NO_BOUND:
                return f"iteration {k + 1} at bound {it.bound} records next f {it.next_f}"
            want = int(step(it.next_f, parity))
    if solution is None and state.bound != want:
        return f"the bound is {state.bound}, the finished iterations give {want}"
    if solution is not None:
        if not its or state.bound != its[-1].bound or state.done is not None:
            return "a solution without the iteration that found it"
        if len(solution) - 1 != its[-1].bound:
            return f"a solution of {len(solution) - 1} moves found at bound {its[-1].bound}"
        why = _replay(problem, solution)
        if why:
            return f"its solution {why}"
    arrays = [
        a for a in (state.done, state.sizes, state.last_sizes, state.prior_sizes) if a is not None
    ]
    if arrays:
        n = len(problem.frontier()[0])
        if any(len(a) != n for a in arrays):
            return f"subtree arrays of {sorted({len(a) for a in arrays})} entries, the frontier has {n}"
        if state.sizes is not None:
            if (
                state.done is None
                or np.any(state.sizes < 0)
                or np.any(state.sizes[~state.done] != 0)
                or int(state.sizes.sum()) != state.expanded
            ):
                return "per-subtree counts that do not add up to the iteration's"
        for k, p in state.partial.items():
            if state.done is None or k >= len(state.done):
                return f"pieces kept for subtree {k}, which is not in this iteration"
            if state.done[k]:
                return f"pieces kept for subtree {k}, which is done"
            if p.next_f <= state.bound:
                return (
                    f"pieces of subtree {k} with next f {p.next_f}, at most the bound {state.bound}"
                )
    elif (state.expanded or state.partial) and state.done is None:
        return "nodes of an unsplit iteration in progress"
    return None


def _replay(problem: Problem, path: list[int]) -> str | None:
    """Why path is not a shortest-looking walk of the blank to the goal (None: it is one):
    it must start at the blank, move to a neighbour each step, visit no board twice
    (a revisit is never optimal) and end on the goal."""
    board = problem.tiles.copy()
    if path[0] != problem.blank:
        return "does not start at the blank"
    seen = {board.tobytes()}
    for a, b in zip(path, path[1:]):
        if not 0 <= b < board.size or b not in problem.nbrs[a]:
            return f"moves the blank from cell {a} to {b}"
        board[a], board[b] = board[b], 0
        key = board.tobytes()
        if key in seen:
            return "visits a board twice"
        seen.add(key)
    return None if np.array_equal(board, problem.goal) else "does not reach the goal"


def _flags(flags: np.ndarray) -> str:
    """One flag a subtree (or a piece) as base64 of its packed bits."""
    return base64.b64encode(np.packbits(flags).tobytes()).decode()


def _unflags(text: Any, n: int, what: str, of: str) -> np.ndarray:
    """_flags's n flags back, refused unless the bytes hold exactly as many as n needs."""
    bits = np.frombuffer(base64.b64decode(_str(text, what), validate=True), dtype=np.uint8)
    if bits.size != (n + 7) // 8:
        raise ValueError(f"'{what}' has {bits.size * 8} bits for {n} {of}")
    return np.unpackbits(bits)[:n].astype(bool)


def _text(counts: np.ndarray | None) -> str | None:
    """Per-subtree node counts as base64 of little-endian int64."""
    return None if counts is None else base64.b64encode(counts.astype("<i8").tobytes()).decode()


def _counts(text: Any, what: str) -> np.ndarray | None:
    """_text's counts back (None: a checkpoint written without them)."""
    if text is None:
        return None
    raw = base64.b64decode(_str(text, what), validate=True)
    if len(raw) % 8:
        raise ValueError(f"'{what}' is not a whole number of counts")
    return np.frombuffer(raw, dtype="<i8").astype(np.int64)
