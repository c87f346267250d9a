"""Tables whose blank may be anywhere (6x6 and 7x7 groups with more than 32 other cells):
equal to a plain BFS of their abstraction, never above the region-aware table, and what
a 7x7 build writes."""

import numpy as np
import pytest

from patterndb import Frame, Shape, make_goal
from patterndb.build import blankfree
from patterndb.build.additive import build_pattern, regions_fit
from patterndb.build.blankfree import build_blank_free
from patterndb.files.catalog import build_pattern_file, load_pattern
from patterndb.files.store import read_attrs
from patterndb.puzzle.ranking import num_placements, rank_many

from . import naive


@pytest.mark.parametrize(
    "rows, cols, cells",
    [
        (3, 3, (1, 2, 3)),
        (3, 3, (8,)),
        (2, 4, (4, 5, 6, 7)),
        (3, 4, (11, 10, 7)),
        (4, 4, (0, 5, 10)),
        (6, 6, (0, 1)),
        (7, 7, (48, 0)),
    ],
)
def test_equals_plain_bfs_of_the_abstraction(rows, cols, cells):
    shape = Shape(rows, cols)
    table, _, levels = build_blank_free(shape.neighbours, np.array(cells))
    ref = naive.blank_free_table(rows, cols, cells)
    assert len(ref) == (table != 255).sum() == num_placements(shape.n, len(cells))
    keys = np.array(list(ref))
    assert (table[rank_many(keys, shape.n)] == np.array(list(ref.values()))).all()
    assert levels == max(ref.values())


@pytest.mark.parametrize("chunk", [7, 13])
def test_pieces_of_a_few_ranks_give_the_same_table(monkeypatch, chunk):
    """A level's scan passes 8 ranks at a time where none is of the level: pieces whose ends
    are no multiple of 8 (and levels whose placements sit at a piece's last ranks) lose none."""
    shape = Shape(3, 4)
    whole, _, levels = build_blank_free(shape.neighbours, np.array([11, 10, 7]))
    monkeypatch.setattr(blankfree, "CHUNK", chunk)
    cut, _, cut_levels = build_blank_free(shape.neighbours, np.array([11, 10, 7]))
    assert np.array_equal(cut, whole) and cut_levels == levels


@pytest.mark.parametrize(
    "rows, cols, cells, blank",
    [(3, 3, (1, 2, 3, 4), 0), (4, 4, (1, 2, 5, 6), 0), (4, 4, (12, 13, 14), 15)],
)
def test_never_above_the_region_aware_table(rows, cols, cells, blank):
    shape = Shape(rows, cols)
    free = build_blank_free(shape.neighbours, np.array(cells))[0]
    regions = build_pattern(shape.neighbours, cols, np.array(cells), blank)[0]
    assert (free <= regions).all() and (free < regions).any()


def test_7x7_group_builds_blank_free_and_loads(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(7, 7), "blank-last"))
    tiles = (1, 2, 3)
    assert not regions_fit(49, 3)
    path = build_pattern_file(frame, tiles, tmp_path)
    attrs = read_attrs(path)
    assert (
        attrs["placements_reached"] == num_placements(49, 3)
        and "blank taken to be anywhere" in attrs["values"]
    )
    table = load_pattern(frame, tiles, tmp_path)
    ref = naive.blank_free_table(
        7, 7, tuple(int(c) for c in frame.canonical_goal.positions()[list(tiles)])
    )
    keys = np.array(list(ref))
    assert (np.asarray(table)[rank_many(keys, 49)] == np.array(list(ref.values()))).all()
