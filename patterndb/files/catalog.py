"""Names, builds and loads the table files of a data directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..build import proof, zeroaware
from ..build.additive import build_pattern, build_regions, regions_fit
from ..build.blankfree import build_blank_free
from ..build.exact import (
    MAX_EXACT_CELLS,
    UNREACHED,
    build_exact,
    histogram,
    histogram_mean,
    table_size,
)
from ..build.nibbles import DECODING, ENCODING, goal_md, nibble_histogram, pack
from ..build.nibbles import entry as nibble_entry
from ..build.nibbles import unpack as unpack_kernel
from ..errors import TableError
from ..puzzle.frame import Frame
from ..puzzle.patterns import (
    Partition,
    catalog_groups,
    goal_index,
    group_label,
    is_zero_aware,
    pattern_tiles,
)
from ..puzzle.ranking import num_placements
from ..puzzle.symmetry import Served, serve
from .attrs import is_packed, stored_size
from .attrs import is_zero_aware as store_zero_aware
from .buildcheck import build_lock, check_exact_build, check_pattern_build, check_writable
from .mapping import map_tables
from .store import load_table, read_attrs, write_table

EXACT_INDEX = "Lehmer rank of the cells of tiles 0..n-1 (0 = blank) in the canonical goal frame"


def exact_path(data_dir: Path, frame: Frame) -> Path:
    return Path(data_dir) / f"exact-{frame.key}.h5"


def exact_expect(frame: Frame) -> dict[str, Any]:
    """The attributes an exact table of frame must have (entries too: a file that claims fewer
    would let a lookup read past its table)."""
    return {
        "kind": "exact",
        "rows": frame.shape.rows,
        "cols": frame.shape.cols,
        "goal": str(frame.canonical_goal),
        "entries": table_size(frame.shape.n),
    }


def build_exact_file(frame: Frame, data_dir: Path, progress: bool = False) -> Path:
    """Build the complete table for frame's board and write it; returns the path."""
    check_exact_build(frame, data_dir)
    path = exact_path(data_dir, frame)
    with build_lock(path, progress) as built_meanwhile:
        if not built_meanwhile:
            _write_exact(frame, path, progress)
    return path


def _write_exact(frame: Frame, path: Path, progress: bool) -> None:
    table, seconds = build_exact(frame, progress=progress)
    hist = histogram(table)
    attrs = exact_expect(frame) | {
        "index": EXACT_INDEX,
        "values": "optimal number of moves to the goal; 255 = unreachable (wrong parity)",
        "unreachable": UNREACHED,
        "blank_cell": frame.blank_cell,
        "states": int(hist.sum()),
        "histogram": hist,
        "max": int(hist.size - 1),
        "mean": histogram_mean(hist),
        "build_seconds": float(seconds),
    }
    # (cheap: 3x3 in well under a second; larger ones: pdb verify --full)
    if table.size <= proof.CHECK_AT_BUILD:
        proof.prove_exact(path, table, attrs)
    write_table(path, table, attrs)


def expected_name(attrs: dict[str, Any]) -> str:
    """The file name the loader looks for, from the table's own attributes."""
    key = f"{int(attrs['rows'])}x{int(attrs['cols'])}-b{str(attrs['goal']).split().index('0')}"
    if attrs.get("kind") == "exact":
        return f"exact-{key}.h5"
    return f"pdb-{key}-{group_label(tuple(int(t) for t in attrs.get('tiles', [])))}.h5"


def check_canonical_goal(path: Path, attrs: dict[str, Any]) -> None:
    """Every build writes its table in the canonical frame (frame.Frame: the blank on a cell of
    the board's first half, the tiles numbered in cell order around it): a table claiming
    another goal was not written by a build, and no solver would ask for it."""
    goal = [int(t) for t in str(attrs["goal"]).split()]
    n = int(attrs["rows"]) * int(attrs["cols"])
    b = goal.index(0) if 0 in goal else -1
    if (
        len(goal) != n
        or not 0 <= b <= (n - 1) // 2
        or goal != [0 if c == b else c + (c < b) for c in range(n)]
    ):
        raise TableError(
            f"{path} claims the goal {attrs['goal']!r}, not a canonical goal (the blank on one of the "
            f"first {(n + 1) // 2} cells, the tiles numbered around it): no build writes it"
        )


def check_name(path: Path, attrs: dict[str, Any]) -> None:
    """A table under another table's name would be loaded as that one (pdb verify checks
    this), and one claiming a goal no build writes is no table at all."""
    check_canonical_goal(path, attrs)
    want = expected_name(attrs)
    if Path(path).name != want:
        raise TableError(
            f"{path} holds the table that is named {want}: its name and its attributes disagree"
        )


def load_checked(
    path: Path, expect: dict[str, Any], out: np.ndarray | None = None, verify: str = "once"
) -> tuple[np.ndarray, dict[str, Any]]:
    """load_table, and the goal's entry must be 0: a table for other tiles or with shifted values
    passes a checksum recomputed by whoever changed it, and would make IDA* never stop."""
    table, attrs = load_table(path, expect, out=out, verify=verify)
    check_goal_entry(path, attrs, table)
    return table, attrs


def check_goal_entry(path: Path, attrs: dict[str, Any], table: np.ndarray) -> None:
    g = goal_index(attrs)
    v = nibble_entry(table, g) if is_packed(attrs) or store_zero_aware(attrs) else int(table[g])
    # (a flagged code: its minimum + flag_code)
    if store_zero_aware(attrs) and v >= int(attrs["flag_code"]):
        v -= int(attrs["flag_code"])  # (the goal's Manhattan distance is 0)
    if v != 0:
        raise TableError(
            f"{path} is damaged or not what its attributes say: the goal's entry is {v}, not 0"
        )


def map_checked(
    paths: list[Path], expects: list[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Several tables in one array (data, offsets, attributes): memory-mapped where the
    platform and the files allow, else read; each checked as load_checked does."""
    mapped = map_tables(paths, expects)
    if mapped is None:
        sizes = [stored_size(read_attrs(p)) for p in paths]
        offsets = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
        data = np.empty(sum(sizes), dtype=np.uint8)
        attrs = [
            load_table(p, e, out=data[o : o + n])[1]
            for p, e, o, n in zip(paths, expects, offsets, sizes)
        ]
        mapped = data, offsets, attrs
    data, offsets, attrs = mapped
    for p, a, o in zip(paths, attrs, offsets):
        check_goal_entry(p, a, data[o : o + stored_size(a)])
    return mapped


def load_exact(frame: Frame, data_dir: Path) -> np.ndarray:
    path = exact_path(data_dir, frame)
    if not path.exists() and frame.shape.n > MAX_EXACT_CELLS:
        raise TableError(
            f"exact tables go up to {MAX_EXACT_CELLS} cells, a {frame.shape} board has {frame.shape.n}: "
            "'solver solve' finds the distance as the optimal solution length"
        )
    if not path.exists():
        raise TableError(
            f"no exact table for {frame.shape} in {data_dir}: "
            f"run 'pdb build --rows {frame.shape.rows} --cols {frame.shape.cols}'"
        )
    table, _ = load_checked(path, exact_expect(frame))
    return table


def list_tables(data_dir: Path) -> list[tuple[Path, dict[str, Any] | None, str]]:
    """Every *.h5 in data_dir with its attributes (None and the reason when unreadable)."""
    from .machines import is_machine_file, machine_attrs

    out = []
    for path in sorted(Path(data_dir).glob("*.h5")):
        try:
            if is_machine_file(path):
                attrs = machine_attrs(path)
            else:
                attrs = read_attrs(path)
                check_name(path, attrs)  # a table under another's name would be loaded as that one
            out.append((path, attrs, ""))
        except TableError as e:
            out.append((path, None, str(e)))
    return out


PDB_INDEX = (
    "rank of the cells of the group's tiles, in increasing tile order, in the canonical goal frame"
)
PDB_COST = (
    "Korf-Felner additive: a move of a pattern tile costs 1, other tiles and the blank move free; "
    "minimum over blank positions"
)


def pattern_path(data_dir: Path, frame: Frame, tiles: tuple[int, ...]) -> Path:
    return Path(data_dir) / f"pdb-{frame.key}-{group_label(tiles)}.h5"


def catalogue_tables(
    frame: Frame, sums: tuple[Partition, ...], data_dir: Path, planned=frozenset()
) -> tuple[list[Served], list[Path]]:
    """How each group of a catalogue's sums is read (symmetry.serve, the tables in data_dir
    first, and those in planned: to be built before it), and the file of each one's table
    (not yet built, maybe): what `pdb build` builds, `pdb list` shows and the search maps."""
    served = serve(
        frame,
        catalog_groups(sums),
        lambda g: g in planned or pattern_path(data_dir, frame, g).exists(),
    )
    return served, [pattern_path(data_dir, frame, s.table) for s in served]


def pattern_expect(frame: Frame, tiles: tuple[int, ...]) -> dict[str, Any]:
    """The attributes the table of tiles must have, checked on every load (entries: one per
    placement of the group's tiles; fewer would let the search read past the table)."""
    return {
        "kind": "pdb",
        "rows": frame.shape.rows,
        "cols": frame.shape.cols,
        "goal": str(frame.canonical_goal),
        "tiles": np.array(tiles, dtype=np.int64),
        "entries": num_placements(frame.shape.n, len(pattern_tiles(tiles))),
    }


def build_pattern_file(
    frame: Frame,
    tiles: tuple[int, ...],
    data_dir: Path,
    progress: bool = False,
    packed: bool = True,
) -> Path:
    """Build one group's table and write it atomically (in 4 bits an entry where it fits,
    unless packed is False); returns the path."""
    check_pattern_build(frame, tiles, data_dir)
    path = pattern_path(data_dir, frame, tiles)
    with build_lock(path, progress) as built_meanwhile:
        if not built_meanwhile:
            _write_pattern(frame, tiles, path, progress, packed)
    return path


def _write_pattern(
    frame: Frame, tiles: tuple[int, ...], path: Path, progress: bool, packed: bool
) -> None:
    write_table(path, *pattern_data(frame, tiles, progress, packed))


def pattern_data(
    frame: Frame, tiles: tuple[int, ...], progress: bool = False, packed: bool = True
) -> tuple[np.ndarray, dict[str, Any]]:
    """(data, attributes) of one group's table, built in memory: what build_pattern_file
    writes, and what `pdb verify --full` compares a file with (patterndb.files.rebuild)."""
    n, placed = frame.shape.n, pattern_tiles(tiles)
    goal_cells = frame.canonical_goal.positions()[list(placed)]
    label = f"{frame.shape} tiles {group_label(tiles)}" if progress else None
    zero = is_zero_aware(tiles)
    blank_free = not zero and not regions_fit(n, len(placed))  # (patterndb.build.blankfree)
    if zero:
        table, words, seconds, levels = build_regions(
            frame.shape.neighbours, frame.shape.cols, goal_cells, frame.blank_cell, label
        )
    elif blank_free:
        table, seconds, levels = build_blank_free(frame.shape.neighbours, goal_cells, label)
    else:
        table, seconds, levels = build_pattern(
            frame.shape.neighbours, frame.shape.cols, goal_cells, frame.blank_cell, label
        )
    hist = histogram(table)
    attrs = pattern_expect(frame, tiles) | {
        "tiles_label": group_label(tiles),
        "index": PDB_INDEX,
        "values": "fewest moves of the group's tiles to bring them home (admissible, additive over disjoint groups)"
        + ("; the blank taken to be anywhere" if blank_free else ""),
        "cost_model": PDB_COST,
        "blank_cell": frame.blank_cell,
        "unreachable": UNREACHED,
        "placements": num_placements(n, len(placed)),
        "placements_reached": int(hist.sum()),
        "histogram": hist,
        "max": int(hist.size - 1),
        "mean": histogram_mean(hist),
        "build_seconds": float(seconds),
    }
    if zero:
        return _zero_aware_form(table, words, attrs)
    return packed_form(table, attrs) if packed else (table, attrs | {"encoding": "byte"})


def _zero_aware_form(
    table: np.ndarray, words: np.ndarray, attrs: dict[str, Any]
) -> tuple[np.ndarray, dict[str, Any]]:
    """(data, attributes) of a zero-aware table, from the build's placements and regions."""
    n = int(attrs["rows"]) * int(attrs["cols"])
    made = zeroaware.zero_aware_table(table, words, n, _group_md(attrs))
    if made is None:
        raise TableError(
            f"the zero-aware table of tiles {attrs['tiles_label']} has values beyond 4 bits"
        )
    data, layout = made
    return data, attrs | layout | {
        "encoding": zeroaware.ENCODING,
        "decoding": zeroaware.DECODING,
        "entries": table.size,
        "max_raise": 2 * zeroaware.MAX_RAISE,
        "values": "fewest moves of the group's tiles to bring them home from the placement with the blank "
        "in its region (admissible, additive over disjoint groups); histogram: per placement, "
        "the minimum over regions",
        "cost_model": PDB_COST.replace(
            "minimum over blank positions",
            "per blank region, at most max_raise above the minimum over them",
        ),
    }


def _group_md(attrs: dict[str, Any]) -> np.ndarray:
    """goal_md of the table described by attrs (its tiles' goal cells on its board)."""
    n, cols = int(attrs["rows"]) * int(attrs["cols"]), int(attrs["cols"])
    goal = [int(t) for t in str(attrs["goal"]).split()]
    tiles = pattern_tiles(tuple(int(t) for t in attrs["tiles"]))
    return goal_md(cols, np.array([goal.index(t) for t in tiles], dtype=np.int64), n)


def packed_form(table: np.ndarray, attrs: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """(data, attributes) to store: 4 bits an entry where every entry fits, else the bytes as they are."""
    n = int(attrs["rows"]) * int(attrs["cols"])
    packed = pack(table, len(attrs["tiles"]), n, _group_md(attrs))
    if packed is None:
        return table, attrs | {"encoding": "byte"}
    return packed, attrs | {
        "encoding": ENCODING,
        "decoding": DECODING,
        "entries": table.size,
        "nibble_histogram": nibble_histogram(packed, table.size),
    }


def pack_pattern_file(path: Path) -> str | None:
    """Rewrite a 1-byte group table in 4 bits (atomically, values unchanged); None where done,
    else why it was kept as it is."""
    attrs = read_attrs(path)
    if is_packed(attrs):
        return "it is 4-bit already"
    if store_zero_aware(attrs):
        return "it is zero-aware (4-bit codes already)"
    if attrs.get("kind") != "pdb":
        return f"it is not a group table (kind {attrs.get('kind')!r})"
    check_writable(Path(path).parent, stored_size(attrs) // 2, f"the 4-bit form of {path}")
    table, attrs = load_checked(path, {}, verify="always")
    keep = {
        k: v
        for k, v in attrs.items()
        if not k.startswith("_")
        and k not in ("format_version", "entries", "checksum_crc32", "created", "encoding")
    }
    data, new = packed_form(table, keep)
    if not is_packed(new):
        return "a value does not fit in 4 bits (h minus the group's Manhattan distance, halved, above 15)"
    write_table(path, data, new)
    return None


def load_pattern(frame: Frame, tiles: tuple[int, ...], data_dir: Path) -> np.ndarray:
    """The group's h value of every placement (one byte each, whatever the file's encoding)."""
    path = pattern_path(data_dir, frame, tiles)
    if not path.exists():
        raise TableError(f"no table for tiles {group_label(tiles)} of {frame.shape} in {data_dir}")
    table, attrs = load_checked(path, pattern_expect(frame, tiles))
    if store_zero_aware(attrs):
        raise TableError(
            f"{path} is zero-aware: a value per blank region (its 'decoding' attribute says how)"
        )
    return unpack(table, attrs) if is_packed(attrs) else table


def unpack(packed: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """The h value of every entry of a 4-bit table (one byte each); of a zero-aware table, the
    plain reading of its codes (md + 2c: for a flagged placement, flag_code too many)."""
    n = int(attrs["rows"]) * int(attrs["cols"])
    # (a zero-aware group's blank is not placed)
    k = len(pattern_tiles(tuple(int(t) for t in attrs["tiles"])))
    return unpack_kernel(packed, int(attrs["entries"]), k, n, _group_md(attrs))
