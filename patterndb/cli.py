"""The `pdb` command: build, list, inspect and verify tables."""
from __future__ import annotations

import os

# These commands use no BLAS: one OpenBLAS thread saves 0.06 s of start-up (numpy's import
# starts its thread pool). Set before numpy is imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json
import math
import sys
import time
from pathlib import Path

import click

from . import zeroaware
from .attrs import plain
from .board import make_goal
from .catalog import (
    build_exact_file,
    build_memory,
    build_pattern_file,
    catalogue_tables,
    check_exact_build,
    check_name,
    check_pattern_build,
    exact_build_cost,
    exact_expect,
    exact_path,
    list_tables,
    load_checked,
    map_checked,
    pack_pattern_file,
    pattern_expect,
    pattern_path,
)
from .cli_common import (
    TABLE_EXIT,
    data_dir_option,
    goal_option,
    guarded,
    resolve_shape,
    shape_options,
)
from .datadir import data_dir_and_source, resolve_data_dir
from .errors import PuzzleError, TableError
from .frame import Frame
from .geometry import Shape
from .locks import stale
from .machines import (
    KIND,
    default_depth,
    is_machine_file,
    load_default,
    machine_attrs,
    machine_path,
    verify_machine,
    where_kept,
)
from .patterns import (
    CATALOGUES,
    NAMED,
    RACES,
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
from .ranking import num_placements
from .rebuild import prove, prove_machine
from .store import read_attrs, temporaries
from .symmetry import catalogue_sums


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="patterndb", prog_name="pdb")
def main() -> None:
    """Build and manage pattern databases for sliding-tile puzzles."""


@main.command()
@shape_options
@goal_option
@data_dir_option
@click.option("--pattern", "-p", default=None,
              help=f"Build additive pattern databases: a named partition ({names_per_board(NAMED)}) or tile groups "
                   "like 1-7/8-15 or 1,2,5,6/3,4,7,8; the blank, 0, in a group (or z before a name, z7-8) makes its "
                   f"table zero-aware; A+B: a catalogue, the maximum over partitions (named: {names_per_board(CATALOGUES)}); "
                   f"A|B: both, for a race (solver solve --pattern A|B; named: {names_per_board(RACES)}).")
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
        specs = [spec.strip() for spec in race_spec(pattern, frame).split("|")]  # A|B (or a race's name): both
        if len(specs) > 1 and not quiet:
            tables = [_spec_tables(frame, parse_catalog(spec, frame), ddir)[0] for spec in specs]
            groups = tuple(dict.fromkeys(g for t in tables for g in t))
            click.echo(f"race {pattern} ({' | '.join(specs)}): {len(groups)} tables; "
                       f"{_plan(frame, groups, ddir, force)}", err=True)
        for spec in specs:
            _build_spec(frame, spec, ddir, force, quiet)
        if default_depth(shape) > 2:  # the search's move-pruning machine: seconds, and then the first solve need not
            machine = load_default(shape, ddir, (lambda s: None) if quiet else (lambda s: click.echo(s, err=True)))
            used = where_kept(shape, machine.depth, ddir)  # (the user's cache, where ddir could not keep it)
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
        click.echo(f"building the exact {shape} table: {states:,} states, {disk / 2**20:,.1f} MiB on disk, about "
                   f"{_size(memory)} of memory, about {_minutes(states / EXACT_RATE)} on 2 cores", err=True)
    path = build_exact_file(frame, ddir, progress=not quiet)
    attrs = read_attrs(path)
    if not quiet:
        click.echo(
            f"built {path}: {attrs['states']:,} states, diameter {attrs['max']}, "
            f"mean {attrs['mean']:.2f}, {attrs['build_seconds']:.1f}s",
            err=True,
        )
    click.echo(str(path))


def _build_spec(frame: Frame, spec: str, ddir: Path, force: bool, quiet: bool) -> None:
    """Build the tables of one partition or catalogue (a spec without '|')."""
    parts = parse_catalog(spec, frame)
    if not quiet and not is_named(spec, frame):
        labels = " / ".join(_user_label(frame, g) for g in catalog_groups(parts))
        click.echo(f"reading {spec!r} as tile groups {labels} (not a named partition)", err=True)
    tables, served = _spec_tables(frame, parts, ddir)
    if len(parts) > 1 and not quiet:
        click.echo(f"catalogue {spec}: {served} groups (mirrors included) read from {len(tables)} "
                   f"tables, the others through a board symmetry ('pdb list' shows which); "
                   f"{_plan(frame, tables, ddir, force)}", err=True)
    _build_patterns(frame, tables, ddir, force, quiet)


def _spec_tables(frame: Frame, parts: tuple[Partition, ...], ddir: Path) -> tuple[Partition, int]:
    """The groups whose table files a partition or catalogue needs (a catalogue: one for each
    family of symmetric groups, those in ddir first), and how many groups they serve."""
    if len(parts) == 1:
        return parts[0], len(parts[0])
    served, _ = catalogue_tables(frame, catalogue_sums(frame, parts), ddir)
    return tuple(dict.fromkeys(s.table for s in served)), len(served)


def _plan(frame: Frame, groups, ddir: Path, force: bool) -> str:
    """What building the missing tables of groups costs, in words."""
    missing = [g for g in groups if force or not pattern_path(ddir, frame, g).exists()]
    todo = [_cost(frame, g) for g in missing]
    entries, disk = sum(e for e, _ in todo), sum(b for _, b in todo)
    memory = max((build_memory(frame.shape.n, g) for g in missing), default=0)
    return (f"{len(todo)} to build: at most {disk / 2**30:.1f} GiB on disk, {memory / 2**30:.1f} GiB of memory at "
            f"a time, about {_minutes(entries / BUILD_RATE)} on 2 cores") if todo else "all built"


def _build_patterns(frame: Frame, groups, ddir: Path, force: bool, quiet: bool) -> None:
    """Build each group's table once; a group already cached (by any partition) is reused."""
    for tiles in groups:
        path = pattern_path(ddir, frame, tiles)
        if not force and _cached(path, pattern_expect(frame, tiles), quiet):
            pass
        else:
            entries, size = _cost(frame, tiles)
            check_pattern_build(frame, tiles, ddir)  # (refused before its line says what it would take)
            if not quiet and entries / BUILD_RATE > 5:
                most = "at most " if is_zero_aware(tiles) else ""
                click.echo(f"building tiles {group_label(tiles)}: {entries:,} entries, {most}{size / 2**20:,.0f} MiB "
                           f"on disk, about {build_memory(frame.shape.n, tiles) / 2**30:.1f} GiB of memory, "
                           f"about {_minutes(entries / BUILD_RATE)} on 2 cores", err=True)
            path = build_pattern_file(frame, tiles, ddir, progress=not quiet)
            if not quiet:
                a = read_attrs(path)
                click.echo(f"built {path}: max {a['max']}, mean {a['mean']:.2f}, {a['build_seconds']:.1f}s", err=True)
        click.echo(str(path))


def _cost(frame: Frame, tiles: tuple[int, ...]) -> tuple[int, int]:
    """(entries, the most bytes on disk) of a group's table."""
    entries = num_placements(frame.shape.n, len(pattern_tiles(tiles)))
    if is_zero_aware(tiles):
        return entries, zeroaware.max_stored_bytes(frame.shape.n, len(pattern_tiles(tiles)), entries)
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
        _, _, (attrs,) = map_checked([path], [expect])  # mapped: no need to read the whole table to know it is good
    except TableError as e:
        click.echo(f"{e}: rebuilding it", err=True)
        return False
    if not quiet:
        hint = "" if attrs.get("encoding", "byte") != "byte" or attrs.get("kind") != "pdb" else f" (1 byte an entry: 'pdb pack {path}' halves it)"
        click.echo(f"cached: {path}{hint}", err=True)
    return True


def _describe(attrs: dict) -> str:
    if attrs.get("kind") == "exact":
        return "exact"
    if attrs.get("kind") == KIND:
        return f"move pruning, depth {attrs.get('depth')}"
    zero = ", zero-aware" if attrs.get("encoding") == zeroaware.ENCODING else ""
    return f"tiles {attrs.get('tiles_label', '?')}{zero}"


@main.command("list", short_help="Show the tables in the data directory.")
@data_dir_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object a table.")
@guarded
def list_cmd(data_dir, as_json) -> None:
    """Show the tables in the data directory, and temporaries left by killed builds."""
    ddir, source = data_dir_and_source(data_dir)
    if not ddir.exists():
        if as_json:  # (one object, so that a reader of the lines is not left with nothing)
            click.echo(json.dumps({"data_dir": str(ddir), "source": source, "exists": False}))
        else:
            click.echo(f"no tables: {ddir} ({source}) does not exist (nothing was built there)", err=True)
        return
    rows = list_tables(ddir)
    leftovers = temporaries(ddir)
    locks = stale(ddir)
    if as_json:
        for path, attrs, why in rows:
            info = {"file": str(path), "bytes": path.stat().st_size}
            info |= {"error": why} if attrs is None else {k: attrs.get(k) for k in LIST_FIELDS}
            click.echo(json.dumps(info))
        for tmp, pid, alive in leftovers:
            click.echo(json.dumps({"file": str(tmp), "bytes": tmp.stat().st_size, "temporary": True,
                                   "writer_pid": pid, "writer_running": alive}))
        for lock in locks:
            click.echo(json.dumps({"file": str(lock), "stale_lock": True}))
        for row in _catalogues_served(ddir, rows):
            click.echo(json.dumps(row))
        return
    click.echo(f"tables in {ddir} ({source}):", err=True)
    if not rows and not leftovers and not locks:
        click.echo(f"no tables in {ddir}", err=True)
        return
    if rows:
        click.echo(f"{'file':40} {'board':5} {'goal':>6} {'table':24} {'MB':>8} {'mean':>6}")
    for path, attrs, why in rows:
        mb = path.stat().st_size / 1e6
        if attrs is None:
            click.echo(f"{path.name:40} unreadable: {why}")
            continue
        goal = "b" + str(attrs.get("blank_cell")) if "blank_cell" in attrs else "any"
        mean = f"{attrs['mean']:6.2f}" if "mean" in attrs else f"{'-':>6}"
        click.echo(f"{path.name:40} {attrs['rows']}x{attrs['cols']:<3} {goal:>6} {_describe(attrs):24} {mb:8.1f} {mean}")
    for tmp, pid, alive in leftovers:
        state = f"being written (process {pid})" if alive else "left by a killed build: 'pdb clean' removes it"
        click.echo(f"{tmp.name:40} {tmp.stat().st_size / 1e6:8.1f} MB {state}")
    for lock in locks:
        click.echo(f"{lock.name:40} a lock no process holds, left by a killed build: 'pdb clean' removes it")
    for row in _catalogues_served(ddir, rows):
        click.echo(f"catalogue {row['catalogue']} ({row['board']}, goal b{row['blank_cell']}): {row['groups']} groups "
                   f"(mirrors included) from {len(row['tables'])} tables; read through a symmetry:")
        for s in row["served"]:
            if s["symmetry"] != "identity":
                click.echo(f"  tiles {s['tiles_label']:24} <- {Path(s['file']).name} ({s['symmetry']})")


def _catalogues_served(ddir: Path, rows: list) -> list[dict]:
    """For each named catalogue whose tables are all in ddir: which file serves each of its
    groups (its partitions' and their mirrors'), under which board symmetry (symmetry.serve,
    as the search reads them)."""
    out = []
    frames = {(a["rows"], a["cols"], int(a["blank_cell"])) for _, a, _ in rows
              if a is not None and a.get("kind") == "pdb" and "blank_cell" in a}
    for r, c, blank in sorted(frames):
        if blank != 0:
            continue  # named catalogues are written for the blank-first frame (blank-last's too)
        frame = Frame.for_goal(make_goal(Shape(r, c), "blank-first"))
        for name in CATALOGUES.get((r, c), {}):
            parts = parse_catalog(name, frame)
            served, files = catalogue_tables(frame, catalogue_sums(frame, parts), ddir)
            if not all(f.exists() for f in files):
                continue
            out.append({"catalogue": name, "board": f"{r}x{c}", "blank_cell": blank, "groups": len(served),
                        "tables": sorted({str(f) for f in files}),
                        "served": [{"tiles": list(s.group), "tiles_label": group_label(s.group), "file": str(f),
                                    "symmetry": s.sym.name} for s, f in zip(served, files)]})
    return out


LIST_FIELDS = ("kind", "rows", "cols", "goal", "tiles", "entries", "max", "mean", "checksum_crc32", "created")


@main.command(short_help="Remove what killed builds left behind.")
@data_dir_option
@guarded
def clean(data_dir) -> None:
    """Remove what killed builds left in the data directory: their temporary files and locks
    (those of running builds are kept)."""
    ddir = resolve_data_dir(data_dir)
    freed = 0
    for tmp, pid, alive in temporaries(ddir):
        if not alive:
            freed += tmp.stat().st_size
            tmp.unlink(missing_ok=True)
            click.echo(f"removed {tmp}")
    for lock in stale(ddir):
        lock.unlink(missing_ok=True)
        click.echo(f"removed {lock}")
    click.echo(f"{freed / 1e6:.1f} MB freed in {ddir}", err=True)


@main.command(short_help="Draw each table's values (breadth-first layers).")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The picture to write: a .png or .svg file.")
@click.option("--sum", "samples", type=click.IntRange(min=1, max=10_000_000), default=None, metavar="SAMPLES",
              help="Also draw the sum of the files' values (disjoint groups: a partition) at this many "
                   "random states (loads the tables).")
@guarded
def plot(files: tuple[Path, ...], out: Path, samples: int | None) -> None:
    """Draw each table's entries per value, which are its breadth-first layers (needs the
    [plot] extra: matplotlib). Reads only the files' attributes, unless --sum."""
    from .plot import FORMATS, plot_tables, sampled_sums
    from .store import atomic

    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise click.BadParameter(f"{out.name}: give a .png or .svg file", param_hint="--out")
    tables = [(f, read_attrs(f)) for f in files]
    sums = None
    if samples is not None:
        import numpy as np

        from .catalog import load_checked

        sums = sampled_sums([load_checked(f, {}) for f, _ in tables], samples, np.random.default_rng())
    with atomic(out) as tmp:
        panels = plot_tables(tables, tmp, fmt, sums)
    click.echo(f"wrote {out}: {panels} panel{'s' if panels > 1 else ''}", err=True)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@guarded
def info(file: Path, as_json: bool) -> None:
    """Print every attribute of a table file."""
    attrs = machine_attrs(file) if is_machine_file(file) else read_attrs(file)
    if as_json:
        click.echo(json.dumps({k: v for k, v in sorted(attrs.items()) if not k.startswith("_")}, default=plain))
        return
    for k in sorted(attrs):
        if not k.startswith("_"):
            click.echo(f"{k}: {attrs[k]}")


@main.command(short_help="Check tables in full; --full proves them right.")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--full", is_flag=True,
              help="Also prove each table right, not only intact: an exact table by one pass (every value "
                   "the exact distance), a group table by building it again and comparing (as long as its "
                   "build).")
def verify(files: tuple[Path, ...], full: bool) -> None:
    """Read tables in full and check everything a solver relies on: attributes, crc32 and
    digest, the values against the recorded histogram, max and mean, the goal's entry, and
    the file name against the attributes; move-pruning machines too. Exit 3 if any fails.

    Checksums catch damage, not a table forged with its checksums recomputed or one
    written wrong: --full catches those."""
    failed = 0
    for file in files:
        start = time.perf_counter()
        try:
            if is_machine_file(file):
                m = verify_machine(file)
                proven = f"; {prove_machine(file, m, machine_attrs(file))}" if full else ""
                click.echo(f"OK {file}: move-pruning machine, depth {m.depth}, {m.transitions.shape[0]:,} states"
                           f"{proven}, {time.perf_counter() - start:.2f}s")
                continue
            data, attrs = load_checked(file, {}, verify="always")
            check_name(file, attrs)
            proven = f"; {prove(file, data, attrs, progress=sys.stderr.isatty())}" if full else ""
        except TableError as e:
            failed += 1
            click.echo(f"error: {e}", err=True)
            continue
        except (PuzzleError, ValueError, KeyError, TypeError, IndexError) as e:  # attributes that do not parse
            failed += 1
            click.echo(f"error: {file} has malformed attributes ({e.__class__.__name__}: {e})", err=True)
            continue
        click.echo(f"OK {file}: {int(attrs['entries']):,} entries, crc32 {attrs['checksum_crc32']:08x}{proven}, "
                   f"{time.perf_counter() - start:.2f}s")
    if failed:
        raise SystemExit(TABLE_EXIT)

@main.command(short_help="Rewrite 1-byte group tables in 4 bits (lossless).")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@guarded
def pack(files: tuple[Path, ...]) -> None:
    """Rewrite 1-byte group tables in 4 bits an entry (lossless: h = the group's Manhattan
    distance + 2 x the stored value; the solver reads both). Tables whose values do not fit
    stay as they are."""
    for file in files:
        start = time.perf_counter()
        before = file.stat().st_size
        why = pack_pattern_file(file)
        if why is None:
            click.echo(f"packed {file}: {before / 1e6:.1f} -> {file.stat().st_size / 1e6:.1f} MB, "
                       f"{time.perf_counter() - start:.1f}s")
        else:
            click.echo(f"kept {file}: {why}")


if __name__ == "__main__":
    main()
