#!/usr/bin/env python
"""Time move-pruning machine builds: wall and CPU seconds and peak memory per build.

Each build runs in its own process (so peak RSS from wait4 is that build's, less the
interpreter's and numba's own, which one tiny build's process measures first) and
prints the machine's states and crc32, so two trees' builders can be compared:

    python scripts/bench_machines.py                       # 5x5 at 14 and 16, 4x4 at 14 and 20
    python scripts/bench_machines.py --repeat 3 5x5:16     # medians over 3 runs
    PYTHONPATH=OTHER_TREE python scripts/bench_machines.py # that tree's builder

It fails (exit 1) if two runs of one build give different machines.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

BUILD = """
import sys, zlib
from patterndb import Shape
from patterndb.movefsm import build
r, c, d = map(int, sys.argv[1:4])
m = build(Shape(r, c), d)
print(m.transitions.shape[0], zlib.crc32(m.start.tobytes(), zlib.crc32(m.transitions.tobytes())))
"""


def run(rows: int, cols: int, depth: int) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, 'states crc32') of one build in a fresh process."""
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", BUILD, str(rows), str(cols), str(depth)],
                         stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"the build of {rows}x{cols} at depth {depth} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("builds", nargs="*", default=["5x5:14", "5x5:16", "4x4:14", "4x4:20"], help="RxC:DEPTH")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    print(f"# {platform.node()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
          f"patterndb from {os.environ.get('PYTHONPATH') or 'this environment'}")
    run(2, 2, 4)  # (a first use may compile the builder into numba's cache)
    base = run(2, 2, 4)[2]  # the interpreter, numba and the cached builder: counted out below
    print(f"{'build':>8} {'states':>10} {'crc32':>11} {'wall s':>16} {'CPU s':>8} {'peak MiB':>9}")
    for spec in args.builds:
        shape, depth = spec.split(":")
        rows, cols = map(int, shape.split("x"))
        runs = [run(rows, cols, int(depth)) for _ in range(args.repeat)]
        if len({r[3] for r in runs}) > 1:
            sys.exit(f"{spec}: the runs built different machines: {[r[3] for r in runs]}")
        states, crc = runs[0][3].split()
        walls = [r[0] for r in runs]
        spread = f" ({min(walls):.1f}-{max(walls):.1f})" if len(walls) > 1 else ""
        print(f"{spec:>8} {int(states):>10,} {int(crc):>11} {statistics.median(walls):>7.1f}{spread:>9} "
              f"{statistics.median(r[1] for r in runs):>8.1f} "
              f"{statistics.median(r[2] for r in runs) - base:>9.0f}")


if __name__ == "__main__":
    main()
