#!/usr/bin/env python
"""Time table builds: wall and CPU seconds and peak memory per build.

Each build runs as its own `pdb build` process into a fresh data directory,
so peak RSS (from wait4) is that build's alone and nothing is cached. The
first, throw-away build compiles/loads the numba kernels so that one-time
compilation is not counted.

    python scripts/bench_build.py                  # exact 3x3 2x4 2x5 3x4, PDB 5-5-5 6-6-3
    python scripts/bench_build.py --with-7-8       # also the 7-8 partition (minutes)
    python scripts/bench_build.py --repeat 3       # medians over 3 runs
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent

BUILDS = [
    ("exact 3x3", ["--size", "3"]),
    ("exact 2x4", ["--rows", "2", "--cols", "4"]),
    ("exact 2x5", ["--rows", "2", "--cols", "5"]),
    ("exact 3x4", ["--rows", "3", "--cols", "4"]),
    ("pdb 4x4 5-5-5", ["--size", "4", "--pattern", "5-5-5"]),
    ("pdb 4x4 6-6-3", ["--size", "4", "--pattern", "6-6-3"]),
]


def run(args: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one `pdb build` in a fresh directory."""
    d = tempfile.mkdtemp(prefix="pdbbench")
    try:
        start = time.perf_counter()
        p = subprocess.Popen(
            [str(BIN / "pdb"), "build", *args, "--quiet", "--data-dir", d],
            stdout=subprocess.DEVNULL,
        )
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"pdb build {' '.join(args)} failed with status {status}")
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--with-7-8", action="store_true", help="also build 7-8 (about 6 minutes, 1.7 GB)"
    )
    ap.add_argument("--only", default=None, help="only builds whose name contains this")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    builds = BUILDS + (
        [("pdb 4x4 7-8", ["--size", "4", "--pattern", "7-8"])] if args.with_7_8 else []
    )
    if args.only:
        builds = [b for b in builds if args.only in b[0]]
    run(["--rows", "2", "--cols", "3"])  # compile/load kernels once
    run(["--size", "3", "--pattern", "4-4"])
    print(f"{'build':16} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}   (median of {args.repeat})")
    for name, a in builds:
        rs = [run(a) for _ in range(args.repeat)]
        wall, cpu, rss = (statistics.median(x) for x in zip(*rs))
        print(f"{name:16} {wall:8.2f} {cpu:8.2f} {rss:9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
