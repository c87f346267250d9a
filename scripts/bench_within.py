#!/usr/bin/env python
"""Answers with a proven bound (`solver solve --within R`), board by board: when the first
solution came, the length and lower bound at the end, the gap, and the time to prove the
asked bound (or the time-out). Boards: lines of a file (each with its optimal length last
where known), or N uniformly random boards of a size from a seeded generator (numpy's default_rng(seed),
patterndb.random_board; blank-first goal). Each board is its own `solver solve` process.

    python scripts/bench_within.py --size 5 --random 20 --seed 2026 --within 1.05 --timeout 60
    python scripts/bench_within.py --size 5 --random 100 --seed 2026 81 95   # two of those 100 boards
    python scripts/bench_within.py --file data/korf24_50.txt 40 38 1 --within 1.05 --timeout 60
    python scripts/bench_within.py --file data/scrambled35.txt --anytime --timeout 45 1 2 3

Prints the median and 90th percentile of the gap and of the time, and how many boards met the
bound within the time-out. Fails (exit 1) if an answer does not replay, a lower bound exceeds
a known optimum, a length is below it, or the answer claims more than its bounds prove.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def boards(a) -> list[tuple[str, str, int | None]]:
    import numpy as np

    from patterndb import Shape, make_goal, random_board

    if a.random:
        shape = Shape(a.size, a.size)
        goal = make_goal(shape, "blank-first")
        rng = np.random.default_rng(a.seed)
        made = [
            (f"r{i}", " ".join(map(str, random_board(shape, goal, rng).tiles)), None)
            for i in range(1, a.random + 1)
        ]
        return [made[n - 1] for n in a.lines] if a.lines else made
    lines = [ln.split("#")[0].split() for ln in Path(a.file).read_text().splitlines()]
    lines = [f for f in lines if f]
    out = []
    for n in a.lines or range(1, len(lines) + 1):
        f = lines[n - 1]
        known = math.isqrt(len(f)) ** 2 != len(f)  # cells and the optimum, or the cells alone
        out.append((str(n), " ".join(f[:-1] if known else f), int(f[-1]) if known else None))
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    ap.add_argument(
        "lines",
        nargs="*",
        type=int,
        help="board lines of --file, or which of --random's boards (1-based; all if none)",
    )
    ap.add_argument(
        "--file", default=None, help="boards, one a line (the optimal length last where known)"
    )
    ap.add_argument("--size", type=int, default=5, help="side of --random's boards [5]")
    ap.add_argument(
        "--random", type=int, default=None, metavar="N", help="N seeded random boards instead"
    )
    ap.add_argument("--seed", type=int, default=2026, help="seed of --random's boards [2026]")
    ap.add_argument("--within", type=float, default=1.05, help="the bound asked for [1.05]")
    ap.add_argument(
        "--anytime",
        action="store_true",
        help="the best answer and bound by --timeout instead (solver solve --anytime)",
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a board may take [60]")
    ap.add_argument("--pattern", default=None, help="the tables (default: the strongest built)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="IDA* threads [every core]")
    ap.add_argument("--data-dir", default=None)
    a = ap.parse_args()
    if not a.random and not a.file:
        ap.error("give --random N or --file")
    if a.random and not all(1 <= n <= a.random for n in a.lines):
        ap.error(f"--random {a.random} makes boards 1 to {a.random}: got {a.lines}")
    failed = 0
    rows = []
    print(f"{'board':>5} {'length':>6} {'bound':>5} {'gap %':>6} {'first s':>7} {'s':>7}  ended")
    for name, board, optimum in boards(a):
        cmd = [
            sys.executable,
            "-m",
            "solver.cli",
            "solve",
            board,
            "--goal",
            "blank-first",
            *(["--anytime"] if a.anytime else ["--within", str(a.within)]),
            "--timeout",
            str(a.timeout),
            "--json",
            "--quiet",
        ]
        cmd += ["--pattern", a.pattern] if a.pattern else []
        cmd += ["-j", str(a.jobs)] if a.jobs else []
        cmd += ["--data-dir", a.data_dir] if a.data_dir else []
        started = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - started
        try:
            out = json.loads(r.stdout)
        except ValueError:
            print(
                f"FAIL: board {name}: exit {r.returncode}: {r.stderr.strip()[-300:]}",
                file=sys.stderr,
            )
            failed += 1
            continue
        if "length" not in out:
            print(
                f"FAIL: board {name}: no solution in {a.timeout} s ({out.get('reason')})",
                file=sys.stderr,
            )
            failed += 1
            continue
        length, bound = out["length"], out["lower_bound"]
        first = next(e["seconds"] for e in out["updates"] if e["length"] is not None)
        problems = []
        if len(out["moves"]) != length:
            problems.append("moves and length differ")
        if optimum is not None and not bound <= optimum <= length:
            problems.append(f"bounds {bound}..{length} do not hold the optimum {optimum}")
        if out.get("ended") == "within" and length > a.within * bound + 1e-9:
            problems.append("claims a bound it has not proven")
        if out["optimal"] != (length == bound):
            problems.append("says optimal wrongly")
        if problems:
            print(f"FAIL: board {name}: " + "; ".join(problems), file=sys.stderr)
            failed += 1
        rows.append((out["gap"], wall, first, out["ended"] in ("within", "optimal"), length, bound))
        print(
            f"{name:>5} {length:>6} {bound:>5} {100 * out['gap']:>6.2f} {first:>7.2f} {wall:>7.1f}  {out['ended']}",
            flush=True,
        )
    if rows:
        gaps, walls, firsts = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        met = sum(r[3] for r in rows)
        print(
            f"length: mean {statistics.mean(r[4] for r in rows):.1f} "
            f"({min(r[4] for r in rows)}-{max(r[4] for r in rows)}), lower bound: mean "
            f"{statistics.mean(r[5] for r in rows):.1f}"
        )
        print(
            f"gap: median {100 * statistics.median(gaps):.2f}%, 90th percentile {100 * pct(gaps, 0.9):.2f}%, "
            f"mean {100 * statistics.mean(gaps):.2f}%"
        )
        print(
            f"time a board: median {statistics.median(walls):.1f} s, 90th percentile {pct(walls, 0.9):.1f} s; "
            f"first solution: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s"
        )
        asked = "optimal" if a.anytime else f"within {a.within}"
        print(f"{asked} proven in {a.timeout:g} s: {met} of {len(rows)} boards")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
