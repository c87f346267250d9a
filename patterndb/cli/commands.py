"""The `pdb` command: build tables (here), and list, inspect, verify and tidy them (cli_tables)."""

from __future__ import annotations

import os

# These commands use no BLAS: one OpenBLAS thread saves 0.06 s of start-up (numpy's import
# starts its thread pool). Set before numpy is imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import math
from pathlib import Path

import click

from ..build import zeroaware
from ..errors import PatternError, TableError
from ..files.buildcheck import (
    build_memory,
    check_exact_build,
    check_pattern_build,
    exact_build_cost,
)
from ..files.catalog import (
    build_exact_file,
    build_pattern_file,
    catalogue_tables,
    exact_expect,
    exact_path,
    map_checked,
    pattern_expect,
    pattern_path,
)
from ..files.datadir import resolve_data_dir
from ..files.machines import default_depth, keep_in, load_default, machine_path, where_kept
from ..files.store import read_attrs
from ..puzzle.board import make_goal
from ..puzzle.frame import Frame
from ..puzzle.patterns import (
    CATALOGUES,
    NAMED,
    RACES,
    TABLELESS,
    Partition,
    catalog_groups,
    group_label,
    is_named,
    is_zero_aware,
    names_per_board,
    parse_catalog,
    pattern_tiles,
    race_spec,
)
from ..puzzle.ranking import num_placements
from ..puzzle.symmetry import catalogue_sums
from .common import data_dir_option, goal_option, guarded, resolve_shape, shape_options
from .tables import clean, info, list_cmd, pack, plot, verify


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="patterndb", prog_name="pdb")
def main() -> None:
    """Build and manage pattern databases for sliding-tile puzzles."""


@main.command()
@shape_options
@goal_option
@data_dir_option
@click.option(
    "--pattern",
    "-p",
    default=None,
    help=f"Build additive pattern databases: a named partition ({names_per_board(NAMED)}) or tile groups "
    "like 1-7/8-15 or 1,2,5,6/3,4,7,8; the blank, 0, in a group (or z before a name, z7-8) makes its "
    f"table zero-aware; A+B: a catalogue, the maximum over partitions (named: {names_per_board(CATALOGUES)}); "
    f"A|B: both, for a race (solver solve --pattern A|B; named: {names_per_board(RACES)}).",
)
@click.option("--force", is_flag=True, help="Rebuild even if the table is cached.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@guarded
def build(size, rows, cols, goal, data_dir, pattern, force, quiet) -> None:
    """Build tables; prints the path of each table file.

    \b
    pdb build --size 3                  exact 8-puzzle table (181,440 states)
    pdb build --rows 3 --cols 4         exact table, 239,500,800 states
    pdb build --size 4 --pattern 7-8    15-puzzle pattern databases
    """
    shape = resolve_shape(size, rows, cols)
    frame = Frame.for_goal(make_goal(shape, goal))
    ddir = resolve_data_dir(data_dir)
    if pattern is not None:
        specs = [
            spec
            # A|B (or a race's name):
            for spec in map(str.strip, race_spec(pattern, frame).split("|"))
            if spec not in TABLELESS
        ]  # both, but a side such as linear-conflict has no table
        if not specs:
            raise PatternError(f"{pattern} is a heuristic without tables: nothing to build")
        groups = None  # a race's tables, numbered together
        if len(specs) > 1:
            groups = race_tables(frame, specs, ddir)
        if groups is not None and not quiet:
            click.echo(
                f"race {pattern} ({' | '.join(specs)}): {len(groups)} tables; "
                f"{_plan(frame, groups, ddir, force)}",
                err=True,
            )
        for spec in specs:
            _build_spec(frame, spec, ddir, force, quiet, groups)
        # the search's move-pruning machine: seconds, and then the first solve need not
        if default_depth(shape) > 2:
            machine = load_default(
                shape, ddir, (lambda s: None) if quiet else (lambda s: click.echo(s, err=True))
            )
            # (copied here from the user's cache, else the cache's, where ddir cannot keep it)
            used = keep_in(shape, machine.depth, ddir) or where_kept(shape, machine.depth, ddir)
            click.echo(str(used or machine_path(ddir, shape, machine.depth)))
        return
    path = exact_path(ddir, frame)
    if not force and _cached(path, exact_expect(frame), quiet):
        click.echo(str(path))
        return
    check_exact_build(frame, ddir)
    if not quiet:
        disk, memory = exact_build_cost(frame)
        states = math.factorial(shape.n) // 2
        click.echo(
            f"building the exact {shape} table: {states:,} states, {disk / 2**20:,.1f} MiB on disk, about "
            f"{_size(memory)} of memory, about {_minutes(states / EXACT_RATE)} on 2 cores",
            err=True,
        )
    path = build_exact_file(frame, ddir, progress=not quiet)
    attrs = read_attrs(path)
    if not quiet:
        click.echo(
            f"built {path}: {attrs['states']:,} states, diameter {attrs['max']}, "
            f"mean {attrs['mean']:.2f}, {attrs['build_seconds']:.1f}s",
            err=True,
        )
    click.echo(str(path))


def _build_spec(
    frame: Frame, spec: str, ddir: Path, force: bool, quiet: bool, numbered=None
) -> None:
    """Build the tables of one partition or catalogue (a spec without '|'); numbered: the
    tables its lines count through ("table 5 of 19"), where more than its own (a race)."""
    parts = parse_catalog(spec, frame)
    if not quiet and not is_named(spec, frame):
        labels = " / ".join(_user_label(frame, g) for g in catalog_groups(parts))
        click.echo(f"reading {spec!r} as tile groups {labels} (not a named partition)", err=True)
    tables, served = _spec_tables(frame, parts, ddir)
    if len(parts) > 1 and not quiet:
        click.echo(
            f"catalogue {spec}: {served} groups (mirrors included) read from {len(tables)} "
            f"tables, the others through a board symmetry ('pdb list' shows which); "
            f"{_plan(frame, tables, ddir, force)}",
            err=True,
        )
    _build_patterns(frame, tables, ddir, force, quiet, numbered or tables)


def _spec_tables(
    frame: Frame, parts: tuple[Partition, ...], ddir: Path, planned=frozenset()
) -> tuple[Partition, int]:
    """The groups whose table files a partition or catalogue needs (a catalogue: one for each
    family of symmetric groups, those in ddir or planned first), and how many groups they serve."""
    if len(parts) == 1:
        return parts[0], len(parts[0])
    served, _ = catalogue_tables(frame, catalogue_sums(frame, parts), ddir, planned)
    return tuple(dict.fromkeys(s.table for s in served)), len(served)


def race_tables(frame: Frame, specs: list[str], ddir: Path) -> tuple[tuple[int, ...], ...]:
    """The tables a race of specs needs, each once, in the order they are built: a
    catalogue reads a group from the table an earlier side builds where it can."""
    groups: tuple[tuple[int, ...], ...] = ()
    for spec in specs:
        tables, _ = _spec_tables(frame, parse_catalog(spec, frame), ddir, frozenset(groups))
        groups = tuple(dict.fromkeys((*groups, *tables)))
    return groups


def _plan(frame: Frame, groups, ddir: Path, force: bool) -> str:
    """What building the missing tables of groups costs, in words."""
    missing = [g for g in groups if force or not pattern_path(ddir, frame, g).exists()]
    todo = [_cost(frame, g) for g in missing]
    entries, disk = sum(e for e, _ in todo), sum(b for _, b in todo)
    memory = max((build_memory(frame.shape.n, g) for g in missing), default=0)
    return (
        (
            f"{len(todo)} to build: at most {disk / 2**30:.1f} GiB on disk, {memory / 2**30:.1f} GiB of memory at "
            f"a time, about {_minutes(entries / BUILD_RATE)} on 2 cores"
        )
        if todo
        else "all built"
    )


def _build_patterns(frame: Frame, groups, ddir: Path, force: bool, quiet: bool, numbered) -> None:
    """Build each group's table once; a group already cached (by any partition) is reused."""
    for tiles in groups:
        path = pattern_path(ddir, frame, tiles)
        if not force and _cached(path, pattern_expect(frame, tiles), quiet):
            pass
        else:
            entries, size = _cost(frame, tiles)
            # (refused before its line says what it would take)
            check_pattern_build(frame, tiles, ddir)
            if not quiet and entries / BUILD_RATE > 5:
                most = "at most " if is_zero_aware(tiles) else ""
                of = (
                    f" (table {numbered.index(tiles) + 1} of {len(numbered)})"
                    if len(numbered) > 1 and tiles in numbered
                    else ""
                )
                click.echo(
                    f"building tiles {group_label(tiles)}{of}: {entries:,} entries, {most}{size / 2**20:,.0f} MiB "
                    f"on disk, about {build_memory(frame.shape.n, tiles) / 2**30:.1f} GiB of memory, "
                    f"about {_minutes(entries / BUILD_RATE)} on 2 cores",
                    err=True,
                )
            path = build_pattern_file(frame, tiles, ddir, progress=not quiet)
            if not quiet:
                a = read_attrs(path)
                click.echo(
                    f"built {path}: max {a['max']}, mean {a['mean']:.2f}, {a['build_seconds']:.1f}s",
                    err=True,
                )
        click.echo(str(path))


def _cost(frame: Frame, tiles: tuple[int, ...]) -> tuple[int, int]:
    """(entries, the most bytes on disk) of a group's table."""
    entries = num_placements(frame.shape.n, len(pattern_tiles(tiles)))
    if is_zero_aware(tiles):
        return entries, zeroaware.max_stored_bytes(
            frame.shape.n, len(pattern_tiles(tiles)), entries
        )
    return entries, entries // 2


BUILD_RATE = 2.0e6  # entries a second, measured: 7-8's 8-tile table 250 s, a 5x5 6-tile table 57 s
EXACT_RATE = 8.0e6  # states a second of an exact build, measured: 3x4's 239.5 M states in 29-34 s


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} minutes" if seconds < 5400 else f"{seconds / 3600:,.0f} hours"


def _user_label(frame: Frame, canonical: tuple[int, ...]) -> str:
    """A canonical tile group in the user's own numbering (what they typed)."""
    return group_label(tuple(sorted(int(frame.unlabel[c]) for c in canonical)))


def _cached(path: Path, expect: dict, quiet: bool) -> bool:
    """Is a good table already there? A file that does not load is said so, and rebuilt."""
    if not path.exists():
        return False
    try:
        # mapped: no need to read the whole table to know it is good
        _, _, (attrs,) = map_checked([path], [expect])
    except TableError as e:
        click.echo(f"{e}: rebuilding it", err=True)
        return False
    if not quiet:
        hint = (
            ""
            if attrs.get("encoding", "byte") != "byte" or attrs.get("kind") != "pdb"
            else f" (1 byte an entry: 'pdb pack {path}' halves it)"
        )
        click.echo(f"cached: {path}{hint}", err=True)
    return True


for command in (list_cmd, info, verify, clean, plot, pack):
    main.add_command(command)


if __name__ == "__main__":
    main()
