"""`solver solve --file`: a batch of boards, each row printed as it is solved."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from itertools import chain, takewhile
from typing import TYPE_CHECKING

import click

from patterndb import BoardError

from ..api import Options
from ..batch import BatchStop, count_lines, iter_batch, solve_batch
from ..solution import ClusterError, SearchStopped
from .common import (
    EXIT_CLUSTER,
    EXIT_STOPPED,
    bad_lines,
    boards,
    err,
    load_kernels,
    process_seconds,
    warn_if_hopeless,
)
from .signals import EXIT_CODES as EXIT_CODES_BY_SIGNAL
from .signals import stop_on_signals

if TYPE_CHECKING:
    from ..cluster.client import Cluster


def solve_file(
    path: str,
    goal: str,
    opts: Options,
    shape: dict,
    *,
    as_json: bool,
    quiet: bool,
    cluster: Cluster | None = None,
) -> int:
    """Solve a batch, printing each row as it is solved (the file is read as it goes); the exit
    status: 5 if the Dask cluster failed, else 130/143 if a signal stopped it, else 1 if an
    expected length is not met, else 2 if a line is not a solvable board (or the file stops
    being UTF-8 text there: the batch ends at that line), else 4 if a board was stopped by its limit, else 0."""
    stop = BatchStop()
    entries = iter_batch(path, **shape)
    first = next(entries)
    if first.fatal:  # a file that is no batch at all: one line of error, nothing else
        raise BoardError(first.error)
    read = [0]

    def counted(stream: Iterator) -> Iterator:
        for e in stream:
            read[0] += 1
            yield e

    stream = counted(chain([first], entries))
    if path == "-":  # standard input may never end: after a stop, nothing more is read
        stream = takewhile(lambda _: stop.reason is None, stream)
    start = time.perf_counter()
    kernel_seconds, kernel_origin = (
        load_kernels() if opts.algorithm in (None, "idastar", "iddfs", "table") else (0.0, "")
    )
    plans: dict = {}
    tally = {
        "solved": 0,
        "mismatch": 0,
        "checked": 0,
        "error": 0,
        "stopped": 0,
        "not started": 0,
        "nodes": 0,
    }

    def costs() -> dict:
        """What each --json row says of the process so far, as a single solve's --json does."""
        return {
            "kernels": kernel_origin,
            "kernel_seconds": round(kernel_seconds, 6),
            "load_seconds": round(sum(p.load_seconds for p in plans.values()), 6),
            "process_seconds": process_seconds(),
        }

    if not as_json:
        click.echo(
            f"{'line':>5} {'length':>6} {'expected':>8} {'generated':>13} {'seconds':>8}  board"
            "   (line: the line's number in the file)"
        )
    # Rows on a terminal are their own progress; a bar beside them would be printed into them.
    lines = count_lines(path)
    hidden = quiet or lines is None or not sys.stderr.isatty() or sys.stdout.isatty()
    failed = None

    def say(message: str) -> None:
        """A line on stderr, on a line of its own when the bar is drawn there (it redraws below)."""
        if not hidden:
            sys.stderr.write("\r\x1b[K")
        err(message)

    with stop_on_signals(stop.request):
        results = solve_batch(
            stream,
            goal,
            opts,
            say,
            plans=plans,
            stop=stop,
            cluster=cluster,
            on_plan=lambda plan, board: warn_if_hopeless(plan, board, say),
            boards=lines,
        )
        with click.progressbar(
            length=lines or 1, label="solving", file=sys.stderr, hidden=hidden
        ) as bar:
            try:
                for e, res in results:
                    _batch_row(e, res, as_json, tally, costs() if as_json else {}, say)
                    if stop.reason is None:  # (after a stop the bar stays where the solving ended)
                        bar.update(e.line - bar.pos)
            except ClusterError as e:  # the rows so far stand; the rest cannot be searched
                failed = e
    t = tally
    rows = t["solved"] + t["error"] + t["stopped"] + t["not started"]
    lost = 0
    # the boards read but not answered, and the file's rest (quick: nothing is solved)
    if failed is not None:
        lost = read[0] - rows + (0 if path == "-" else sum(1 for _ in entries))
    summary = (
        f"{t['solved']} of {rows + lost} boards solved, {t['nodes']:,} nodes generated, "
        f"{time.perf_counter() - start:.2f}s wall; "
    )
    if t["mismatch"]:
        summary += f"{t['mismatch']} MISMATCH(ES) against expected lengths"
    else:
        summary += (
            f"all {t['checked']} expected lengths met"
            if t["checked"]
            else "no expected lengths to check"
        )
    if t["error"]:
        summary += f"; {bad_lines(t['error'])}"
    if t["stopped"]:
        summary += f"; {boards(t['stopped'])} stopped early"
    err(summary)
    if failed is not None:
        err(f"error: {failed}; {boards(lost)} not solved")
        return EXIT_CLUSTER
    if stop.reason in EXIT_CODES_BY_SIGNAL:
        rest = "; standard input was not read further" if path == "-" else ""
        err(f"{stop.reason}: {boards(t['not started'])} not started{rest}")
        return EXIT_CODES_BY_SIGNAL[stop.reason]
    return 1 if t["mismatch"] else 2 if t["error"] else EXIT_STOPPED["limit"] if t["stopped"] else 0


def _batch_row(e, res, as_json: bool, tally: dict, costs: dict, say=err) -> None:
    """Print one batch result (a solution, a stopped search, a line's error, or None: a board
    never started) and count it."""
    exp = "" if e.expected is None else str(e.expected)
    where = {"line": e.line, "expected": e.expected}
    if res is None:
        tally["not started"] += 1
        if as_json:
            click.echo(
                json.dumps(
                    {"status": "not started", "board": None if e.board is None else str(e.board)}
                    | where
                )
            )
        return
    if isinstance(res, BoardError):
        tally["error"] += 1
        say(f"error: {res}")
        if as_json:
            click.echo(
                json.dumps(
                    {"error": str(res), "board": None if e.board is None else str(e.board)} | where
                )
            )
        else:
            click.echo(f"{e.line:>5} {'ERROR':>6} {exp:>8} {'':>13} {'':>8}  {res}")
        return
    tally["nodes"] += res.nodes_generated
    if isinstance(res, SearchStopped):
        tally["stopped"] += 1
        if as_json:
            click.echo(json.dumps(res.to_dict() | {"board": str(e.board)} | where | costs))
        else:
            click.echo(
                f"{e.line:>5} {'>=' + str(res.lower_bound):>6} {exp:>8} {res.nodes_generated:>13,} "
                f"{res.seconds:>8.3f}  {e.board}  {res.reason.upper()}"
            )
        return
    tally["solved"] += 1
    ok = e.expected is None or e.expected == res.length
    tally["mismatch"] += not ok
    tally["checked"] += e.expected is not None
    if as_json:
        click.echo(json.dumps(res.to_dict() | {"board": str(e.board)} | where | costs))
    else:
        click.echo(
            f"{e.line:>5} {res.length:>6} {exp:>8} {res.nodes_generated:>13,} {res.seconds:>8.3f}  "
            f"{e.board}{'' if ok else '  MISMATCH'}"
        )
