"""The queue a split iteration's workers take their chunks of subtrees from."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ida.work_queue import MAX_CHUNK, WORK_SHARE, Rate, WorkQueue, chunk_floor, chunk_size


def drain(q):
    out = []
    while len(q):
        out.append(q.take())
    assert q.take().size == 0
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 10**7), min_size=1, max_size=300),
    st.integers(1, 64),
    st.booleans(),
    st.sampled_from([0.0, 1e5, 1e7, 1e12]),
)
def test_every_subtree_once_in_order_and_chunks_within_their_limits(sizes, jobs, weighted, floor):
    indices = np.random.default_rng(len(sizes)).permutation(len(sizes))
    weights = np.array(sizes, dtype=np.float64)[indices] if weighted else None
    q = WorkQueue(indices, weights, jobs, floor=floor)
    chunks = drain(q)
    assert np.concatenate(chunks).tolist() == indices.tolist()
    done = 0
    for c in chunks:
        left = len(indices) - done
        assert 1 <= c.size <= (max(1, left // jobs) if weighted else chunk_size(left, jobs))
        if weighted and c.size > 1:  # within the guided share of the work left, or the floor
            w = weights[done : done + c.size]
            assert w.sum() <= max(weights[done:].sum() / (WORK_SHARE * jobs), floor) * (1 + 1e-9)
        if weighted and c.size < max(1, left // jobs) and done + c.size < len(indices):
            w = weights[done : done + c.size + 1]  # and as much as fits: the next one would not
            assert w.sum() > max(weights[done:].sum() / (WORK_SHARE * jobs), floor) * (1 - 1e-9)
        done += c.size


def test_the_biggest_subtrees_at_the_head_go_out_one_at_a_time():
    """Line 37's solving iteration (`best`, -j 2): its three biggest subtrees, the solution in
    the third, were one chunk, searched by one thread."""
    weights = np.array([1.66e6, 1.48e6, 1.44e6] + [1.9e4] * 8657)
    q = WorkQueue(np.arange(weights.size), weights, 2)
    assert [q.take().tolist() for _ in range(3)] == [[0], [1], [2]]
    # then the small ones, 1/128 of what is left a chunk
    share = weights[3:].sum() / (WORK_SHARE * 2)
    assert q.take().size == int(share // 1.9e4)
    q = WorkQueue(np.arange(weights.size), None, 2)  # by count alone: all three in the first chunk
    assert q.take().tolist() == list(range(MAX_CHUNK))
    # a floor above them: what fits under it
    q = WorkQueue(np.arange(weights.size), weights, 2, floor=3.5e6)
    assert q.take().tolist() == [0, 1]


def line37_like(n=8660, total=166e6, seed=0):
    """Subtree sizes as skewed as line 37's complete iteration: biggest first, most tiny."""
    w = np.sort(np.random.default_rng(seed).pareto(0.9, n))[::-1]
    return w / w.sum() * total


def test_the_floor_keeps_chunks_of_tiny_subtrees_from_costing_more_than_their_search():
    """On 16 cores, line 37's complete iteration went out as 8,653 chunks of one subtree each
    (median 1,532 nodes, under a millisecond) and the threads waited 2 ms between chunks."""
    w = line37_like()
    jobs = 16
    bare = drain(WorkQueue(np.arange(w.size), w, jobs))
    floor = chunk_floor(w, jobs, 0.05, 4e6, 16)
    assert floor == 0.05 * 4e6  # 50 ms at 4 M nodes/s: under 1/256 of the iteration
    floored = drain(WorkQueue(np.arange(w.size), w, jobs, floor=floor))
    assert len(bare) > 2000 and len(floored) < len(bare) / 4
    small = [c for c in floored if w[c].sum() < floor / 2]
    # only guided self-scheduling's last chunks (by count) are small
    assert len(small) < jobs * np.log(w.size)
    assert all(w[c].sum() <= floor or c.size == 1 for c in floored)
    big = np.flatnonzero(w > floor)
    assert [c.tolist() for c in floored[: big.size]] == [
        [int(i)] for i in big
    ]  # the big ones alone, in order


def test_the_floor_is_a_share_of_a_small_iteration():
    w = line37_like(total=2e6)
    assert np.isclose(chunk_floor(w, 16, 0.05, 4e6, 16), 2e6 / 256)
    assert chunk_floor(None, 16, 0.05, 4e6, 16) == 0.0


def test_a_rate_is_a_low_guess_until_measured():
    r = Rate()
    assert r.value == Rate.GUESS
    r.add(3_000_000, 0.5)
    r.add(1_000_000, 0.5)
    assert r.value == 4e6


def test_the_driver_gives_the_backends_expected_nodes_of_this_iteration():
    from solver.ida.parallel import _expected

    last = np.array([600.0, 300.0, 100.0])
    weights = last[[0, 2]]  # two subtrees left to search
    assert np.allclose(_expected(weights, last, 8000.0, 2, 3), [4800.0, 800.0])  # growth 8
    assert _expected(weights, None, 8000.0, 2, 3) is weights
    assert np.allclose(_expected(weights, last, 0.0, 2, 3), weights)


def test_the_first_split_iteration_expects_an_equal_share_of_the_estimate_per_subtree():
    """No sizes yet: the 2 subtrees left of 4 (a resume) expect a quarter of the estimate each,
    and the threads' chunks then hold the floor's work, not MAX_CHUNK subtrees at most."""
    from solver.ida.parallel import _expected
    from solver.ida.threads import CHUNK_SECONDS, CHUNKS_PER_WORKER

    assert np.allclose(_expected(None, None, 8000.0, 2, 4), [2000.0, 2000.0])
    assert _expected(None, None, 0.0, 2, 4) is None  # nothing expected yet
    n, estimate, jobs = 8192, 4e6, 16
    weights = _expected(None, None, estimate, n, n)
    floor = chunk_floor(weights, jobs, CHUNK_SECONDS, Rate.GUESS, CHUNKS_PER_WORKER)
    sized = WorkQueue(np.arange(n), weights, jobs, floor=floor).chunks()
    counted = WorkQueue(np.arange(n), None, jobs).chunks()
    assert np.array_equal(np.concatenate(sized), np.arange(n))
    assert len(counted) >= 2 * len(sized) and max(map(len, sized)) > MAX_CHUNK


def test_dask_tasks_without_sizes_are_few_and_equal():
    """Counted out by guided self-scheduling, line 28's first split iteration on local:16 was
    470 tasks, most of a few subtrees, and each worker waited 2.4 s for its first."""
    from solver.cluster.tasks import MIN_UNSIZED_TASKS, UNSIZED_TASKS_PER_WORKER, task_chunks

    order = np.random.default_rng(1).permutation(8660)
    for jobs in (1, 2, 16, 64):
        chunks = task_chunks(order, None, jobs)
        assert np.concatenate(chunks).tolist() == order.tolist()
        assert len(chunks) == max(MIN_UNSIZED_TASKS, UNSIZED_TASKS_PER_WORKER * jobs)
        assert max(c.size for c in chunks) - min(c.size for c in chunks) <= 1
    assert [c.tolist() for c in task_chunks(np.arange(5), None, 16)] == [[0], [1], [2], [3], [4]]


def test_dask_tasks_with_sizes_hold_a_second_or_an_eighth_of_a_workers_share():
    from solver.cluster.tasks import TASK_SECONDS, TASKS_PER_WORKER, task_chunks

    w = line37_like()
    chunks = task_chunks(np.arange(w.size), w, 16, rate=4e6)
    assert np.concatenate(chunks).tolist() == list(range(w.size))
    floor = min(TASK_SECONDS * 4e6, w.sum() / (TASKS_PER_WORKER * 16))
    assert all(w[c].sum() <= floor * (1 + 1e-9) or c.size == 1 for c in chunks)
    # the floor's, and the last few by count
    assert len(chunks) < 2 * w.sum() / floor + 16 * np.log(w.size)


def test_dask_tasks_at_the_tail_are_merged_to_a_twentieth_of_a_second():
    """The queue's tail (the smallest subtrees) went out one subtree a task: 99 of line 28's 244
    tasks at bound 96 on local:16 held under 20 ms of search, run at the scheduler's pace."""
    from solver.cluster.tasks import (
        MIN_TASK_SECONDS,
        TASK_SECONDS,
        TASKS_PER_WORKER,
        WORK_SHARE,
        task_chunks,
    )

    w, jobs, rate = line37_like(), 16, 4e6
    ceiling = min(TASK_SECONDS * rate, w.sum() / (TASKS_PER_WORKER * jobs))
    floor = max(w.sum() / (WORK_SHARE * jobs), ceiling)
    least = min(MIN_TASK_SECONDS * rate, ceiling)
    unmerged = WorkQueue(np.arange(w.size), w, jobs, floor=floor).chunks()
    chunks = task_chunks(np.arange(w.size), w, jobs, rate)
    assert np.concatenate(chunks).tolist() == list(range(w.size))
    sizes = [w[c].sum() for c in chunks]
    assert sum(w[c].sum() < least for c in unmerged) > 50
    assert all(s >= least for s in sizes[:-1])  # (sizes fall: no small group waits for a big chunk)
    assert all(s <= max(floor, least) * (1 + 1e-9) or c.size == 1 for s, c in zip(sizes, chunks))
