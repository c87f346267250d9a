import threading

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from patterndb import Shape
from patterndb.bits import fetch_add, flood
from patterndb.build.additive import (
    Cells,
    _geometry,
    _neighbour_masks,
    _region_after_move,
    box_bridges,
    box_rings,
)
from patterndb.jit import njit

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


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SHAPES[:-3] + [(6, 4), (4, 5), (3, 2)]), st.data())
def test_region_after_a_move_is_the_flood_of_the_new_free_cells(shape, data):
    """The builder's shortcut (region - b + c where the 3x3 box shows b is no cut
    vertex) against a plain flood from c, for every move into the region of a blank."""
    rows, cols = shape
    n = rows * cols
    free = data.draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n - 1))
    blank = data.draw(st.sampled_from(sorted(free)))
    geo = _geometry(n, cols)
    nbrs = Shape(rows, cols).neighbours
    cells = Cells(
        nbrs,
        _neighbour_masks(nbrs),
        geo,
        np.zeros(1, dtype=np.uint16),
        box_rings(n, cols),
        box_bridges(cols),
    )
    mask = sum(1 << c for c in free)
    region = int(flood(blank, np.uint64(mask), geo))
    for b in (x for x in range(n) if region >> x & 1):
        for c in (int(x) for x in nbrs[b] if x >= 0 and x not in free):
            free2 = (mask | 1 << c) & ~(1 << b)
            got = int(_region_after_move(c, b, np.uint64(region), np.uint64(free2), cells))
            assert got == sum(
                1 << x for x in naive.region(rows, cols, c, {x for x in range(n) if free2 >> x & 1})
            )


def test_fetch_add_loses_no_update_between_threads():
    """The node meter's counter: two threads adding at once must sum exactly (a plain
    read-add-write loses updates when they interleave)."""

    @njit(nogil=True)
    def add_many(counter, n):
        old = 0
        for _ in range(n):
            old = fetch_add(counter, 1, 1)
        return old

    counter = np.zeros(3, dtype=np.int64)
    assert add_many(counter, 1) == 0 and counter.tolist() == [0, 1, 0]
    counter[1] = 0
    threads = [threading.Thread(target=add_many, args=(counter, 2_000_000)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter.tolist() == [0, 4_000_000, 0]
