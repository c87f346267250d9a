"""The `solver` command: solve, distance, scramble, random."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click
import numpy as np

from patterndb import make_goal, random_board, scramble
from patterndb.cli_common import UserError, data_dir_option, goal_option, guarded, resolve_shape, shape_options

from .api import Options, make_plan, prepare, run
from .api import distance as api_distance
from .batch import read_batch, solve_batch
from .search import ALGORITHMS
from .solution import Solution

HEURISTICS = ("misplaced", "manhattan", "linear-conflict", "exact", "pdb")


def _err(msg: str) -> None:
    click.echo(msg, err=True)


def _read_board(board: str) -> str:
    return sys.stdin.read() if board == "-" else board


def _shape_kwargs(size, rows, cols) -> dict:
    shape = resolve_shape(size, rows, cols, required=False)
    return {"rows": shape.rows, "cols": shape.cols} if shape else {}


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
def main() -> None:
    """Solve sliding-tile puzzles optimally, or with the classic algorithms."""


@main.command()
@click.argument("board", required=False)
@click.option("--file", "-f", "batch_file", type=click.Path(exists=True, dir_okay=False),
              help="Solve every board of a file (one a line, '#' comments, optional expected length last).")
@shape_options
@goal_option
@click.option("--algorithm", "-a", type=click.Choice(ALGORITHMS), default=None,
              help="Default: walk the exact table when there is one, else idastar.")
@click.option("--heuristic", "-H", type=click.Choice(HEURISTICS), default=None,
              help="Default: the strongest available (exact table, else cached pattern databases "
                   "7-8 > 6-6-3 > 5-5-5, else linear-conflict).")
@click.option("--pattern", "-p", default=None, help="Use the cached pattern databases of this partition (e.g. 7-8).")
@click.option("--pdb", "pdb_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Use these pattern-database files (repeat for each group).")
@click.option("--no-reflect", is_flag=True, help="Do not also look up the diagonally mirrored state.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar for --file.")
@click.option("--weight", "-w", type=float, default=2.0, show_default=True, help="Weight of h in wastar.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None,
              help="Give up after this many nodes (default: 20M stored for best-first, none for IDA*).")
@click.option("--show-boards", is_flag=True, help="Print every board on the way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@data_dir_option
@guarded
def solve(board, batch_file, size, rows, cols, goal, algorithm, heuristic, pattern, pdb_files, no_reflect, quiet,
          weight, max_nodes, show_boards, as_json, data_dir) -> None:
    """Solve BOARD ('-' reads it from stdin), e.g. solver solve 8672543_1, or every board of --file."""
    if (board is None) == (batch_file is None):
        raise click.UsageError("give a BOARD or --file, not both" if board else "give a BOARD or --file")
    opts = Options(algorithm, heuristic, weight, data_dir, max_nodes, pattern,
                   tuple(Path(p) for p in pdb_files), not no_reflect)
    try:
        if batch_file:
            ok = _solve_file(batch_file, goal, opts, _shape_kwargs(size, rows, cols), as_json, quiet)
            sys.exit(0 if ok else 1)
        board_obj, frame = prepare(_read_board(board), goal, **_shape_kwargs(size, rows, cols))
        plan = make_plan(frame, opts, _err)
        _err(f"using {plan.algorithm} / {plan.heuristic.name}")
        sol = run(board_obj, plan)
    except RuntimeError as e:
        raise UserError(str(e), 1) from None
    if as_json:
        click.echo(json.dumps(sol.to_dict()))
    else:
        print_solution(sol, show_boards)


def _solve_file(path: str, goal: str, opts: Options, shape: dict, as_json: bool, quiet: bool) -> bool:
    """Solve a batch; True when every expected length was met."""
    entries = read_batch(path, **shape)
    start = time.perf_counter()
    results = solve_batch(entries, goal, opts, _err)
    bad = 0
    total_nodes = 0
    if not as_json:
        click.echo(f"{'line':>5} {'length':>6} {'expected':>8} {'nodes':>13} {'seconds':>8}  board")
    with click.progressbar(results, length=len(entries), label="solving", file=sys.stderr,
                           hidden=quiet or not sys.stderr.isatty()) as bar:
        for e, sol in bar:
            ok = e.expected is None or e.expected == sol.length
            bad += not ok
            total_nodes += sol.nodes_generated
            if as_json:
                click.echo(json.dumps(sol.to_dict() | {"board": str(e.board), "expected": e.expected}))
            else:
                mark = "" if ok else "  MISMATCH"
                exp = "" if e.expected is None else str(e.expected)
                click.echo(f"{e.line:>5} {sol.length:>6} {exp:>8} {sol.nodes_generated:>13,} {sol.seconds:>8.3f}  {e.board}{mark}")
    secs = time.perf_counter() - start
    _err(f"{len(entries)} boards, {total_nodes:,} nodes generated, {secs:.2f}s wall; "
         + ("all expected lengths met" if not bad else f"{bad} MISMATCH(ES) against expected lengths"))
    return bad == 0


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
@click.option("--moves", type=click.IntRange(min=0), default=50, show_default=True)
@click.option("--seed", type=int, default=None, help="Random seed (default: fresh).")
@guarded
def scramble_cmd(size, rows, cols, goal, moves, seed) -> None:
    """A board made by a random walk from the goal (no immediate undo)."""
    shape = resolve_shape(size, rows, cols)
    click.echo(str(scramble(make_goal(shape, goal), moves, np.random.default_rng(seed))))


@main.command("random")
@shape_options
@goal_option
@click.option("--seed", type=int, default=None, help="Random seed (default: fresh).")
@guarded
def random_cmd(size, rows, cols, goal, seed) -> None:
    """A uniformly random solvable board."""
    shape = resolve_shape(size, rows, cols)
    goal_board = make_goal(shape, goal)
    click.echo(str(random_board(shape, goal_board, np.random.default_rng(seed))))


if __name__ == "__main__":
    main()
