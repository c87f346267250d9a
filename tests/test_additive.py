import numpy as np
import pytest

from patterndb import Frame, PatternError, Shape, make_goal
from patterndb.build.additive import build_pattern
from patterndb.files.catalog import build_pattern_file, load_pattern, pattern_path
from patterndb.files.store import read_attrs
from patterndb.puzzle.patterns import group_label, parse_partition
from patterndb.puzzle.ranking import num_placements, rank_many

from . import naive


def _check(rows, cols, cells, blank, table_cells=16):
    shape = Shape(rows, cols)
    table, _, _ = build_pattern(
        shape.neighbours, cols, np.array(cells), blank, table_cells=table_cells
    )
    ref = naive.pattern_table(rows, cols, tuple(cells), blank)
    keys = np.array(list(ref))
    assert len(ref) == (table != 255).sum()  # nothing the reference cannot reach
    assert (table[rank_many(keys, shape.n)] == np.array(list(ref.values()))).all()


@pytest.mark.parametrize(
    "rows, cols, cells, blank",
    [
        (3, 3, (1, 2, 3, 4), 0),
        (3, 3, (5, 6, 7, 8), 0),
        (3, 3, (8, 3, 5), 4),
        (3, 3, (1,), 0),
        (2, 4, (1, 2, 3), 0),
        (2, 4, (4, 5, 6, 7), 0),
        (2, 4, (6,), 7),
        (2, 3, (1, 2, 3, 4), 0),
        (3, 4, (1, 2, 3, 4, 5), 0),
        (3, 4, (11, 10, 7), 0),
        (4, 3, (2, 5, 8, 11), 0),
        (2, 5, (9, 1, 5, 2), 3),
    ],
)
# moves' regions from the table, or filled as on 5x5
@pytest.mark.parametrize("table_cells", [16, 0])
def test_equals_reference(rows, cols, cells, blank, table_cells):
    _check(rows, cols, cells, blank, table_cells)


def test_5x5_two_tile_group_fills_regions():
    _check(5, 5, (12, 0), 6)


@pytest.mark.parametrize(
    "rows, cols, cells",
    [
        (3, 3, (1, 2, 3, 4, 5, 6)),
        (2, 4, (2, 3, 4, 5, 6, 7)),
        # (665,280 placements: the reference takes 30 s)
        pytest.param(3, 4, (6, 7, 8, 9, 10, 11), marks=pytest.mark.slow),
    ],
)
def test_six_tile_groups(rows, cols, cells):
    _check(rows, cols, cells, 0)


@pytest.mark.parametrize("goal", ["blank-first", "blank-last", "1 2 3 4 0 5 6 7 8"])
def test_8puzzle_partitions_are_admissible(data_dir, goal, tmp_path):
    """The sum over a partition never exceeds the exact distance (all 181,440 states)."""
    from patterndb.build.exact import UNREACHED
    from patterndb.files.catalog import build_exact_file, load_exact
    from patterndb.puzzle.ranking import unrank_many

    frame = Frame.for_goal(make_goal(Shape(3, 3), goal))
    build_exact_file(frame, tmp_path)
    exact = load_exact(frame, tmp_path)
    ranks = np.flatnonzero(exact != UNREACHED)
    pos = unrank_many(ranks, 9, 9)
    for spec in ("4-4", "1-3/4-6/7,8", "1,2,4,5/3,6/7,8"):
        total = np.zeros(ranks.size, dtype=np.int64)
        for tiles in parse_partition(spec, frame):
            build_pattern_file(frame, tiles, tmp_path)
            t = load_pattern(frame, tiles, tmp_path)
            total += t[rank_many(np.ascontiguousarray(pos[:, list(tiles)]), 9)]
        assert (total <= exact[ranks]).all()
        assert total.mean() > 0.7 * exact[ranks].mean()


def test_named_and_explicit_specs():
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    assert parse_partition("7-8", f) == (tuple(range(1, 8)), tuple(range(8, 16)))
    assert parse_partition("1-7/8-15", f) == parse_partition("7-8", f)
    assert [len(g) for g in parse_partition("6-6-3", f)] == [6, 6, 3]
    assert sorted(sum(parse_partition("5-5-5", f), ())) == list(range(1, 16))
    assert parse_partition("1,2,5,6/3,4,7,8", f) == ((1, 2, 5, 6), (3, 4, 7, 8))
    # blank-last: the same canonical groups via the 180-degree turn, t -> 16 - t
    last = Frame.for_goal(make_goal(Shape(4, 4), "blank-last"))
    assert parse_partition("9-15/1-8", last) == parse_partition("7-8", f)
    f5 = Frame.for_goal(make_goal(Shape(5, 5), "blank-first"))
    assert sorted(sum(parse_partition("6-6-6-6", f5), ())) == list(range(1, 25))
    assert group_label((1, 2, 3, 5, 7, 8)) == "1-3,5,7,8"


@pytest.mark.parametrize(
    "spec, msg",
    [
        ("1-7/7-9", "two groups"),
        ("0-3", "not a named partition"),
        ("1-3,-1", "bad tile group"),
        ("1-16", "not a tile"),
        ("5-5-6", "no named partition"),
        ("x", "bad tile group"),
        ("1,1", "twice"),
        ("", "empty"),
        ("1-15", "no room"),
        ("5-3", "bad range"),
    ],
)
def test_bad_specs(spec, msg):
    with pytest.raises(PatternError, match=msg):
        parse_partition(spec, Frame.for_goal(make_goal(Shape(4, 4), "blank-first")))


def test_file_attributes_and_reuse(tmp_path):
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    tiles = (10, 11, 15)
    p = build_pattern_file(f, tiles, tmp_path)
    a = read_attrs(p)
    assert (
        a["kind"] == "pdb"
        and a["tiles"] == [10, 11, 15]
        and a["rows"] == 4
        and "Korf-Felner" in a["cost_model"]
    )
    assert (
        sum(a["histogram"]) == a["placements_reached"] == 16 * 15 * 14
        and a["max"] == len(a["histogram"]) - 1
        and a["mean"] > 0
    )
    assert p == pattern_path(tmp_path, Frame.for_goal(make_goal(Shape(4, 4), "blank-last")), tiles)
    with pytest.raises(Exception, match="built for tiles"):
        import os

        other = pattern_path(tmp_path, f, (10, 11, 14))
        os.replace(p, other)
        load_pattern(f, (10, 11, 14), tmp_path)


@pytest.mark.slow
def test_15puzzle_7_8_maxima(tmp_path):
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    a, b = parse_partition("7-8", f)
    assert read_attrs(build_pattern_file(f, a, tmp_path))["max"] == 33
    assert read_attrs(build_pattern_file(f, b, tmp_path))["max"] == 38


def test_a_7_tile_zero_aware_5x5_table_is_built_in_under_20_gb():
    """A 5x5 7-tile zero-aware build (2.42e9 placements) fits this 24 GB machine: 5-byte
    words, a byte of distance, and the encoding's codes and table (measured: docs/benchmarks.md)."""
    from patterndb.files.buildcheck import build_memory

    need = build_memory(25, (0, 1, 2, 5, 6, 7, 11, 12))
    assert 6 * num_placements(25, 7) < need < 20e9


def test_refuses_to_build_what_does_not_fit(tmp_path, monkeypatch):
    import patterndb.files.buildcheck as buildcheck

    monkeypatch.setattr(buildcheck, "available_memory", lambda: 100 << 20)
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    with pytest.raises(Exception, match=r"needs about 1\.5\d GiB but only 0\.10 GiB is available"):
        build_pattern_file(f, tuple(range(8, 16)), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_levels_pieces_come_back_in_order_and_an_error_stops_the_rest():
    """The pieces a build hands its threads: results in piece order, however they finish;
    a piece that raises raises in the build, and pieces not yet begun never run."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    from patterndb.build.handout import hand_out

    def piece(i):
        time.sleep(0.01 * (i % 3))
        return i * i

    ran = []

    def failing(i):
        ran.append(i)
        if i == 1:
            raise ValueError("piece 1")
        time.sleep(0.05)
        return i

    with ThreadPoolExecutor(2) as pool:
        assert hand_out(piece, 10, pool) == [i * i for i in range(10)]
        with pytest.raises(ValueError, match="piece 1"):
            hand_out(failing, 50, pool)
    assert len(ran) < 50
    assert hand_out(piece, 3, None) == [0, 1, 4]


@pytest.mark.parametrize(
    "rows, cols, cells", [(4, 4, (0, 1, 2, 4, 5)), (3, 4, (1, 2, 5, 6)), (5, 5, (0, 1, 5))]
)
def test_one_pass_and_two_passes_a_level_build_the_same_table_and_words(
    rows, cols, cells, monkeypatch
):
    """Big tables expand a level in two passes (tile 0's moves apart), the others in one that
    collects tile 0's moves for their blocks' owners, in rounds of a few blocks where a
    level's moves would take much memory: the same distances and region words."""
    from patterndb.build import additive

    shape = Shape(rows, cols)
    goal_cells = np.array(cells, dtype=np.int64)
    blank = shape.n - 1
    one = additive.build_regions(shape.neighbours, cols, goal_cells, blank, two_passes=False)
    two = additive.build_regions(shape.neighbours, cols, goal_cells, blank, two_passes=True)
    monkeypatch.setattr(additive, "ROUND", 1)  # rounds of as many blocks as threads
    rounds = additive.build_regions(shape.neighbours, cols, goal_cells, blank)
    for other in (two, rounds):
        assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1])
        assert one[3] == other[3]
