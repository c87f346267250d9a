"""Pattern specifications: named partitions and explicit tile groups.

Named partitions are given in the canonical frame (blank-first layout, where
tile t's goal cell is t), so they mean "the corresponding groups" for any
goal the frame maps there (blank-last included). Explicit groups use the
user's own tile numbers: "1-7/8-15", "1,2,5,6/3,4,7,8", ranges allowed.
Tile 0, the blank, in a group makes its table zero-aware (patterndb.build.zeroaware:
one entry per blank region instead of their minimum): "0,1-7/0,8-15", or a
name with a leading z, "z7-8", for the named partition with the blank in every group.
A spec that names a partition for the board is read as that name, so
"7-8" is the 7-8 partition, not tiles 7 and 8 (write "7,8" for those); a
lone "a-b" that is not a name for the board is refused, not read as tiles.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import PatternError, TableError
from .frame import Frame

Partition = tuple[tuple[int, ...], ...]
# A zero-aware build packs a rank (32 bits), the covered cells and the blank's cell in one int64.
ZERO_AWARE_MAX_CELLS = 26


def _r(a: int, b: int) -> tuple[int, ...]:
    return tuple(range(a, b + 1))


_SIXES = (
    (1, 2, 5, 6, 7, 12),
    (3, 4, 8, 9, 13, 14),
    (10, 11, 15, 16, 20, 21),
    (17, 18, 19, 22, 23, 24),
)
# Four 6-tile blocks turned about the centre: a second partition whose blocks cut across
# 6-6-6-6's, so the maximum of the two gains where one of them is weak.
_PINWHEEL = (
    (1, 2, 3, 6, 7, 8),
    (4, 9, 13, 14, 19, 24),
    (5, 10, 11, 15, 16, 20),
    (12, 17, 18, 21, 22, 23),
)
# Clausecker & Reinefeld's best single partition (their catalogue's "best-single"): blocks of
# 3x2 and 2x3 at the bottom, two hooks at the top (A: 1,2,5,6,10,11; B: 3,4,7,8,9,12):
#     . A A B B
#     A A B B B
#     A A B C C
#     D D D C C
#     D D D C C
# Zero-aware alone it is weaker than z6-6-6-6 on Korf & Felner's 10 easiest (2.45 G nodes against
# 1.85 G), but it cuts across both 6-6-6-6 and the pinwheel, so it strengthens their maximum (max3).
_BLOCKS = (
    (1, 2, 5, 6, 10, 11),
    (3, 4, 7, 8, 9, 12),
    (13, 14, 18, 19, 23, 24),
    (15, 16, 17, 20, 21, 22),
)


def _banded(rows: int, cols: int, size: int) -> tuple[tuple[int, ...], ...]:
    """Groups of size tiles along two-row bands: each band walked a column at a time (its
    two cells top first), the bands in turn, left to right then right to left, cut into
    consecutive groups, the first one (round the blank) smaller where size does not divide
    the tiles: 2x2 blocks with size 4, a block and a tile with size 5. Sparse groups on a big
    board gain most from tiles that meet (in one row or column, or side by side), so a group is
    kept compact rather than spread out."""
    walk = []
    for band, top in enumerate(range(0, rows, 2)):
        columns = range(cols) if band % 2 == 0 else range(cols - 1, -1, -1)
        walk += [r * cols + q for q in columns for r in range(top, min(top + 2, rows))]
    tiles = [t for t in walk if t]  # canonical frame: tile t's goal cell is t, the blank's is 0
    cuts = [0, *range(len(tiles) % size or size, len(tiles) + 1, size)]
    return tuple(tuple(sorted(tiles[a:b])) for a, b in zip(cuts, cuts[1:]))


NAMED: dict[tuple[int, int], dict[str, tuple[tuple[int, ...], ...]]] = {
    (3, 3): {"4-4": (_r(1, 4), _r(5, 8))},
    (4, 4): {
        # The strongest that fits in memory (922 MB): 7-8 zero-aware, 44% fewer nodes on
        # Korf's 100 than 7-8 in about the same search time (slower per node: 46% of the
        # 8-tile placements have a region word to read). Listed first, so a solve without
        # --pattern uses it when it is built.
        "best": ((0, *_r(1, 7)), (0, *_r(8, 15))),
        "7-8": (_r(1, 7), _r(8, 15)),
        # Chosen by measurement on Korf's first 30 with reflection: these need
        # 2.9x (6-6-3) and 1.9x (5-5-5) fewer nodes than the compact blocks
        # 1-3,5-7/4,8,9,12-14/10,11,15 and 1-3,6,7/4,5,8,9,12/10,11,13-15.
        "6-6-3": ((1, 2, 4, 5, 8, 9), (3, 6, 7, 10, 11, 15), (12, 13, 14)),
        "5-5-5": ((1, 2, 4, 5, 8), (3, 6, 7, 10, 11), (9, 12, 13, 14, 15)),
    },
    (5, 5): {
        # z6-6-6-6 (534 MB), the zero-aware 6-6-6-6: on Korf & Felner's 10 easiest, 37% fewer
        # nodes than 6-6-6-6 and 8% less time with 2 threads. "best" on 5x5 is a race (RACES).
        "6-6-6-6": _SIXES,
        "pinwheel": _PINWHEEL,
        "blocks": _BLOCKS,
    },
    # The blank's regions are kept for 6x6's groups (at most 32 other cells), forgotten for
    # 7x7's (patterndb.build.blankfree). Build times and sizes: the README's table of partitions.
    (6, 6): {"strong": _banded(6, 6, 5), "fast": _banded(6, 6, 4)},
    (7, 7): {"strong": _banded(7, 7, 5), "fast": _banded(7, 7, 4)},
}


def _groups(*rows: str) -> tuple[tuple[int, ...], ...]:
    """Zero-aware groups from their tiles written out: "1,5,6,10,11,12" -> (0, 1, 5, 6, 10, 11, 12)."""
    return tuple((0, *map(int, r.split(","))) for r in rows)


# Clausecker & Reinefeld's catalogues (24puzzle's catalogues/): cr7 is small-t.cat, their SoCS 2019
# best: 7 partitions of zero-aware 6-tile groups and their transposes (here: each partition with its
# diagonal mirror, 14 lookups a node at most); published 1.18e12 expansions for Korf & Felner's 50
# without move pruning (../shared/data/korf24_50_nodecounts.txt, smallt_zpdb_exp), 7x fewer than
# 6-6-6-6. cr14 is improved-compound.cat: those 7 and 7 more (28 lookups at most), 20 tables.
_A, _B, _C, _D = "1,5,6,10,11,12", "2,3,4,7,8,9", "13,14,18,19,23,24", "15,16,17,20,21,22"
_E, _F, _G, _H = "1,2,5,6,10,11", "3,4,7,8,9,12", "13,14,15,16,17,18", "19,20,21,22,23,24"
_I, _J, _K, _L = "1,5,6,10,15,20", "11,12,16,17,21,22", "3,4,9,14,19,24", "7,8,12,13,18,23"
_M, _N, _O, _P = "2,3,7,8,13,18", "4,9,14,19,23,24", "11,12,13,16,17,18", "14,19,21,22,23,24"
_Q, _R, _S, _T = "1,2,5,6,10,15", "3,4,7,8,9,14", "11,16,17,20,21,22", "12,13,18,19,23,24"
_CR14 = tuple(
    _groups(*p)
    for p in (
        (_A, _B, _C, _D),
        (_E, _F, _C, _D),
        (_A, _B, _G, _H),
        (_E, _F, _G, _H),
        (_I, _B, _J, _C),
        (_E, _K, _L, _D),
        (_I, _M, _N, _J),
        (_A, _M, _N, _D),
        (_I, _B, _O, _P),
        (_Q, _R, _O, _H),
        (_Q, _K, _L, _S),
        (_Q, _F, _S, _C),
        (_E, _R, _T, _D),
        (_Q, _R, _S, _T),
    )
)
_CR7 = tuple(_CR14[i] for i in (0, 1, 2, 3, 4, 5, 8))
# Named catalogues: the maximum over partitions, for the fewest nodes rather than the least
# time (measured: 4x4, Korf's 100, 1 thread: 795,176 nodes against best's 693,950 since
# best's kernel visits the children lowest f first, 0.54 s against 0.22 s; 5x5, Korf &
# Felner's 10 easiest, 2 threads: 1.04 G nodes against 1.44 G, 141 s against 103-106 s).
CATALOGUES: dict[tuple[int, int], dict[str, str | tuple[Partition, ...]]] = {
    (4, 4): {"max2": "z7-8+6-6-3"},
    # max3: 0.96 G nodes on Korf & Felner's 10 easiest (0.72x max2's) in 264 s wall, 12.26 G on the 20 easiest.
    (5, 5): {
        "max2": "z6-6-6-6+zpinwheel",
        "max3": "zblocks+z6-6-6-6+zpinwheel",
        "cr7": _CR7,
        "cr14": _CR14,
    },
}
# Races (solver.ida.race): "A|B" searches each board with whichever of A (cheaper per node)
# and B finishes the same bound in less CPU time. best on 5x5: z6-6-6-6 wins the easy boards,
# cr14 the hard ones (docs/benchmarks.md, "A race of two heuristics"). best on 7x7: groups of 5
# tiles with the blank anywhere start below linear conflict on most random boards (13 of 20),
# and IDA* on linear conflict, 2-3x the time a node, proved as much or more in the same time
# on each of four (docs/benchmarks.md, "35- and 48-puzzles"); on 6x6 the tables proved more.
RACES: dict[tuple[int, int], dict[str, str]] = {
    (5, 5): {"best": "z6-6-6-6|cr14"},
    (7, 7): {"best": "strong|linear-conflict"},
}
# Race sides that are no tables (the solver's classic heuristics, by their names): nothing to build.
TABLELESS = ("linear-conflict",)
_TOKEN = re.compile(r"^(\d+)(?:-(\d+))?$")


def named_partitions(rows: int, cols: int) -> dict[str, tuple[tuple[int, ...], ...]]:
    return NAMED.get((rows, cols), {})


def _parse_group(text: str, n: int) -> list[int]:
    tiles: list[int] = []
    for tok in text.split(","):
        tok = tok.strip()
        m = _TOKEN.match(tok)
        if not m:
            raise PatternError(
                f"bad tile group item {tok!r}: use numbers and ranges like 1-7 or 1,2,5"
            )
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if a > b:
            raise PatternError(f"bad range {tok!r}: {a} > {b}")
        tiles.extend(range(a, b + 1))
    for t in tiles:
        if not 0 <= t <= n - 1:
            raise PatternError(
                f"tile {t} is not a tile of this board (tiles are 1..{n - 1}, and 0, the blank, "
                "makes a group's table zero-aware)"
            )
    return tiles


def pattern_tiles(group: tuple[int, ...]) -> tuple[int, ...]:
    """The group's tiles without the blank (the tiles its table places)."""
    return tuple(t for t in group if t != 0)


def is_zero_aware(group: tuple[int, ...]) -> bool:
    """Does the group's table keep one entry per blank region (the blank, 0, is in the group)?"""
    return 0 in group


def zero_aware_fits(shape) -> bool:
    """Can this board have zero-aware groups (the blank in a group)? Not above ZERO_AWARE_MAX_CELLS."""
    return shape.n <= ZERO_AWARE_MAX_CELLS


def _check_zero_aware(shape) -> None:
    if not zero_aware_fits(shape):
        raise PatternError(
            f"zero-aware tables (the blank, 0, in a group) are for boards of at most "
            f"{ZERO_AWARE_MAX_CELLS} cells, not {shape}: leave the blank out"
        )


def parse_partition(spec: str, frame: Frame) -> tuple[tuple[int, ...], ...]:
    """The tile groups of spec, as sorted canonical tile labels."""
    shape = frame.shape
    spec = spec.strip()
    named = named_partitions(shape.rows, shape.cols)
    if spec in named:
        return tuple(tuple(g) for g in named[spec])
    if spec.startswith("z") and spec[1:] in named:
        _check_zero_aware(shape)
        return tuple(g if 0 in g else (0, *g) for g in named[spec[1:]])
    if not spec:
        raise PatternError("empty pattern")
    names = ", ".join(named) or "none"
    if re.fullmatch(r"\d+(-\d+){2,}", spec):
        raise PatternError(
            f"no named partition {spec!r} for {shape} (named: {names}); give tile groups like 1-7/8-15"
        )
    groups = [_parse_group(g, shape.n) for g in spec.split("/")]
    seen: dict[int, int] = {}
    for i, g in enumerate(groups):
        if not g:
            raise PatternError("empty tile group")
        if not any(g):
            raise PatternError("a group of the blank alone: give tiles with it")
        if g.count(0) > 1:
            raise PatternError("tile 0 appears twice in one group: groups must be disjoint")
        for t in g:
            if t == 0:
                continue
            if t in seen:
                where = "twice in one group" if seen[t] == i else "in two groups"
                raise PatternError(f"tile {t} appears {where}: groups must be disjoint")
            seen[t] = i
    if any(0 in g for g in groups):
        _check_zero_aware(shape)
    for g in map(pattern_tiles, groups):
        if len(g) > shape.n - 2:
            raise PatternError(
                f"a group of {len(g)} tiles leaves no room for the blank to wander: at most {shape.n - 2}"
            )
    # reads like a name ("7-8" on 3x3 was one group of tiles 7 and 8)
    if re.fullmatch(r"\d+-\d+", spec):
        raise PatternError(
            f"{spec!r} is not a named partition for {shape} (named: {names}); for one group of "
            f"tiles {groups[0][0]} to {groups[0][-1]} write them with commas "
            f"({','.join(map(str, groups[0]))})"
        )
    return tuple(tuple(sorted(int(frame.label[t]) for t in g)) for g in groups)


def names_per_board(names: dict[tuple[int, int], dict]) -> str:
    """NAMED's or CATALOGUES' names per board, for --help texts: 'best, 7-8 on 4x4; ...'."""
    return "; ".join(
        f"{', '.join(by_name)} on {rows}x{cols}" for (rows, cols), by_name in names.items()
    )


def named_catalogues(rows: int, cols: int) -> dict[str, str | tuple[Partition, ...]]:
    """The board's catalogue names, each with the '+' spec it stands for or its partitions
    (canonical groups)."""
    return CATALOGUES.get((rows, cols), {})


def race_spec(spec: str, frame: Frame) -> str:
    """spec with a race's name replaced by the "A|B" it stands for."""
    return RACES.get((frame.shape.rows, frame.shape.cols), {}).get(spec.strip(), spec)


def _expand(spec: str, frame: Frame) -> str | tuple[Partition, ...]:
    """spec with a catalogue's name replaced by what it stands for."""
    return named_catalogues(frame.shape.rows, frame.shape.cols).get(spec.strip(), spec)


def is_named(spec: str, frame: Frame) -> bool:
    """Is spec made only of names (a race's, a catalogue's, or partitions' with or without z,
    joined by '+' or '|')?"""
    named = named_partitions(frame.shape.rows, frame.shape.cols)
    sides = [_expand(side, frame) for side in race_spec(spec, frame).split("|")]
    return all(
        isinstance(side, tuple)
        or side.strip() in TABLELESS
        or all(
            p.strip().removeprefix("z") in named or _expand(p, frame) != p for p in side.split("+")
        )
        for side in sides
    )


def parse_catalog(spec: str, frame: Frame) -> tuple[Partition, ...]:
    """Partitions joined by '+' (names, explicit groups or catalogues' names), or a
    catalogue's name: the heuristic is the maximum over them. One partition is the plain additive heuristic."""
    spec = _expand(spec, frame)
    if isinstance(spec, tuple):
        return spec
    parts: tuple[Partition, ...] = ()
    # a catalogue's name among them stands for its partitions ("cr14+A/B/C/D")
    for p in spec.split("+"):
        parts += parse_catalog(p, frame) if _expand(p, frame) != p else (parse_partition(p, frame),)
    if len(set(parts)) != len(parts):
        raise PatternError(f"a partition appears twice in {spec!r}")
    return parts


def catalog_groups(parts: tuple[Partition, ...]) -> Partition:
    """Every distinct group of the partitions, in order of first use (a table is loaded once)."""
    return tuple(dict.fromkeys(g for part in parts for g in part))


def group_label(tiles: tuple[int, ...]) -> str:
    """'1-7', '1,2,5,6': compact text of a sorted tile group."""
    parts, i = [], 0
    while i < len(tiles):
        j = i
        while j + 1 < len(tiles) and tiles[j + 1] == tiles[j] + 1:
            j += 1
        parts.append(
            f"{tiles[i]}-{tiles[j]}" if j > i + 1 else ",".join(map(str, tiles[i : j + 1]))
        )
        i = j + 1
    return ",".join(parts)


def goal_index(attrs: dict[str, Any]) -> int:
    """Where the goal's own entry is in a table, from the table's attributes (kind, shape, goal, tiles)."""
    n = int(attrs["rows"]) * int(attrs["cols"])
    goal = [int(t) for t in str(attrs["goal"]).split()]
    cell = {t: c for c, t in enumerate(goal)}
    tiles = list(range(n)) if attrs["kind"] == "exact" else [int(t) for t in attrs.get("tiles", [])]
    if sorted(goal) != list(range(n)) or not tiles or not set(tiles) <= set(cell):
        raise TableError(
            f"table attributes are inconsistent: goal {attrs['goal']!r}, tiles {attrs.get('tiles')!r}"
        )
    # (zero-aware: same rank)
    tiles = list(pattern_tiles(tuple(tiles))) if attrs["kind"] != "exact" else tiles
    r, used = 0, []
    # ranking.rank in plain Python: no kernel to load for this
    for i, p in enumerate(cell[t] for t in tiles):
        r = r * (n - i) + p - sum(u < p for u in used)
        used.append(p)
    return r
