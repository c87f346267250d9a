#!/usr/bin/env python
"""Korf's 100 solved N times in one process with one plan (one thread a board), for a
profiler to watch the search and the Python around it without start-up in the way:

    python scripts/profile_korf100.py --pattern best --passes 10
    perf record -e cpu-clock -F 2000 python scripts/profile_korf100.py --passes 10
    python -m cProfile -s cumulative scripts/profile_korf100.py --passes 3

Prints, per pass and as medians, the time, the search kernel's part of it (per expanded node)
and the Python around the kernel; fails (exit 1) on a wrong length.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the solver command does

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pattern", default="best")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    from solver.api import Options, make_plan, prepare, run
    from solver.batch import read_batch
    from solver.search.aot import kernels

    entries = read_batch(str(ROOT / "data" / "korf100.txt"))
    _, frame = prepare(entries[0].board, "blank-first")
    opts = Options(algorithm="idastar", pattern=args.pattern, jobs=1,
                   data_dir=Path(args.data_dir) if args.data_dir else None)
    plan = make_plan(frame, opts)
    run(frame.goal, plan)  # the kernels loaded before the clock starts
    # The search kernel's own time, apart from the Python around it (one thread a board: the
    # kernel's calls do not overlap, and a worker thread's call is timed where it runs).
    k = kernels()
    searches, in_kernel = {name: getattr(k, name) for name in ("search_subtrees", "search_root")}, [0.0]

    def timed(search):
        def call(*a):
            t = time.perf_counter()
            try:
                return search(*a)
            finally:
                in_kernel[0] += time.perf_counter() - t
        return call

    for name, search in searches.items():
        setattr(k, name, timed(search))
    boards = [(prepare(e.board, "blank-first")[0], e.expected) for e in entries]
    passes = []
    for _ in range(args.passes):
        start, expanded, in_kernel[0] = time.perf_counter(), 0, 0.0
        for board, expected in boards:
            sol = run(board, plan)
            if sol.length != expected:
                print(f"FAIL: {board} gave {sol.length}, expected {expected}", file=sys.stderr)
                return 1
            expanded += sol.nodes_expanded
        passes.append((time.perf_counter() - start, in_kernel[0]))
    for name, search in searches.items():
        setattr(k, name, search)
    for i, (seconds, kern) in enumerate(passes, 1):
        print(f"pass {i}: {seconds:.3f} s, kernel {kern:.3f} s ({kern / expanded * 1e9:.0f} ns per expanded node), "
              f"Python around it {seconds - kern:.3f} s")
    seconds, kern, python = (statistics.median(x) for x in zip(*((s, k, s - k) for s, k in passes)))
    print(f"{args.passes} x Korf's 100 with {args.pattern}: {expanded:,} expanded a pass; medians: pass {seconds:.3f} s, "
          f"kernel {kern:.3f} s ({kern / expanded * 1e9:.0f} ns per expanded node), Python {python:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
