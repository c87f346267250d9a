#!/usr/bin/env python
"""Korf's 100 solved N times in one process with one plan (one thread a board), for a
profiler to watch the search and the Python around it without start-up in the way:

    python scripts/profile_korf100.py --pattern best --passes 10
    perf record -e cpu-clock -F 2000 python scripts/profile_korf100.py --passes 10
    python -m cProfile -s cumulative scripts/profile_korf100.py --passes 3

Prints the nodes and the time per expanded node; fails (exit 1) on a wrong length.
"""
from __future__ import annotations

import argparse
import os
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

    entries = read_batch(str(ROOT / "data" / "korf100.txt"))
    _, frame = prepare(entries[0].board, "blank-first")
    opts = Options(algorithm="idastar", pattern=args.pattern, jobs=1,
                   data_dir=Path(args.data_dir) if args.data_dir else None)
    plan = make_plan(frame, opts)
    run(frame.goal, plan)  # the kernels loaded before the clock starts
    boards = [(prepare(e.board, "blank-first")[0], e.expected) for e in entries]
    start, expanded = time.perf_counter(), 0
    for _ in range(args.passes):
        for board, expected in boards:
            sol = run(board, plan)
            if sol.length != expected:
                print(f"FAIL: {board} gave {sol.length}, expected {expected}", file=sys.stderr)
                return 1
            expanded += sol.nodes_expanded
    seconds = time.perf_counter() - start
    print(f"{args.passes} x Korf's 100 with {args.pattern}: {expanded:,} expanded in {seconds:.2f} s, "
          f"{seconds / expanded * 1e9:.0f} ns per expanded node ({seconds / args.passes:.3f} s a pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
