#!/usr/bin/env python
"""Korf's 100 with two checkouts in turn: the search time of each, round by round.

    git archive BASE | tar -x -C /tmp/base && (cd /tmp && PYTHONPATH=/tmp/base python -m solver.cli compile)
    python scripts/ab_korf100.py /tmp/base . --pattern 7-8 --pattern best --rounds 10

Each round runs `scripts/bench_korf100.py --workers 1` of checkout A, then of checkout B
(PYTHONPATH set to each, the tables of --data-dir), for each pattern; prints per pattern
each side's median search seconds (summed over the 100) with its range, the expanded
nodes, and B's time over A's round by round with the median of those ratios. Fails (exit 1)
where a run fails (bench_korf100 fails on a wrong length). Each checkout should have its
compiled kernels (`solver compile`), else the JIT's compile time is in its first round.

Why rounds in turn: this machine's speed drifts by 10-20% from minute to minute; a ratio
per round compares two runs a second apart. Why whole checkouts: the driver's Python is
part of the search time (scripts/ab_kernels.py compares two compiled kernels in one process).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOTAL = re.compile(r"total: .*? ([\d,]+) expanded, .*?search ([\d.]+)s summed")


def run(tree: Path, pattern: str, data_dir: Path) -> tuple[float, int]:
    """(search seconds summed, nodes expanded) of one bench_korf100 run of tree."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, str(tree / "scripts" / "bench_korf100.py"), "--pattern", pattern, "--workers", "1",
           "--data-dir", str(data_dir)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/")
    found = TOTAL.search(p.stdout)
    if p.returncode != 0 or found is None:
        sys.exit(f"FAIL: {' '.join(cmd)} (PYTHONPATH={tree}) exited {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return float(found.group(2)), int(found.group(1).replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path, help="checkout A (e.g. the base)")
    ap.add_argument("b", type=Path, help="checkout B")
    ap.add_argument("--pattern", action="append", help="repeatable (default: 7-8)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--data-dir", type=Path, default=ROOT / "data")
    args = ap.parse_args()
    trees = [args.a.resolve(), args.b.resolve()]
    patterns = args.pattern or ["7-8"]
    times = {(p, t): [] for p in patterns for t in range(2)}
    nodes = {}
    for _ in range(args.rounds):
        for p in patterns:
            for t, tree in enumerate(trees):
                seconds, expanded = run(tree, p, args.data_dir.resolve())
                times[p, t].append(seconds)
                nodes[p, t] = expanded
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Korf's 100, one thread, {args.rounds} rounds in turn; A = {trees[0]}, B = {trees[1]}; "
          f"load average {load:.2f}")
    print(f"{'pattern':8} {'A median s':>10} {'A range':>13} {'B median s':>10} {'B range':>13} "
          f"{'A nodes':>11} {'B nodes':>11} {'B/A':>6}  (per round)")
    for p in patterns:
        a, b = times[p, 0], times[p, 1]
        ratios = [y / x for x, y in zip(a, b)]
        print(f"{p:8} {statistics.median(a):>10.3f} {min(a):>6.3f}-{max(a):<6.3f} {statistics.median(b):>10.3f} "
              f"{min(b):>6.3f}-{max(b):<6.3f} {nodes[p, 0]:>11,} {nodes[p, 1]:>11,} {statistics.median(ratios):>6.3f}"
              f"  ({' '.join(f'{r:.2f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
