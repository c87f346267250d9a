"""The `solver` command: solve, show, plot, distance, scramble, random, compile."""
from __future__ import annotations

import os

# These commands use no BLAS: one OpenBLAS thread saves 0.06 s of start-up (numpy's import
# starts its thread pool). Set before numpy is imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402 (after the setting above)
import sys
import threading
import time
from contextlib import contextmanager
from itertools import chain, takewhile
from pathlib import Path
from typing import Iterator

import click
import numpy as np

from patterndb import BoardError, make_goal, random_board, scramble
from patterndb.cli_common import UserError, data_dir_option, goal_option, guarded, resolve_shape, shape_options
from patterndb.machines import DEFAULT_DEPTH, DEPTH_MAX
from patterndb.patterns import CATALOGUES, names_per_board

from .api import Control, Options, make_plan, prepare, run
from .api import distance as api_distance
from .batch import BatchStop, count_lines, iter_batch, solve_batch
from .checkpoint import SAVE_INTERVAL
from .progress import Status
from .search import ALGORITHMS
from .signals import EXIT_CODES as EXIT_CODES_BY_SIGNAL
from .signals import stop_on_signals
from .solution import ClusterError, NodeLimitReached, SearchStopped, Solution

HEURISTICS = ("misplaced", "manhattan", "linear-conflict", "exact", "pdb")


COMPILE_TICK = 15.0  # seconds between `solver compile`'s signs of life
MAX_JOBS = 1024  # threads: more than any machine we know of has cores, far fewer than would exhaust memory
MAX_SCRAMBLE = 10_000_000  # moves of a scramble: seconds of work (a random board is `solver random`)


def _err(msg: str) -> None:
    click.echo(msg, err=True)


def _read_board(board: str) -> str:
    return sys.stdin.read() if board == "-" else board


def _shape_kwargs(size, rows, cols) -> dict:
    """Shape options for parsing a board: one of --rows/--cols is enough (the tile count gives the other)."""
    if size is not None and (rows is not None or cols is not None):
        raise click.UsageError("give --size or --rows/--cols, not both")
    return {"rows": size, "cols": size} if size is not None else {"rows": rows, "cols": cols}


def print_solution(sol: Solution, show_boards: bool) -> None:
    verdict = f"optimal ({sol.proof})" if sol.optimal else f"not proven optimal ({sol.proof})"
    click.echo(f"length: {sol.length}  {verdict}")
    click.echo("tiles:  " + " ".join(str(t) for t in sol.moves))
    click.echo("blank:  " + sol.directions)
    if show_boards:
        for i, b in enumerate(sol.boards()):
            click.echo(f"-- {i}\n{b.grid()}")
    click.echo(
        f"{sol.algorithm} / {sol.heuristic}: {sol.nodes_expanded:,} expanded, "
        f"{sol.nodes_generated:,} generated, {sol.seconds:.3f}s"
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="patterndb", prog_name="solver")
def main() -> None:
    """Solve sliding-tile puzzles optimally, or with the classic algorithms."""


EXIT_CODES = """\b
Exit status:
  0    solved (every expected length met)
  1    a length differs from the expected one (or the search failed)
  2    bad input or usage (in a batch: a line that is not a solvable board)
  3    a table is missing or damaged
  4    stopped by --max-nodes or --timeout
  5    the Dask cluster failed
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
A stopped search prints what it proved: no solution is shorter than its
lower bound."""


@main.command(epilog=EXIT_CODES, short_help="Solve a board, or every board of --file.")
@click.argument("board", required=False)
@click.option("--file", "-f", "batch_file", type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              help="Solve every board of a UTF-8 text file ('-': standard input; one a line, '#' comments, "
                   "optional expected length last).")
@shape_options
@goal_option
@click.option("--algorithm", "-a", type=click.Choice(ALGORITHMS), default=None,
              help="Default: walk the exact table when there is one, else idastar.")
@click.option("--heuristic", "-H", type=click.Choice(HEURISTICS), default=None,
              help="Default: the strongest available (exact table, else cached pattern databases "
                   "best > 7-8 > 6-6-3 > 5-5-5, else linear-conflict).")
@click.option("--pattern", "-p", default=None, help="Use the cached pattern databases of this partition (e.g. 7-8, z7-8, best; "
                   f"A+B: the larger of two; named catalogues, fewest nodes: {names_per_board(CATALOGUES)}; "
                   "A|B: race the two, per board, and search on with the faster; best on 5x5 is such a race).")
@click.option("--pdb", "pdb_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Use these pattern-database files (repeat for each group).")
@click.option("--no-reflect", is_flag=True, help="Do not also look up the diagonally mirrored state.")
@click.option("--prune", type=click.IntRange(min=2, max=DEPTH_MAX), default=None, metavar="DEPTH",
              help="IDA* skips every move sequence of up to DEPTH moves that a shorter or earlier one "
                   "repeats (2: only undoing the last move) [default: "
                   + ", ".join(f"{d} on {r}x{c}" for (r, c), d in DEFAULT_DEPTH.items()) + ", else 2].")
@click.option("--jobs", "-j", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
              help="IDA* worker threads [default: every core]. With --file, small boards are solved "
                   "side by side, big ones one at a time on all threads.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Stop IDA* after this long and print what it proved (exit 4).")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Save the IDA* search to this file as it goes; run the same command again to resume it.")
@click.option("--checkpoint-every", type=click.FloatRange(min=0), default=SAVE_INTERVAL, show_default=True,
              metavar="SECONDS", help="Save the checkpoint at most this often while subtrees finish.")
@click.option("--trace", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Record every chunk of subtrees the IDA* workers searched (nodes, seconds) as JSON lines, for "
                   "scripts/simulate_scaling.py.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the subtrees of big IDA* iterations on Dask: tcp://HOST:PORT of a running scheduler, "
                   "or local:N to start N worker threads here (about sqrt(N) processes of sqrt(N) threads; local:PxT: "
                   "P processes of T threads) (pip install 'patterndb[cluster]').")
@click.option("--cluster-timeout", type=click.FloatRange(min=0, min_open=True), default=20.0, show_default=True,
              metavar="SECONDS", help="How long to try to reach the --scheduler, and to wait for its first worker.")
@click.option("--quiet", "-q", is_flag=True, help="No live status line or progress bar (a line per IDA* iteration).")
@click.option("--weight", "-w", type=float, default=2.0, show_default=True, help="Weight of h in wastar.")
@click.option("--max-nodes", type=click.IntRange(min=1, max=2**62), default=None,
              help="Give up after this many nodes (default: 20M stored for best-first, none for IDA*).")
@click.option("--show-boards", is_flag=True, help="Print every board on the way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@data_dir_option
@guarded
def solve(board, batch_file, size, rows, cols, goal, algorithm, heuristic, pattern, pdb_files, no_reflect, prune,
          jobs, timeout, checkpoint, checkpoint_every, trace, scheduler, cluster_timeout, quiet, weight, max_nodes,
          show_boards, as_json, data_dir) -> None:
    """Solve BOARD ('-' reads it from stdin), e.g. solver solve 8672543_1, or every board of --file.

    Long IDA* searches show a status line on a terminal (one line per
    iteration otherwise); Ctrl-C stops them cleanly."""
    if (board is None) == (batch_file is None):
        raise click.UsageError("give a BOARD or --file, not both" if board else "give a BOARD or --file")
    if (checkpoint or trace) and batch_file:
        raise click.UsageError("--checkpoint and --trace are for one board, not --file")
    if show_boards and (batch_file or as_json):
        raise click.UsageError("--show-boards prints one board's solution as text: not with --file or --json")
    if scheduler is not None:
        from .cluster import check_address  # before anything is loaded: a bad address is one line, at once

        check_address(scheduler)
    opts = Options(algorithm, heuristic, weight, data_dir, max_nodes, pattern,
                   tuple(Path(p) for p in pdb_files), not no_reflect, jobs, timeout, prune)
    if batch_file:
        with _cluster(scheduler, cluster_timeout) as cluster:
            code = _solve_file(batch_file, goal, opts, _shape_kwargs(size, rows, cols), as_json, quiet, cluster)
        sys.exit(code)
    board_obj, frame = prepare(_read_board(board), goal, **_shape_kwargs(size, rows, cols))
    plan = make_plan(frame, opts, _err)
    kernel_seconds, kernel_origin = _load_kernels() if plan.algorithm in ("idastar", "iddfs", "table") else (0.0, "")
    if (checkpoint or scheduler or trace) and plan.algorithm not in ("idastar", "iddfs"):
        raise click.UsageError(f"--checkpoint, --trace and --scheduler are for IDA* searches, not {plan.algorithm}")
    _err(f"using {plan.algorithm} / {plan.heuristic.name}"
         + (f", raced against {plan.rival.name} (solver.search.race)" if plan.rival is not None else ""))
    if kernel_origin == "jit" and not quiet and aot_wanted():
        _err("note: numba compiles or loads the search kernels now (~0.4 s); 'solver compile' once makes this instant")
    _warn_if_hopeless(plan, board_obj)
    status = Status(live=False if quiet else None)
    control = Control(listener=status, checkpoint=checkpoint, checkpoint_every=checkpoint_every, log=_err,
                      trace=trace)
    try:
        with stop_on_signals(control.stop.request), _cluster(scheduler, cluster_timeout) as cluster:
            if cluster is not None:
                control.backend = cluster.backend(plan)
            sol = run(board_obj, plan, control)
    except SearchStopped as e:
        status.clear()
        if as_json:
            click.echo(json.dumps(e.to_dict() | {"board": str(board_obj), "goal": str(frame.goal)}))
        _err(str(e))
        sys.exit(EXIT_STOPPED.get(e.reason, 4))
    except NodeLimitReached as e:
        raise UserError(str(e), EXIT_STOPPED["limit"]) from None
    except ClusterError as e:
        raise UserError(str(e), EXIT_CLUSTER) from None
    except RuntimeError as e:
        raise UserError(str(e), 1) from None
    status.clear()
    if as_json:
        click.echo(json.dumps(sol.to_dict() | {"load_seconds": round(plan.load_seconds, 6), "kernels": kernel_origin,
                                               "kernel_seconds": round(kernel_seconds, 6),
                                               "process_seconds": _process_seconds()}))
    else:
        print_solution(sol, show_boards)


def aot_wanted() -> bool:
    """Has the user left the compiled kernels on (PATTERNDB_AOT is not "off")?"""
    from .search import aot

    return bool(aot.directories())


def _load_kernels() -> tuple[float, str]:
    """(seconds, "aot" or "jit"): loading the compiled IDA* kernels, or importing numba for its
    JIT ones (whose first call of each kernel, loading its cached code, is then search time)."""
    from .search import aot

    start = time.perf_counter()
    aot.kernels()
    return time.perf_counter() - start, aot.origin.split()[0]


def _process_seconds() -> float | None:
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


def _warn_if_hopeless(plan, board, say=_err) -> None:
    """Before a search that will likely not finish, say what it may cost and what would help."""
    h = plan.heuristic
    if plan.algorithm not in ("idastar", "iddfs") or h.tables or h.name == "exact" or board.shape.n <= 16:
        return
    h0 = h(plan.frame.to_canonical(board))
    if h0 < HOPELESS_H:  # the goal, a scramble of a few moves: quick with any heuristic
        return
    build = "pdb build --size 5 --pattern best" if board.shape.rows == board.shape.cols == 5 else \
        f"pdb build --rows {board.shape.rows} --cols {board.shape.cols} --pattern ..."
    say(f"warning: IDA* with {h.name} on a {board.shape} board (h = {h0} at the root): a random board of this "
         "size needs about 1e10 to 1e13 nodes even with linear conflict (Korf & Taylor 1996), hours to weeks; "
         f"boards close to the goal are quick. Pattern databases cut that by orders of magnitude: '{build}'")


@contextmanager
def _cluster(scheduler: str | None, timeout: float) -> Iterator:
    """The Dask cluster of --scheduler (closed afterwards), or None."""
    if scheduler is None:
        yield None
        return
    from .cluster import Cluster  # Dask is an optional extra: imported only when asked for

    _err(f"connecting to Dask at {scheduler} ...")
    cluster = Cluster(scheduler, _err, timeout)
    try:
        yield cluster
    finally:
        cluster.close()


def _solve_file(path: str, goal: str, opts: Options, shape: dict, as_json: bool, quiet: bool, cluster=None) -> int:
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
    kernel_seconds, kernel_origin = (_load_kernels() if opts.algorithm in (None, "idastar", "iddfs", "table")
                                     else (0.0, ""))
    plans: dict = {}
    tally = {"solved": 0, "mismatch": 0, "checked": 0, "error": 0, "stopped": 0, "not started": 0, "nodes": 0}

    def costs() -> dict:
        """What each --json row says of the process so far, as a single solve's --json does."""
        return {"kernels": kernel_origin, "kernel_seconds": round(kernel_seconds, 6),
                "load_seconds": round(sum(p.load_seconds for p in plans.values()), 6),
                "process_seconds": _process_seconds()}

    if not as_json:
        click.echo(f"{'line':>5} {'length':>6} {'expected':>8} {'generated':>13} {'seconds':>8}  board"
                   "   (line: the line's number in the file)")
    # Rows on a terminal are their own progress; a bar beside them would be printed into them.
    lines = count_lines(path)
    hidden = quiet or lines is None or not sys.stderr.isatty() or sys.stdout.isatty()
    failed = None

    def say(message: str) -> None:
        """A line on stderr, on a line of its own when the bar is drawn there (it redraws below)."""
        if not hidden:
            sys.stderr.write("\r\x1b[K")
        _err(message)

    with stop_on_signals(stop.request):
        results = solve_batch(stream, goal, opts, say, plans=plans, stop=stop, cluster=cluster,
                              on_plan=lambda plan, board: _warn_if_hopeless(plan, board, say), boards=lines)
        with click.progressbar(length=lines or 1, label="solving", file=sys.stderr, hidden=hidden) as bar:
            try:
                for e, res in results:
                    _batch_row(e, res, as_json, tally, costs() if as_json else {}, say)
                    if stop.reason is None:  # (after a stop the bar stays where the solving ended)
                        bar.update(e.line - bar.pos)
            except ClusterError as err:  # the rows so far stand; the rest cannot be searched
                failed = err
    t = tally
    rows = t["solved"] + t["error"] + t["stopped"] + t["not started"]
    lost = 0
    if failed is not None:  # the boards read but not answered, and the file's rest (quick: nothing is solved)
        lost = read[0] - rows + (0 if path == "-" else sum(1 for _ in entries))
    summary = (f"{t['solved']} of {rows + lost} boards solved, {t['nodes']:,} nodes generated, "
               f"{time.perf_counter() - start:.2f}s wall; ")
    if t["mismatch"]:
        summary += f"{t['mismatch']} MISMATCH(ES) against expected lengths"
    else:
        summary += f"all {t['checked']} expected lengths met" if t["checked"] else "no expected lengths to check"
    for key, what in (("error", "not solvable boards"), ("stopped", "stopped early")):
        if t[key]:
            summary += f"; {t[key]} {what}"
    _err(summary)
    if failed is not None:
        _err(f"error: {failed}; {lost} boards not solved")
        return EXIT_CLUSTER
    if stop.reason in EXIT_CODES_BY_SIGNAL:
        rest = "; standard input was not read further" if path == "-" else ""
        _err(f"{stop.reason}: {t['not started']} boards not started{rest}")
        return EXIT_CODES_BY_SIGNAL[stop.reason]
    return 1 if t["mismatch"] else 2 if t["error"] else EXIT_STOPPED["limit"] if t["stopped"] else 0


def _batch_row(e, res, as_json: bool, tally: dict, costs: dict, say=_err) -> None:
    """Print one batch result (a solution, a stopped search, a line's error, or None: a board
    never started) and count it."""
    exp = "" if e.expected is None else str(e.expected)
    where = {"line": e.line, "expected": e.expected}
    if res is None:
        tally["not started"] += 1
        if as_json:
            click.echo(json.dumps({"status": "not started", "board": None if e.board is None else str(e.board)} | where))
        return
    if isinstance(res, BoardError):
        tally["error"] += 1
        say(f"error: {res}")
        if as_json:
            click.echo(json.dumps({"error": str(res), "board": None if e.board is None else str(e.board)} | where))
        else:
            click.echo(f"{e.line:>5} {'ERROR':>6} {exp:>8} {'':>13} {'':>8}  {res}")
        return
    tally["nodes"] += res.nodes_generated
    if isinstance(res, SearchStopped):
        tally["stopped"] += 1
        if as_json:
            click.echo(json.dumps(res.to_dict() | {"board": str(e.board)} | where | costs))
        else:
            click.echo(f"{e.line:>5} {'>=' + str(res.lower_bound):>6} {exp:>8} {res.nodes_generated:>13,} "
                       f"{res.seconds:>8.3f}  {e.board}  {res.reason.upper()}")
        return
    tally["solved"] += 1
    ok = e.expected is None or e.expected == res.length
    tally["mismatch"] += not ok
    tally["checked"] += e.expected is not None
    if as_json:
        click.echo(json.dumps(res.to_dict() | {"board": str(e.board)} | where | costs))
    else:
        click.echo(f"{e.line:>5} {res.length:>6} {exp:>8} {res.nodes_generated:>13,} {res.seconds:>8.3f}  "
                   f"{e.board}{'' if ok else '  MISMATCH'}")


@main.command("plot", short_help="Draw a search's iterations from --json or a trace.")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The picture to write: a .png or .svg file.")
@guarded
def plot_cmd(source: Path, out: Path) -> None:
    """Draw a search's iterations from SOURCE, the output of solve --json (one board or a
    batch) or a --trace file: nodes, seconds and growth per bound, and with a trace each
    worker's busy time (needs the [plot] extra: matplotlib)."""
    from patterndb.store import atomic

    from .plot import FORMATS, plot_runs, read_runs

    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise click.BadParameter(f"{out.name}: give a .png or .svg file", param_hint="--out")
    runs, busy = read_runs(source)
    with atomic(out) as tmp:
        panels = plot_runs(runs, busy, tmp, fmt)
    _err(f"wrote {out}: {panels} panels, {len(runs)} search{'es' if len(runs) > 1 else ''}")


@main.command(short_help="Play back a solution: text, terminal, SVG or GIF.")
@click.argument("board")
@shape_options
@goal_option
@data_dir_option
@click.option("--moves", "directions", default=None, metavar="UDLR",
              help="Play these blank moves instead of solving BOARD (e.g. the 'blank:' line of solve).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the animation to this file: .svg (a browser plays it) or .gif (needs Pillow).")
@click.option("--play", is_flag=True, help="Show the boards one after another in the terminal.")
@click.option("--delay", type=click.FloatRange(min=0.0, max=10.0), default=0.3, show_default=True,
              help="Seconds per move, for --play and the SVG.")
@guarded
def show(board, size, rows, cols, goal, data_dir, directions, out, play, delay) -> None:
    """Play back BOARD's optimal solution (or --moves): as text, in the terminal, or as an
    animated SVG or GIF."""
    from .show import frames, gif, svg, terminal_frames

    if out is not None and out.suffix.lower() not in (".svg", ".gif"):
        raise click.BadParameter(f"{out.name}: give an .svg or a .gif file", param_hint="--out")
    board_obj, frame = prepare(_read_board(board), goal, **_shape_kwargs(size, rows, cols))
    if directions is None:
        plan = make_plan(frame, Options(data_dir=data_dir), _err)
        directions = run(board_obj, plan).directions
    boards = frames(board_obj, directions)
    if out is not None:
        from patterndb.store import atomic

        with atomic(out) as tmp:
            if out.suffix.lower() == ".gif":
                with open(tmp, "wb") as f:
                    gif(boards, f, delay)
            else:
                tmp.write_text(svg(boards, delay, f"{board_obj} ({len(boards) - 1} moves)"))
        _err(f"wrote {out}: {len(boards)} frames, {len(boards) - 1} moves")
        if not play:
            return
    live = play and sys.stdout.isatty()
    for i, text in enumerate(terminal_frames(boards, directions)):
        if live:
            click.echo("\x1b[H\x1b[2J" + text, nl=False)
            time.sleep(delay if i < len(boards) - 1 else 0)
        else:
            click.echo(text)


@main.command()
@click.argument("board")
@shape_options
@goal_option
@data_dir_option
@guarded
def distance(board, size, rows, cols, goal, data_dir) -> None:
    """Print the exact distance of BOARD to the goal (table lookup)."""
    click.echo(api_distance(_read_board(board), goal, data_dir, log=_err, **_shape_kwargs(size, rows, cols)))


@main.command("scramble")
@shape_options
@goal_option
@click.option("--moves", type=click.IntRange(min=0, max=MAX_SCRAMBLE), default=50, show_default=True,
              help="Random moves from the goal.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Random seed >= 0 (default: fresh).")
@guarded
def scramble_cmd(size, rows, cols, goal, moves, seed) -> None:
    """A board made by a random walk from the goal (no immediate undo)."""
    shape = resolve_shape(size, rows, cols)
    click.echo(str(scramble(make_goal(shape, goal), moves, np.random.default_rng(seed))))


@main.command("random")
@shape_options
@goal_option
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Random seed >= 0 (default: fresh).")
@guarded
def random_cmd(size, rows, cols, goal, seed) -> None:
    """A uniformly random solvable board."""
    shape = resolve_shape(size, rows, cols)
    goal_board = make_goal(shape, goal)
    click.echo(str(random_board(shape, goal_board, np.random.default_rng(seed))))


@main.command("compile", short_help="Compile the IDA* kernels ahead of time.")
@click.option("--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the extension (default: $PATTERNDB_AOT, else the package's __pycache__, "
                   "else ~/.cache/patterndb/aot).")
@click.option("--check", is_flag=True, help="Only say which kernels solve would use; exit 3 if not compiled ones.")
def compile_cmd(directory, check) -> None:
    """Compile the IDA* kernels ahead of time (about a minute on 2 cores; scripts/setup.sh runs it).

    solve then starts without importing numba: about 0.4 s less per command.
    Without it, or once the code changed, solve uses the same kernels through
    numba's JIT (same answers and node counts, slower start)."""
    from .search import aot

    if check:
        aot.kernels()
        click.echo(aot.origin)
        sys.exit(0 if aot.origin.startswith("aot") else 3)
    from .compile_kernels import build

    click.echo("compiling the IDA* kernels ahead of time (once per checkout: about 1 minute on 2 cores)...", err=True)
    started = time.perf_counter()
    done = threading.Event()

    def tick() -> None:  # a sign of life every 15 s: the compiler itself says nothing for a minute
        while not done.wait(COMPILE_TICK):
            click.echo(f"  still compiling ({time.perf_counter() - started:.0f} s)", err=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        path = build(directory)
    except Exception as e:  # no C compiler, no numba.pycc, an unwritable directory: one line, exit 3
        raise UserError(f"cannot compile the kernels ({type(e).__name__}): {e}", 3) from None
    finally:
        done.set()
        ticker.join()
    click.echo(f"compiled {path} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
