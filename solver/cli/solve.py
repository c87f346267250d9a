"""`solver solve`: one board, or a batch (cli_batch), with every search option."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from patterndb.cli.common import (
    FiniteFloatRange,
    UserError,
    data_dir_option,
    goal_option,
    guarded,
    shape_options,
)
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
    resumed = sol.resumed_from is not None
    click.echo(
        f"{sol.algorithm} / {sol.heuristic}: {sol.nodes_expanded:,} expanded, "
        f"{sol.nodes_generated:,} generated"
        + (" over every run of the checkpoint" if resumed else "")
        + f", {sol.seconds:.3f}s"
        + (" this run" if resumed else "")
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
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop the search after this long and print what it proved (exit 4); with --within or "
    "--anytime, the best solution found and its proven bound.",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Save the IDA* search to this file as it goes; run the same command again to resume it.",
)
@click.option(
    "--checkpoint-every",
    type=FiniteFloatRange(min=0),
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
    type=FiniteFloatRange(min=0, min_open=True),
    default=20.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to try to reach the --scheduler, and to wait for its first worker.",
)
@click.option(
    "--within",
    type=FiniteFloatRange(min=1.0),
    default=None,
    metavar="R",
    help="Return sooner a solution proven at most R times the optimal length (e.g. 1.05): beams and "
    "windows searched again find solutions while IDA* raises the proven lower bound; 1.0 is the "
    "optimal search.",
)
@click.option(
    "--anytime",
    is_flag=True,
    help="Print each better solution and higher lower bound as found (stderr); end at the optimum, at "
    "--timeout or at Ctrl-C with the best solution and the bound proven so far (not with --within).",
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
def solve(**params) -> None:
    """Solve BOARD ('-' reads it from stdin), e.g. solver solve 8672543_1, or every board of --file.

    Long IDA* searches show a status line on a terminal (one line per
    iteration otherwise); Ctrl-C stops them cleanly."""
    req = Request(**params)
    _check_usage(req)
    if req.scheduler is not None:
        from ..cluster.client import check_address

        check_address(req.scheduler)
    opts = Options(
        algorithm=req.algorithm,
        heuristic=req.heuristic,
        weight=req.weight,
        data_dir=req.data_dir,
        max_nodes=req.max_nodes,
        pattern=req.pattern,
        pdb_files=tuple(Path(p) for p in req.pdb_files),
        reflect=not req.no_reflect,
        jobs=req.jobs,
        timeout=req.timeout,
        prune=req.prune,
    )
    if req.batch_file:
        sys.exit(_solve_batch(req, opts))
    _solve_one(req, opts)


@dataclass(frozen=True)
class Request:
    """What `solver solve` was asked, as click parsed it (one field per option)."""

    board: str | None
    batch_file: str | None
    size: int | None
    rows: int | None
    cols: int | None
    goal: str
    algorithm: str | None
    heuristic: str | None
    pattern: str | None
    pdb_files: tuple[str, ...]
    no_reflect: bool
    prune: int | None
    jobs: int | None
    timeout: float | None
    checkpoint: Path | None
    checkpoint_every: float
    trace: Path | None
    scheduler: str | None
    cluster_timeout: float
    within: float | None
    anytime: bool
    quiet: bool
    weight: float
    max_nodes: int | None
    show_boards: bool
    as_json: bool
    data_dir: Path | None

    @property
    def bounded(self) -> bool:
        """A solution with a proven bound asked for (--within 1.0 is the optimal search)."""
        return self.anytime or (self.within is not None and self.within > 1.0)

    @property
    def shape(self) -> dict:
        return shape_kwargs(self.size, self.rows, self.cols)


def _check_usage(req: Request) -> None:
    """The combinations of options that make no sense, each a usage error (exit 2)."""
    if (req.board is None) == (req.batch_file is None):
        raise click.UsageError(
            "give a BOARD or --file, not both" if req.board else "give a BOARD or --file"
        )
    if (req.checkpoint or req.trace) and req.batch_file:
        raise click.UsageError("--checkpoint and --trace are for one board, not --file")
    if req.show_boards and (req.batch_file or req.as_json):
        raise click.UsageError(
            "--show-boards prints one board's solution as text: not with --file or --json"
        )
    if req.bounded and (req.checkpoint or req.trace or req.show_boards):
        raise click.UsageError(
            "--within and --anytime are not for --checkpoint, --trace or --show-boards"
        )
    if req.anytime and req.within is not None:
        raise click.UsageError(
            "--anytime goes on to the optimum and --within stops at a bound: give one of them"
        )
    if req.bounded and req.algorithm not in (None, "idastar"):
        raise click.UsageError(
            "--within and --anytime prove their bound with IDA*: not with --algorithm "
            + req.algorithm
        )


def _solve_batch(req: Request, opts: Options) -> int:
    """Every board of --file; the batch's exit status."""
    try:
        if req.bounded:
            from .bounded_batch import solve_file_within

            return solve_file_within(
                req.batch_file,
                req.goal,
                opts,
                req.shape,
                within=None if req.anytime else req.within,
                as_json=req.as_json,
                quiet=req.quiet,
                scheduler=req.scheduler,
                cluster_timeout=req.cluster_timeout,
            )
        with connect_cluster(req.scheduler, req.cluster_timeout) as cluster:
            return solve_file(
                req.batch_file,
                req.goal,
                opts,
                req.shape,
                as_json=req.as_json,
                quiet=req.quiet,
                cluster=cluster,
            )
    # (one found mid-batch is said by the batch, its rows kept)
    except ClusterError as e:
        raise UserError(str(e), EXIT_CLUSTER) from None


def _solve_one(req: Request, opts: Options) -> None:
    """One board: the answer printed, or what a stopped search proved."""
    board_obj, frame = prepare(read_board(req.board), req.goal, **req.shape)
    plan = make_plan(frame, opts, err, saved_heuristic(req.checkpoint) if req.checkpoint else None)
    kernel_seconds, kernel_origin = (
        load_kernels() if plan.algorithm in ("idastar", "iddfs", "table") else (0.0, "")
    )
    if (req.checkpoint or req.scheduler or req.trace) and plan.algorithm not in (
        "idastar",
        "iddfs",
    ):
        raise click.UsageError(
            f"--checkpoint, --trace and --scheduler are for IDA* searches, not {plan.algorithm}"
        )
    err(
        f"using {plan.algorithm} / {plan.heuristic.name}"
        + (f", raced against {plan.rival.name} (solver.ida.race)" if plan.rival is not None else "")
    )
    if kernel_origin == "jit" and not req.quiet and aot_wanted():
        err(
            "note: numba compiles or loads the search kernels now (~0.4 s); 'solver compile' once makes this instant"
        )
    if req.bounded:
        from .bounded import solve_within

        if plan.algorithm not in ("idastar", "table"):
            raise click.UsageError(
                f"--within and --anytime prove their bound with IDA*, and this board would be "
                f"solved by {plan.algorithm}: add --algorithm idastar"
            )
        solve_within(
            board_obj,
            plan,
            within=None if req.anytime else req.within,
            as_json=req.as_json,
            quiet=req.quiet,
            scheduler=req.scheduler,
            cluster_timeout=req.cluster_timeout,
            timings={
                "load_seconds": round(plan.load_seconds, 6),
                "kernels": kernel_origin,
                "kernel_seconds": round(kernel_seconds, 6),
            },
        )
        return
    warn_if_hopeless(plan, board_obj)
    status = Status(live=False if req.quiet else None)
    control = Control(
        listener=status,
        checkpoint=req.checkpoint,
        checkpoint_every=req.checkpoint_every,
        log=err,
        trace=req.trace,
    )
    try:
        with (
            stop_on_signals(control.stop.request),
            connect_cluster(req.scheduler, req.cluster_timeout) as cluster,
        ):
            if cluster is not None:
                control.backend = cluster.backend(plan)
            sol = run(board_obj, plan, control)
    except SearchStopped as e:
        status.clear()
        if req.as_json:
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
    if req.as_json:
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
        print_solution(sol, req.show_boards)
