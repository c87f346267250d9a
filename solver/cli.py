"""The `solver` command: solve, distance, scramble, random."""
from __future__ import annotations

import json
import sys

import click
import numpy as np

from patterndb import make_goal, random_board, scramble
from patterndb.cli_common import UserError, data_dir_option, goal_option, guarded, resolve_shape, shape_options

from .api import distance as api_distance
from .api import solve as api_solve
from .search import ALGORITHMS
from .solution import Solution

HEURISTICS = ("misplaced", "manhattan", "linear-conflict", "exact")


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
@click.argument("board")
@shape_options
@goal_option
@click.option("--algorithm", "-a", type=click.Choice(ALGORITHMS), default=None,
              help="Default: walk the exact table when there is one, else idastar.")
@click.option("--heuristic", "-H", type=click.Choice(HEURISTICS), default=None,
              help="Default: the strongest available (exact table, else linear-conflict).")
@click.option("--weight", "-w", type=float, default=2.0, show_default=True, help="Weight of h in wastar.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None,
              help="Give up after this many nodes (default: 20M stored for best-first, none for IDA*).")
@click.option("--show-boards", is_flag=True, help="Print every board on the way.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@data_dir_option
@guarded
def solve(board, size, rows, cols, goal, algorithm, heuristic, weight, max_nodes, show_boards, as_json, data_dir) -> None:
    """Solve BOARD ('-' reads it from stdin), e.g. solver solve 8672543_1"""
    try:
        sol = api_solve(_read_board(board), goal, algorithm, heuristic, weight, data_dir, max_nodes,
                        log=_err, **_shape_kwargs(size, rows, cols))
    except RuntimeError as e:
        raise UserError(str(e), 1) from None
    if as_json:
        click.echo(json.dumps(sol.to_dict()))
    else:
        print_solution(sol, show_boards)


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
