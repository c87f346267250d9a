import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from patterndb.additive import _geometry
from patterndb.bits import flood

from . import naive

SHAPES = [(2, 2), (3, 3), (2, 4), (3, 4), (4, 4), (5, 5), (4, 6), (2, 13), (1, 12), (12, 2)]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SHAPES), st.data())
def test_flood_is_the_breadth_first_region(shape, data):
    rows, cols = shape
    n = rows * cols
    free = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    seed = data.draw(st.sampled_from(sorted(free)))
    mask = sum(1 << c for c in free)
    got = int(flood(seed, np.uint64(mask), _geometry(rows * cols, cols)))
    assert got == sum(1 << c for c in naive.region(rows, cols, seed, free))


def test_flood_follows_a_snake_across_rows():
    # 2x13: a run along the first row, then down the last column's cell only
    rows, cols = 2, 13
    free = set(range(13)) | {25}
    got = int(flood(0, np.uint64(sum(1 << c for c in free)), _geometry(rows * cols, cols)))
    assert got == sum(1 << c for c in free)
