"""Batch files: one board per line, '#' comments, an optional expected length last.

The file is read as the batch goes (memory for the boards in flight, not the
file). Many small boards are solved side by side, one thread each (the search
kernels release the GIL, so the threads share one copy of the tables);
big boards (more than 16 cells) or fewer boards than threads are solved one
at a time, each with every thread. Ctrl-C (BatchStop.request) stops the
boards in progress and cancels the queued ones.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import chain, islice

from patterndb import Board, BoardError, parse_board

from .api import Control, Options, Plan, make_plan, prepare, run
from .ida import StopFlag
from .ida.state import Backend
from .ida.threads import default_jobs
from .solution import SearchStopped, Solution

SMALL_BOARD = 16  # cells; boards up to this size are solved side by side
AHEAD = 2  # boards queued per thread beyond the one being printed
# Boards from which a batch maps its tables before searching (Plan.populate): Korf's first 5
# boards with `best` took 1,167 page faults (about 23 ms), mapping all of the tables 15-19 ms.
POPULATE_MIN = 4


@dataclass
class Entry:
    line: int
    board: Board | None  # None when the line is not a board (error says why)
    expected: int | None
    error: str | None = None
    fatal: bool = False  # the file ends here for the batch (it stopped being text)


def _parse_line(text: str, rows: int | None, cols: int | None) -> tuple[Board, int | None]:
    """A batch line: a board, then perhaps its expected length. Where the board parses without
    the last token, that token is the length and must be a whole number (named if it is not);
    a line of a few tiles is most likely one row of a grid, which a batch does not take."""
    tokens = text.split()
    try:
        return parse_board(text, rows, cols), None
    except BoardError as first:
        if len(tokens) > 1:
            try:
                board = parse_board(" ".join(tokens[:-1]), rows, cols)
            except BoardError:
                board = None
            if board is not None:
                if tokens[-1].isascii() and tokens[-1].isdigit():
                    return board, int(tokens[-1])
                raise BoardError(
                    f"the expected length {tokens[-1]!r} after the board is not a whole number "
                    "of moves"
                ) from None
        if len(tokens) > 2 and _parses(tokens[0], rows, cols):
            raise BoardError(
                f"{len(tokens) - 1} more words after the board {tokens[0]}: a line holds one board "
                "and perhaps its expected length"
            ) from None
        if rows is None and cols is None and 1 < len(tokens) < 4:
            raise BoardError(
                f"{len(tokens)} tiles: a batch takes one whole board a line (e.g. 1 2 3 4 5 6 7 8 0), "
                "not a grid over several lines"
            ) from None
        raise first


def _parses(text: str, rows: int | None, cols: int | None) -> bool:
    try:
        parse_board(text, rows, cols)
    except BoardError:
        return False
    return True


MAX_LINE = (
    8192  # bytes a batch line may hold (a board is about 100); a longer one is refused unread
)


def iter_batch(path: str, rows: int | None = None, cols: int | None = None) -> Iterator[Entry]:
    """The board lines of a UTF-8 text file ('-': standard input), read one at a time as the
    batch goes; a line that is not a board becomes an Entry with its error, so one typo does
    not stop a long batch; a line that is not UTF-8 text ends the batch with a fatal Entry
    saying so. BoardError if the file cannot be read or holds no boards (at its end)."""
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as e:
        raise BoardError(f"cannot read {path}: {e.strerror}") from None
    found = False
    with nullcontext(f) if path == "-" else f:
        for i, raw in enumerate(iter(lambda: f.readline(MAX_LINE + 1), b""), 1):
            if len(raw) > MAX_LINE:  # the rest of the line is skipped, a piece at a time
                while raw and not raw.endswith(b"\n"):
                    raw = f.readline(1 << 20)
                found = True
                yield Entry(
                    i,
                    None,
                    None,
                    f"{path}:{i}: a line of more than {MAX_LINE:,} bytes is not a board",
                )
                continue
            try:
                # a byte-order mark is allowed
                text = raw.decode("utf-8-sig" if i == 1 else "utf-8")
            except UnicodeDecodeError:
                yield Entry(
                    i,
                    None,
                    None,
                    f"{path} is not a UTF-8 text file of boards (undecodable byte on line {i})",
                    fatal=True,
                )
                return
            line = text.split("#", 1)[0].strip()
            if not line:
                continue
            found = True
            try:
                board, expected = _parse_line(line, rows, cols)
            except BoardError as e:
                yield Entry(i, None, None, f"{path}:{i}: {e}")
                continue
            yield Entry(i, board, expected)
    if not found:
        raise BoardError(f"{path} holds no boards")


def read_batch(path: str, rows: int | None = None, cols: int | None = None) -> list[Entry]:
    """Every entry of iter_batch at once (for the benchmark scripts, which pick boards by number)."""
    return list(iter_batch(path, rows, cols))


def instances(path: str) -> dict[int, Entry]:
    """A benchmark file's boards by instance number (1 for its first board line, as Korf's
    and Korf & Felner's instances are numbered), bad lines included by their place."""
    return {i: e for i, e in enumerate(read_batch(path), 1)}


def count_lines(path: str) -> int | None:
    """Lines in a regular file (a progress bar's length; one quick pass), else None."""
    if path == "-" or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            n, last = 0, b"\n"
            for chunk in iter(lambda: f.read(1 << 20), b""):
                n += chunk.count(b"\n")
                last = chunk[-1:]
            return n + (last != b"\n")
    except OSError:
        return None


class BatchStop:
    """Stops every board in progress and everything queued (thread-safe, and safe in a signal
    handler).

    No lock: request() runs in a signal handler, in the main thread, between any two
    bytecodes of the code it interrupts, and that code may be solve() holding the lock (a
    Ctrl-C there hung the batch for good: the handler waited on its own thread's lock). The
    order makes a lock needless: request() sets the reason before it looks at the boards
    started, and solve() adds its board before it looks at the reason, so a request that
    lands anywhere either finds the board or is found by it. (set.add, set.discard and
    list(set) are atomic under the GIL.)"""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.active: set[StopFlag] = set()

    def request(self, reason: str) -> None:
        self.reason = self.reason or reason
        for s in list(self.active):
            s.request(reason)

    def solve(
        self, board: Board, plan: Plan, backend: Backend | None = None
    ) -> Solution | SearchStopped | None:
        """Solve one board unless stopped; None if it never started."""
        stop = StopFlag()
        self.active.add(stop)
        try:
            if self.reason:
                return None
            return run(board, plan, Control(stop=stop, backend=backend))
        except SearchStopped as e:
            return e
        finally:
            self.active.discard(stop)


def solve_batch(
    entries: Iterable[Entry],
    goal: str,
    opts: Options,
    log: Callable[[str], None],
    workers: int | None = None,
    plans: dict[str, Plan] | None = None,
    stop: BatchStop | None = None,
    cluster=None,
    on_plan: Callable[[Plan, Board], None] | None = None,
    boards: int | None = None,
) -> Iterator[tuple[Entry, Solution | SearchStopped | BoardError | None]]:
    """Solve every entry, yielding results in input order as they are ready.

    Entries are taken as the batch goes, at most AHEAD per thread beyond the one being
    yielded, so a batch of any length needs memory only for the boards in flight. A line
    that is not a solvable board yields a BoardError saying why, and the batch goes on. A
    board stopped by its node limit or time-out yields its SearchStopped and the batch goes
    on; after stop.request() the rest yield None (not started).
    workers: small boards side by side, a thread each (default: opts.jobs or every core,
    when the batch has at least that many boards); a big board (more than 16 cells) waits
    for those in flight and is solved alone with every thread. plans: ready plans by frame
    key. cluster: a solver.cluster.Cluster; boards then go one at a time, each spread over
    its workers. on_plan(plan, board): told of each plan made, with the first board it is for.
    boards: how many boards the batch holds, where known (a file's lines): with POPULATE_MIN
    or more, each plan's tables are mapped in one go before its first search (Plan.populate;
    Korf's 100 with `best`: 60 ms of page faults fewer, for 15-19 ms of mapping)."""
    plans = {} if plans is None else plans
    stop = stop or BatchStop()
    jobs = opts.jobs or default_jobs()
    entries = iter(entries)
    head = list(islice(entries, jobs))  # fewer boards than threads: each one gets them all
    side_by_side = 1 if cluster else workers or (jobs if len(head) >= jobs else 1)
    backends: dict[int, Backend] = {}
    populated: set[int] = set()  # the plans whose tables are mapped (Plan.populate)

    def task(e: Entry) -> tuple[Board, Plan, bool] | BoardError:
        """(board, plan, alone) for an entry, or the BoardError that says why it is none."""
        if e.board is None:
            return BoardError(e.error)
        try:
            board, frame = prepare(e.board, goal)
        except BoardError as err:
            return BoardError(f"line {e.line}: {err}")
        alone = side_by_side == 1 or board.shape.n > SMALL_BOARD
        if frame.key not in plans:
            plans[frame.key] = make_plan(
                frame, opts if alone else dataclasses.replace(opts, jobs=1), log
            )
            log(
                f"using {plans[frame.key].algorithm} / {plans[frame.key].heuristic.name} for {frame.shape} boards"
            )
            if on_plan is not None:
                on_plan(plans[frame.key], board)
        plan = plans[frame.key]
        if boards is not None and boards >= POPULATE_MIN and id(plan) not in populated:
            populated.add(id(plan))
            plan.populate()
        return board, plan, alone

    def backend(plan: Plan) -> Backend | None:
        if cluster is None:
            return None
        if id(plan) not in backends:
            backends[id(plan)] = cluster.backend(plan)
        return backends[id(plan)]

    # read, in input order, not yet yielded
    pending: deque[tuple[Entry, Callable[[], object]]] = deque()
    # One board at a time runs here, in the caller's thread: a pool thread handing each result
    # to the caller made Korf's 100 take 3% longer (every hand-over of the interpreter lock
    # between the two threads); IDA* still searches a long iteration in a thread of its own,
    # so signals reach the caller.
    with (
        ThreadPoolExecutor(max_workers=side_by_side) if side_by_side > 1 else nullcontext() as pool
    ):
        complete = False
        try:
            for e in chain(head, entries):
                t = task(e)
                if isinstance(t, BoardError):
                    pending.append((e, lambda t=t: t))
                elif t[2]:
                    while pending:
                        done, get = pending.popleft()
                        yield done, get()
                    yield e, stop.solve(t[0], t[1], backend(t[1]))
                else:
                    pending.append((e, pool.submit(stop.solve, t[0], t[1]).result))
                while len(pending) > AHEAD * side_by_side:
                    done, get = pending.popleft()
                    yield done, get()
            while pending:
                done, get = pending.popleft()
                yield done, get()
            complete = True
        finally:
            if not complete:  # the caller gave up on the rest
                stop.request("cancelled")
