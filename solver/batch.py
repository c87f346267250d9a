"""Batch files: one board per line, '#' comments, an optional expected length last.

Many small boards are solved side by side, one thread each (the search
kernels release the GIL, so the threads share one copy of the tables);
big boards (more than 16 cells) or fewer boards than threads are solved one
at a time, each with every thread. Ctrl-C (BatchStop.request) stops the
boards in progress and cancels the queued ones.
"""
from __future__ import annotations

import dataclasses
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, Iterator

from patterndb import Board, BoardError, parse_board

from .api import Control, Options, Plan, default_jobs, make_plan, prepare, run
from .search import StopFlag
from .search.parallel import Backend
from .solution import SearchStopped, Solution

SMALL_BOARD = 16  # cells; boards up to this size are solved side by side


@dataclass
class Entry:
    line: int
    board: Board | None  # None when the line is not a board (error says why)
    expected: int | None
    error: str | None = None


def _parse_line(text: str, rows: int | None, cols: int | None) -> tuple[Board, int | None]:
    tokens = text.split()
    try:
        return parse_board(text, rows, cols), None
    except BoardError as first:
        if len(tokens) > 1 and tokens[-1].isascii() and tokens[-1].isdigit():
            try:
                return parse_board(" ".join(tokens[:-1]), rows, cols), int(tokens[-1])
            except BoardError:
                pass
        raise first


def read_batch(path: str, rows: int | None = None, cols: int | None = None) -> list[Entry]:
    """Every board line of a UTF-8 text file ('-': standard input); a bad line becomes an
    Entry with its error, so one typo does not stop a long batch."""
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8-sig")
        else:
            with open(path, encoding="utf-8-sig") as f:  # a byte-order mark is allowed
                text = f.read()
    except UnicodeDecodeError as e:
        line = e.object[: e.start].count(b"\n") + 1
        raise BoardError(f"{path} is not a UTF-8 text file of boards (undecodable byte on line {line})") from None
    except OSError as e:
        raise BoardError(f"cannot read {path}: {e.strerror}") from None
    entries = []
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            board, expected = _parse_line(line, rows, cols)
        except BoardError as e:
            entries.append(Entry(i, None, None, f"{path}:{i}: {e}"))
            continue
        entries.append(Entry(i, board, expected))
    if not entries:
        raise BoardError(f"{path} holds no boards")
    return entries


class BatchStop:
    """Stops every board in progress and everything queued (thread-safe)."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.lock = threading.Lock()
        self.active: set[StopFlag] = set()

    def request(self, reason: str) -> None:
        with self.lock:
            self.reason = self.reason or reason
            for s in self.active:
                s.request(reason)

    def solve(self, board: Board, plan: Plan, backend: Backend | None = None) -> Solution | SearchStopped | None:
        """Solve one board unless stopped; None if it never started."""
        stop = StopFlag()
        with self.lock:
            if self.reason:
                return None
            self.active.add(stop)
        try:
            return run(board, plan, Control(stop=stop, backend=backend))
        except SearchStopped as e:
            return e
        finally:
            with self.lock:
                self.active.discard(stop)


def solve_batch(entries: list[Entry], goal: str, opts: Options, log: Callable[[str], None],
                workers: int | None = None, plans: dict[str, Plan] | None = None,
                stop: BatchStop | None = None,
                cluster=None) -> Iterator[tuple[Entry, Solution | SearchStopped | BoardError | None]]:
    """Solve every entry, yielding results in input order as they are ready.

    A line that is not a solvable board yields a BoardError saying why, and
    the batch goes on. A board stopped by its node limit or time-out yields its SearchStopped
    and the batch goes on; after stop.request() the rest yield None.
    workers: boards side by side (default: opts.jobs or every core, when
    the boards are small and many). plans: ready plans by frame key.
    cluster: a solver.cluster.Cluster; boards then go one at a time, each
    spread over its workers."""
    plans = {} if plans is None else plans
    stop = stop or BatchStop()
    jobs = opts.jobs or default_jobs()
    prepared = []
    for e in entries:
        if e.board is not None:
            try:
                prepared.append((e, *prepare(e.board, goal)))
            except BoardError as err:
                e.error = f"line {e.line}: {err}"
    small = all(b.shape.n <= SMALL_BOARD for _, b, _ in prepared)
    side_by_side = 1 if cluster else workers or (jobs if len(entries) >= jobs and small else 1)
    board_opts = dataclasses.replace(opts, jobs=1) if side_by_side > 1 else opts
    jobs_list = []
    for e, board, frame in prepared:
        if frame.key not in plans:
            plans[frame.key] = make_plan(frame, board_opts, log)
            log(f"using {plans[frame.key].algorithm} / {plans[frame.key].heuristic.name} for {frame.shape} boards")
        jobs_list.append((e, board, plans[frame.key]))
    workers_used = max(1, min(side_by_side, len(jobs_list)))
    # One board at a time runs here, in the caller's thread: a pool thread handing each result
    # to the caller made Korf's 100 take 3% longer (every hand-over of the interpreter lock
    # between the two threads); IDA* still searches a long iteration in a thread of its own,
    # so signals reach the caller.
    with ThreadPoolExecutor(max_workers=workers_used) if workers_used > 1 else nullcontext() as pool:
        backends = {id(plan): cluster.backend(plan) for _, _, plan in jobs_list} if cluster else {}
        tasks = {id(e): (board, plan, backends.get(id(plan))) for e, board, plan in jobs_list}
        if pool is None:
            result = lambda k: stop.solve(*tasks[k])
        else:
            futures = {k: pool.submit(stop.solve, *task) for k, task in tasks.items()}
            result = lambda k: futures[k].result()
        complete = False
        try:
            for e in entries:
                yield e, BoardError(e.error) if e.error else result(id(e))
            complete = True
        finally:
            if not complete:  # the caller gave up on the rest
                stop.request("cancelled")
