"""The `pdb` commands that look after built tables: list, info, verify, clean, plot, pack."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from ..build import zeroaware
from ..errors import PuzzleError, TableError
from ..files.attrs import plain
from ..files.catalog import (
    catalogue_tables,
    check_name,
    list_tables,
    load_checked,
    pack_pattern_file,
)
from ..files.datadir import data_dir_and_source, resolve_data_dir
from ..files.locks import stale
from ..files.machines import KIND, is_machine_file, machine_attrs, verify_machine
from ..files.rebuild import prove, prove_machine
from ..files.store import read_attrs, temporaries
from ..puzzle.board import make_goal
from ..puzzle.frame import Frame
from ..puzzle.geometry import Shape
from ..puzzle.patterns import CATALOGUES, group_label, parse_catalog
from ..puzzle.symmetry import catalogue_sums
from .common import TABLE_EXIT, data_dir_option, guarded


def _describe(attrs: dict) -> str:
    if attrs.get("kind") == "exact":
        return "exact"
    if attrs.get("kind") == KIND:
        return f"move pruning, depth {attrs.get('depth')}"
    zero = ", zero-aware" if attrs.get("encoding") == zeroaware.ENCODING else ""
    return f"tiles {attrs.get('tiles_label', '?')}{zero}"


@click.command("list", short_help="Show the tables in the data directory.")
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
            click.echo(
                f"no tables: {ddir} ({source}) does not exist (nothing was built there)", err=True
            )
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
            click.echo(
                json.dumps(
                    {
                        "file": str(tmp),
                        "bytes": tmp.stat().st_size,
                        "temporary": True,
                        "writer_pid": pid,
                        "writer_running": alive,
                    }
                )
            )
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
        click.echo(
            f"{path.name:40} {attrs['rows']}x{attrs['cols']:<3} {goal:>6} {_describe(attrs):24} {mb:8.1f} {mean}"
        )
    for tmp, pid, alive in leftovers:
        state = (
            f"being written (process {pid})"
            if alive
            else "left by a killed build: 'pdb clean' removes it"
        )
        click.echo(f"{tmp.name:40} {tmp.stat().st_size / 1e6:8.1f} MB {state}")
    for lock in locks:
        click.echo(
            f"{lock.name:40} a lock no process holds, left by a killed build: 'pdb clean' removes it"
        )
    for row in _catalogues_served(ddir, rows):
        click.echo(
            f"catalogue {row['catalogue']} ({row['board']}, goal b{row['blank_cell']}): {row['groups']} groups "
            f"(mirrors included) from {len(row['tables'])} tables; read through a symmetry:"
        )
        for s in row["served"]:
            if s["symmetry"] != "identity":
                click.echo(
                    f"  tiles {s['tiles_label']:24} <- {Path(s['file']).name} ({s['symmetry']})"
                )


def _catalogues_served(ddir: Path, rows: list) -> list[dict]:
    """For each named catalogue whose tables are all in ddir: which file serves each of its
    groups (its partitions' and their mirrors'), under which board symmetry (symmetry.serve,
    as the search reads them)."""
    out = []
    frames = {
        (a["rows"], a["cols"], int(a["blank_cell"]))
        for _, a, _ in rows
        if a is not None and a.get("kind") == "pdb" and "blank_cell" in a
    }
    for r, c, blank in sorted(frames):
        if blank != 0:
            continue  # named catalogues are written for the blank-first frame (blank-last's too)
        frame = Frame.for_goal(make_goal(Shape(r, c), "blank-first"))
        for name in CATALOGUES.get((r, c), {}):
            parts = parse_catalog(name, frame)
            served, files = catalogue_tables(frame, catalogue_sums(frame, parts), ddir)
            if not all(f.exists() for f in files):
                continue
            out.append(
                {
                    "catalogue": name,
                    "board": f"{r}x{c}",
                    "blank_cell": blank,
                    "groups": len(served),
                    "tables": sorted({str(f) for f in files}),
                    "served": [
                        {
                            "tiles": list(s.group),
                            "tiles_label": group_label(s.group),
                            "file": str(f),
                            "symmetry": s.sym.name,
                        }
                        for s, f in zip(served, files)
                    ],
                }
            )
    return out


LIST_FIELDS = (
    "kind",
    "rows",
    "cols",
    "goal",
    "tiles",
    "entries",
    "max",
    "mean",
    "checksum_crc32",
    "created",
)


@click.command(short_help="Remove what killed builds left behind.")
@data_dir_option
@guarded
def clean(data_dir) -> None:
    """Remove what killed builds left in the data directory: their temporary files and locks
    (those of running builds are kept)."""
    ddir = resolve_data_dir(data_dir)
    freed = 0
    for tmp, _pid, alive in temporaries(ddir):
        if not alive:
            freed += tmp.stat().st_size
            tmp.unlink(missing_ok=True)
            click.echo(f"removed {tmp}")
    for lock in stale(ddir):
        lock.unlink(missing_ok=True)
        click.echo(f"removed {lock}")
    click.echo(f"{freed / 1e6:.1f} MB freed in {ddir}", err=True)


@click.command(short_help="Draw each table's values (breadth-first layers).")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The picture to write: a .png or .svg file.",
)
@click.option(
    "--sum",
    "samples",
    type=click.IntRange(min=1, max=10_000_000),
    default=None,
    metavar="SAMPLES",
    help="Also draw the sum of the files' values (disjoint groups: a partition) at this many "
    "random states (loads the tables).",
)
@guarded
def plot(files: tuple[Path, ...], out: Path, samples: int | None) -> None:
    """Draw each table's entries per value, which are its breadth-first layers (needs the
    [plot] extra: matplotlib). Reads only the files' attributes, unless --sum."""
    from ..files.store import atomic
    from .plot import FORMATS, plot_tables, sampled_sums

    fmt = out.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise click.BadParameter(f"{out.name}: give a .png or .svg file", param_hint="--out")
    tables = [(f, read_attrs(f)) for f in files]
    sums = None
    if samples is not None:
        import numpy as np

        from ..files.catalog import load_checked

        sums = sampled_sums(
            [load_checked(f, {}) for f, _ in tables], samples, np.random.default_rng()
        )
    with atomic(out) as tmp:
        panels = plot_tables(tables, tmp, fmt, sums)
    click.echo(f"wrote {out}: {panels} panel{'s' if panels > 1 else ''}", err=True)


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@guarded
def info(file: Path, as_json: bool) -> None:
    """Print every attribute of a table file."""
    attrs = machine_attrs(file) if is_machine_file(file) else read_attrs(file)
    if as_json:
        click.echo(
            json.dumps(
                {k: v for k, v in sorted(attrs.items()) if not k.startswith("_")}, default=plain
            )
        )
        return
    for k in sorted(attrs):
        if not k.startswith("_"):
            click.echo(f"{k}: {attrs[k]}")


@click.command(short_help="Check tables in full; --full proves them right.")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--full",
    is_flag=True,
    help="Also prove each table right, not only intact: an exact table by one pass (every value "
    "the exact distance), a group table by building it again and comparing (as long as its "
    "build).",
)
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
                click.echo(
                    f"OK {file}: move-pruning machine, depth {m.depth}, {m.transitions.shape[0]:,} states"
                    f"{proven}, {time.perf_counter() - start:.2f}s"
                )
                continue
            check_name(file, read_attrs(file))  # (first: what the file claims to be says most)
            data, attrs = load_checked(file, {}, verify="always")
            proven = f"; {prove(file, data, attrs, progress=sys.stderr.isatty())}" if full else ""
        except TableError as e:
            failed += 1
            click.echo(f"error: {e}", err=True)
            continue
        # attributes that do not parse
        except (PuzzleError, ValueError, KeyError, TypeError, IndexError) as e:
            failed += 1
            click.echo(
                f"error: {file} has malformed attributes ({e.__class__.__name__}: {e})", err=True
            )
            continue
        click.echo(
            f"OK {file}: {int(attrs['entries']):,} entries, crc32 {attrs['checksum_crc32']:08x}{proven}, "
            f"{time.perf_counter() - start:.2f}s"
        )
    if failed:
        raise SystemExit(TABLE_EXIT)


@click.command(short_help="Rewrite 1-byte group tables in 4 bits (lossless).")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
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
            click.echo(
                f"packed {file}: {before / 1e6:.1f} -> {file.stat().st_size / 1e6:.1f} MB, "
                f"{time.perf_counter() - start:.1f}s"
            )
        else:
            click.echo(f"kept {file}: {why}")
