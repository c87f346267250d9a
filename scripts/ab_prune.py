#!/usr/bin/env python
"""Compare move-pruning depths on one board, in one process, in turn.

A depth trades nodes (a deeper machine prunes more duplicate paths) against the cost of a
node (a bigger machine's rows miss the cache more often). Whole runs of
`bench_korf24.py --prune D` differ by 10-20% on a shared VM from one run to the next, more
than the trade; here the plans share their tables, the depths alternate (ABBA...), and
the figure compared is the time per node of the complete iterations, whose nodes are the
same in every run of one depth (the solving iteration's depend on which thread found the
goal first). It prints a row per run and, per depth, the medians; the ratios are each
round's against the first depth's run of the same round. Run it where `solver compile` has
compiled this tree's kernels: otherwise the first run also compiles them (a minute or two).

    python scripts/ab_prune.py 28 --pattern cr14 --depths 16,18 --rounds 8
    python scripts/ab_prune.py 37 --pattern z6-6-6-6 --depths 14,16,18 -j 1

Lines are those of data/korf24_50.txt (1-50); a missing machine is built first (5x5 at
depth 18: about 2 minutes). Exits 1 if a length differs from the known optimum, 2 if the
tables are not built.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from patterndb.errors import TableError
from solver.api import Options, make_plan, prepare, run
from solver.batch import read_batch

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("line", type=int, help="instance of data/korf24_50.txt (1-50)")
    ap.add_argument("--pattern", default="cr14")
    ap.add_argument("--depths", default="16,18", help="comma-separated move-pruning depths")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    if not 1 <= args.line <= 50:
        ap.error(f"line must be from 1 to 50, got {args.line}")
    depths = [int(d) for d in args.depths.split(",")]
    e = {e.line - 2: e for e in read_batch(str(ROOT / "data" / "korf24_50.txt"))}[args.line]  # two comment lines first
    b, frame = prepare(e.board, "blank-first")
    want = e.expected
    ddir = Path(args.data_dir) if args.data_dir else None
    try:
        plans = {d: make_plan(frame, Options(algorithm="idastar", pattern=args.pattern, data_dir=ddir,
                                             jobs=args.jobs, prune=d)) for d in depths}
    except TableError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"line {args.line} (length {want}), {plans[depths[0]].heuristic.name}, -j {args.jobs}")
    print(f"{'round':>5} {'depth':>5} {'length':>6} {'expanded':>13} {'complete':>13} {'complete s':>10} "
          f"{'ns/node':>8} {'wall s':>7}")
    per_node: dict[int, list[float]] = {d: [] for d in depths}
    wall: dict[int, list[float]] = {d: [] for d in depths}
    wrong = False
    for r in range(args.rounds):
        for d in (depths if r % 2 == 0 else depths[::-1]):
            t = time.perf_counter()
            s = run(b, plans[d])
            dt = time.perf_counter() - t
            done = s.iterations[:-1]
            nodes, secs = sum(x["expanded"] for x in done), sum(x["seconds"] for x in done)
            per_node[d].append(1e9 * secs / nodes)
            wall[d].append(dt)
            wrong |= s.length != want
            print(f"{r:>5} {d:>5} {s.length:>6} {s.nodes_expanded:>13,} {nodes:>13,} {secs:>10.2f} "
                  f"{per_node[d][-1]:>8.0f} {dt:>7.2f}", flush=True)
    base = depths[0]
    for d in depths:
        ratio = statistics.median(a / b for a, b in zip(per_node[d], per_node[base]))
        print(f"depth {d}: median {statistics.median(per_node[d]):.0f} ns a node of the complete iterations "
              f"({ratio:.3f}x depth {base}'s, median of the rounds), median wall {statistics.median(wall[d]):.2f} s")
    if wrong:
        print("error: a length differs from the known optimum", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
