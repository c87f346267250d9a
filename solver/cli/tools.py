"""The `solver` commands beside solve: plot, show, distance, scramble, random, compile."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import click
import numpy as np

from patterndb import make_goal, random_board, scramble
from patterndb.cli.common import (
    FiniteFloatRange,
    UserError,
    data_dir_option,
    goal_option,
    guarded,
    resolve_shape,
    shape_options,
)

from ..api import Options, make_plan, prepare, run
from ..api import distance as api_distance
from .common import err, read_board, shape_kwargs

COMPILE_TICK = 15.0  # seconds between `solver compile`'s signs of life
MAX_SCRAMBLE = (
    10_000_000  # moves of a scramble: seconds of work (a random board is `solver random`)
)


@click.command("plot", short_help="Draw a search's iterations from --json or a trace.")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The picture to write: a .png or .svg file.",
)
@guarded
def plot_cmd(source: Path, out: Path) -> None:
    """Draw a search's iterations from SOURCE, the output of solve --json (one board or a
    batch) or a --trace file: nodes, seconds and growth per bound, and with a trace each
    worker's busy time (needs the [plot] extra: matplotlib)."""
    from patterndb.files.store import atomic

    from ..plot import FORMATS, plot_runs, read_runs

    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise click.BadParameter(f"{out.name}: give a .png or .svg file", param_hint="--out")
    runs, busy = read_runs(source)
    with atomic(out) as tmp:
        panels = plot_runs(runs, busy, tmp, fmt)
    err(f"wrote {out}: {panels} panels, {len(runs)} search{'es' if len(runs) > 1 else ''}")


@click.command(short_help="Play back a solution: text, terminal, SVG or GIF.")
@click.argument("board")
@shape_options
@goal_option
@data_dir_option
@click.option(
    "--moves",
    "directions",
    default=None,
    metavar="UDLR",
    help="Play these blank moves instead of solving BOARD (e.g. the 'blank:' line of solve).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the animation to this file: .svg (a browser plays it) or .gif (needs Pillow).",
)
@click.option("--play", is_flag=True, help="Show the boards one after another in the terminal.")
@click.option(
    "--delay",
    type=FiniteFloatRange(min=0.0, max=10.0),
    default=0.3,
    show_default=True,
    help="Seconds per move, for --play and the SVG.",
)
@guarded
def show(board, size, rows, cols, goal, data_dir, directions, out, play, delay) -> None:
    """Play back BOARD's optimal solution (or --moves): as text, in the terminal, or as an
    animated SVG or GIF."""
    from ..show import frames, gif, svg, terminal_frames

    if out is not None and out.suffix.lower() not in (".svg", ".gif"):
        raise click.BadParameter(f"{out.name}: give an .svg or a .gif file", param_hint="--out")
    board_obj, frame = prepare(read_board(board), goal, **shape_kwargs(size, rows, cols))
    if directions is None:
        plan = make_plan(frame, Options(data_dir=data_dir), err)
        directions = run(board_obj, plan).directions
    boards = frames(board_obj, directions)
    if out is not None:
        from patterndb.files.store import atomic

        with atomic(out) as tmp:
            if out.suffix.lower() == ".gif":
                with open(tmp, "wb") as f:
                    gif(boards, f, delay)
            else:
                tmp.write_text(svg(boards, delay, f"{board_obj} ({len(boards) - 1} moves)"))
        err(f"wrote {out}: {len(boards)} frames, {len(boards) - 1} moves")
        if not play:
            return
    live = play and sys.stdout.isatty()
    for i, text in enumerate(terminal_frames(boards, directions)):
        if live:
            click.echo("\x1b[H\x1b[2J" + text, nl=False)
            time.sleep(delay if i < len(boards) - 1 else 0)
        else:
            click.echo(text)


@click.command()
@click.argument("board")
@shape_options
@goal_option
@data_dir_option
@guarded
def distance(board, size, rows, cols, goal, data_dir) -> None:
    """Print the exact distance of BOARD to the goal (table lookup)."""
    click.echo(
        api_distance(read_board(board), goal, data_dir, log=err, **shape_kwargs(size, rows, cols))
    )


@click.command("scramble")
@shape_options
@goal_option
@click.option(
    "--moves",
    type=click.IntRange(min=0, max=MAX_SCRAMBLE),
    default=50,
    show_default=True,
    help="Random moves from the goal.",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=None, help="Random seed >= 0 (default: fresh)."
)
@guarded
def scramble_cmd(size, rows, cols, goal, moves, seed) -> None:
    """A board made by a random walk from the goal (no immediate undo)."""
    shape = resolve_shape(size, rows, cols)
    click.echo(str(scramble(make_goal(shape, goal), moves, np.random.default_rng(seed))))


@click.command("random")
@shape_options
@goal_option
@click.option(
    "--seed", type=click.IntRange(min=0), default=None, help="Random seed >= 0 (default: fresh)."
)
@guarded
def random_cmd(size, rows, cols, goal, seed) -> None:
    """A uniformly random solvable board."""
    shape = resolve_shape(size, rows, cols)
    goal_board = make_goal(shape, goal)
    click.echo(str(random_board(shape, goal_board, np.random.default_rng(seed))))


@click.command("compile", short_help="Compile the IDA* kernels ahead of time.")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write the extension (default: $PATTERNDB_AOT, else the package's __pycache__, "
    "else ~/.cache/patterndb/aot).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Only say which kernels solve would use; exit 3 if not compiled ones.",
)
def compile_cmd(directory, check) -> None:
    """Compile the IDA* kernels ahead of time (1.5-3 minutes on 2 cores; scripts/setup.sh runs it).

    solve then starts without importing numba: about 0.4 s less per command.
    Without it, or once the code changed, solve uses the same kernels through
    numba's JIT (same answers and node counts, slower start)."""
    from ..search import aot

    if check:
        aot.kernels()
        click.echo(aot.origin)
        sys.exit(0 if aot.origin.startswith("aot") else 3)
    from ..compile_kernels import build

    click.echo(
        "compiling the IDA* kernels ahead of time (once per checkout: about 1 minute on 2 cores)...",
        err=True,
    )
    started = time.perf_counter()
    done = threading.Event()

    def tick() -> None:  # a sign of life every 15 s: the compiler itself says nothing for a minute
        while not done.wait(COMPILE_TICK):
            click.echo(f"  still compiling ({time.perf_counter() - started:.0f} s)", err=True)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        path = build(directory)
    # no C compiler, no numba.pycc, an unwritable directory: one line, exit 3
    except Exception as e:  # noqa: BLE001
        raise UserError(f"cannot compile the kernels ({type(e).__name__}): {e}", 3) from None
    finally:
        done.set()
        ticker.join()
    click.echo(f"compiled {path} in {time.perf_counter() - started:.1f} s")
