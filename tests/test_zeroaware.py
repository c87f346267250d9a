"""Zero-aware tables (patterndb.build.zeroaware): one entry per placement and blank region."""

import functools

import numpy as np
import pytest

from patterndb import Frame, PatternError, Shape, TableError, make_goal, random_board
from patterndb.build import zeroaware
from patterndb.build.additive import build_pattern, build_regions
from patterndb.build.nibbles import goal_md
from patterndb.files.catalog import build_pattern_file, map_checked, pattern_expect
from patterndb.files.store import read_attrs
from patterndb.puzzle.patterns import parse_catalog, parse_partition, race_spec
from patterndb.puzzle.ranking import num_placements
from solver import solve
from solver.api import Options, make_plan, prepare
from solver.ida import Driver, StopFlag, ThreadBackend
from solver.search.heuristic import h_many

from . import naive
from .conftest import all_8puzzle_states
from .instances import korf
from .test_kernel_counts import assert_kernel_counts, heuristic_and_tiebreak, mirror_leading_boards
from .test_parallel import assert_counts, problem


@functools.cache
def _per_blank(rows, cols, cells, blank):
    return naive.pattern_table(rows, cols, cells, blank, per_blank=True)


@pytest.mark.parametrize(
    "rows, cols, cells, blank",
    [
        (3, 3, (1, 2, 3, 4), 0),
        (3, 3, (5, 6, 7, 8), 0),
        (3, 3, (8, 3, 5), 4),
        (2, 4, (1, 2, 3), 0),
        (2, 4, (4, 5, 6, 7), 0),
        (3, 4, (5, 6, 7, 8), 0),
        (3, 4, (11, 10, 7), 0),
        (2, 5, (9, 1, 5, 2), 3),
        pytest.param(3, 4, (1, 2, 3, 4, 5), 0, marks=pytest.mark.slow),
    ],  # (665,280 entries: 10 s each)
)
# 0: regions filled as on 5x5
@pytest.mark.parametrize("dense, table_cells", [(False, 16), (True, 16), (True, 0)])
def test_every_entry_is_the_plain_bfs_distance_with_the_blank_where_it_is(
    rows, cols, cells, blank, dense, table_cells
):
    """Against a 0-1 BFS over (placement, blank cell): every placement with the blank on
    every free cell (so every region), exactly, but for the documented cap (a region at
    most 2 * MAX_RAISE moves above its placement's minimum)."""
    shape = Shape(rows, cols)
    n, k = shape.n, len(cells)
    table, words, _, _ = build_regions(
        shape.neighbours, cols, np.array(cells), blank, table_cells=table_cells
    )
    assert np.array_equal(table, build_pattern(shape.neighbours, cols, np.array(cells), blank)[0])
    md = goal_md(cols, np.array(cells), n)
    data, layout = zeroaware.zero_aware_table(table, words, n, md, dense)
    ref = _per_blank(rows, cols, tuple(cells), blank)
    assert len(ref) == num_placements(n, k) * (n - k)  # every (placement, blank cell) reached
    assert (
        data.size
        == zeroaware.layout(num_placements(n, k), layout["flagged"], layout["region_bytes"], dense)[
            2
        ]
    )
    assert (layout["prefix_at"] < 0) == dense
    assert layout["flagged"] > 0
    got = naive.zero_aware_values(data, layout, rows, cols, md, ref)
    low = {}
    for (c, _), v in ref.items():
        low[c] = min(low.get(c, v), v)
    assert got == {(c, b): min(v, low[c] + 2 * zeroaware.MAX_RAISE) for (c, b), v in ref.items()}
    assert any(v > table[0] for v in got.values())  # (not all regions alike: the test can fail)


def test_file_attributes_goal_entry_and_refusals(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    path = build_pattern_file(frame, (0, 1, 2, 3, 4), tmp_path)
    assert path.name == "pdb-3x3-b0-0-4.h5"
    a = read_attrs(path)
    assert (
        a["encoding"] == "nibble-md-flagged"
        and a["region_bytes"] == 1
        and "region" in a["decoding"]
    )
    assert a["entries"] == 3024 and list(a["tiles"]) == [0, 1, 2, 3, 4] and a["max_raise"] == 2
    map_checked([path], [pattern_expect(frame, (0, 1, 2, 3, 4))])
    plain = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    # a plain table is not a zero-aware one
    with pytest.raises(TableError, match="was built for tiles"):
        map_checked([plain], [pattern_expect(frame, (0, 1, 2, 3, 4))])


def test_specs():
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    assert parse_partition("z7-8", f) == ((0, *range(1, 8)), (0, *range(8, 16)))
    assert parse_partition("0,1-7/0,8-15", f) == parse_partition("z7-8", f)
    assert parse_catalog("z5-5-5+5-5-5", f)[1] == parse_partition("5-5-5", f)
    assert parse_partition("best", f) == parse_partition("zbest", f) == parse_partition("z7-8", f)
    f5 = Frame.for_goal(make_goal(Shape(5, 5), "blank-first"))
    # best on 5x5 is a race of z6-6-6-6 (the zero-aware 6-6-6-6) and cr14 (solver.ida.race)
    assert race_spec("best", f5) == "z6-6-6-6|cr14" and race_spec("best", f) == "best"
    assert parse_partition("z6-6-6-6", f5) == tuple((0, *g) for g in parse_partition("6-6-6-6", f5))
    for bad, msg in (("0/1-15", "blank alone"), ("0,0,1-7/8-15", "twice"), ("0,1-15", "no room")):
        with pytest.raises(PatternError, match=msg):
            parse_partition(bad, f)


@pytest.fixture(scope="module")
def z_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("zero")
    f3 = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    for spec in ("4-4", "z4-4", "1,3,5,7/2,4,6,8", "0,1,3,5,7/0,2,4,6,8"):
        for g in parse_partition(spec, f3):
            build_pattern_file(f3, g, d)
    f4 = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    for spec in ("5-5-5", "z5-5-5"):
        for g in parse_partition(spec, f4):
            build_pattern_file(f4, g, d)
    return d


@pytest.mark.parametrize(
    "plain, zero", [("4-4", "z4-4"), ("1,3,5,7/2,4,6,8", "0,1,3,5,7/0,2,4,6,8")]
)
def test_admissible_on_every_8puzzle_state_and_above_the_plain_tables(data_dir, z_dir, plain, zero):
    frame, boards, exact = all_8puzzle_states(data_dir)
    _, fr = prepare("1 2 3 4 5 6 7 8 0", "blank-first")
    hz, hp = (
        h_many(
            boards,
            make_plan(fr, Options(algorithm="idastar", pattern=p, data_dir=z_dir)).heuristic.H,
        )
        for p in (zero, plain)
    )
    assert (hz <= exact).all()
    assert (hz >= hp).all() and (hz > hp).mean() > 0.05


@pytest.mark.parametrize("spec", ["z4-4", "z4-4+0,1,3,5,7/0,2,4,6,8"])
def test_kernel_counts_equal_plain_idastar_and_both_variants_agree(z_dir, rng, spec):
    """The PDB kernels with zero-aware tables, and the catalogue kernel over two zero-aware
    partitions, against a plain recursive IDA* that evaluates the same heuristic from
    scratch (the kernels read a flagged entry's region only where the child might survive
    without it), in the kernel's order (on 3x3 the PDB kernel visits the children lowest f
    first); the 5x5 PDB variant (no prefetching, children as made) agrees at every bound."""
    from solver.search.idastar_pdb import dfs_pdb_ahead_zero, dfs_pdb_zero

    goal = make_goal(Shape(3, 3), "blank-first")
    gt = tuple(goal.tiles.tolist())
    for _ in range(8):
        b = random_board(Shape(3, 3), goal, rng)
        p, plan = problem(str(b), pattern=spec, data_dir=z_dir, prune=2)
        h, tiebreak = heuristic_and_tiebreak(b, pattern=spec, data_dir=z_dir, prune=2)
        catalogue = "+" in spec
        length, its = naive.idastar(
            tuple(b.tiles.tolist()), gt, 3, 3, h, tiebreak=None if catalogue else tiebreak
        )
        for split in (0, 10**12):
            out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=split).run()
            assert len(out.path) - 1 == length
            assert_counts(out, its, split < 10**12)
        if not catalogue:
            assert_kernel_counts(p, its, dfs_pdb_ahead_zero)
            assert_kernel_counts(
                p, naive.idastar(tuple(b.tiles.tolist()), gt, 3, 3, h)[1], dfs_pdb_zero
            )


def test_kernel_reading_the_mirrored_side_first_counts_as_plain_idastar(z_dir, rng):
    """Zero-aware tables where the mirrored sum leads at the root (dfs_pdb_zero then reads
    the mirrored entries first; test_parallel has the plain tables' case): every iteration
    counts as plain IDA*'s."""
    from solver.search.idastar_pdb import dfs_pdb_zero

    gt = tuple(make_goal(Shape(3, 3), "blank-first").tiles.tolist())
    for b in mirror_leading_boards(rng, 6, pattern="z4-4", data_dir=z_dir, prune=2):
        p, _ = problem(str(b), pattern="z4-4", data_dir=z_dir, prune=2)
        h, _ = heuristic_and_tiebreak(b, pattern="z4-4", data_dir=z_dir, prune=2)
        assert_kernel_counts(
            p, naive.idastar(tuple(b.tiles.tolist()), gt, 3, 3, h)[1], dfs_pdb_zero
        )


def test_korf_boards_optimal_with_fewer_nodes(z_dir):
    """z5-5-5 on Korf's instances: the known optimal lengths, never more nodes than 5-5-5,"""
    total = {}
    for spec in ("5-5-5", "z5-5-5"):
        total[spec] = 0
        for tiles, want in map(korf, range(6)):
            r = solve(tiles, goal="blank-first", pattern=spec, data_dir=z_dir)
            assert r.length == want
            total[spec] += r.nodes_expanded
    assert total["z5-5-5"] < 0.9 * total["5-5-5"]


def test_catalogue_of_zero_aware_and_plain_partitions(data_dir, z_dir, rng):
    """z4-4 + a plain partition: the larger of the two on every 8-puzzle state (the catalogue
    kernel reads zero-aware tables too), admissible, and optimal solutions."""
    frame, boards, exact = all_8puzzle_states(data_dir)
    _, fr = prepare("1 2 3 4 5 6 7 8 0", "blank-first")
    cat = "z4-4+1,3,5,7/2,4,6,8"
    h = [
        h_many(
            boards,
            make_plan(fr, Options(algorithm="idastar", pattern=p, data_dir=z_dir)).heuristic.H,
        )
        for p in (cat, *cat.split("+"))
    ]
    assert np.array_equal(h[0], np.maximum(h[1], h[2])) and (h[0] <= exact).all()
    for i in rng.choice(len(boards), 40, replace=False):
        r = solve(" ".join(map(str, boards[i])), goal="blank-first", pattern=cat, data_dir=z_dir)
        assert r.length == exact[i]


@pytest.mark.parametrize("dense", [False, True])
def test_search_lookups_decode_both_layouts_as_the_reference(
    data_dir, tmp_path, monkeypatch, rng, dense
):
    """The kernels' reading of a zero-aware table (code, prefix or dense word, region) equals
    the plain-Python decoding of its description, per state, with and without the prefix."""
    import h5py

    monkeypatch.setattr(zeroaware, "is_dense", lambda entries, flagged: dense)
    frame, boards, _ = all_8puzzle_states(data_dir)
    f3 = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    groups = parse_partition("0,1,3,5,7/0,2,4,6,8", f3)
    tables = []
    for g in groups:
        path = build_pattern_file(f3, g, tmp_path)
        with h5py.File(path) as fh:
            a = dict(fh["table"].attrs)
            tables.append((fh["table"][()], a, [t for t in g if t]))
        assert (a["prefix_at"] < 0) == dense
    _, fr = prepare("1 2 3 4 5 6 7 8 0", "blank-first")
    H = make_plan(
        fr,
        Options(
            algorithm="idastar", pattern="0,1,3,5,7/0,2,4,6,8", data_dir=tmp_path, reflect=False
        ),
    ).heuristic.H
    some = boards[rng.choice(len(boards), 3000, replace=False)]
    want = np.zeros(len(some), dtype=np.int64)
    for data, a, tiles in tables:
        md = goal_md(3, np.array(tiles), 9)
        keys = [
            (tuple(int(np.flatnonzero(b == t)[0]) for t in tiles), int(np.flatnonzero(b == 0)[0]))
            for b in some
        ]
        values = naive.zero_aware_values(data, a, 3, 3, md, keys)
        want += [values[key] for key in keys]
    assert np.array_equal(h_many(some, H), want)
