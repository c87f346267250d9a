"""One table serving the groups symmetric to its own (patterndb.puzzle.symmetry): every symmetry
the module allows gives the group's own table's values on every state, and one it refuses
would not."""

import numpy as np
import pytest

from patterndb.files.catalog import build_pattern_file, pattern_path
from patterndb.puzzle.board import make_goal, random_board
from patterndb.puzzle.frame import Frame
from patterndb.puzzle.geometry import Shape
from patterndb.puzzle.patterns import catalog_groups, parse_catalog
from patterndb.puzzle.symmetry import (
    Served,
    board_symmetries,
    catalogue_sums,
    image,
    serve,
    servers,
)
from solver.heuristics.pdb import catalogue, pdb
from solver.search.heuristic import h_many

from .conftest import all_8puzzle_states


def _frame(rows, cols):
    return Frame.for_goal(make_goal(Shape(rows, cols), "blank-first"))


def _through(frame, served, data_dir):
    """The heuristic of served.group alone, read from served.table through served.sym."""
    path = build_pattern_file(frame, served.table, data_dir)
    return catalogue(frame, ((served.group,),), [served], [path], "one")


def _own(frame, group, data_dir):
    return pdb(frame, (group,), [build_pattern_file(frame, group, data_dir)], "own", reflect=False)


def test_symmetries_are_the_squares_eight_and_the_rectangles_four():
    for rows, cols, count in ((3, 3, 8), (5, 5, 8), (3, 4, 4), (2, 4, 4)):
        syms = board_symmetries(rows, cols)
        assert len(syms) == count and syms[0].name == "identity"
        nbrs = Shape(rows, cols).neighbours
        for s in syms:
            assert sorted(s.cell) == list(range(rows * cols))
            assert (s.cell[s.inverse] == np.arange(rows * cols)).all()
            for c in range(rows * cols):  # adjacency kept
                assert {int(s.cell[d]) for d in nbrs[c] if d >= 0} == {
                    int(d) for d in nbrs[s.cell[c]] if d >= 0
                }


@pytest.mark.parametrize(
    "group", [(1, 2, 5), (0, 1, 2, 5), (0, 4, 5, 8), (3, 6, 7), (0, 2, 5, 7, 8)]
)
def test_every_allowed_symmetry_reads_the_groups_own_values_on_all_8_puzzle_states(
    group, data_dir, tmp_path
):
    frame, boards, exact = all_8puzzle_states(data_dir)
    own = h_many(boards, _own(frame, group, tmp_path).H)
    found = list(servers(frame, group))
    assert found[0].sym.name == "identity" and found[0].table == group and len(found) > 2
    for s in found:
        got = h_many(boards, _through(frame, s, tmp_path).H)
        assert np.array_equal(got, own), (group, s.table, s.sym.name)
        assert (got <= exact).all()


def test_a_refused_symmetry_would_read_wrong_values(data_dir, tmp_path):
    """Tiles 1 and 3 wall the blank's goal corner off: flipping the rows puts the blank's goal
    preimage (cell 6) in the other region, so symmetry refuses it, and rightly: read through
    that map, the table of 3,7 gives other values than the table of 1,3."""
    frame, boards, _ = all_8puzzle_states(data_dir)
    flip = next(s for s in board_symmetries(3, 3) if s.name == "flip rows")
    assert image(frame, (0, 1, 3), flip) is None
    wrong = Served((0, 3, 7), (0, 1, 3), flip)  # what the tile map alone would allow
    assert not np.array_equal(
        h_many(boards, _through(frame, wrong, tmp_path).H),
        h_many(boards, _own(frame, (0, 3, 7), tmp_path).H),
    )
    assert all(s.sym.name != "flip rows" for s in servers(frame, (0, 3, 7)))


@pytest.mark.parametrize(
    "group", [(1, 2, 5, 6), (0, 1, 2, 5, 6), (0, 2, 5, 6, 9), (0, 6, 7, 10, 11)]
)
def test_symmetries_of_a_rectangle_on_random_states(group, tmp_path, rng):
    frame = _frame(3, 4)
    goal = frame.canonical_goal
    boards = np.array(
        [random_board(frame.shape, goal, rng).tiles for _ in range(20000)], dtype=np.int64
    )
    own = h_many(boards, _own(frame, group, tmp_path).H)
    found = list(servers(frame, group))
    assert len(found) > 1
    for s in found:
        assert np.array_equal(h_many(boards, _through(frame, s, tmp_path).H), own), (
            group,
            s.sym.name,
        )


def test_a_catalogue_is_served_by_fewer_tables_and_the_mirror_costs_none():
    f5 = _frame(5, 5)
    counts = {}
    for name in ("max3", "cr7", "cr14"):
        parts = parse_catalog(name, f5)
        sums = catalogue_sums(f5, parts)
        assert len(sums) == 2 * len(parts)  # each partition and its mirror
        served = serve(f5, catalog_groups(sums), lambda g: False)
        assert [s.group for s in served] == list(catalog_groups(sums))
        tables = {s.table for s in served}
        counts[name] = len(tables)
        # its own table where built
        assert all(s.table == s.group for s in served if s.group in tables)
    # Clausecker & Reinefeld store small-t's 14 groups in 11 files; max3's 12 groups need 8.
    assert counts == {"max3": 8, "cr7": 11, "cr14": 15}


def test_served_tables_already_there_are_used_first():
    """max2 (z6-6-6-6 + zpinwheel, with mirrors) where best's four tables are built: its
    6-6-6-6 groups come from those, and no more tables in all than from nothing (6)."""
    f5 = _frame(5, 5)
    groups = catalog_groups(catalogue_sums(f5, parse_catalog("max2", f5)))
    there = set(parse_catalog("z6-6-6-6", f5)[0])
    served = serve(f5, groups, lambda g: g in there)
    assert all(s.table in there for s in served if s.group in there)
    assert (
        len({s.table for s in served})
        == len({s.table for s in serve(f5, groups, lambda g: False)})
        == 6
    )


def test_catalogue_solves_optimally_from_the_fewer_tables(data_dir, tmp_path, rng):
    """cat3 on the 8-puzzle from only the tables serve() picks: the same heuristic on every
    state as from every group's own table, and optimal solutions."""
    from solver.api import solve

    frame, boards, exact = all_8puzzle_states(data_dir)
    spec = "1,2,4,5/3,6,7,8+1,3,5,7/2,4,6,8+1,2,4,5/3,6/7,8"
    sums = catalogue_sums(frame, parse_catalog(spec, frame))
    served = serve(frame, catalog_groups(sums), lambda g: False)
    tables = {s.table for s in served}
    assert len(tables) < len(set(catalog_groups(parse_catalog(spec, frame))))
    for t in tables:
        build_pattern_file(frame, t, tmp_path)
    paths = [pattern_path(tmp_path, frame, s.table) for s in served]
    got = h_many(boards, catalogue(frame, sums, served, paths, "few").H)
    full = tmp_path / "full"
    for g in catalog_groups(sums):
        build_pattern_file(frame, g, full)
    own = [Served(g, g, board_symmetries(3, 3)[0]) for g in catalog_groups(sums)]
    want = h_many(
        boards,
        catalogue(
            frame, sums, own, [pattern_path(full, frame, g) for g in catalog_groups(sums)], "all"
        ).H,
    )
    assert np.array_equal(got, want) and (got <= exact).all()
    for _ in range(5):
        b = random_board(frame.shape, frame.canonical_goal, rng)
        out = solve(str(b), "blank-first", pattern=spec, data_dir=tmp_path)
        assert out.optimal and out.length == exact[boards.tolist().index(b.tiles.tolist())]


def test_pdb_list_says_which_file_serves_which_group(tmp_path, monkeypatch):
    """A named catalogue whose tables are built: pdb list names, per group read through a
    symmetry, the file and the symmetry (text and --json)."""
    import json

    from click.testing import CliRunner

    import patterndb.cli.commands as cli

    frame = _frame(3, 3)
    spec = "1,2,4,5/3,6,7,8+1,3,5,7/2,4,6,8"
    monkeypatch.setitem(cli.CATALOGUES, (3, 3), {"tiny": spec})
    sums = catalogue_sums(frame, parse_catalog(spec, frame))
    served = serve(frame, catalog_groups(sums), lambda g: False)
    for t in {s.table for s in served}:
        build_pattern_file(frame, t, tmp_path)
    out = CliRunner().invoke(cli.main, ["list", "--data-dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    mapped = [s for s in served if s.sym.name != "identity"]
    assert mapped and f"catalogue tiny (3x3, goal b0): {len(served)} groups" in out.output
    for s in mapped:
        assert f"<- {pattern_path(tmp_path, frame, s.table).name} ({s.sym.name})" in out.output
    rows = [
        json.loads(line)
        for line in CliRunner()
        .invoke(cli.main, ["list", "--json", "--data-dir", str(tmp_path)])
        .output.splitlines()
    ]
    (cat,) = [r for r in rows if "catalogue" in r]
    assert [(tuple(x["tiles"]), x["symmetry"]) for x in cat["served"]] == [
        (s.group, s.sym.name) for s in served
    ]
