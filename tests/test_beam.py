"""Beam search (solver.search.beam) against plain BFS distances: a beam as wide as a depth of
the 2x3 board's search holds finds the optimum, a narrow one a solution that replays, and the
bound `below` keeps exactly the solutions shorter than it."""

from __future__ import annotations

import numpy as np
import pytest

from patterndb import Shape, make_goal
from solver.api import Options, make_plan, prepare
from solver.ida import StopFlag
from solver.search.beam import EXHAUSTED, FOUND, STOPPED, beam_kernel

from .instances import KORF_1
from .naive import bfs_distances

GOAL = tuple(make_goal(Shape(2, 3), "blank-last").tiles.tolist())


@pytest.fixture(scope="module")
def distances():
    return bfs_distances(GOAL, 2, 3)


def beam(
    board: tuple,
    width: int,
    below: int = 10**4,
    heuristic: str = "manhattan",
    stop: StopFlag | None = None,
):
    b, frame = prepare(" ".join(map(str, board)), "blank-last", 2, 3)
    plan = make_plan(frame, Options(algorithm="idastar", heuristic=heuristic))
    canon = frame.to_canonical(b)
    status, path, _ = beam_kernel(
        canon.tiles.astype(np.int8),
        frame.canonical_goal.tiles.astype(np.int8),
        plan.heuristic.H,
        b.shape.neighbours,
        width,
        below,
        (stop or StopFlag()).flag,
    )
    return status, [int(c) for c in path], b, frame


def walk(board: tuple, frame, path: list[int]) -> tuple:
    """The board a canonical blank path leads to (each step checked to be a move)."""
    canon = list(
        frame.to_canonical(prepare(" ".join(map(str, board)), "blank-last", 2, 3)[0]).tiles
    )
    nbrs = Shape(2, 3).neighbours
    assert canon[path[0]] == 0
    for a, c in zip(path, path[1:]):
        assert c in nbrs[a]
        canon[a], canon[c] = canon[c], 0
    return tuple(canon)


def test_a_beam_as_wide_as_the_board_finds_every_optimum(distances):
    for board, d in distances.items():
        status, path, _, frame = beam(board, 512)
        assert status == FOUND and len(path) - 1 == d
        assert walk(board, frame, path) == tuple(frame.canonical_goal.tiles.tolist())


@pytest.mark.parametrize("width", [1, 2, 8])
def test_a_narrow_beam_finds_a_solution_that_replays(distances, width):
    found = 0
    for board, d in list(distances.items())[::7]:
        status, path, _, frame = beam(board, width, heuristic="misplaced")
        assert status in (FOUND, EXHAUSTED)
        if status == FOUND:
            found += 1
            assert len(path) - 1 >= d
            assert walk(board, frame, path) == tuple(frame.canonical_goal.tiles.tolist())
    assert found > 0


def test_below_keeps_exactly_the_shorter_solutions(distances):
    for board, d in list(distances.items())[::5]:
        if d == 0:
            continue
        assert beam(board, 512, below=d)[0] == EXHAUSTED  # (none is shorter than d)
        status, path, _, _ = beam(board, 512, below=d + 1)
        assert status == FOUND and len(path) - 1 == d


def test_a_stop_ends_it():
    stop = StopFlag()
    stop.request("stopped")
    assert beam((4, 1, 3, 2, 5, 0), 16, stop=stop)[0] == STOPPED


@pytest.fixture(scope="module")
def zero_dir(tmp_path_factory):
    """The 15-puzzle's z5-5-5 tables, apart from pdb_dir (where the solver would prefer them to 5-5-5)."""
    from patterndb.files.catalog import build_pattern_file
    from patterndb.puzzle.patterns import parse_partition

    d = tmp_path_factory.mktemp("zero")
    _, frame = prepare(" ".join(map(str, range(16))), "blank-first", 4, 4)
    for tiles in parse_partition("z5-5-5", frame):
        build_pattern_file(frame, tiles, d)
    return d


@pytest.mark.parametrize("pattern", ["5-5-5", "z5-5-5"])
@pytest.mark.parametrize("reflect", [True, False])
def test_a_moves_step_entry_matches_a_full_evaluation(pdb_dir, zero_dir, reflect, pattern):
    """On one partition's pattern databases, plain or zero-aware, the beam updates only the
    moved tile's group and its mirror's (step_entry, read by entry_value): along random walks,
    the sums so kept equal h_full's."""
    from patterndb import scramble
    from solver.search.heuristic import (
        GROUP_OF,
        entry_value,
        h_full,
        has_zero_aware,
        is_incremental,
        lookup_arrays,
        scratch_size,
        step_entry,
    )

    b, frame = prepare(" ".join(map(str, range(16))), "blank-first", 4, 4)
    data_dir = zero_dir if pattern.startswith("z") else pdb_dir
    plan = make_plan(frame, Options(pattern=pattern, data_dir=data_dir, reflect=reflect))
    H = plan.heuristic.H
    assert is_incremental(H) and has_zero_aware(H) == pattern.startswith("z")
    rng = np.random.default_rng(7)
    for _ in range(5):
        board = frame.to_canonical(scramble(b, 30, rng)).tiles.astype(np.int8)
        pos = np.argsort(board).astype(np.int64)
        reg, ref = np.zeros(scratch_size(H), np.int64), np.zeros(scratch_size(H), np.int64)
        h_full(board, pos, H, reg, ref)
        for _ in range(60):
            blank = pos[0]
            cell = rng.choice([c for c in b.shape.neighbours[blank] if c >= 0])
            t = board[cell]
            board[blank], board[cell] = t, 0
            pos[t], pos[0] = blank, cell
            for reflected, values in ((False, reg), (True, ref)):
                if reflected and not reflect:
                    continue
                (
                    md,
                    group_tiles,
                    group_k,
                    offsets,
                    refl_tile,
                    refl_cell,
                    table,
                    packed,
                    zinfo,
                    cols,
                ) = lookup_arrays(H)
                g, index, m, r = step_entry(
                    pos,
                    md,
                    group_tiles,
                    group_k,
                    offsets,
                    refl_tile,
                    refl_cell,
                    packed,
                    zinfo,
                    cols,
                    H[GROUP_OF],
                    t,
                    reflected,
                    has_zero_aware(H),
                )
                values[g] = entry_value(
                    table, packed, zinfo, cols, pos.size, g, index, m, r, has_zero_aware(H)
                )
            want_reg, want_ref = np.zeros_like(reg), np.zeros_like(ref)
            h = h_full(board, pos, H, want_reg, want_ref)
            assert (reg == want_reg).all() and (not reflect or (ref == want_ref).all())
            assert h == max(reg.sum(), ref.sum() if reflect else 0)


def test_a_beam_on_pattern_databases_finds_solutions_that_replay(pdb_dir):
    """The incremental beam on the 15-puzzle's 5-5-5: Korf's first board, solutions that
    replay, never shorter than its optimum (57)."""
    b, frame = prepare(KORF_1, "blank-first")
    plan = make_plan(frame, Options(pattern="5-5-5", data_dir=pdb_dir))
    canon = frame.to_canonical(b)
    for width in (64, 1024):
        status, path, _ = beam_kernel(
            canon.tiles.astype(np.int8),
            frame.canonical_goal.tiles.astype(np.int8),
            plan.heuristic.H,
            b.shape.neighbours,
            width,
            10**4,
            StopFlag().flag,
        )
        assert status == FOUND and len(path) - 1 >= 57
        tiles = canon.tiles.tolist()
        for a, c in zip(path, path[1:]):
            assert c in b.shape.neighbours[a]
            tiles[a], tiles[c] = tiles[c], 0
        assert tiles == frame.canonical_goal.tiles.tolist()


@pytest.mark.parametrize(
    "spec",
    [
        "manhattan",
        "4-4",
        "z4-4",
        "1-4/5-8+1,3,5,7/2,4,6,8+1,2,4,5/3,6/7,8",
        "0,1-4/0,5-8+0,1,3,5,7/0,2,4,6,8",
    ],
)
def test_a_beam_makes_the_choices_of_a_plain_one(tmp_path, spec):
    """The kernel's beam, on every way it finds a child's h (from scratch; one partition's
    moved group and its mirror's; a catalogue's moved group in each partition, plain and
    zero-aware), against a plain beam that evaluates every child from scratch and ranks it by
    2h + its line conflicts: the same solution and the same count of states generated, on
    8-puzzles and several widths."""
    from patterndb import random_board
    from patterndb.files.catalog import build_pattern_file
    from patterndb.puzzle.patterns import parse_catalog
    from solver.search.beam import CATALOGUE, FULL, PARTITION, _mode
    from solver.search.heuristic import has_zero_aware

    from . import naive

    shape = Shape(3, 3)
    goal = make_goal(shape, "blank-first")
    _, frame = prepare(" ".join(map(str, goal.tiles)), "blank-first")
    if spec == "manhattan":
        opts = Options(algorithm="idastar", heuristic="manhattan")
    else:
        for part in parse_catalog(spec, frame):
            for g in part:
                build_pattern_file(frame, g, tmp_path)
        opts = Options(algorithm="idastar", pattern=spec, data_dir=tmp_path)
    h = make_plan(frame, opts).heuristic
    assert _mode(h.H) == (FULL if spec == "manhattan" else CATALOGUE if "+" in spec else PARTITION)
    assert has_zero_aware(h.H) == spec.startswith(("z", "0"))
    assert [naive.neighbours(3, 3, c) for c in range(9)] == [
        [c for c in row if c >= 0] for row in shape.neighbours
    ]
    gt = tuple(goal.tiles.tolist())
    rng = np.random.default_rng(11)
    for _ in range(6):
        b = random_board(shape, goal, rng)
        for width in (1, 4, 32):
            status, path, generated = beam_kernel(
                b.tiles.astype(np.int8),
                goal.tiles.astype(np.int8),
                h.H,
                shape.neighbours,
                width,
                10**4,
                StopFlag().flag,
            )
            want, want_generated = naive.beam(
                tuple(b.tiles.tolist()),
                gt,
                3,
                3,
                lambda s: h(type(b)(shape, np.array(s))),
                width,
                rank=lambda s, hs: 2 * hs + naive.line_conflicts(s, gt, 3, 3),
            )
            assert (status == FOUND) == (want is not None)
            assert generated == want_generated
            if want is not None:
                assert [int(c) for c in path] == want
