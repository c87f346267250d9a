#!/usr/bin/env python
"""Solve Korf's 100 (or any batch file) and print instance, length, nodes, seconds.

Exits 1 if any length differs from the known optimum. Loading time and
search time are reported apart; search seconds are summed per instance
(CPU-like) and also given as wall time on the thread pool. As `solver solve
--file` does for a batch of 4 boards or more, the tables' pages are mapped
before the searches (Plan.populate); that is part of the table load.

    python scripts/bench_korf100.py --pattern 7-8
    python scripts/bench_korf100.py --pattern 6-6-3 --no-reflect --workers 1
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# As the solver command does (solver/cli/main.py): no BLAS is used, and OpenBLAS's idle thread pool
# costs about 0.1 s of CPU at numpy's import, which a whole-process timing would count.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--file", default=str(ROOT / "data" / "korf100.txt"))
    ap.add_argument("--pattern", default="7-8")
    ap.add_argument("--goal", default="blank-first")
    ap.add_argument("--no-reflect", action="store_true")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="boards side by side, a thread each (default: all cores)",
    )
    ap.add_argument("--first", type=int, default=None, help="only the first N boards")
    ap.add_argument("--instances", default=None, help="only these boards, 1-based, e.g. 55,17,43")
    ap.add_argument(
        "--heuristic",
        default=None,
        help="a classic heuristic instead of --pattern (e.g. manhattan)",
    )
    ap.add_argument("--data-dir", default=None)
    ap.add_argument(
        "--prune",
        type=int,
        default=None,
        help="move-pruning depth (2: only the undo; default: the shape's)",
    )
    args = ap.parse_args()

    t0 = time.perf_counter()
    from solver.api import Options, make_plan, prepare, run
    from solver.batch import POPULATE_MIN, read_batch, solve_batch
    from solver.ida.threads import default_jobs
    from solver.search import aot

    entries = read_batch(args.file)[: args.first]
    if args.instances:
        entries = [entries[int(i) - 1] for i in args.instances.split(",")]
    opts = Options(
        algorithm="idastar",
        heuristic=args.heuristic,
        pattern=None if args.heuristic else args.pattern,
        reflect=not args.no_reflect,
        data_dir=Path(args.data_dir) if args.data_dir else None,
        jobs=1,  # one thread per board
        prune=args.prune,
    )
    t1 = time.perf_counter()
    _, frame = prepare(entries[0].board, args.goal)
    plans = {frame.key: make_plan(frame, opts)}  # load the tables once, timed
    # as `solver solve --file` does for a batch (solve_batch), timed here
    if len(entries) >= POPULATE_MIN:
        plans[frame.key].populate()
    t2 = time.perf_counter()
    run(frame.goal, plans[frame.key])  # load the compiled kernel before timing
    t3 = time.perf_counter()
    print(
        f"{'#':>3} {'length':>6} {'known':>5} {'nodes expanded':>15} {'nodes generated':>16} {'seconds':>8}"
    )
    bad = nodes = expanded = 0
    cpu = 0.0
    start = time.perf_counter()
    workers = args.workers or default_jobs()
    for i, (e, sol) in enumerate(
        solve_batch(entries, args.goal, opts, lambda m: None, workers, plans), 1
    ):
        ok = e.expected is None or sol.length == e.expected
        bad += not ok
        nodes += sol.nodes_generated
        expanded += sol.nodes_expanded
        cpu += sol.seconds
        print(
            f"{i:>3} {sol.length:>6} {e.expected if e.expected is not None else '':>5} "
            f"{sol.nodes_expanded:>15,} {sol.nodes_generated:>16,} "
            f"{sol.seconds:>8.3f}{'' if ok else '  MISMATCH'}",
            flush=True,
        )
    wall = time.perf_counter() - start
    print(
        f"total: {len(entries)} boards, {expanded:,} expanded, {nodes:,} generated, search {cpu:.3f}s summed "
        f"({nodes / cpu / 1e6:.2f} M generated/s per thread), {wall:.3f}s wall; "
        f"import {t1 - t0:.2f}s, table load {t2 - t1:.2f}s, kernel load {t3 - t2:.2f}s; heuristic {sol.heuristic}; "
        f"kernels {aot.origin.split()[0]}"
    )
    # numba's dispatch costs every kernel call: Korf's 100 then takes about 1.5x as long
    if aot.origin == "jit":
        print(
            "note: numba's JIT kernels ran; run 'solver compile' to time the compiled ones",
            file=sys.stderr,
        )
    if bad:
        print(f"FAIL: {bad} length(s) differ from the known optimum", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
