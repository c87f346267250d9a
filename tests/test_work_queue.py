"""The queue a split iteration's workers take their chunks of subtrees from."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.search.work_queue import MAX_CHUNK, WORK_SHARE, WorkQueue, chunk_size


def drain(q):
    out = []
    while len(q):
        out.append(q.take())
    assert q.take().size == 0
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10**7), min_size=1, max_size=300), st.integers(1, 64), st.booleans())
def test_every_subtree_once_in_order_and_chunks_within_their_limits(sizes, jobs, weighted):
    indices = np.random.default_rng(len(sizes)).permutation(len(sizes))
    weights = np.array(sizes, dtype=np.float64)[indices] if weighted else None
    q = WorkQueue(indices, weights, jobs)
    chunks = drain(q)
    assert np.concatenate(chunks).tolist() == indices.tolist()
    done = 0
    for c in chunks:
        left = len(indices) - done
        assert 1 <= c.size <= min(chunk_size(left, jobs), MAX_CHUNK)
        if weighted and c.size > 1:
            w = weights[done: done + c.size]
            assert w.sum() <= weights[done:].sum() / (WORK_SHARE * jobs)
        done += c.size


def test_the_biggest_subtrees_at_the_head_go_out_one_at_a_time():
    """Line 37's solving iteration (`best`, -j 2): its three biggest subtrees, the solution in
    the third, were one chunk, searched by one thread."""
    weights = np.array([1.66e6, 1.48e6, 1.44e6] + [1.9e4] * 8657)
    q = WorkQueue(np.arange(weights.size), weights, 2)
    assert [q.take().tolist() for _ in range(3)] == [[0], [1], [2]]
    assert q.take().size == MAX_CHUNK  # then the small ones, 16 at a time
    q = WorkQueue(np.arange(weights.size), None, 2)  # by count alone: all three in the first chunk
    assert q.take().tolist() == list(range(MAX_CHUNK))
