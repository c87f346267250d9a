"""Traces of real searches, and the scaling simulator that replays them."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import solve
from solver.api import Control
from solver.ida.trace import read_trace

from .instances import korf

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "simulate_scaling.py"


def simulator():
    spec = importlib.util.spec_from_file_location("simulate_scaling", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["simulate_scaling"] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def traced(pdb_dir, tmp_path_factory):
    """Korf #3 with 5-5-5, every iteration split, traced at -j 1 and -j 2."""
    d = tmp_path_factory.mktemp("traces")
    board = korf(2)[0]
    out = {}
    for jobs in (1, 2):
        path = d / f"j{jobs}.jsonl"
        sol = solve(
            board,
            goal="blank-first",
            pattern="5-5-5",
            data_dir=pdb_dir,
            jobs=jobs,
            control=Control(split_nodes=0, trace=path),
        )
        out[jobs] = (path, sol)
    return out


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_trace_accounts_for_every_node_and_subtree(traced, jobs):
    path, sol = traced[jobs]
    recs = read_trace(path)
    head = recs[0]
    assert head["trace"] == 1 and head["jobs"] == jobs and head["frontier"] > 1000
    its = [r for r in recs if "iteration" in r]
    assert [(r["iteration"], r["expanded"]) for r in its] == [
        (i["bound"], i["expanded"]) for i in sol.iterations
    ]
    for it in its:
        chunks = [r for r in recs if "chunk" in r and r["bound"] == it["iteration"]]
        got = sum(e for c in chunks for e, s in zip(c["expanded"], c["status"]) if s in (0, 1, 4))
        assert got == it["expanded"]
        assert all(0 <= c["start"] <= c["end"] <= it["t"] for c in chunks)
        if it is not its[-1]:  # a complete iteration: every subtree (once, or as its pieces)
            seen = [i for c in chunks for i in c["chunk"]]
            assert sorted(set(seen)) == list(range(head["frontier"]))
            assert jobs > 1 or len(seen) == head["frontier"]
    last = [
        (s, g)
        for c in recs
        if "chunk" in c and c["bound"] == its[-1]["iteration"]
        for s, g in zip(c["status"], c["goal_depth"])
    ]
    found = [g for s, g in last if s == 0]
    # one solution, at the solution's length; with 2 threads both may meet one (in different
    # subtrees, 2 ms apart, before either sees the other's stop: seen once in CI), each optimal
    assert (len(found) == 1) if jobs == 1 else (1 <= len(found) <= jobs)
    assert all(g == sol.length for g in found)
    assert {c["worker"] for c in recs if "chunk" in c} <= {f"ida-{i}" for i in range(jobs)} | {
        "main"
    }


def test_the_simulator_replays_a_one_thread_trace_exactly_at_one_worker(traced):
    sim = simulator()
    path, sol = traced[1]
    _, its = sim.load(str(path))
    assert sum(it.serial_nodes for it in its) == sol.nodes_expanded
    args = sim_args()
    wall, nodes, _ = sim.simulate(its, "threads", 1, args)
    assert nodes == sol.nodes_expanded
    measured = sum(i["seconds"] for i in sol.iterations)
    assert 0 < wall <= 1.01 * measured  # the chunks' time, less the driver's between them


def sim_args(**kw):
    return type(
        "A",
        (),
        {
            "contention": 0.0,
            "piece": 0.05,
            "split_cost": 0.0,
            "latency": 0.0,
            "count_chunks": False,
            "no_cut": False,
            "no_floor": False,
            "chunk_cost": 0.0,
            "nearby_seconds": 0.0,
            "client_threads": 0,
            **kw,
        },
    )()


def test_the_simulated_dask_backend_leaves_iterations_expected_small_to_the_client(traced):
    """As the driver: a split iteration expected to take at most nearby_seconds on the client's
    threads replays as threads there (no task latency), a bigger one as Dask tasks."""
    sim = simulator()
    _, its = sim.load(str(traced[1][0]))
    split = [it for it in its if it.split]
    assert split and all(it.estimate > 0 for it in split[1:])
    slow = sim_args(latency=0.05)
    threads = sim.simulate(split, "threads", 4, slow)[0]
    assert sim.simulate(split, "dask", 4, sim_args(latency=0.05, nearby_seconds=1e9))[
        0
    ] == pytest.approx(threads)
    # a task's latency at least once
    assert sim.simulate(split, "dask", 4, slow)[0] > threads + 0.05


def _synthetic(tmp_path, sizes, found_at=None, found_part=0.5):
    """A trace of one complete split iteration of the given per-subtree seconds (1 M nodes a
    second), and, with found_at, a solving iteration with the solution found_part of the way
    into subtree found_at (in search order, biggest first)."""
    n = len(sizes)
    recs = [{"trace": 1, "jobs": 1, "frontier": n, "machine": "test", "load_average": None}]
    t = 0.0

    def chunk(i, secs, status, bound):
        nonlocal t
        rec = {
            "chunk": [i],
            "bound": bound,
            "worker": "ida-0",
            "start": t,
            "end": t + secs,
            "status": [status],
            "expanded": [int(secs * 1e6)],
            "generated": [0],
            "goal_depth": [-1],
        }
        t += secs
        return rec

    recs.append({"started": 10, "subtrees": n, "t": 0.0})
    recs += [chunk(i, s, 1, 10) for i, s in enumerate(sizes)]
    recs.append(
        {
            "iteration": 10,
            "expanded": int(sum(sizes) * 1e6),
            "generated": 0,
            "seconds": t,
            "subtrees": n,
            "next_f": 12,
            "t": t,
        }
    )
    if found_at is not None:
        order = np.argsort(-np.array(sizes), kind="stable")
        recs.append({"started": 12, "subtrees": n, "t": t})
        for k, i in enumerate(order):
            if k < found_at:
                recs.append(chunk(int(i), 2 * sizes[i], 1, 12))
            else:
                recs.append(chunk(int(i), 2 * sizes[i] * found_part, 0, 12))
                break
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def run(path, *args):
    r = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), *args], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if not ln.startswith("#")][1:]
    return {int(x[0]): (float(x[1]), int(x[3].replace(",", ""))) for x in rows}


def test_equal_subtrees_scale_linearly_and_the_last_chunk_limits(tmp_path):
    path = _synthetic(tmp_path, [1.0] * 64)
    got = run(path, "--workers", "1", "2", "4", "64", "128")
    assert got[1][0] == pytest.approx(64.0)
    assert got[2][0] == pytest.approx(32.0) and got[4][0] == pytest.approx(16.0)
    # no subtree is split
    assert got[64][0] == pytest.approx(1.0) and got[128][0] == pytest.approx(1.0)
    assert all(n == 64_000_000 for _, n in got.values())


def test_a_solution_deep_in_a_big_subtree_limits_threads_and_splitting_helps(tmp_path):
    """The big subtree (8 s; 16 s at the next bound, the solution half-way into it) is one
    worker's alone under today's threads, in the complete iteration and in the solving one,
    while the others search subtrees the serial order never reaches. The split model cuts
    it into pieces of 0.5 s."""
    sizes = [8.0] + [0.5] * 64
    path = _synthetic(tmp_path, sizes, found_at=0, found_part=0.5)
    threads = run(path, "--workers", "1", "16", "--no-cut")
    assert threads[1] == (
        pytest.approx(40.0 + 8.0),
        48_000_000,
    )  # then 8 s into the biggest subtree
    assert threads[16][0] == pytest.approx(8.0 + 8.0)  # the big subtree, twice
    assert threads[16][1] == 48_000_000 + 64 * 500_000  # the 64 others searched in vain at bound 12
    cut = run(path, "--workers", "1", "16")  # pieces.py: the big subtree cut at the next bound
    assert cut[1] == threads[1] and cut[16][0] < 8.0 + 2.0
    split = run(
        path, "--workers", "1", "16", "--scheduler", "split", "--piece", "0.5", "--split-cost", "0"
    )
    assert split[1][0] == pytest.approx(48.0)
    assert split[16][0] == pytest.approx(40.0 / 16 + 8.0 / 16)
