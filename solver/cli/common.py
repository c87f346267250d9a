"""What the `solver` commands share: one-line messages, reading a board argument, the
compiled kernels, the exit codes of a stopped search, the Dask cluster of --scheduler."""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from patterndb import PuzzleError, TableError
from patterndb.cli.common import TABLE_EXIT, UserError

from .signals import EXIT_CODES as EXIT_CODES_BY_SIGNAL


def err(msg: str) -> None:
    click.echo(msg, err=True)


def read_board(board: str) -> str:
    """The board argument, or standard input's for "-" (where several boards, one a line, are a
    batch: said so, not parsed as one grid)."""
    if board != "-":
        return board
    text = sys.stdin.read()
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and all(len(tokens) == 1 for tokens in lines):
        raise UserError(
            f"standard input holds {len(lines)} boards, one a line: "
            "solve them as a batch with --file -"
        )
    return text


def shape_kwargs(size, rows, cols) -> dict:
    """Shape options for parsing a board: one of --rows/--cols is enough (the tile count gives the other)."""
    if size is not None and (rows is not None or cols is not None):
        raise click.UsageError("give --size or --rows/--cols, not both")
    return {"rows": size, "cols": size} if size is not None else {"rows": rows, "cols": cols}


def aot_wanted() -> bool:
    """Has the user left the compiled kernels on (PATTERNDB_AOT is not "off")?"""
    from ..search import aot

    return bool(aot.directories())


def load_kernels() -> tuple[float, str]:
    """(seconds, "aot" or "jit"): loading the compiled IDA* kernels, or importing numba for its
    JIT ones (whose first call of each kernel, loading its cached code, is then search time)."""
    from ..search import aot

    start = time.perf_counter()
    aot.kernels()
    return time.perf_counter() - start, aot.origin.split()[0]


def process_seconds() -> float | None:
    """Wall time since this process started (interpreter start-up and imports included), on Linux."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return round(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), 3)


EXIT_STOPPED = {**EXIT_CODES_BY_SIGNAL, "limit": 4, "timeout": 4}
EXIT_CLUSTER = 5


HOPELESS_H = 40  # a root h from which a board past 16 cells takes hours without tables (far below a random one's)


def warn_if_hopeless(plan, board, say=err) -> None:
    """Before a search that will likely not finish, say what it may cost and what would help."""
    h = plan.heuristic
    if (
        plan.algorithm not in ("idastar", "iddfs")
        or h.tables
        or h.name == "exact"
        or board.shape.n <= 16
    ):
        return
    h0 = h(plan.frame.to_canonical(board))
    if h0 < HOPELESS_H:  # the goal, a scramble of a few moves: quick with any heuristic
        return
    build = (
        "pdb build --size 5 --pattern best"
        if board.shape.rows == board.shape.cols == 5
        else f"pdb build --rows {board.shape.rows} --cols {board.shape.cols} --pattern ..."
    )
    say(
        f"warning: IDA* with {h.name} on a {board.shape} board (h = {h0} at the root): a random board of this "
        "size needs about 1e10 to 1e13 nodes even with linear conflict (Korf & Taylor 1996), hours to weeks; "
        f"boards close to the goal are quick. Pattern databases cut that by orders of magnitude: '{build}'"
    )


@contextmanager
def connect_cluster(scheduler: str | None, timeout: float) -> Iterator:
    """The Dask cluster of --scheduler (closed afterwards), or None."""
    if scheduler is None:
        yield None
        return
    from ..cluster.client import Cluster

    err(f"connecting to Dask at {scheduler} ...")
    cluster = Cluster(scheduler, err, timeout)
    try:
        yield cluster
    finally:
        cluster.close()


def json_errors(fn: Callable) -> Callable:
    """With --json, an error is also one JSON object on stdout ({"error": ..., "exit_status":
    ...}), so that a reader of the objects is never left with nothing; the one line on stderr
    and the exit status stay as without --json."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (PuzzleError, click.ClickException) as e:
            if kwargs.get("as_json"):
                status = TABLE_EXIT if isinstance(e, TableError) else getattr(e, "exit_code", 2)
                click.echo(
                    json.dumps(
                        {
                            "error": e.format_message()
                            if isinstance(e, click.ClickException)
                            else str(e),
                            "exit_status": status,
                        }
                    )
                )
            raise

    return wrapper


def boards(n: int) -> str:
    """'1 board', '2 boards'."""
    return f"{n} board{'' if n == 1 else 's'}"


def bad_lines(n: int) -> str:
    """A batch's lines that were no board to solve (each said as it came)."""
    return f"{n} bad line{'' if n == 1 else 's'} (said above)"
