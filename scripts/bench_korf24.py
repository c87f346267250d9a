#!/usr/bin/env python
"""Solve Korf & Felner's 24-puzzles one board at a time on every core and print
line, length, expanded and generated nodes, seconds and nodes/s.

Exits 1 if a length differs from the known optimum, 2 if the tables are not
built (it says which `pdb build` it needs; it builds nothing itself).

    python scripts/bench_korf24.py --easiest 10 -j 2      # lines 38, 40, 25, ...
    python scripts/bench_korf24.py 1 -j 1                  # line 1 alone
    python scripts/bench_korf24.py 1 2 3 --scheduler local:2
    python scripts/bench_korf24.py 37 28 -j 1 --trace-dir traces/   # for simulate_scaling.py
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Korf & Felner's instances by their expanded nodes with 6-6-6-6 + reflection, easiest first.
EASIEST = [38, 40, 25, 32, 44, 37, 30, 13, 1, 28, 36, 5, 22, 16, 29, 4, 26, 3, 31, 41]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lines", nargs="*", type=int, help="instances by line number (1-50)")
    ap.add_argument("--easiest", type=int, default=None, help=f"the N easiest (N <= {len(EASIEST)})")
    ap.add_argument("--file", default=str(ROOT / "data" / "korf24_50.txt"))
    ap.add_argument("--pattern", default="6-6-6-6")
    ap.add_argument("--no-reflect", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="threads per board (default: every core)")
    ap.add_argument("--scheduler", default=None, help="run the subtrees on Dask: tcp://HOST:PORT, local:N or local:PxT")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--prune", type=int, default=None, help="move-pruning depth (2: only the undo; default: the shape's)")
    ap.add_argument("--trace-dir", default=None,
                    help="write each board's trace here as lineN.jsonl (for scripts/simulate_scaling.py)")
    args = ap.parse_args()
    if not args.lines and not args.easiest:
        ap.error("give line numbers or --easiest N")
    lines = args.lines + EASIEST[: args.easiest or 0]

    from patterndb import PatternError, TableError
    from solver.api import Options, make_plan, prepare, run
    from solver.batch import read_batch

    entries = {e.line - 2: e for e in read_batch(args.file)}  # two comment lines precede instance 1
    opts = Options(algorithm="idastar", pattern=args.pattern, reflect=not args.no_reflect, jobs=args.jobs,
                   data_dir=Path(args.data_dir) if args.data_dir else None, prune=args.prune)
    _, frame = prepare(entries[lines[0]].board, "blank-first")
    try:
        plan = make_plan(frame, opts)
    except (PatternError, TableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cluster = backend = None
    if args.scheduler:
        from solver.cluster import Cluster
        cluster = Cluster(args.scheduler)
        backend = cluster.backend(plan)
    from solver.api import Control

    print(f"{'line':>4} {'length':>6} {'known':>5} {'expanded':>15} {'generated':>15} {'seconds':>9} {'M gen/s':>8}", flush=True)
    bad = expanded = generated = 0
    start = time.perf_counter()
    try:
        for line in lines:
            e = entries[line]
            board, _ = prepare(e.board, "blank-first")
            trace = None
            if args.trace_dir:
                Path(args.trace_dir).mkdir(parents=True, exist_ok=True)
                trace = Path(args.trace_dir) / f"line{line}.jsonl"
            sol = run(board, plan, Control(backend=backend, trace=trace))
            ok = sol.length == e.expected
            bad += not ok
            expanded += sol.nodes_expanded
            generated += sol.nodes_generated
            print(f"{line:>4} {sol.length:>6} {e.expected:>5} {sol.nodes_expanded:>15,} {sol.nodes_generated:>15,} "
                  f"{sol.seconds:>9.2f} {sol.nodes_generated / sol.seconds / 1e6:>8.1f}{'' if ok else '  MISMATCH'}",
                  flush=True)
            if sol.race is not None:  # a race of two heuristics (--pattern "A|B"): who searched, each one's leg
                print(f"     race won by {sol.race['winner']}: " + "; ".join(
                    f"{leg['heuristic']} bound {leg['bound']}, {leg['expanded']:,} expanded, {leg['seconds']:.1f} s CPU"
                    for leg in sol.race["legs"]), flush=True)
    finally:
        if cluster is not None:
            cluster.close()
    wall = time.perf_counter() - start
    print(f"total: {len(lines)} boards, {expanded:,} expanded, {generated:,} generated, {wall:.2f}s wall "
          f"({wall / 60:.1f} min), jobs {args.jobs or 'all cores'}{', ' + args.scheduler if args.scheduler else ''}; "
          f"heuristic {sol.heuristic}")
    if bad:
        print(f"FAIL: {bad} length(s) differ from the known optimum", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
