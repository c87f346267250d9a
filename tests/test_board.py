import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patterndb import (
    Board,
    BoardError,
    Shape,
    is_solvable,
    make_goal,
    parse_board,
    random_board,
    scramble,
    scramble_to,
)

from . import naive


@pytest.mark.parametrize(
    "text, tiles",
    [
        ("12345678_", [1, 2, 3, 4, 5, 6, 7, 8, 0]),
        ("863.54217", [8, 6, 3, 0, 5, 4, 2, 1, 7]),
        ("42_713856", [4, 2, 0, 7, 1, 3, 8, 5, 6]),
        ("1 4 0 5 8 2 3 6 7", [1, 4, 0, 5, 8, 2, 3, 6, 7]),
        ("1,4,0,5,8,2,3,6,7", [1, 4, 0, 5, 8, 2, 3, 6, 7]),
        ("1 2 3\n4 5 6\n7 8 _\n", [1, 2, 3, 4, 5, 6, 7, 8, 0]),
        ("012345678", list(range(9))),
        ("123456789ABCDEF_", list(range(1, 16)) + [0]),
    ],
)
def test_formats(text, tiles):
    assert parse_board(text).tiles.tolist() == tiles


def test_grid_gives_rectangular_shape():
    b = parse_board("1 2 3 4\n5 6 7 0\n")
    assert b.shape == Shape(2, 4)


def test_rows_cols_for_non_square():
    assert parse_board("12345_", 2, 3).shape == Shape(2, 3)
    assert parse_board("12345_", cols=3).shape == Shape(2, 3)


@pytest.mark.parametrize(
    "text, message",
    [
        ("1234567_", "do not make a square"),
        ("11345678_", "tile 1 appears 2 times"),
        ("1234567__", "blank appears 2 times"),
        ("1 2 3 4 5 6 7 8 9", "out of range"),
        ("123x5678_", "character 'x'"),
        ("12345678!", "unexpected character"),
        ("1 2 3 4 five 6 7 8 0", "unexpected token"),
        ("", "empty board"),
        ("1 2 3\n4 5\n6 7 8 0", "different lengths"),
        ("12345687_", None),  # parses; unsolvable is tested below
    ],
)
def test_bad_boards(text, message):
    if message is None:
        parse_board(text)
        return
    with pytest.raises(BoardError, match=message):
        parse_board(text)


def test_wrong_count_for_given_size():
    with pytest.raises(BoardError, match="has 12 tiles"):
        parse_board("12345678_", 3, 4)


@pytest.mark.parametrize("rows, cols", [(1, 3), (8, 8), (7, 8), (2, 0)])
def test_bad_shape(rows, cols):
    with pytest.raises(BoardError):
        Shape(rows, cols)


def test_goals():
    s = Shape(3, 3)
    assert str(make_goal(s, "blank-last")) == "1 2 3 4 5 6 7 8 0"
    assert str(make_goal(s, "blank-first")) == "0 1 2 3 4 5 6 7 8"
    assert str(make_goal(s, "1234_5678")) == "1 2 3 4 0 5 6 7 8"
    with pytest.raises(BoardError, match="bad goal"):
        make_goal(s, "blank-middle")


@pytest.mark.parametrize("goal", ["blank-last", "blank-first", "1 0 2 3 4 5"])
def test_solvability_matches_reachability_2x3(goal):
    shape = Shape(2, 3)
    g = make_goal(shape, goal)
    reach = naive.bfs_distances(tuple(g.tiles.tolist()), 2, 3)
    for perm in itertools.permutations(range(6)):
        assert is_solvable(Board(shape, np.array(perm)), g) == (perm in reach)


def test_solvability_matches_reachability_2x2_and_rect():
    for rows, cols in ((2, 2), (3, 2)):
        shape = Shape(rows, cols)
        g = make_goal(shape, "blank-last")
        reach = naive.bfs_distances(tuple(g.tiles.tolist()), rows, cols)
        for perm in itertools.permutations(range(rows * cols)):
            assert is_solvable(Board(shape, np.array(perm)), g) == (perm in reach)


shapes = st.tuples(st.integers(2, 5), st.integers(2, 5)).map(lambda rc: Shape(*rc))


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(0, 2**32 - 1), st.sampled_from(["blank-last", "blank-first"]))
def test_random_boards_are_solvable_and_parse_back(shape, seed, goal):
    g = make_goal(shape, goal)
    b = random_board(shape, g, np.random.default_rng(seed))
    assert is_solvable(b, g)
    assert parse_board(str(b), shape.rows, shape.cols) == b
    assert parse_board(str(b).replace(" ", ","), shape.rows, shape.cols) == b
    assert parse_board(b.grid()) == b


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(0, 60), st.integers(0, 2**32 - 1))
def test_scramble_walks_by_legal_moves(shape, moves, seed):
    g = make_goal(shape, "blank-last")
    b = scramble(g, moves, np.random.default_rng(seed))
    assert is_solvable(b, g)
    # Move generation: every neighbour of a board is solvable and one step away.
    for c in shape.neighbours[b.blank]:
        if c >= 0:
            nb = b.move_blank(int(c))
            assert is_solvable(nb, g)
            assert int((nb.tiles != b.tiles).sum()) == 2


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_scramble_to_stops_at_the_manhattan_distance_asked(shape, md, seed):
    g = make_goal(shape, "blank-first")
    goal, cols = tuple(g.tiles.tolist()), shape.cols
    try:
        b = scramble_to(g, md, np.random.default_rng(seed), max_moves=20_000)
    except ValueError as e:  # beyond what the board's walks reach (a 2x2 reaches at most 4)
        assert f"no board at Manhattan distance {md}" in str(e)
        return
    assert naive.manhattan(tuple(b.tiles.tolist()), goal, cols) == md
    assert is_solvable(b, g)
    assert scramble_to(g, md, np.random.default_rng(seed), max_moves=20_000) == b  # seeded
    with pytest.raises(ValueError, match="at least 0"):
        scramble_to(g, -1, np.random.default_rng(seed))


def test_unsolvable_flips_parity():
    g = make_goal(Shape(4, 4), "blank-last")
    assert not is_solvable(parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0"), g)


def test_directions_of_a_blank_path_and_a_path_that_jumps():
    """Shape.directions names each move of a blank path (U, D, L, R: where the blank goes)
    and refuses a step between cells that are not neighbours."""
    shape = Shape(3, 4)
    assert shape.directions([5, 1, 2, 6, 5, 9]) == "URDLD"
    assert shape.directions([7]) == ""
    with pytest.raises(ValueError, match="cells 3 and 4 are not adjacent"):
        shape.directions([2, 3, 4])
