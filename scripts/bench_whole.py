#!/usr/bin/env python
"""Whole-process cost of `solver solve`, as a user pays it: wall time, CPU (user+sys)
and peak memory, start-up included, for one board and for Korf's 100, with 1 and 2
threads. Rounds alternate between the cases; medians are printed with the range.

    python scripts/bench_whole.py --rounds 5
    python scripts/bench_whole.py --rounds 5 --pattern 5-5-5
    python scripts/bench_whole.py --rounds 5 --jit     # each case also with PATTERNDB_AOT=off

Fails (exit 1) if a run fails or a batch misses an expected length. Builds nothing:
the tables of --pattern must be cached (it says which `pdb build` to run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KORF1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"


def run(cmd: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall s, user+sys s, peak RSS MB) of one child process (its own rusage, by wait4)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}")
    # ru_maxrss is in KB on Linux
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _cpu_model() -> str:
    """The CPU's model name (Linux), else what platform says."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def _uncached_bytecode() -> int:
    """How many of the project's modules have no current bytecode (each command then compiles
    them from source: about 0.06 s of start-up for all of them; scripts/setup.sh writes it)."""
    import importlib.util

    missing = 0
    for pkg in ("patterndb", "solver"):
        for src in (ROOT / pkg).rglob("*.py"):
            pyc = Path(importlib.util.cache_from_source(str(src)))
            try:
                head = pyc.read_bytes()[:16]
            except OSError:
                missing += 1
                continue
            # PEP 552: after the magic number, flags 0 and the source's mtime and size
            st = src.stat()
            stamp = int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF
            missing += (
                head[4:8] != bytes(4)
                or (int.from_bytes(head[8:12], "little"), int.from_bytes(head[12:16], "little"))
                != stamp
            )
    return missing


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pattern", default="7-8")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument(
        "--file",
        default=str(ROOT / "data" / "korf100.txt"),
        help="the batch of the 'Korf's 100' cases [data/korf100.txt]",
    )
    ap.add_argument(
        "--jit",
        action="store_true",
        help="also run every case with numba's JIT kernels (PATTERNDB_AOT=off), alternating",
    )
    args = ap.parse_args()
    solver = (
        [sys.executable, "-m", "solver.cli"]
        if not (Path(sys.executable).parent / "solver").exists()
        else [str(Path(sys.executable).parent / "solver")]
    )
    common = ["--goal", "blank-first", "--pattern", args.pattern] + (
        ["--data-dir", args.data_dir] if args.data_dir else []
    )
    check = subprocess.run([*solver, "solve", KORF1, *common], capture_output=True, text=True)
    if check.returncode != 0:
        print(f"error: {check.stderr.strip()}", file=sys.stderr)
        return 2
    cases = {
        "one board, -j 1": [*solver, "solve", KORF1, *common, "-j", "1"],
        "one board, -j 2": [*solver, "solve", KORF1, *common, "-j", "2"],
        "Korf's 100, -j 1": [*solver, "solve", "--file", args.file, *common, "-j", "1"],
        "Korf's 100, -j 2": [*solver, "solve", "--file", args.file, *common, "-j", "2"],
    }
    kernels = subprocess.run(
        [*solver, "compile", "--check"], capture_output=True, text=True
    ).stdout.split()[0]
    envs = {"": None}
    if args.jit:
        envs = {f" [{kernels}]": None, " [jit]": {**os.environ, "PATTERNDB_AOT": "off"}}
    results: dict[str, list[tuple[float, float, float]]] = {k + e: [] for k in cases for e in envs}
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    for _ in range(args.rounds):
        for name, cmd in cases.items():
            for tag, env in envs.items():
                results[name + tag].append(run(cmd, env))
    missing = _uncached_bytecode()
    print(
        f"machine: {_cpu_model()}, {os.cpu_count()} cores; load average before {load_before}, after "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; kernels: {kernels}; bytecode: "
        + (f"{missing} modules not compiled (run scripts/setup.sh)" if missing else "compiled")
    )
    print(
        f"{'case':24} {'wall s (median, min-max)':>26} {'CPU s (median, min-max)':>26} "
        f"{'peak MB':>8}   ({args.rounds} rounds, "
        f"pattern {args.pattern}, {os.cpu_count()} cores)"
    )
    for name, rs in results.items():
        walls, cpus = [r[0] for r in rs], [r[1] for r in rs]
        print(
            f"{name:24} {statistics.median(walls):8.3f} ({min(walls):.3f}-{max(walls):.3f})"
            f"{statistics.median(cpus):12.3f} ({min(cpus):.3f}-{max(cpus):.3f}) {max(r[2] for r in rs):8.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
