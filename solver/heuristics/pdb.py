"""Disjoint additive pattern databases as a heuristic, with diagonal reflection.

All group tables are memory-mapped into one flat uint8 array (read into one
where mapping is not possible), group g at offsets[g]. On square boards whose
goal is symmetric about the main diagonal (blank in a diagonal corner, e.g.
blank-first), the mirrored state is looked up too and the larger sum is used
(Korf & Felner 2002). Both sums are admissible, not consistent (a table keeps
the minimum over blank regions). A catalogue is the maximum over several
partitions' sums (a mirror is a partition of its own there), each table mapped
once however many groups it serves, its own or a symmetric one's
(patterndb.puzzle.symmetry; search/idastar_max.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from patterndb.files.attrs import is_packed
from patterndb.files.attrs import is_zero_aware as store_zero_aware
from patterndb.files.catalog import catalogue_tables, map_checked, pattern_expect, pattern_path
from patterndb.puzzle.frame import Frame
from patterndb.puzzle.patterns import Partition, catalog_groups, pattern_tiles
from patterndb.puzzle.symmetry import Served, diagonal

from ..search.heuristic import PDB, PDB_MAX
from .base import Heuristic, kernel_tuple

_loaded: dict[tuple, Heuristic] = {}  # this process's heuristics, by their files' identities
_LOADED_MAX = 8


def _kept(key: tuple, paths: list[Path], load) -> Heuristic:
    """load(), kept for the rest of the process under key and the files' paths, sizes,
    mtimes and inodes: repeated solve() calls reuse the mapped tables, and a rebuilt or
    changed file is loaded (and checked) afresh."""
    stats = [Path(p).stat() for p in paths]
    key = (
        *key,
        tuple(str(Path(p).absolute()) for p in paths),
        tuple((s.st_size, s.st_mtime_ns, s.st_ino) for s in stats),
    )
    if key not in _loaded:
        if len(_loaded) >= _LOADED_MAX:
            _loaded.pop(next(iter(_loaded)))
        _loaded[key] = load()
    return _loaded[key]


def pdb(
    frame: Frame, part: Partition, paths: list[Path], name: str, reflect: bool = True
) -> Heuristic:
    """The additive heuristic of one partition's group tables (paths: each group's, in order),
    with its diagonal mirror where the goal has one."""
    return _kept(
        (frame.key, part, name, reflect),
        list(paths),
        lambda: _load(frame, part, paths, name, reflect),
    )


def catalogue(
    frame: Frame, sums: tuple[Partition, ...], served: list[Served], paths: list[Path], name: str
) -> Heuristic:
    """The maximum over several partitions' sums (symmetry.catalogue_sums: a mirror is a
    partition there); served[i] says how the i-th group of catalog_groups(sums) is read
    (symmetry.serve), and paths[i] is its table's file."""
    return _kept(
        (frame.key, sums, tuple((s.table, s.sym.name) for s in served), name),
        list(paths),
        lambda: _load_catalogue(frame, sums, served, paths, name),
    )


def _load(frame: Frame, part: Partition, paths: list[Path], name: str, reflect: bool) -> Heuristic:
    n = frame.shape.n
    table, offsets, attrs = map_checked(list(paths), [pattern_expect(frame, g) for g in part])
    fingerprints = [f"{Path(p).name}:{a['checksum_crc32']}" for p, a in zip(paths, attrs)]
    placed = [pattern_tiles(g) for g in part]
    kmax = max(len(g) for g in placed)
    group_tiles = np.zeros((len(part), kmax), dtype=np.int64)
    group_of = np.full(n, -1, dtype=np.int64)
    for i, g in enumerate(placed):
        group_tiles[i, : len(g)] = g
        group_of[list(g)] = i
    refl = diagonal(frame) if reflect else None
    refl_tile, refl_cell = (
        refl if refl is not None else (np.zeros(1, np.int64), np.zeros(1, np.int64))
    )
    H = kernel_tuple(
        PDB,
        frame.canonical_goal,
        table=table,
        group_of=group_of,
        group_tiles=group_tiles,
        group_k=np.array([len(g) for g in placed], dtype=np.int64),
        offsets=offsets,
        refl_tile=refl_tile,
        refl_cell=refl_cell,
        reflect=refl is not None,
        packed=np.array(
            [2 if store_zero_aware(a) else int(is_packed(a)) for a in attrs], dtype=np.int64
        ),
        **_zero_aware_fields(attrs, offsets),
    )
    label = f"pdb {name}" + (" + reflection" if refl is not None else "")
    return Heuristic(label, True, False, H, tuple(fingerprints))


def _load_catalogue(
    frame: Frame, sums: tuple[Partition, ...], served: list[Served], paths: list[Path], name: str
) -> Heuristic:
    n = frame.shape.n
    groups = catalog_groups(sums)
    # each table once, however many groups it serves
    files = list(dict.fromkeys(s.table for s in served))
    path_of = {s.table: p for s, p in zip(served, paths)}
    table, file_offsets, attrs = map_checked(
        [path_of[t] for t in files], [pattern_expect(frame, t) for t in files]
    )
    fingerprints = [f"{path_of[t].name}:{a['checksum_crc32']}" for t, a in zip(files, attrs)]
    which = [files.index(s.table) for s in served]  # each group's file
    kmax = max(len(pattern_tiles(g)) for g in groups)
    group_tiles = np.zeros((len(groups), kmax), dtype=np.int64)
    cellmap = np.empty((len(groups), n), dtype=np.int64)
    for i, s in enumerate(served):
        tiles = s.tiles(frame)
        group_tiles[i, : len(tiles)] = tiles
        cellmap[i] = s.sym.inverse
    inst = [
        (p, groups.index(g)) for p, part in enumerate(sums) for g in part
    ]  # instance: group in partition
    tile_inst = np.full((n, len(sums)), -1, dtype=np.int64)
    for i, (p, g) in enumerate(inst):
        tile_inst[list(pattern_tiles(groups[g])), p] = i
    zero = _zero_aware_fields(attrs, file_offsets)
    H = kernel_tuple(
        PDB_MAX,
        frame.canonical_goal,
        table=table,
        group_tiles=group_tiles,
        group_k=np.array([len(pattern_tiles(g)) for g in groups], dtype=np.int64),
        offsets=file_offsets[which].astype(np.int64),
        packed=np.array(
            [2 if store_zero_aware(attrs[w]) else int(is_packed(attrs[w])) for w in which],
            dtype=np.int64,
        ),
        tile_inst=tile_inst,
        inst_group=np.array([g for _, g in inst], dtype=np.int64),
        part_of=np.array([p for p, _ in inst], dtype=np.int64),
        cellmap=cellmap,
        **({"zinfo": zero["zinfo"][which]} if zero else {}),
    )
    return Heuristic(
        f"pdb {name}, {len(sums)} sums from {len(files)} tables",
        True,
        False,
        H,
        tuple(fingerprints),
    )


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


def cached_catalogue(
    frame: Frame, sums: tuple[Partition, ...], data_dir: Path
) -> tuple[list[Served], list[Path]] | None:
    """How each group of the sums is read (symmetry.serve) and from which file, or None if
    a table is missing."""
    served, paths = catalogue_tables(frame, sums, data_dir)
    return (served, paths) if all(p.exists() for p in paths) else None
