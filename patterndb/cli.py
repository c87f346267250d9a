"""The `pdb` command: build, list, inspect and verify tables."""
from __future__ import annotations

import time
from pathlib import Path

import click
import numpy as np

from .board import make_goal
from .catalog import build_exact_file, exact_path, list_tables
from .cli_common import data_dir_option, goal_option, guarded, resolve_shape, shape_options
from .datadir import resolve_data_dir
from .errors import TableError
from .exact import value_counts
from .frame import Frame
from .store import checksum, load_table, read_attrs


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Build and manage pattern databases for sliding-tile puzzles."""


@main.command()
@shape_options
@goal_option
@data_dir_option
@click.option("--force", is_flag=True, help="Rebuild even if the table is cached.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@guarded
def build(size, rows, cols, goal, data_dir, force, quiet) -> None:
    """Build the complete exact-distance table of a small board (up to 12 cells).

    Example: pdb build --size 3   (the 8-puzzle, 181,440 states)
    """
    shape = resolve_shape(size, rows, cols)
    frame = Frame.for_goal(make_goal(shape, goal))
    ddir = resolve_data_dir(data_dir)
    path = exact_path(ddir, frame)
    if path.exists() and not force:
        if not quiet:
            click.echo(f"cached: {path}", err=True)
        click.echo(str(path))
        return
    path = build_exact_file(frame, ddir, progress=not quiet)
    attrs = read_attrs(path)
    if not quiet:
        click.echo(
            f"built {path}: {attrs['states']:,} states, diameter {attrs['max']}, "
            f"mean {attrs['mean']:.2f}, {attrs['build_seconds']:.1f}s",
            err=True,
        )
    click.echo(str(path))


def _describe(attrs: dict) -> str:
    if attrs.get("kind") == "exact":
        return "exact"
    return f"pattern {attrs.get('tiles_label', '?')}"


@main.command("list")
@data_dir_option
@guarded
def list_cmd(data_dir) -> None:
    """Show the tables cached in the data directory."""
    ddir = resolve_data_dir(data_dir)
    rows = list_tables(ddir)
    if not rows:
        click.echo(f"no tables in {ddir}", err=True)
        return
    click.echo(f"{'file':40} {'board':5} {'goal':>6} {'table':24} {'MB':>8} {'mean':>6}")
    for path, attrs, why in rows:
        mb = path.stat().st_size / 1e6
        if attrs is None:
            click.echo(f"{path.name:40} unreadable: {why}")
            continue
        goal = "b" + str(attrs.get("blank_cell"))
        click.echo(
            f"{path.name:40} {attrs['rows']}x{attrs['cols']:<3} {goal:>6} {_describe(attrs):24} {mb:8.1f} {attrs['mean']:6.2f}"
        )


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@guarded
def info(file: Path) -> None:
    """Print every attribute of a table file."""
    attrs = read_attrs(file)
    for k in sorted(attrs):
        if not k.startswith("_"):
            click.echo(f"{k}: {attrs[k]}")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@guarded
def verify(file: Path) -> None:
    """Read a table in full and check its checksum and recorded statistics."""
    start = time.perf_counter()
    attrs = read_attrs(file)
    data, _ = load_table(file, {})
    hist = np.asarray(attrs["histogram"])
    counts = value_counts(data)[: hist.size]
    if not np.array_equal(counts, hist):
        raise TableError(f"{file} is damaged: value histogram differs from the recorded one")
    click.echo(f"OK {file}: {data.size:,} entries, crc32 {checksum(data):08x}, {time.perf_counter() - start:.2f}s")


if __name__ == "__main__":
    main()
