"""Solving with pattern databases: optimality on Korf instances, admissibility,
consistency and the reflection, each against independent references."""

import numpy as np
import pytest

from patterndb import Board, Frame, Shape, TableError, make_goal, random_board, scramble
from patterndb.puzzle.patterns import parse_partition
from solver import solve
from solver.api import Options, make_plan
from solver.search.heuristic import h_many

from . import naive
from .conftest import all_8puzzle_states
from .instances import korf


def _replays(sol, rows, cols):
    return naive.replay(tuple(sol.board.tiles.tolist()), sol.moves, rows, cols) == tuple(
        sol.goal.tiles.tolist()
    )


@pytest.mark.parametrize("index", [0, 1, 3, 7, 10, 54])
def test_korf_instances_optimal_with_5_5_5(pdb_dir, index):
    board, want = korf(index)
    sol = solve(board, "blank-first", data_dir=pdb_dir)
    assert sol.heuristic == "pdb 5-5-5 + reflection"  # picked on its own
    assert sol.optimal and sol.length == want and _replays(sol, 4, 4)


def test_reflection_saves_nodes_and_agrees(pdb_dir):
    b, want = korf(1)
    with_r = solve(b, "blank-first", pattern="5-5-5", data_dir=pdb_dir)
    without = solve(b, "blank-first", pattern="5-5-5", reflect=False, data_dir=pdb_dir)
    assert with_r.length == without.length == want
    assert with_r.nodes_generated < without.nodes_generated


def test_blank_last_uses_the_same_tables(pdb_dir, rng):
    goal = make_goal(Shape(4, 4), "blank-last")
    for _ in range(3):
        b = scramble(goal, 80, rng)
        s1 = solve(b, "blank-last", data_dir=pdb_dir, pattern="5-5-5")
        assert s1.optimal and _replays(s1, 4, 4) and "pdb 5-5-5" in s1.heuristic


def test_pdb_admissible_on_all_8puzzle_states_and_not_called_consistent(pdb_dir):
    frame, boards, dist = all_8puzzle_states(pdb_dir)
    for reflect in (False, True):
        h = make_plan(frame, Options(pattern="4-4", reflect=reflect, data_dir=pdb_dir)).heuristic
        hv = h_many(boards, h.H)
        assert (hv <= dist).all()
        gap = (dist - hv).mean()
        assert 0 < gap < 0.3 * dist.mean()
        index = {tuple(b): v for b, v in zip(boards.tolist(), hv)}
        worst = max(
            abs(index[nb] - v) for b, v in index.items() for nb in naive.successors(b, 3, 3)
        )
        # The min over blank regions makes the tables inconsistent; the claim must say so.
        assert h.consistent == (worst <= 1) and worst > 1


def test_reflection_is_the_mirrored_lookup(pdb_dir, rng):
    """h with reflection == max(h(s), h(mirror(s))) computed by building the mirrored board."""
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    plain = make_plan(frame, Options(pattern="5-5-5", reflect=False, data_dir=pdb_dir)).heuristic
    refl = make_plan(frame, Options(pattern="5-5-5", reflect=True, data_dir=pdb_dir)).heuristic
    T = [(c % 4) * 4 + c // 4 for c in range(16)]
    for _ in range(200):
        b = random_board(frame.shape, frame.goal, rng)
        mirror = np.empty(16, dtype=np.int64)
        for c in range(16):
            mirror[T[c]] = T[b.tiles[c]]  # blank-first: tile t's goal cell is t
        m = Board(frame.shape, mirror)
        assert refl(b) == max(plain(b), plain(m))


def test_pdb_kernel_matches_generic_search(pdb_dir, rng):
    goal = make_goal(Shape(4, 4), "blank-first")
    for _ in range(5):
        b = scramble(goal, 40, rng)
        a = solve(b, "blank-first", pattern="5-5-5", data_dir=pdb_dir)
        c = solve(b, "blank-first", algorithm="astar", pattern="5-5-5", data_dir=pdb_dir)
        m = solve(b, "blank-first", algorithm="idastar", heuristic="manhattan")
        assert a.length == c.length == m.length


def test_missing_tables_name_the_build_command(tmp_path):
    b = korf(0)[0]
    with pytest.raises(TableError, match=r"pdb build --size 4 --pattern 7-8"):
        solve(b, "blank-first", pattern="7-8", data_dir=tmp_path)
    msgs = []
    solve(korf(54)[0], "blank-first", data_dir=tmp_path, log=msgs.append)
    assert any("pdb build --size 4 --pattern 7-8" in m for m in msgs)


def test_pdb_files_explicit(pdb_dir):
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    from patterndb.files.catalog import pattern_path

    files = [pattern_path(pdb_dir, frame, g) for g in parse_partition("5-5-5", frame)]
    board, want = korf(3)
    sol = solve(board, "blank-first", pdb_files=files)
    assert sol.length == want
    with pytest.raises(TableError, match="built for"):
        solve("1 2 3 4 5 6 7 8 0", "blank-first", pdb_files=files[:1])


def test_solve_reuses_loaded_tables_until_a_file_changes(pdb_dir, monkeypatch):
    import importlib
    import os

    hp = importlib.import_module("solver.heuristics.pdb")  # the package's `pdb` is the function

    loads = []
    real = hp._load
    monkeypatch.setattr(hp, "_load", lambda *a: loads.append(1) or real(*a))
    hp._loaded.clear()
    for i in (0, 1, 3):
        solve(korf(i)[0], "blank-first", pattern="5-5-5", data_dir=pdb_dir)
    assert len(loads) == 1
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    from patterndb.files.catalog import pattern_path

    p = pattern_path(pdb_dir, frame, parse_partition("5-5-5", frame)[0])
    st = p.stat()
    # the file changed: load and check it again
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    solve(korf(0)[0], "blank-first", pattern="5-5-5", data_dir=pdb_dir)
    assert len(loads) == 2
