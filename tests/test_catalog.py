"""Catalogues: the maximum over several additive partitions."""

import numpy as np
import pytest

from patterndb import Frame, PatternError, Shape, make_goal, random_board
from patterndb.files.catalog import build_pattern_file
from patterndb.puzzle.patterns import catalog_groups, is_named, parse_catalog, parse_partition
from solver import solve
from solver.api import Options, make_plan, prepare
from solver.ida import Driver, StopFlag, ThreadBackend
from solver.search.heuristic import h_many

from . import naive
from .conftest import all_8puzzle_states
from .instances import korf
from .test_parallel import assert_counts, problem

CAT3 = "1-4/5-8+1,3,5,7/2,4,6,8+1,2,4,5/3,6/7,8"


def test_spec_parsing():
    f = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    parts = parse_catalog("5-5-5+1-5/6-10/11-15", f)
    assert parts == (
        parse_partition("5-5-5", f),
        ((1, 2, 3, 4, 5), (6, 7, 8, 9, 10), (11, 12, 13, 14, 15)),
    )
    assert len(catalog_groups(parts)) == 6
    assert catalog_groups((parts[0], parts[0][:1])) == parts[0]  # a shared table once
    with pytest.raises(PatternError, match="twice"):
        parse_catalog("5-5-5+5-5-5", f)


def test_named_catalogues_and_the_pinwheel():
    f5 = Frame.for_goal(make_goal(Shape(5, 5), "blank-first"))
    pin = parse_partition("pinwheel", f5)
    assert sorted(t for g in pin for t in g) == list(range(1, 25))
    assert all(len(g) == 6 for g in pin)
    assert parse_catalog("max2", f5) == (
        parse_partition("z6-6-6-6", f5),
        parse_partition("zpinwheel", f5),
    )
    blocks = parse_partition("blocks", f5)
    assert sorted(t for g in blocks for t in g) == list(range(1, 25)) and all(
        len(g) == 6 for g in blocks
    )
    assert parse_catalog("max3", f5) == (parse_partition("zblocks", f5), *parse_catalog("max2", f5))
    assert is_named("max3", f5) and not is_named(
        "max3", Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    )
    assert is_named("max2", f5) and is_named("z6-6-6-6+zpinwheel", f5) and is_named("best", f5)
    assert not is_named("6-6-6-6+1-6/7-12/13-18/19-24", f5)
    # a catalogue's name among '+' parts stands for its partitions ("cr14+A/B/C/D")
    assert parse_catalog("max2+zblocks", f5) == (
        *parse_catalog("max2", f5),
        parse_partition("zblocks", f5),
    )
    assert is_named("max2+zblocks", f5) and not is_named("max2+1-6/7-12/13-18/19-24", f5)
    with pytest.raises(PatternError, match="appears twice"):
        parse_catalog("max3+zblocks", f5)
    f4 = Frame.for_goal(make_goal(Shape(4, 4), "blank-last"))
    assert parse_catalog("max2", f4) == parse_catalog("z7-8+6-6-3", f4)
    with pytest.raises(PatternError, match="pinwheel"):  # a name of another board
        parse_catalog("pinwheel", f4)


def test_the_published_catalogues():
    """cr14, as in 24puzzle's catalogues/improved-compound.cat (14 partitions of 20 zero-aware
    6-tile groups; one of them is blocks), and cr7, small-t.cat, 7 of them."""
    for goal in ("blank-first", "blank-last"):  # canonical groups: the same whatever the goal
        parts = parse_catalog("cr14", Frame.for_goal(make_goal(Shape(5, 5), goal)))
        assert len(parts) == 14 and len(set(parts)) == 14 and len(catalog_groups(parts)) == 20
        for part in parts:
            assert sorted(t for g in part for t in g if t) == list(range(1, 25))
            assert all(len(g) == 7 and g[0] == 0 for g in part)
        f5 = Frame.for_goal(make_goal(Shape(5, 5), goal))
        assert parse_partition("zblocks", f5) in parts and is_named("cr14", f5)
    assert (0, 1, 5, 6, 10, 11, 12) in parts[0] and (0, 2, 3, 4, 7, 8, 9) in parts[0]
    assert parts[13] == (
        (0, 1, 2, 5, 6, 10, 15),
        (0, 3, 4, 7, 8, 9, 14),
        (0, 11, 16, 17, 20, 21, 22),
        (0, 12, 13, 18, 19, 23, 24),
    )
    small = parse_catalog("cr7", f5)  # small-t.cat: 7 of them (with their transposes: our mirror)
    assert len(small) == 7 and set(small) < set(parts) and len(catalog_groups(small)) == 14
    assert small[6] == (
        (0, 1, 5, 6, 10, 15, 20),
        (0, 2, 3, 4, 7, 8, 9),
        (0, 11, 12, 13, 16, 17, 18),
        (0, 14, 19, 21, 22, 23, 24),
    )


def test_catalogue_is_the_max_of_its_partitions_and_admissible(data_dir, tmp_path):
    """On all 181,440 8-puzzle states: the catalogue's value is the largest of its partitions'
    values (each with its mirror), and never above the exact distance."""
    frame, boards, exact = all_8puzzle_states(data_dir)
    for part in parse_catalog(CAT3, frame):
        for g in part:
            build_pattern_file(frame, g, tmp_path)
    _, fr = prepare("1 2 3 4 5 6 7 8 0", "blank-first")
    h = make_plan(fr, Options(algorithm="idastar", pattern=CAT3, data_dir=tmp_path)).heuristic
    singles = [
        make_plan(fr, Options(algorithm="idastar", pattern=p, data_dir=tmp_path)).heuristic
        for p in CAT3.split("+")
    ]
    got = h_many(boards, h.H)
    want = np.max([h_many(boards, s.H) for s in singles], axis=0)
    assert np.array_equal(got, want)
    assert (got <= exact).all() and (got > want.min()).any()
    # no one partition is the max everywhere
    assert (np.array([h_many(boards, s.H) for s in singles]) < got).any()


def test_kernel_counts_equal_a_plain_search_with_the_same_heuristic(data_dir, tmp_path, rng):
    """The incremental catalogue kernel against plain recursive IDA* evaluating h from scratch."""
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    for part in parse_catalog(CAT3, frame):
        for g in part:
            build_pattern_file(frame, g, tmp_path)
    goal = make_goal(Shape(3, 3), "blank-first")
    gt = tuple(goal.tiles.tolist())
    for _ in range(6):
        b = random_board(Shape(3, 3), goal, rng)
        p, plan = problem(str(b), pattern=CAT3, data_dir=tmp_path, prune=2)
        h = plan.heuristic
        length, its = naive.idastar(
            tuple(b.tiles.tolist()), gt, 3, 3, lambda s: h(type(b)(b.shape, np.array(s)))
        )
        for split in (0, 10**12):
            out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=split).run()
            assert len(out.path) - 1 == length
            assert_counts(out, its, split < 10**12)


def test_catalogue_on_15_puzzles(pdb_dir):
    """5-5-5 + a row partition: optimal, and never more nodes than 5-5-5 alone in an iteration
    both search to the end (the solving ones visit the children in other orders: the PDB
    kernel lowest f first, the catalogue kernel as made)."""
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    spec = "5-5-5+1-5/6-10/11-15"
    for g in parse_catalog(spec, frame)[1]:
        build_pattern_file(frame, g, pdb_dir)
    fewer = 0
    for board, want in map(korf, range(8)):
        one = solve(board, "blank-first", pattern="5-5-5", data_dir=pdb_dir, jobs=1)
        cat = solve(board, "blank-first", pattern=spec, data_dir=pdb_dir, jobs=2)
        assert cat.length == one.length == want and cat.optimal
        full_one = {it["bound"]: it["expanded"] for it in one.iterations[:-1]}
        full_cat = {it["bound"]: it["expanded"] for it in cat.iterations[:-1]}
        assert all(full_cat[b] <= full_one[b] * 1.01 + 100 for b in full_cat)
        assert sum(full_cat.values()) <= sum(full_one.values())
        fewer += sum(full_cat.values()) < sum(full_one.values())
    assert fewer >= 6


def test_bench_korf24_says_a_bad_pattern_in_one_line(tmp_path):
    """A spec the benchmark cannot parse (catalogues are passed as specs) is one line, no traceback."""
    import subprocess
    import sys

    r = subprocess.run(
        [
            sys.executable,
            "scripts/bench_korf24.py",
            "28",
            "--pattern",
            "cr14+1,2,x",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert r.stderr.startswith("error: bad tile group item 'x'")


def test_a_race_plans_each_table_once_where_a_catalogue_can_read_the_other_sides(tmp_path):
    """5x5's best (z6-6-6-6 | cr14) in an empty data directory: cr14 reads two of its
    families from z6-6-6-6's tables, which the build makes first, so the race needs 17
    tables, not 19, and `pdb build` numbers its lines so."""
    from patterndb.cli.commands import race_tables

    frame = Frame.for_goal(make_goal(Shape(5, 5), "blank-first"))
    z6 = parse_partition("z6-6-6-6", frame)
    groups = race_tables(frame, ["z6-6-6-6", "cr14"], tmp_path)
    assert len(groups) == 17 and groups[:4] == tuple(z6) and list(tmp_path.iterdir()) == []
