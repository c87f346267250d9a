#!/usr/bin/env python
"""Two (or more) compiled kernel extensions against each other in one process, pass for pass.

    python scripts/ab_kernels.py A/_kernels_X.so B/_kernels_Y.so --pattern 7-8 --passes 10

Each pass solves Korf's 100 (or --file) once with each extension in turn, through this
checkout's driver; prints per extension the median pass, its range and the nodes, then
each extension's time over the first's, pass by pass, with their median. Fails (exit 1)
on a wrong length, or where the extensions expand different numbers of nodes (unless
--other-order: a kernel that orders children otherwise changes the solving iterations').

    python scripts/ab_kernels.py A.so B.so --file data/korf24_50.txt --instances 25,32 \
        --pattern z6-6-6-6 --passes 4

Why one process: this machine's speed drifts by 10-20% from minute to minute, so two
commands run in turn need many rounds; and the same source compiled twice (`solver
compile`, numba.pycc) can give different machine code, so "before" and "after" are each
one build, compiled the same way (a fresh numba cache: NUMBA_CACHE_DIR), and compared
here side by side. Build an extension of another tree with
`NUMBA_CACHE_DIR=$(mktemp -d) PATTERNDB_AOT=DIR PYTHONPATH=TREE python -m solver.cli
compile`; its exports must be this checkout's (solver.search.aot.EXPORTS).
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
    ap.add_argument("extensions", nargs="+", type=Path)
    ap.add_argument("--pattern", default="7-8")
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--file", default=str(ROOT / "data" / "korf100.txt"))
    ap.add_argument("--instances", default=None, help="only these boards, 1-based, e.g. 25,32")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--other-order", action="store_true",
                    help="the extensions may visit nodes in another order (the solving iterations' counts may differ)")
    args = ap.parse_args()
    from solver.api import Options, make_plan, prepare, run
    from solver.batch import read_batch
    from solver.search import aot

    kernels = [aot.open_extension(so) for so in args.extensions]
    entries = read_batch(args.file)
    if args.instances:
        entries = [entries[int(i) - 1] for i in args.instances.split(",")]
    _, frame = prepare(entries[0].board, "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", pattern=args.pattern, jobs=1,
                                    data_dir=Path(args.data_dir) if args.data_dir else None))
    boards = [(prepare(e.board, "blank-first")[0], e.expected) for e in entries]
    times: list[list[float]] = [[] for _ in kernels]
    nodes = [0] * len(kernels)
    for p in range(args.passes + 1):  # pass 0 warms the page cache and the kernels
        for i, k in enumerate(kernels):
            start, expanded = time.perf_counter(), 0
            with aot.serving(k):
                for board, expected in boards:
                    sol = run(board, plan)
                    if expected is not None and sol.length != expected:
                        print(f"FAIL: {args.extensions[i]} gave {sol.length} for {board}, expected {expected}",
                              file=sys.stderr)
                        return 1
                    expanded += sol.nodes_expanded
            if p:
                times[i].append(time.perf_counter() - start)
            nodes[i] = expanded
    print(f"{len(boards)} boards, {args.pattern}, {args.passes} passes; load average {os.getloadavg()[0]:.2f}")
    print(f"{'':>3} {'median s':>9} {'range':>15} {'expanded':>12}  extension")
    for i, (so, t, n) in enumerate(zip(args.extensions, times, nodes), 1):
        print(f"#{i:<2} {statistics.median(t):>9.3f} {min(t):>7.3f}-{max(t):<7.3f} {n:>12,}  {so}")
    for i, t in enumerate(times[1:], 2):
        ratios = [b / a for a, b in zip(times[0], t)]
        print(f"#{i} / #1: median {statistics.median(ratios):.3f} (passes: {' '.join(f'{r:.2f}' for r in ratios)})")
    if len(set(nodes)) > 1 and not args.other_order:
        print("FAIL: the extensions expanded different numbers of nodes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
