"""Disjoint additive pattern databases as a heuristic, with diagonal reflection.

All group tables are memory-mapped into one flat uint8 array (read into one
where mapping is not possible), group g at offsets[g]. On square boards whose
goal is symmetric about the main diagonal (blank in a diagonal corner, e.g.
blank-first), the mirrored state is looked up too and the larger sum is used
(Korf & Felner 2002). Both sums are admissible, not consistent (a table keeps
the minimum over blank regions). A catalogue is the maximum over several
partitions' sums (each with its mirror), each table mapped once however many
partitions share it (search/idastar_max.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from patterndb.catalog import map_checked, pattern_expect, pattern_path
from patterndb.frame import Frame
from patterndb.patterns import Partition, catalog_groups, pattern_tiles
from patterndb.store import is_packed
from patterndb.store import is_zero_aware as store_zero_aware

from .base import Heuristic, kernel_tuple
from .kernels import PDB, PDB_MAX


def reflection(frame: Frame) -> tuple[np.ndarray, np.ndarray] | None:
    """(refl_tile, refl_cell) mapping the canonical goal onto itself by transposition, or None."""
    shape = frame.shape
    if shape.rows != shape.cols:
        return None
    n, s = shape.n, shape.cols
    cell = np.array([(c % s) * s + c // s for c in range(n)], dtype=np.int64)
    goal = frame.canonical_goal.tiles.astype(np.int64)
    gpos = frame.canonical_goal.positions()
    tile = goal[cell[gpos]]
    if tile[0] != 0:
        return None  # the blank's goal cell is off the diagonal
    return tile, cell


_loaded: dict[tuple, Heuristic] = {}  # this process's heuristics, by their files' identities
_LOADED_MAX = 8


def pdb(frame: Frame, parts: tuple[Partition, ...], paths: list[Path], name: str, reflect: bool = True) -> Heuristic:
    """The additive heuristic of one partition's group tables, or the maximum over several
    partitions (a catalogue); paths: the table of each of catalog_groups(parts), in order.

    Kept for the rest of the process, keyed by the files' paths, sizes, mtimes and
    inodes: repeated solve() calls reuse the mapped tables, and a rebuilt or changed
    file is loaded (and checked) afresh."""
    stats = [Path(p).stat() for p in paths]
    key = (frame.key, parts, tuple(str(Path(p).absolute()) for p in paths),
           tuple((s.st_size, s.st_mtime_ns, s.st_ino) for s in stats), name, reflect)
    if key not in _loaded:
        if len(_loaded) >= _LOADED_MAX:
            _loaded.pop(next(iter(_loaded)))
        _loaded[key] = _load(frame, parts, paths, name, reflect)
    return _loaded[key]


def _load(frame: Frame, parts: tuple[Partition, ...], paths: list[Path], name: str, reflect: bool) -> Heuristic:
    n = frame.shape.n
    groups = catalog_groups(parts)
    table, offsets, attrs = map_checked(list(paths), [pattern_expect(frame, g) for g in groups])
    fingerprints = [f"{Path(p).name}:{a['checksum_crc32']}" for p, a in zip(paths, attrs)]
    placed = [pattern_tiles(g) for g in groups]
    kmax = max(len(g) for g in placed)
    group_tiles = np.zeros((len(groups), kmax), dtype=np.int64)
    group_of = np.full(n, -1, dtype=np.int64)
    for i, g in enumerate(placed):
        group_tiles[i, : len(g)] = g
        group_of[list(g)] = i
    refl = reflection(frame) if reflect else None
    refl_tile, refl_cell = refl if refl is not None else (np.zeros(1, np.int64), np.zeros(1, np.int64))
    catalogue = {}
    if len(parts) > 1:  # instance i: group inst_group[i] in partition part_of[i]
        inst = [(p, groups.index(g)) for p, part in enumerate(parts) for g in part]
        tile_inst = np.full((n, len(parts)), -1, dtype=np.int64)
        for i, (p, g) in enumerate(inst):
            tile_inst[list(placed[g]), p] = i
        catalogue = {"tile_inst": tile_inst, "inst_group": np.array([g for _, g in inst], dtype=np.int64),
                     "part_of": np.array([p for p, _ in inst], dtype=np.int64)}
    H = kernel_tuple(
        PDB_MAX if catalogue else PDB, frame.canonical_goal, table=table, group_of=group_of,
        group_tiles=group_tiles, group_k=np.array([len(g) for g in placed], dtype=np.int64), offsets=offsets,
        refl_tile=refl_tile, refl_cell=refl_cell, reflect=refl is not None,
        packed=np.array([2 if store_zero_aware(a) else int(is_packed(a)) for a in attrs], dtype=np.int64), **catalogue,
        **_zero_aware_fields(attrs, offsets),
    )
    label = f"pdb {name}" + (" + reflection" if refl is not None else "")
    return Heuristic(label, True, False, H, tuple(fingerprints))


def _zero_aware_fields(attrs: list[dict], offsets: np.ndarray) -> dict[str, np.ndarray]:
    """The kernel tuple's zero-aware field (per group: region bytes, flag code, where its
    prefix (-1: dense) and region words start in the mapped tables, and where a flagged
    code's first read is: base + mul * (rank >> shift)), or nothing when no table is
    zero-aware."""
    if not any(store_zero_aware(a) for a in attrs):
        return {}
    zinfo = np.zeros((len(attrs), 7), dtype=np.int64)
    for g, a in enumerate(attrs):
        if store_zero_aware(a):
            nbytes, regions = int(a["region_bytes"]), offsets[g] + int(a["regions_at"])
            dense = int(a["prefix_at"]) < 0
            prefix = -1 if dense else offsets[g] + int(a["prefix_at"])
            # what a flagged code reads first: its word (dense) or its block's prefix count
            first = (regions, nbytes, 0) if dense else (prefix, 4, 6)
            zinfo[g] = (nbytes, int(a["flag_code"]), prefix, regions, *first)
    return {"zinfo": zinfo}


def cached(frame: Frame, groups: Partition, data_dir: Path) -> list[Path] | None:
    """The table files of every group, or None if any is missing."""
    paths = [pattern_path(data_dir, frame, g) for g in groups]
    return paths if all(p.exists() for p in paths) else None
