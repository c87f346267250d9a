import numpy as np
import pytest

from patterndb import Board, Frame, Shape, make_goal
from patterndb.build.exact import UNREACHED, build_exact, histogram
from patterndb.files.catalog import build_exact_file, exact_path, load_exact
from patterndb.files.store import read_attrs
from patterndb.puzzle.ranking import rank_many

from . import naive

CORNER = [
    1,
    2,
    4,
    8,
    16,
    20,
    39,
    62,
    116,
    152,
    286,
    396,
    748,
    1024,
    1893,
    2512,
    4485,
    5638,
    9529,
    10878,
    16993,
    17110,
    23952,
    20224,
    24047,
    15578,
    14560,
    6274,
    3910,
    760,
    221,
    2,
]


def _check_against_bfs(shape: Shape, goal_spec: str):
    goal = make_goal(shape, goal_spec)
    frame = Frame.for_goal(goal)
    table, _ = build_exact(frame)
    ref = naive.bfs_distances(tuple(goal.tiles.tolist()), shape.rows, shape.cols)
    boards = [frame.to_canonical(Board(shape, np.array(s))) for s in ref]
    pos = np.array([b.positions() for b in boards])
    ranks = rank_many(pos, shape.n)
    assert (table[ranks] == np.array(list(ref.values()))).all()
    assert (table != UNREACHED).sum() == len(ref)  # nothing else is reachable
    return table


@pytest.mark.parametrize("goal", ["blank-first", "blank-last", "1 2 0 3 4 5", "2 1 0 3 5 4"])
def test_2x3_equals_bfs(goal):
    table = _check_against_bfs(Shape(2, 3), goal)
    if goal.startswith("blank"):
        assert histogram(table).size - 1 == 21


@pytest.mark.parametrize("goal", ["blank-last", "1 2 3 4 0 5 6 7 8"])
def test_3x3_equals_bfs(goal):
    _check_against_bfs(Shape(3, 3), goal)


def test_3x2_and_2x4_equal_bfs():
    _check_against_bfs(Shape(3, 2), "blank-last")
    _check_against_bfs(Shape(2, 4), "blank-first")


def test_known_histograms():
    corner, _ = build_exact(Frame.for_goal(make_goal(Shape(3, 3), "blank-last")))
    assert histogram(corner).tolist() == CORNER
    centre, _ = build_exact(Frame.for_goal(make_goal(Shape(3, 3), "1 2 3 4 0 5 6 7 8")))
    h = histogram(centre)
    assert h.size - 1 == 30 and h[30] == 148 and h.sum() == 181440
    mid, _ = build_exact(Frame.for_goal(make_goal(Shape(3, 3), "1 0 2 3 4 5 6 7 8")))
    assert histogram(mid).size - 1 == 31 and histogram(mid)[31] == 2


def test_file_is_self_describing(data_dir):
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-last"))
    attrs = read_attrs(exact_path(data_dir, frame))
    assert attrs["kind"] == "exact" and attrs["rows"] == 3 and attrs["cols"] == 3
    assert attrs["goal"] == "0 1 2 3 4 5 6 7 8"  # blank-last shares the blank-first table
    assert attrs["histogram"] == CORNER and attrs["states"] == 181440 and attrs["max"] == 31
    assert attrs["format_version"] == 1 and attrs["build_seconds"] > 0
    assert "rank" in attrs["index"] and "moves" in attrs["values"]
    assert load_exact(frame, data_dir).size == 362880


@pytest.mark.slow
def test_3x4_diameter(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(3, 4), "blank-first"))
    path = build_exact_file(frame, tmp_path)
    attrs = read_attrs(path)
    assert attrs["states"] == 239_500_800 and attrs["max"] == 53
