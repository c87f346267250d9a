#!/usr/bin/env python
"""Replay IDA* traces for 1 to 1024 workers: predicted wall time, speed-up, node overhead.

A trace (`solver solve BOARD --trace FILE`, or `scripts/bench_korf24.py ... --trace-dir DIR`)
records every chunk of frontier subtrees the workers searched: nodes and seconds. This
script replays the same work under a scheduler for P workers and prints, per P, the
predicted wall time, the speed-up over its own P = 1, the nodes expanded against the
serial search's, and the share of worker time lost idle at the barrier between
iterations.

    python scripts/simulate_scaling.py traces/line37.jsonl traces/line28.jsonl
    python scripts/simulate_scaling.py traces/*.jsonl --scheduler dask --latency 0.02
    python scripts/simulate_scaling.py traces/line37.jsonl --workers 1 2 --compare 1.0 2.0

Model (what is measured, what is estimated):
- Each subtree's seconds are its chunk's measured duration shared out by expanded nodes.
  Iterations that were not split (searched from the root) take their measured time on one
  worker whatever P is, as the driver does.
- The solving iteration: a trace has the found subtree's nodes and seconds up to the
  solution, and the subtrees searched before it. Subtrees the traced run never finished
  are estimated: their nodes in the last complete iteration times the growth of the
  subtrees it did finish, at the iteration's mean seconds per node.
- Schedulers:
  `threads` (today's ThreadBackend): the queue in search order (the fastest-growing big
  subtrees first, solver.ida.subtree_order), the biggest subtrees cut into pieces
  (solver.ida.pieces; modelled as equal pieces; --no-cut: none), each idle worker
  pulls a chunk (solver.ida.work_queue: sized by the subtrees' last sizes, or equal
  shares of the driver's estimate in the first split iteration, with the floor of
  CHUNK_SECONDS at the trace's own rate; --no-floor: without; --count-chunks: by count
  alone, as before), each costing --chunk-cost seconds more; the first solution
  stops everyone at once; a barrier ends each iteration.
  `dask` (today's DaskBackend): the same pieces, chunks from solver.cluster.tasks.task_chunks
  (a second of search each where the iteration is big enough) handed out in order (the
  backend keeps a few a worker submitted ahead: the same order), each costing --latency
  seconds more; the first solution stops the running tasks too (the client cancels them);
  otherwise as threads. A split iteration the driver expects to take at most
  --nearby-seconds on the client's --client-threads (at the iteration's own rate) is
  replayed as threads there, as the driver runs it (--nearby-seconds 0: the backend
  before). --count-chunks --no-cut: the backend before (len // (P * 16) subtrees a task,
  nothing cut).
  `split` (a model of finer work splitting, NOT what the solver does today): a
  subtree longer than --piece seconds is searched as pieces of at most --piece seconds
  in search order, each extra piece costing --split-cost; the solution is found in the
  piece that holds its place in the subtree.
- --contention A slows every worker by 1 + A (P - 1) (shared memory bandwidth and caches;
  0: ideal). On the 16-core Xeon, 16 independent one-thread processes each ran 16% slower
  than one alone (A = 0.011); a chunk of the threads cost about 2 ms at -j 16 with the
  chunks before the floor (the GIL), 0.04 ms at -j 2.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The driver's own cutting, chunking, order and expected sizes, and the Dask backend's chunking
# (which imports no Dask): the simulation replays what the real search would do.
from solver.cluster.tasks import NEARBY_SECONDS, task_chunks
from solver.ida.parallel import expected_expansions
from solver.ida.pieces import MAX_PIECES, SHARE
from solver.ida.subtree_order import search_order
from solver.ida.threads import CHUNK_SECONDS, CHUNKS_PER_WORKER
from solver.ida.trace import read_trace
from solver.ida.work_queue import WorkQueue, chunk_floor

FOUND, SEARCHED, LIMIT, STOPPED, SKIPPED = range(5)
DASK_TASKS_PER_WORKER = (
    16  # the Dask backend before it used its own chunks: len // (P * 16) subtrees a task
)


@dataclass
class Iteration:
    bound: int
    split: bool
    seconds: np.ndarray  # per subtree, in frontier order (estimated where not measured)
    nodes: np.ndarray
    order: np.ndarray  # frontier indices in the order the driver searches them
    weights: np.ndarray | None  # per subtree: its nodes in the last complete split iteration
    found: int = -1  # frontier index of the subtree holding the solution (solving iteration)
    estimated: int = 0  # subtrees whose figures are estimates
    estimate: float = 0.0  # the driver's expected nodes of it (from the iterations before)
    span: float = 0.0  # the traced run: first chunk's start to last chunk's end
    busy: float = 0.0  # the traced run: worker-seconds in kernel calls

    @property
    def serial_nodes(self) -> int:
        """Nodes one worker expands: all of them, or up to the solution in search order."""
        if self.found < 0:
            return int(self.nodes.sum())
        at = int(np.flatnonzero(self.order == self.found)[0])
        return int(self.nodes[self.order[:at]].sum() + self.nodes[self.found])


def load(path: str) -> tuple[dict, list[Iteration]]:
    """A trace's header and its iterations, ready to replay."""
    recs = read_trace(path)
    header = recs[0]
    if "trace" not in header:
        raise SystemExit(f"{path}: not a trace (no header)")
    n = int(header["frontier"])
    its: list[Iteration] = []
    last_sizes = prior_sizes = None
    current = None
    for r in recs[1:]:  # (a resumed search's trace starts mid-way: its first iteration is partial)
        if "started" in r:
            current = {"bound": r["started"], "subtrees": r["subtrees"], "chunks": []}
        elif "chunk" in r and current is not None:
            current["chunks"].append(r)
        elif "iteration" in r and current is not None:
            it = _iteration(current, n, last_sizes, prior_sizes)
            it.span = max(c["end"] for c in current["chunks"]) - min(
                c["start"] for c in current["chunks"]
            )
            it.busy = sum(c["end"] - c["start"] for c in current["chunks"])
            its.append(it)
            if it.split and it.found < 0:
                prior_sizes, last_sizes = last_sizes, it.nodes.copy()
            current = None
    # the solving iteration (no "iteration" line if stopped)
    if current is not None and current["chunks"]:
        its.append(_iteration(current, n, last_sizes, prior_sizes))
    for k, it in enumerate(its):
        it.estimate = expected_expansions(
            [SimpleNamespace(expanded=int(x.nodes.sum())) for x in its[:k]]
        )
    return header, its


def _iteration(
    rec: dict, n: int, last_sizes: np.ndarray | None, prior_sizes: np.ndarray | None
) -> Iteration:
    split = rec["subtrees"] > 1
    m = n if split else 1
    nodes = np.zeros(m, dtype=np.int64)
    secs = np.zeros(m)
    known = np.zeros(m, dtype=bool)
    complete = np.zeros(m, dtype=bool)  # searched to the end (what the growth is measured on)
    seen = np.zeros(m, dtype=bool)
    found = -1
    for c in rec["chunks"]:
        e = np.array(c["expanded"], dtype=np.int64)
        dt = max(0.0, c["end"] - c["start"])
        share = e / e.sum() if e.sum() > 0 else np.full(e.size, 1.0 / e.size)
        for i, st, ei, s in zip(c["chunk"], c["status"], e, share * dt):
            nodes[i] += ei  # (a subtree searched as pieces: their sum)
            secs[i] += s
            if st in (SEARCHED, SKIPPED, FOUND):
                known[i] = True
                complete[i] = st != FOUND and (complete[i] or not seen[i])
                if st == FOUND:
                    found = i
            else:  # stopped part-way: a lower bound, replaced by the estimate below if larger
                complete[i] = False
            seen[i] = True
    estimated = 0
    if split and not known.all():
        rate = secs[known].sum() / max(1, nodes[known].sum())
        base = (
            last_sizes
            if last_sizes is not None
            else np.full(m, nodes[complete].mean() if complete.any() else 1.0)
        )
        grow = nodes[complete].sum() / max(1, base[complete].sum()) if complete.any() else 1.0
        est = np.maximum(nodes[~known], (base[~known] * grow).astype(np.int64))
        nodes[~known] = est
        secs[~known] = est * rate
        estimated = int((~known).sum())
    order = (
        search_order(np.arange(m), last_sizes, prior_sizes)
        if split
        else np.zeros(1, dtype=np.int64)
    )
    return Iteration(
        rec["bound"], split, secs, nodes, order, last_sizes if split else None, found, estimated
    )


def units(
    it: Iteration, scheduler: str, P: int, args, secs: np.ndarray
) -> tuple[list[tuple], np.ndarray | None]:
    """The work units of a split iteration in queue order, (seconds, nodes, seconds into the
    unit at which the solution is found, or -1), and their expected work (for the queue's
    chunks; None where unknown). A subtree cut into k pieces is k units of 1/k of it each
    (the driver's pieces are unequal: a model). A found subtree's figures end at its
    solution, so the solution lies at the end of its last unit."""
    out, weights = [], []
    w = it.weights
    target = max(1.0, float(w[it.order].sum()) / (SHARE * P)) if w is not None else 0.0
    for i in it.order:
        s, e = float(secs[i]), int(it.nodes[i])
        k = 1
        if scheduler == "split" and s > args.piece:
            k = int(np.ceil(s / args.piece))
        elif (
            scheduler in ("threads", "dask")
            and not args.no_cut
            and w is not None
            and P > 1
            and w[i] > target
        ):
            k = int(min(MAX_PIECES, np.ceil(w[i] / target)))
        for j in range(k):
            extra = args.split_cost if j else 0.0
            sol = s / k + extra if i == it.found and j == k - 1 else -1.0
            out.append((s / k + extra, e // k + (e % k if j == 0 else 0), sol))
            weights.append(0.0 if w is None else w[i] / k)
    if args.count_chunks:
        return out, None
    # the first split iteration: an equal share of the estimate each, as the driver expects
    if w is None:
        return out, (np.full(len(out), it.estimate / len(it.nodes)) if it.estimate > 0 else None)
    weights = np.array(weights)  # as the driver gives them: scaled to the iteration's nodes
    return out, weights * (it.nodes.sum() / max(1.0, weights.sum()))


def replay(it: Iteration, scheduler: str, P: int, args, slow: float) -> tuple[float, int, float]:
    """(wall seconds, nodes expanded, idle worker-seconds) of one iteration on P workers."""
    if not it.split:
        return float(it.seconds[0]) * slow, int(it.nodes[0]), 0.0
    work, weights = units(it, scheduler, P, args, it.seconds * slow)
    if scheduler == "dask" and args.count_chunks:  # the Dask backend before: tasks by count
        size = max(1, len(work) // (P * DASK_TASKS_PER_WORKER))
        chunks = [work[i : i + size] for i in range(0, len(work), size)]
    elif scheduler == "split":  # a piece is taken alone
        chunks = [[u] for u in work]
    else:  # the threads' queue, or the Dask backend's (tasks submitted at once, handed out in order)
        idx = np.arange(len(work))
        # one worker's nodes a second here
        rate = it.nodes.sum() / max(1e-9, sum(u[0] for u in work))
        if scheduler == "dask":
            taken = task_chunks(idx, weights, P, rate)
        else:
            floor = (
                0.0
                if args.no_floor
                else chunk_floor(weights, P, CHUNK_SECONDS, rate, CHUNKS_PER_WORKER)
            )
            taken = WorkQueue(idx, weights, P, floor=floor).chunks()
        chunks = [[work[i] for i in c] for c in taken]
    free = [(0.0, w) for w in range(P)]  # (time the worker is free, worker)
    solved_at = None
    started: list[tuple[float, float, int]] = []  # (start, end, nodes) of every unit started
    for chunk in chunks:
        t, w = heapq.heappop(free)
        if solved_at is not None and t >= solved_at:
            heapq.heappush(free, (t, w))
            break
        t += args.latency if scheduler == "dask" else args.chunk_cost
        for secs, e, sol in chunk:
            if sol >= 0:
                started.append((t, t + sol, e))
                solved_at = t + sol if solved_at is None else min(solved_at, t + sol)
                t += sol
                break
            started.append((t, t + secs, e))
            t += secs
        heapq.heappush(free, (t, w))
    if solved_at is None:
        wall = max(t for t, _ in free)
        busy = sum(e - s for s, e, _ in started)
        return wall, sum(n for _, _, n in started), P * wall - busy
    nodes = 0  # everyone stops at the solution: what each unit searched by then
    for s, e, n in started:
        if s < solved_at:
            nodes += n if e <= solved_at else int(n * (solved_at - s) / max(e - s, 1e-12))
    return solved_at, nodes, 0.0


def _rate(it: Iteration) -> float:
    """One worker's nodes a second in this iteration (as the traced run searched it)."""
    return float(it.nodes.sum()) / max(1e-9, float(it.seconds.sum()))


def simulate(its: list[Iteration], scheduler: str, P: int, args) -> tuple[float, int, float]:
    slow = 1.0 + args.contention * (P - 1)
    here = args.client_threads or P  # the client's threads (local:P: P cores)
    wall = nodes = idle = 0.0
    for it in its:
        if (
            scheduler == "dask"
            and it.split
            and it.estimate <= args.nearby_seconds * here * _rate(it)
        ):
            # on the client's threads
            w, n, i = replay(it, "threads", here, args, 1.0 + args.contention * (here - 1))
        else:
            w, n, i = replay(it, scheduler, P, args, slow)
        wall += w
        nodes += n
        idle += i
    return wall, int(nodes), idle / max(P * wall, 1e-12)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("traces", nargs="+")
    ap.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    )
    ap.add_argument("--scheduler", choices=("threads", "dask", "split"), default="threads")
    ap.add_argument(
        "--latency", type=float, default=0.01, help="dask: seconds each task costs on top [0.01]"
    )
    ap.add_argument(
        "--nearby-seconds",
        type=float,
        default=NEARBY_SECONDS,
        help=f"dask: split iterations expected to take at most this on the client's threads run "
        f"there (0: none) [{NEARBY_SECONDS}]",
    )
    ap.add_argument(
        "--client-threads",
        type=int,
        default=0,
        help="dask: the client's threads for those (default: P, as local:P on P cores)",
    )
    ap.add_argument(
        "--piece", type=float, default=0.05, help="split: longest piece, seconds [0.05]"
    )
    ap.add_argument(
        "--split-cost", type=float, default=0.0005, help="split: seconds per extra piece [0.0005]"
    )
    ap.add_argument(
        "--contention", type=float, default=0.0, help="per-worker slow-down per extra worker [0]"
    )
    ap.add_argument(
        "--chunk-cost",
        type=float,
        default=0.0,
        help="threads: seconds each chunk costs its worker outside the search (the driver, the GIL) [0]",
    )
    ap.add_argument(
        "--no-floor",
        action="store_true",
        help="threads: chunks without the floor of work_queue.chunk_floor (as before it)",
    )
    ap.add_argument(
        "--count-chunks",
        action="store_true",
        help="chunks by count alone (the threads' and Dask's schedulers before chunks were sized by work)",
    )
    ap.add_argument(
        "--no-cut",
        action="store_true",
        help="threads: no subtree cut into pieces (as before pieces.py)",
    )
    ap.add_argument(
        "--compare",
        type=float,
        nargs="*",
        default=None,
        help="measured wall seconds for each --workers value: print the prediction's error",
    )
    args = ap.parse_args()
    loaded = [load(p) for p in args.traces]
    its = [it for _, t in loaded for it in t]
    serial_nodes = sum(it.serial_nodes for it in its)
    est = sum(it.estimated for it in its)
    names = ", ".join(Path(p).stem for p in args.traces)
    spans = [(h["jobs"], it) for h, t in loaded for it in t if it.split and it.found < 0]
    worker_time = sum(j * it.span for j, it in spans)
    barrier = 1 - sum(it.busy for _, it in spans) / worker_time if worker_time else 0.0
    jobs = sorted({h["jobs"] for h, _ in loaded})
    print(
        f"# {names}: traced with -j {'/'.join(map(str, jobs))} on {loaded[0][0].get('machine')} "
        f"(load {loaded[0][0].get('load_average')}); {len(its)} iterations, "
        f"{serial_nodes:,} nodes serially, "
        f"{est} subtrees of solving iterations estimated; in the traced run, workers were idle "
        f"{100 * barrier:.1f}% of the complete split iterations' time (the barrier and the driver); "
        f"{sum(float(it.seconds[0]) for it in its if not it.split):.2f} s in iterations searched from the root "
        "(on one worker, whatever P)"
    )
    print(
        f"# scheduler {args.scheduler}{' (chunks by count)' if args.count_chunks else ''}"
        f"{' (no pieces)' if args.no_cut else ''}, "
        f"contention {args.contention}"
        + (
            f", {args.chunk_cost} s a chunk{' (no floor)' if args.no_floor else ''}"
            if args.scheduler == "threads"
            else ""
        )
        + (
            f", latency {args.latency} s, split iterations expected <= {args.nearby_seconds} s on the client's "
            f"{args.client_threads or 'P'} threads run there"
            if args.scheduler == "dask"
            else ""
        )
        + (
            f", pieces <= {args.piece} s, {args.split_cost} s per split"
            if args.scheduler == "split"
            else ""
        )
    )
    print(
        f"{'workers':>7} {'wall s':>9} {'speed-up':>8} {'expanded':>15} {'x serial':>8} {'barrier idle':>12}"
        + ("  measured  error" if args.compare else "")
    )
    base = None
    for k, P in enumerate(args.workers):
        wall, nodes, idle = simulate(its, args.scheduler, P, args)
        base = base or (wall if P == 1 else simulate(its, args.scheduler, 1, args)[0])
        line = (
            f"{P:>7} {wall:>9.2f} {base / wall:>8.2f} {nodes:>15,} {nodes / serial_nodes:>8.2f} "
            f"{100 * idle:>11.1f}%"
        )
        if args.compare and k < len(args.compare):
            line += f"  {args.compare[k]:>8.2f} {100 * (wall / args.compare[k] - 1):>+6.1f}%"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
