"""`solver solve --file F --within R` (or `--anytime`): every board of a batch answered with a
proven bound, one after the other, each with every core (solver.bounded.anytime), a row printed as
each is answered and a summary of the gaps at the end."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from itertools import chain, takewhile
from typing import TYPE_CHECKING

import click

from patterndb import BoardError

from ..api import Options
from ..batch import Entry, iter_batch
from ..bounded.batch import BoundedBatch, consistent
from ..solution import ClusterError, SearchStopped
from .bounded import progress
from .common import (
    EXIT_CLUSTER,
    EXIT_STOPPED,
    bad_lines,
    boards,
    connect_cluster,
    err,
    process_seconds,
)
from .signals import EXIT_CODES as EXIT_CODES_BY_SIGNAL
from .signals import stop_on_signals

if TYPE_CHECKING:  # (Dask is an optional extra)
    from ..cluster.client import Cluster


def solve_file_within(
    path: str,
    goal: str,
    opts: Options,
    shape: dict,
    *,
    within: float | None,
    as_json: bool,
    quiet: bool,
    scheduler: str | None,
    cluster_timeout: float,
) -> int:
    """Answer every board of the batch in turn (each one's IDA* on the --scheduler's Dask
    cluster where one is given); the exit status: 130/143 if a signal stopped it, else 5 if
    the cluster failed (the rows answered stand, the rest are not started), else 1 if a known
    optimum contradicts an answer, else 2 if a line is not a solvable board, else 4 if a
    board's time-out came before its bound was proven, else 0."""
    entries = iter_batch(path, **shape)
    first = next(entries)
    if first.fatal:
        raise BoardError(first.error)
    # (before the header: a failure is one line)
    with connect_cluster(scheduler, cluster_timeout) as cluster:
        return _answer(chain([first], entries), path, goal, opts, within, as_json, quiet, cluster)


def _answer(
    stream: Iterator[Entry],
    path: str,
    goal: str,
    opts: Options,
    within: float | None,
    as_json: bool,
    quiet: bool,
    cluster: Cluster | None,
) -> int:
    """solve_file_within's rows and summary, the batch's file read and its cluster reached."""
    batch = BoundedBatch(opts, within, cluster, err)
    tally = {"answered": 0, "met": 0, "optimal": 0, "mismatch": 0, "error": 0, "not started": 0}
    gaps: list[float] = []
    start = time.perf_counter()
    if not as_json:
        click.echo(
            f"{'line':>5} {'length':>6} {'bound':>6} {'gap %':>6} {'expected':>8} {'seconds':>8}  "
            f"{'ended':<11} board"
        )
    failed = None
    if path == "-":  # standard input may never end: after a stop, nothing more is read
        stream = takewhile(lambda _: batch.reason is None, stream)
    with stop_on_signals(batch.request):
        for e in stream:
            where = {"line": e.line, "expected": e.expected}
            if batch.reason is not None:
                tally["not started"] += 1
                if as_json:
                    click.echo(
                        json.dumps(
                            {"status": "not started", "board": str(e.board) if e.board else None}
                            | where
                        )
                    )
                continue
            try:
                if e.board is None:
                    raise BoardError(e.error)
                result = batch.answer(
                    e.board, goal, progress(quiet, f"line {e.line}: ", moves=False)
                )
            except BoardError as x:
                tally["error"] += 1
                err(f"error: {x}")
                if as_json:
                    click.echo(
                        json.dumps(
                            {"error": str(x), "board": str(e.board) if e.board else None} | where
                        )
                    )
                else:
                    click.echo(
                        f"{e.line:>5} {'ERROR':>6} {'':>6} {'':>6} {e.expected or '':>8} {'':>8}  "
                        f"{'':<11} {x}"
                    )
                continue
            except ClusterError as x:  # the rows so far stand; the rest cannot be searched
                batch.reason, failed = "cluster", x
                tally["not started"] += 1
                if as_json:
                    click.echo(
                        json.dumps({"status": "not answered", "board": str(e.board)} | where)
                    )
                continue
            except SearchStopped as x:  # (stopped before any solution)
                tally["answered"] += 1
                if as_json:
                    # (no solution: no gap; ended as the search was stopped)
                    answer = x.to_dict() | {"ended": x.reason, "gap": None, "within": within}
                    click.echo(json.dumps(answer | {"board": str(e.board)} | where))
                else:
                    click.echo(
                        f"{e.line:>5} {'-':>6} {x.lower_bound:>6} {'-':>6} {e.expected or '':>8} "
                        f"{x.seconds:>8.2f}  {x.reason:<11} {e.board}"
                    )
                continue
            tally["answered"] += 1
            tally["met"] += result.reason in ("optimal", "within")
            tally["optimal"] += result.optimal
            ok = consistent(e.expected, result)
            tally["mismatch"] += not ok
            gaps.append(result.gap)
            sol = result.solution
            if as_json:
                click.echo(
                    json.dumps(
                        result.to_dict()
                        | {
                            "board": str(e.board),
                            "within": within,
                            "process_seconds": process_seconds(),
                        }
                        | where
                    )
                )
            else:
                click.echo(
                    f"{e.line:>5} {sol.length:>6} {result.lower_bound:>6} {100 * result.gap:>6.2f} "
                    f"{e.expected or '':>8} {sol.seconds:>8.2f}  {result.reason:<11} {e.board}"
                    + ("" if ok else "  MISMATCH")
                )
    t = tally
    summary = (
        f"{t['met']} of {t['answered']} boards proven optimal"
        if within is None
        else f"{t['met']} of {t['answered']} boards answered within {100 * (within - 1):g}% ({t['optimal']} optimal)"
    )
    if gaps:
        ordered = sorted(gaps)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
        summary += (
            f"; gap median {100 * statistics.median(gaps):.2f}%, 90th percentile {100 * p90:.2f}%, "
            f"mean {100 * statistics.fmean(gaps):.2f}%"
        )
    summary += f"; {time.perf_counter() - start:.1f}s wall"
    if t["mismatch"]:
        summary += f"; {t['mismatch']} MISMATCH(ES) against expected lengths"
    if t["error"]:
        summary += f"; {bad_lines(t['error'])}"
    if not quiet or t["mismatch"]:
        err(summary)
    if failed is not None:
        err(f"error: {failed}; {boards(t['not started'])} not answered")
        return EXIT_CLUSTER
    if batch.reason in EXIT_CODES_BY_SIGNAL:
        err(f"{batch.reason}: {boards(t['not started'])} not started")
        return EXIT_CODES_BY_SIGNAL[batch.reason]
    if t["mismatch"]:
        return 1
    if t["error"]:
        return 2
    return EXIT_STOPPED["timeout"] if t["met"] < t["answered"] else 0
