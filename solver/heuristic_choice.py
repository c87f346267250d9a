"""The heuristic a plan searches with: the one asked for (a classic one, named pattern
databases, table files, a race of two), or the strongest whose tables are built; and the
`pdb build` line that would build what is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from patterndb import BoardError, Frame, TableError, make_goal
from patterndb.build.exact import build_exact
from patterndb.errors import WriteError
from patterndb.files.attrs import check_attrs
from patterndb.files.buildcheck import check_exact_build
from patterndb.files.catalog import build_exact_file, exact_path, pattern_expect
from patterndb.files.store import read_attrs
from patterndb.puzzle.patterns import (
    TABLELESS,
    group_label,
    is_zero_aware,
    named_partitions,
    parse_catalog,
    parse_partition,
    pattern_tiles,
    race_spec,
    zero_aware_fits,
)
from patterndb.puzzle.symmetry import catalogue_sums

from . import heuristics
from .heuristics import Heuristic
from .heuristics.pdb import cached, cached_catalogue, catalogue
from .plan import Log, Options

# what a plan may be asked for by name
HEURISTICS = "misplaced", "manhattan", "linear-conflict", "exact", "pdb"
AUTO_BUILD_CELLS = 9  # exact tables this small are built on first use (about a second)


def build_hint(frame: Frame, pattern: str) -> str:
    s = frame.shape
    size = f"--size {s.rows}" if s.rows == s.cols else f"--rows {s.rows} --cols {s.cols}"
    goal = (
        ""
        if frame.key == Frame.for_goal(make_goal(s, "blank-last")).key
        else f" --goal '{frame.goal}'"
    )
    return f"pdb build {size}{goal} --pattern {pattern}"


def exact_available(frame: Frame, data_dir: Path) -> bool:
    return exact_path(data_dir, frame).exists() or frame.shape.n <= AUTO_BUILD_CELLS


def exact_heuristic(frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The exact table, built on first use for boards of up to 9 cells: kept in the data
    directory, or, where that cannot be written (a read-only one), in this process's memory
    for this run (under a second)."""
    if not exact_path(data_dir, frame).exists() and frame.shape.n <= AUTO_BUILD_CELLS:
        try:
            check_exact_build(frame, data_dir)
        except WriteError as e:  # (not its memory: only that it cannot be kept)
            log(f"note: {e}: building the exact {frame.shape} table in memory for this run")
            return heuristics.exact_in_memory(frame, build_exact(frame)[0])
        log(f"building the exact {frame.shape} table in {data_dir} (first use) ...")
        build_exact_file(frame, data_dir)
    return heuristics.exact(frame, data_dir)


def _pdb_from_files(frame: Frame, files: tuple[Path, ...], reflect: bool) -> Heuristic:
    groups = []
    for f in files:
        attrs = read_attrs(f)
        if attrs.get("kind") != "pdb":
            raise TableError(f"{f} is not a pattern database (kind {attrs.get('kind')!r})")
        tiles = tuple(int(t) for t in attrs["tiles"])
        check_attrs(f, attrs, pattern_expect(frame, tiles))
        if set(pattern_tiles(tiles)) & {t for g in groups for t in pattern_tiles(g)}:
            raise BoardError(f"{f} overlaps another --pdb table: groups must be disjoint")
        groups.append(tiles)
    return heuristics.pdb(
        frame, tuple(groups), list(files), "/".join(group_label(g) for g in groups), reflect
    )


def pdb_named(frame: Frame, pattern: str, data_dir: Path, reflect: bool) -> Heuristic:
    parts = parse_catalog(pattern, frame)
    if len(parts) > 1:
        sums = catalogue_sums(frame, parts, reflect)
        found = cached_catalogue(frame, sums, data_dir)
        if found is not None:
            return catalogue(frame, sums, *found, pattern)
    else:
        paths = cached(frame, parts[0], data_dir)
        if paths is not None:
            return heuristics.pdb(frame, parts[0], paths, pattern, reflect)
    raise TableError(
        f"pattern {pattern} is not built for {frame.shape} in {data_dir}: run '{build_hint(frame, pattern)}'"
    )


def _built_tiles(frame: Frame, data_dir: Path) -> list[tuple[int, ...]]:
    """The tile groups (canonical numbering, sorted) whose tables are built for this frame."""
    groups = []
    for path in Path(data_dir).glob(f"pdb-{frame.key}-*.h5"):
        try:
            groups.append(tuple(sorted(int(t) for t in read_attrs(path)["tiles"])))
        except (TableError, KeyError):
            continue
    return groups


def built_groups(frame: Frame, data_dir: Path) -> list[str]:
    """The tile groups (in the user's numbering) whose tables are built for this board and goal."""
    groups = [
        tuple(sorted(int(frame.unlabel[t]) for t in g)) for g in _built_tiles(frame, data_dir)
    ]
    return [group_label(g) for g in sorted(groups)]


def _named_specs(frame: Frame) -> Iterator[str]:
    """The board's named partitions, strongest first, each zero-aware before plain where that fits."""
    for name, part in named_partitions(frame.shape.rows, frame.shape.cols).items():
        plain_only = any(map(is_zero_aware, part)) or not zero_aware_fits(frame.shape)
        yield from (name,) if plain_only else (f"z{name}", name)


def partly_built(frame: Frame, data_dir: Path) -> tuple[str, int, int] | None:
    """(name, tables built, tables it needs) of a named partition of which some tables, not
    all, are built (a build under way or stopped), strongest first; None if there is none."""
    built = set(_built_tiles(frame, data_dir))
    for spec in _named_specs(frame):
        groups = [tuple(sorted(g)) for g in parse_partition(spec, frame)]
        have = sum(g in built for g in groups)
        if 0 < have < len(groups):
            return spec, have, len(groups)
    return None


def strongest_pdb(frame: Frame, data_dir: Path, reflect: bool) -> Heuristic | None:
    """The first fully cached named partition (they are listed strongest first), zero-aware
    before plain."""
    for spec in _named_specs(frame):
        if cached(frame, parse_partition(spec, frame), data_dir) is not None:
            return pdb_named(frame, spec, data_dir, reflect)
    return None


def cached_race(frame: Frame, data_dir: Path, reflect: bool) -> tuple[Heuristic, Heuristic] | None:
    """The board's "best" race (patterns.RACES) when both its sides are built, else None."""
    spec = race_spec("best", frame)
    if "|" not in spec:
        return None
    try:
        return _race_sides(frame, spec.split("|"), data_dir, reflect)
    except TableError:
        return None


def _race_sides(
    frame: Frame, specs: list[str], data_dir: Path, reflect: bool
) -> tuple[Heuristic, Heuristic]:
    """A race's two heuristics, loaded from their specs (cheaper per node first)."""
    return tuple(_race_side(frame, spec, data_dir, reflect) for spec in specs)


def _race_side(frame: Frame, spec: str, data_dir: Path, reflect: bool) -> Heuristic:
    """One side of a race: named pattern databases, or a heuristic without tables
    (patterns.TABLELESS: linear conflict)."""
    if spec.strip() in TABLELESS:
        return heuristics.CLASSIC[spec.strip()](frame.canonical_goal)
    return pdb_named(frame, spec, data_dir, reflect)


def choose_heuristic(opts: Options, frame: Frame, data_dir: Path, log: Log) -> Heuristic:
    """The requested heuristic, or the strongest one available."""
    name = opts.heuristic
    if opts.pdb_files or opts.pattern:
        if name not in (None, "pdb"):
            raise BoardError(
                f"--pattern/--pdb choose pattern databases: they do not go with --heuristic {name}"
            )
        if opts.pdb_files:
            return _pdb_from_files(frame, opts.pdb_files, opts.reflect)
        return pdb_named(frame, opts.pattern, data_dir, opts.reflect)
    goal = frame.canonical_goal
    if name == "exact" or (name is None and exact_available(frame, data_dir)):
        return exact_heuristic(frame, data_dir, log)
    if name in heuristics.CLASSIC:
        return heuristics.CLASSIC[name](goal)
    if name not in (None, "pdb"):
        raise BoardError(
            f"unknown heuristic {name!r}: choose from {', '.join([*heuristics.CLASSIC, 'exact', 'pdb'])}"
        )
    h = strongest_pdb(frame, data_dir, opts.reflect)
    # The hint names the strongest plain partition: quicker to build, smaller, faster per node.
    named = [
        k
        for k, part in named_partitions(frame.shape.rows, frame.shape.cols).items()
        if not any(map(is_zero_aware, part))
    ]
    if h is None:
        groups = built_groups(frame, data_dir)
        partial = partly_built(frame, data_dir)
        if partial is not None:  # (a build under way or stopped)
            spec, have, need = partial
            hint = (
                f"; {spec} is incomplete: {have} of its {need} tables are built "
                f"('{build_hint(frame, spec)}' builds the rest)"
            )
        elif groups:  # tables of the user's own groups: they name them with --pattern
            hint = (
                f"; tables of tiles {', '.join(groups)} are: "
                f"give --pattern {'/'.join(groups)} (disjoint groups) to use them"
            )
        else:
            hint = (
                f": '{build_hint(frame, named[0])}' builds the strongest quick ones"
                if named
                else ""
            )
        if name == "pdb":
            raise TableError(
                f"no named pattern databases are built for {frame.shape} in {data_dir}{hint}"
            )
        if named or groups:
            log(f"no named pattern databases are built for {frame.shape}{hint}")
        return heuristics.linear_conflict(goal)
    return h


def race_pair(
    opts: Options, frame: Frame, data_dir: Path, algorithm: str, resuming: str | None = None
) -> tuple[Heuristic, Heuristic | None]:
    """The two heuristics of a race spec "A|B": A cheaper per node, B stronger (search.race);
    or, where a checkpoint was saved for one of them (resuming: its name, the race's winner),
    that one alone: a resumed search does not race again, so the loser's tables need not be
    built on the machine that picks the search up."""
    specs = [p.strip() for p in race_spec(opts.pattern, frame).split("|")]
    if len(specs) != 2 or not all(specs):
        raise BoardError(
            f"a race is two patterns joined by '|' (cheaper per node first), not {opts.pattern!r}"
        )
    if algorithm != "idastar":
        raise BoardError(
            f"a race of two heuristics ({opts.pattern}) is for idastar, not {algorithm}"
        )
    if opts.heuristic not in (None, "pdb") or opts.pdb_files:
        raise BoardError(
            f"--pattern {opts.pattern} chooses the heuristics: it does not go with --heuristic or --pdb"
        )
    if resuming is not None:
        for spec in specs:
            try:
                side = _race_side(frame, spec, data_dir, opts.reflect)
            except TableError:  # (not built here: if it was the winner, loading both says so below)
                continue
            if side.name == resuming:
                return side, None
    return _race_sides(frame, specs, data_dir, opts.reflect)
