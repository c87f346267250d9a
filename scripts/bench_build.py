#!/usr/bin/env python
"""Time table builds: wall and CPU seconds, cores busy, entries a CPU second and peak memory.

Each build runs as its own `pdb build` process into a fresh data directory, so peak
RSS (from wait4) is that build's alone and nothing is cached. The first, throw-away
builds compile or load the numba kernels so that one-time compilation is not counted.
Entries are the placements (or states) of the tables the build wrote; "x published"
is their rate a CPU second over the fastest published generator's a thread
(Clausecker's, C: a 6-tile zero-aware 24-puzzle table, 127.5 M entries, in 85 s).
A build that fails stops the run (exit 1).

    python scripts/bench_build.py                  # exact 3x3 2x4 2x5 3x4, PDB 5-5-5 6-6-3
    python scripts/bench_build.py --named          # the named partitions of 4x4 to 7x7 (an hour)
    python scripts/bench_build.py --only machine   # the 5x5 move-pruning machine, depth 18
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

import h5py

BIN = Path(sys.executable).parent
PUBLISHED_RATE = 127_512_000 / 85  # entries a second, one thread (Clausecker's pdbgen)

BUILDS = [
    ("exact 3x3", ["--size", "3"]),
    ("exact 2x4", ["--rows", "2", "--cols", "4"]),
    ("exact 2x5", ["--rows", "2", "--cols", "5"]),
    ("exact 3x4", ["--rows", "3", "--cols", "4"]),
    ("pdb 4x4 5-5-5", ["--size", "4", "--pattern", "5-5-5"]),
    ("pdb 4x4 6-6-3", ["--size", "4", "--pattern", "6-6-3"]),
]
FIVE = ["--size", "5", "--goal", "blank-first"]
NAMED = [
    ("pdb 4x4 7-8", ["--size", "4", "--pattern", "7-8"]),
    ("pdb 4x4 best", ["--size", "4", "--pattern", "best"]),
    ("pdb 5x5 z6-6-6-6", [*FIVE, "--pattern", "z6-6-6-6"]),
    ("pdb 5x5 best", [*FIVE, "--pattern", "best"]),
    ("pdb 6x6 strong", ["--size", "6", "--pattern", "strong"]),
    ("pdb 7x7 best", ["--size", "7", "--pattern", "best"]),
]
# The machine alone (a `pdb build --pattern` on 5x5 builds it after the tables).
MACHINE = (
    "machine 5x5 d18",
    [
        str(BIN / "python"),
        "-c",
        "from patterndb import Shape; from patterndb.build.movefsm import build; "
        "build(Shape(5, 5), 18)",
    ],
)


def entries(d: str) -> int:
    """The entries of the tables written in d (machines have none)."""
    total = 0
    for path in Path(d).glob("*.h5"):
        with h5py.File(path, "r") as f:
            if "table" in f:
                a = f["table"].attrs
                total += int(a.get("placements", a.get("states", 0)))
    return total


def run(args: list[str]) -> tuple[float, float, float, int]:
    """(wall s, CPU s, peak RSS MiB, entries) of one build in a fresh directory: args are
    `pdb build`'s, or a whole command (its first word a path)."""
    d = tempfile.mkdtemp(prefix="pdbbench")
    try:
        cmd = args if os.path.isabs(args[0]) else [str(BIN / "pdb"), "build", *args]
        if not os.path.isabs(args[0]):
            cmd += ["--quiet", "--data-dir", d]
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"error: {' '.join(cmd)} failed with status {status}")
        return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, entries(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--named", action="store_true", help="the named partitions of 4x4 to 7x7 and the machine"
    )
    ap.add_argument("--only", default=None, help="only builds whose name contains this")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    builds = BUILDS + NAMED + [MACHINE]
    if args.only:
        builds = [b for b in builds if args.only in b[0]]
    elif args.named:
        builds = NAMED + [MACHINE]
    else:
        builds = BUILDS
    run(["--rows", "2", "--cols", "3"])  # compile/load kernels once
    run(["--size", "3", "--pattern", "4-4"])
    print(f"{os.cpu_count()} cores; median of {args.repeat}")
    print(
        f"{'build':18} {'wall s':>8} {'CPU s':>8} {'busy':>5} {'entries':>13} "
        f"{'M/CPU s':>8} {'x published':>11} {'peak MiB':>9}"
    )
    for name, a in builds:
        rs = [run(a) for _ in range(args.repeat)]
        wall, cpu, rss, count = (statistics.median(x) for x in zip(*rs))
        rate = count / cpu if cpu else 0.0
        print(
            f"{name:18} {wall:8.2f} {cpu:8.2f} {cpu / wall:5.2f} {int(count):13,} "
            f"{rate / 1e6:8.2f} {rate / PUBLISHED_RATE:11.2f} {rss:9.0f}",
            flush=True,
        )
    print(
        f"published: {PUBLISHED_RATE / 1e6:.2f} M entries a second a thread (Clausecker's pdbgen)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
