"""`solver solve`: one board, or a batch (cli_batch), with every search option."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from patterndb.cli.common import UserError, data_dir_option, goal_option, guarded, shape_options
from patterndb.files.machines import DEFAULT_DEPTH, DEPTH_MAX
from patterndb.puzzle.patterns import CATALOGUES, names_per_board

from ..api import Control, Options, make_plan, prepare, run
from ..heuristic_choice import HEURISTICS
from ..ida.checkpoint import SAVE_INTERVAL, saved_heuristic
from ..ida.progress import Status
from ..search import ALGORITHMS
from ..solution import ClusterError, NodeLimitReached, SearchStopped, Solution
from .batch import solve_file
from .common import (
    EXIT_CLUSTER,
    EXIT_STOPPED,
    aot_wanted,
    connect_cluster,
    err,
    json_errors,
    load_kernels,
    process_seconds,
    read_board,
    shape_kwargs,
    warn_if_hopeless,
)
from .signals import stop_on_signals

MAX_JOBS = (
    1024  # threads: more than any machine we know of has cores, far fewer than would exhaust memory
)


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


EXIT_CODES = """\b
Exit status:
  0    solved (every expected length met)
  1    a length differs from the expected one (or the search failed)
  2    bad input or usage (in a batch: a line that is not a solvable board)
  3    a table is missing or damaged
  4    stopped by --max-nodes or --timeout
  5    the Dask cluster failed (unreachable, no workers, or lost)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
A stopped search prints what it proved: no solution is shorter than its
lower bound."""


@click.command(epilog=EXIT_CODES, short_help="Solve a board, or every board of --file.")
@click.argument("board", required=False)
@click.option(
    "--file",
    "-f",
    "batch_file",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
    help="Solve every board of a UTF-8 text file ('-': standard input; one a line, '#' comments, "
    "optional expected length last).",
)
@shape_options
@goal_option
@click.option(
    "--algorithm",
    "-a",
    type=click.Choice(ALGORITHMS),
    default=None,
    help="Default: walk the exact table when there is one, else idastar.",
)
@click.option(
    "--heuristic",
    "-H",
    type=click.Choice(HEURISTICS),
    default=None,
    help="Default: the strongest available (exact table, else cached pattern databases "
    "best > 7-8 > 6-6-3 > 5-5-5, else linear-conflict).",
)
@click.option(
    "--pattern",
    "-p",
    default=None,
    help="Use the cached pattern databases of this partition (e.g. 7-8, z7-8, best; "
    f"A+B: the larger of two; named catalogues, fewest nodes: {names_per_board(CATALOGUES)}; "
    "A|B: race the two, per board, and search on with the faster; best on 5x5 is such a race).",
)
@click.option(
    "--pdb",
    "pdb_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Use these pattern-database files (repeat for each group).",
)
@click.option(
    "--no-reflect", is_flag=True, help="Do not also look up the diagonally mirrored state."
)
@click.option(
    "--prune",
    type=click.IntRange(min=2, max=DEPTH_MAX),
    default=None,
    metavar="DEPTH",
    help="IDA* skips every move sequence of up to DEPTH moves that a shorter or earlier one "
    "repeats (2: only undoing the last move) [default: "
    + ", ".join(f"{d} on {r}x{c}" for (r, c), d in DEFAULT_DEPTH.items())
    + ", else 2].",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1, max=MAX_JOBS),
    default=None,
    help="IDA* worker threads [default: every core]. With --file, small boards are solved "
    "side by side, big ones one at a time on all threads.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop IDA* after this long and print what it proved (exit 4).",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Save the IDA* search to this file as it goes; run the same command again to resume it.",
)
@click.option(
    "--checkpoint-every",
    type=click.FloatRange(min=0),
    default=SAVE_INTERVAL,
    show_default=True,
    metavar="SECONDS",
    help="Save the checkpoint at most this often while subtrees finish.",
)
@click.option(
    "--trace",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Record every chunk of subtrees the IDA* workers searched (nodes, seconds) as JSON lines, for "
    "scripts/simulate_scaling.py.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Run the subtrees of big IDA* iterations on Dask: tcp://HOST:PORT of a running scheduler, "
    "or local:N to start N worker threads here (about sqrt(N) processes of sqrt(N) threads; local:PxT: "
    "P processes of T threads) (pip install 'patterndb[cluster]').",
)
@click.option(
    "--cluster-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=20.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to try to reach the --scheduler, and to wait for its first worker.",
)
@click.option(
    "--within",
    type=click.FloatRange(min=1.0),
    default=None,
    metavar="R",
    help="Return sooner a solution proven at most R times the optimal length (e.g. 1.05): weighted A* "
    "finds solutions while IDA* raises the proven lower bound; 1.0 is the optimal search.",
)
@click.option(
    "--anytime",
    is_flag=True,
    help="Print each better solution and higher lower bound as found (stderr); end at the optimum, at "
    "--timeout or at Ctrl-C with the best solution and the bound proven so far.",
)
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="No live status line or progress bar (a line per IDA* iteration).",
)
@click.option(
    "--weight", "-w", type=float, default=2.0, show_default=True, help="Weight of h in wastar."
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1, max=2**62),
    default=None,
    help="Give up after this many nodes (default: 20M stored for best-first, none for IDA*).",
)
@click.option("--show-boards", is_flag=True, help="Print every board on the way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@data_dir_option
@guarded
@json_errors
def solve(
    board,
    batch_file,
    size,
    rows,
    cols,
    goal,
    algorithm,
    heuristic,
    pattern,
    pdb_files,
    no_reflect,
    prune,
    jobs,
    timeout,
    checkpoint,
    checkpoint_every,
    trace,
    scheduler,
    cluster_timeout,
    within,
    anytime,
    quiet,
    weight,
    max_nodes,
    show_boards,
    as_json,
    data_dir,
) -> None:
    """Solve BOARD ('-' reads it from stdin), e.g. solver solve 8672543_1, or every board of --file.

    Long IDA* searches show a status line on a terminal (one line per
    iteration otherwise); Ctrl-C stops them cleanly."""
    if (board is None) == (batch_file is None):
        raise click.UsageError(
            "give a BOARD or --file, not both" if board else "give a BOARD or --file"
        )
    if (checkpoint or trace) and batch_file:
        raise click.UsageError("--checkpoint and --trace are for one board, not --file")
    if show_boards and (batch_file or as_json):
        raise click.UsageError(
            "--show-boards prints one board's solution as text: not with --file or --json"
        )
    # (--within 1.0: the optimal search, as it is)
    bounded = anytime or (within is not None and within > 1.0)
    if bounded and (checkpoint or trace or show_boards):
        raise click.UsageError(
            "--within and --anytime are not for --checkpoint, --trace or --show-boards"
        )
    if bounded and algorithm not in (None, "idastar"):
        raise click.UsageError(
            "--within and --anytime prove their bound with IDA*: not with --algorithm " + algorithm
        )
    if scheduler is not None:
        from ..cluster.client import check_address

        check_address(scheduler)
    opts = Options(
        algorithm,
        heuristic,
        weight,
        data_dir,
        max_nodes,
        pattern,
        tuple(Path(p) for p in pdb_files),
        not no_reflect,
        jobs,
        timeout,
        prune,
    )
    if batch_file and bounded:
        from .bounded_batch import solve_file_within

        try:
            code = solve_file_within(
                batch_file,
                goal,
                opts,
                shape_kwargs(size, rows, cols),
                None if anytime else within,
                as_json,
                quiet,
                scheduler,
                cluster_timeout,
            )
        # (one failing mid-batch is said by solve_file_within, its rows kept)
        except ClusterError as e:
            raise UserError(str(e), EXIT_CLUSTER) from None
        sys.exit(code)
    if batch_file:
        try:
            with connect_cluster(scheduler, cluster_timeout) as cluster:
                code = solve_file(
                    batch_file, goal, opts, shape_kwargs(size, rows, cols), as_json, quiet, cluster
                )
        except ClusterError as e:  # (one found mid-batch is said by solve_file, its rows kept)
            raise UserError(str(e), EXIT_CLUSTER) from None
        sys.exit(code)
    board_obj, frame = prepare(read_board(board), goal, **shape_kwargs(size, rows, cols))
    plan = make_plan(frame, opts, err, saved_heuristic(checkpoint) if checkpoint else None)
    kernel_seconds, kernel_origin = (
        load_kernels() if plan.algorithm in ("idastar", "iddfs", "table") else (0.0, "")
    )
    if (checkpoint or scheduler or trace) and plan.algorithm not in ("idastar", "iddfs"):
        raise click.UsageError(
            f"--checkpoint, --trace and --scheduler are for IDA* searches, not {plan.algorithm}"
        )
    err(
        f"using {plan.algorithm} / {plan.heuristic.name}"
        + (f", raced against {plan.rival.name} (solver.ida.race)" if plan.rival is not None else "")
    )
    if kernel_origin == "jit" and not quiet and aot_wanted():
        err(
            "note: numba compiles or loads the search kernels now (~0.4 s); 'solver compile' once makes this instant"
        )
    if bounded:
        from .bounded import solve_within

        if plan.algorithm != "idastar":
            raise click.UsageError(
                f"--within and --anytime prove their bound with IDA*, and this board would be "
                f"solved by {plan.algorithm}: add --algorithm idastar"
            )
        solve_within(
            board_obj, plan, None if anytime else within, as_json, quiet, scheduler, cluster_timeout
        )
        return
    warn_if_hopeless(plan, board_obj)
    status = Status(live=False if quiet else None)
    control = Control(
        listener=status,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        log=err,
        trace=trace,
    )
    try:
        with (
            stop_on_signals(control.stop.request),
            connect_cluster(scheduler, cluster_timeout) as cluster,
        ):
            if cluster is not None:
                control.backend = cluster.backend(plan)
            sol = run(board_obj, plan, control)
    except SearchStopped as e:
        status.clear()
        if as_json:
            click.echo(json.dumps(e.to_dict() | {"board": str(board_obj), "goal": str(frame.goal)}))
        err(str(e))
        sys.exit(EXIT_STOPPED.get(e.reason, 4))
    except NodeLimitReached as e:
        raise UserError(str(e), EXIT_STOPPED["limit"]) from None
    except ClusterError as e:
        raise UserError(str(e), EXIT_CLUSTER) from None
    except RuntimeError as e:
        raise UserError(str(e), 1) from None
    status.clear()
    if as_json:
        click.echo(
            json.dumps(
                sol.to_dict()
                | {
                    "load_seconds": round(plan.load_seconds, 6),
                    "kernels": kernel_origin,
                    "kernel_seconds": round(kernel_seconds, 6),
                    "process_seconds": process_seconds(),
                }
            )
        )
    else:
        print_solution(sol, show_boards)
