"""The move-pruning machine: exactly the paths a plain rule allows, and no optimal solution lost."""

from collections import deque

import numpy as np
import pytest

from patterndb import Shape, make_goal, random_board
from patterndb.build.movefsm import build, undo_machine
from patterndb.errors import TableError
from patterndb.files.machines import load_or_build, machine_path, read_machine
from solver import solve
from solver.api import Options, make_plan, prepare, run
from solver.ida import Driver, StopFlag, ThreadBackend
from solver.search.subtrees import frontier

from . import naive
from .test_parallel import assert_counts, problem


def machine_paths(m, shape, blank, depth):
    """Every path the machine allows from blank, of `depth` moves, in depth-first order."""
    nbrs = shape.neighbours
    paths = [((blank,), int(m.start[blank]))]
    for _ in range(depth):
        paths = [
            (p + (int(nbrs[p[-1], d]),), int(m.transitions[s, d]))
            for p, s in paths
            for d in range(4)
            if m.transitions[s, d] >= 0
        ]
    return [list(p) for p, _ in paths]


@pytest.mark.parametrize("rows, cols, depth", [(2, 3, 12), (3, 3, 10), (2, 4, 10), (4, 4, 8)])
def test_machine_allows_exactly_the_paths_without_a_redundant_subpath(rows, cols, depth):
    shape = Shape(rows, cols)
    m = build(shape, depth)
    redundant = naive.redundant_paths(rows, cols, depth)
    assert m.forbidden.sum() == len(
        [
            p
            for p in redundant
            if not any(
                p[i:j] in redundant
                for i in range(len(p))
                for j in range(i + 2, len(p) + 1)
                if (i, j) != (0, len(p))
            )
        ]
    )
    for blank in range(shape.n):
        assert machine_paths(m, shape, blank, depth + 2) == naive.blank_paths(
            rows, cols, blank, depth + 2, redundant
        )


@pytest.mark.parametrize("rows, cols", [(2, 2), (3, 3), (3, 4), (5, 5)])
def test_undo_machine_is_the_searched_machine_of_depth_2(rows, cols):
    shape = Shape(rows, cols)
    m = undo_machine(shape)
    for blank in range(shape.n):
        want = naive.blank_paths(rows, cols, blank, 6)
        assert machine_paths(m, shape, blank, 6) == want
        if shape.n > 4:  # (on 2x2 every depth has two paths: the frontier stops at depth 1)
            assert (
                frontier(m.transitions, shape.neighbours, int(m.start[blank]), blank, len(want))[
                    0
                ].tolist()
                == want
            )


@pytest.mark.parametrize(
    "rows, cols, depth, radius", [(3, 3, 14, 20), (3, 4, 14, 15), (2, 2, 12, 20)]
)
def test_every_state_is_reached_at_its_distance(rows, cols, depth, radius):
    """From the goal, the allowed paths reach every state within radius by a shortest path
    (plain breadth-first search gives the distances): no optimal solution is pruned."""
    shape = Shape(rows, cols)
    goal = tuple(range(shape.n))
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        if dist[s] == radius:
            continue
        for t in naive.successors(s, rows, cols):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    m = build(shape, depth)
    nbrs = shape.neighbours
    reached = {goal: 0}
    stack = [(goal, 0, int(m.start[0]), 0)]
    while stack:
        s, b, state, g = stack.pop()
        if g == radius:
            continue
        for d in range(4):
            nxt = int(m.transitions[state, d])
            if nxt < 0:
                continue
            c = int(nbrs[b, d])
            t = list(s)
            t[b], t[c] = t[c], 0
            t = tuple(t)
            if reached.get(t, radius + 1) > g + 1:
                reached[t] = g + 1
            stack.append((t, c, nxt, g + 1))
    assert all(reached.get(s) == d for s, d in dist.items())
    assert m.forbidden.sum() > 0


def test_pruned_idastar_is_optimal_on_8_puzzles(data_dir, rng):
    """IDA* with Manhattan and the depth-14 machine against the exact table."""
    goal = make_goal(Shape(3, 3), "blank-first")
    board, frame = prepare(str(goal), "blank-first")
    plan = make_plan(
        frame,
        Options(algorithm="idastar", heuristic="manhattan", data_dir=data_dir, prune=14, jobs=1),
    )
    plain = make_plan(
        frame,
        Options(algorithm="idastar", heuristic="manhattan", data_dir=data_dir, prune=2, jobs=1),
    )
    # the exact table's walk, its table read once
    exact = make_plan(frame, Options(data_dir=data_dir))
    fewer = 0
    for _ in range(1500):
        b = random_board(Shape(3, 3), goal, rng)
        want = run(b, exact)
        sol = run(b, plan)
        assert want.algorithm == "table" and sol.length == want.length and sol.optimal
        fewer += sol.nodes_generated < run(b, plain).nodes_generated
    assert fewer > 1000  # the machine prunes on most boards


def test_counts_equal_plain_recursive_idastar_with_pruning(rng, tmp_path):
    """The kernels with a depth-10 machine count what the plain reference does with the plain rule."""
    goal = make_goal(Shape(3, 3), "blank-first")
    gt = tuple(goal.tiles.tolist())
    redundant = naive.redundant_paths(3, 3, 10)
    for _ in range(6):
        b = random_board(Shape(3, 3), goal, rng)
        p, _ = problem(str(b), heuristic="manhattan", prune=10, data_dir=tmp_path)
        length, its = naive.idastar(
            tuple(b.tiles.tolist()), gt, 3, 3, lambda s: naive.manhattan(s, gt, 3), redundant
        )
        for split in (0, 10**12):
            out = Driver(p, ThreadBackend(1), StopFlag(), split_nodes=split).run()
            assert len(out.path) - 1 == length
            assert_counts(out, its, split < 10**12)


def test_machine_file_is_cached_checked_and_rebuilt(tmp_path):
    shape = Shape(3, 3)
    m = load_or_build(shape, 8, tmp_path)
    path = machine_path(tmp_path, shape, 8)
    again = read_machine(path, shape, 8)
    assert np.array_equal(again.transitions, m.transitions) and np.array_equal(again.start, m.start)
    with pytest.raises(TableError, match="depth"):
        read_machine(path, shape, 10)
    with pytest.raises(TableError, match="cols=3, not 4"):
        read_machine(path, Shape(3, 4), 8)
    import h5py

    with h5py.File(path, "r+") as f:  # one transition redirected: the checksum no longer matches
        t = f["transitions"]
        t[0, 1] = t[0, 3] if t[0, 1] != t[0, 3] else -1
    with pytest.raises(TableError, match="damaged"):
        read_machine(path, shape, 8)
    logs = []
    rebuilt = load_or_build(shape, 8, tmp_path, logs.append)
    assert np.array_equal(rebuilt.transitions, m.transitions)
    assert any("damaged" in s for s in logs)
    read_machine(path, shape, 8)  # the rebuilt file is sound


def test_prune_option_and_depth_check(data_dir):
    sol = solve(
        "1 2 3 4 5 6 7 _ 8",
        "blank-last",
        algorithm="idastar",
        heuristic="manhattan",
        data_dir=data_dir,
        prune=12,
    )
    assert sol.length == 1
    with pytest.raises(Exception, match="from 2 to"):
        solve("1 2 3 4 5 6 7 _ 8", "blank-last", algorithm="idastar", data_dir=data_dir, prune=1)


def test_a_remembered_machine_is_read_without_hdf5_and_still_checked(tmp_path, monkeypatch):
    import os
    import time

    from patterndb.files import integrity, machines

    shape = Shape(3, 3)
    m = load_or_build(shape, 8, tmp_path)
    path = machine_path(tmp_path, shape, 8)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 10**10))  # old enough to be remembered
    time.sleep(integrity.CTIME_SLACK)  # (and its ctime, which utime set to now)
    read_machine(path, shape, 8)  # through HDF5, and remembered
    monkeypatch.setattr(machines, "_read_hdf5", lambda p: pytest.fail("read through HDF5 again"))
    again = read_machine(path, shape, 8)
    assert np.array_equal(again.transitions, m.transitions) and np.array_equal(again.start, m.start)
    with pytest.raises(TableError, match="depth"):
        read_machine(path, shape, 10)
    # A byte changed behind our back, the mtime put back: the ctime gives it away, so the file
    # is read (through HDF5) and checked in full again, and its crc32 catches it.
    st = path.stat()
    offset = machines.remembered(path)["machine"]["transitions"]
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(bytes([f.read(1)[0] ^ 1]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    monkeypatch.undo()
    assert machines.remembered(path) is None
    with pytest.raises(TableError, match="damaged"):
        read_machine(path, shape, 8)


def test_concurrent_first_builds_of_a_machine_build_it_once(tmp_path, monkeypatch):
    """Three first solves side by side build the machine once: a lock file makes the others
    wait and read the one built."""
    import threading
    import time

    from patterndb.files import machines

    calls = []
    real = machines.build

    def slow(shape, depth):
        calls.append(1)
        time.sleep(0.5)
        return real(shape, depth)

    monkeypatch.setattr(machines, "build", slow)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    logs: list[str] = []
    got = []
    threads = [
        threading.Thread(
            target=lambda: got.append(load_or_build(Shape(3, 3), 9, tmp_path, logs.append))
        )
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 3
    assert all(np.array_equal(m.transitions, got[0].transitions) for m in got)
    assert sum("another process built" in line for line in logs) == 2, logs


@pytest.mark.parametrize(
    "rows, cols, depth", [(2, 2, 12), (2, 3, 16), (3, 3, 16), (2, 4, 14), (3, 4, 13), (4, 4, 13)]
)
def test_the_build_cost_errs_high(rows, cols, depth):
    """The estimate made from a search of 10 moves is never below the real build's paths."""
    from patterndb.build.movefsm import _search, build_cost

    shape = Shape(rows, cols)
    real = int(_search(shape.neighbours, depth)[2].sum())
    cost = build_cost(shape, depth)
    assert real <= cost.paths <= 2 * real + 100
    assert cost.bytes >= 16 * real and cost.seconds > 0


def test_the_build_cost_errs_high_on_memory_measured():
    """A real build's growth of peak RSS (5x5, depth 14: about 200 MB) stays under the
    estimate: the peak is reset after the kernels are loaded (Linux's clear_refs), so a
    compile's own peak does not hide the build's."""
    import subprocess
    import sys

    code = (
        "from patterndb import Shape; from patterndb.build.movefsm import build, build_cost\n"
        "def kb(field): return int(next(l for l in open('/proc/self/status') if l.startswith(field)).split()[1])\n"
        "build(Shape(3, 3), 6); cost = build_cost(Shape(5, 5), 14)\n"
        "open('/proc/self/clear_refs', 'w').write('5'); before = kb('VmRSS')\n"
        "build(Shape(5, 5), 14)\n"
        "print((kb('VmHWM') - before) * 1024, cost.bytes)"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if got.returncode != 0 and "clear_refs" in got.stderr:
        pytest.skip("peak RSS cannot be reset here (/proc/self/clear_refs)")
    grown, estimate = map(int, got.stdout.split())
    assert 50 << 20 < grown <= estimate <= 4 * grown


def test_the_searched_machine_is_the_one_an_earlier_builder_made():
    """The machine of 5x5 at depth 12 as the first builder (a hash of every path's whole
    effect, suffixes looked up one by one) made it: its crc32 and size, kept from then."""
    import zlib

    m = build(Shape(5, 5), 12)
    assert m.transitions.shape == (48335, 4) and m.forbidden.sum() == 12960
    assert zlib.crc32(m.start.tobytes(), zlib.crc32(m.transitions.tobytes())) == 755578727


def test_a_machine_too_big_for_the_memory_is_refused_before_its_build(tmp_path, monkeypatch):
    """--prune 20 on 4x4 (286 s and 15 GB to build) says what it costs, and is refused where the
    memory is not there."""
    from click.testing import CliRunner

    from patterndb.files import machines
    from solver.cli.commands import main

    monkeypatch.setattr(machines, "available_memory", lambda: 1 << 30)
    monkeypatch.setattr(machines, "build", lambda shape, depth: pytest.fail("built anyway"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(
        TableError,
        match=r"depth 20 would need about \d+\.\d GiB to build and 1\.0 GiB is available",
    ):
        load_or_build(Shape(4, 4), 20, tmp_path)
    r = CliRunner().invoke(
        main,
        [
            "solve",
            "--size",
            "4",
            "1 2 3 4 5 6 7 8 9 10 11 12 13 14 _ 15",
            "-a",
            "idastar",
            "--heuristic",
            "manhattan",
            "--prune",
            "20",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 3 and "choose a smaller depth (the default is 14)" in r.output
    assert not list(tmp_path.glob("moves-*"))


def test_the_default_depth_falls_back_to_a_shallower_machine_that_fits(tmp_path, monkeypatch):
    """5x5 prunes to depth 18 unless told; where that machine's build would not fit in the
    memory at hand and none is kept, the deepest that fits serves (here 14, past 16), said a
    line a depth; one kept is used."""
    from patterndb.build.movefsm import build_cost
    from patterndb.files import machines

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shape = Shape(5, 5)
    assert machines.default_depth(shape) == 18
    free = (build_cost(shape, 14).bytes + build_cost(shape, 16).bytes) // 2
    monkeypatch.setattr(machines, "available_memory", lambda: free)
    logs = []
    m = machines.load_default(shape, tmp_path, logs.append)
    assert m.depth == 14 and machine_path(tmp_path, shape, 14).exists()
    assert (
        not machine_path(tmp_path, shape, 16).exists()
        and not machine_path(tmp_path, shape, 18).exists()
    )
    for deep, shallow in ((18, 16), (16, 14)):
        assert any(
            line.endswith(f"is available: pruning to depth {shallow} instead")
            and f"depth {deep} would need" in line
            for line in logs
        ), logs
    monkeypatch.setattr(machines, "available_memory", lambda: 1 << 20)
    logs.clear()
    assert machines.load_default(shape, tmp_path / "other", logs.append).depth < 12
    assert sum("pruning to depth" in line for line in logs) >= 4, logs
    # (a depth-14 machine filed as 18: cheaper than a build, and as readable)
    kept = m._replace(depth=18)
    machines.write_machine(machine_path(tmp_path, shape, 18), shape, kept, 1.0)
    assert machines.load_default(shape, tmp_path).depth == 18


@pytest.mark.parametrize("threads", [2, 3])
def test_the_start_cells_side_by_side_find_the_paths_of_one_thread(threads):
    """The search extends each start cell's paths on a thread of its own: the forbidden
    paths, their order, the live counts and so the machine do not depend on how many."""
    from patterndb.build.movefsm import _search

    nbrs = Shape(4, 4).neighbours
    one = _search(nbrs, 12, threads=1)
    got = _search(nbrs, 12, threads=threads)
    for a, b in zip(one, got[:3]):
        assert np.array_equal(a, b)
    assert got[3] == one[3]
