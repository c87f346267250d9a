#!/usr/bin/env python
"""Solve 24-puzzles one board at a time on every core and print line, length, expanded and
generated nodes, seconds and nodes/s: Korf & Felner's 50 by their line numbers, or a seeded
sample of uniformly random boards.

Exits 1 if a length differs from the known optimum (or a random board's answer is not
proven optimal), 2 if the tables are not built (it says which `pdb build` it needs; it builds
nothing itself).

    python scripts/bench_korf24.py --easiest 10 -j 2      # lines 38, 40, 25, ...
    python scripts/bench_korf24.py 1 -j 1                  # line 1 alone
    python scripts/bench_korf24.py 1 2 3 --scheduler local:2
    python scripts/bench_korf24.py 37 28 -j 1 --trace-dir traces/   # for simulate_scaling.py
    python scripts/bench_korf24.py --random 10 --seed 1 --pattern best --timeout 900
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Korf & Felner's instances by their expanded nodes with 6-6-6-6 + reflection, easiest first.
EASIEST = [38, 40, 25, 32, 44, 37, 30, 13, 1, 28, 36, 5, 22, 16, 29, 4, 26, 3, 31, 41]


def boards(args) -> list[tuple[str, object, int | None]]:
    """(label, board, known length or None) for the boards asked for."""
    from patterndb import make_goal, random_board
    from solver.batch import instances

    if args.random:
        import numpy as np

        first = next(e.board for e in instances(args.file).values() if e.board is not None)
        goal = make_goal(first.shape, "blank-first")
        rng = np.random.default_rng(args.seed)
        return [
            (f"r{i}", random_board(first.shape, goal, rng), None) for i in range(1, args.random + 1)
        ]
    found = instances(args.file)
    out = []
    for line in args.lines + EASIEST[: args.easiest or 0]:
        e = found.get(line)
        if e is None or e.board is None:
            raise SystemExit(f"error: {args.file} has no board number {line}")
        out.append((str(line), e.board, e.expected))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "lines", nargs="*", type=int, help="instances by number (1-50: the file's board lines)"
    )
    ap.add_argument(
        "--easiest", type=int, default=None, help=f"the N easiest (N <= {len(EASIEST)})"
    )
    ap.add_argument(
        "--random",
        type=int,
        default=None,
        metavar="N",
        help="N uniformly random boards of the file's shape instead (seeded by --seed)",
    )
    ap.add_argument("--seed", type=int, default=2026, help="seed of --random's boards [2026]")
    ap.add_argument("--file", default=str(ROOT / "data" / "korf24_50.txt"))
    ap.add_argument("--pattern", default="6-6-6-6")
    ap.add_argument("--no-reflect", action="store_true")
    ap.add_argument(
        "-j", "--jobs", type=int, default=None, help="threads per board (default: every core)"
    )
    ap.add_argument(
        "--scheduler",
        default=None,
        help="run the subtrees on Dask: tcp://HOST:PORT, local:N or local:PxT",
    )
    ap.add_argument("--data-dir", default=None)
    ap.add_argument(
        "--prune",
        type=int,
        default=None,
        help="move-pruning depth (2: only the undo; default: the shape's)",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="stop a board after this many seconds (its row says the proven lower bound)",
    )
    ap.add_argument(
        "--trace-dir",
        default=None,
        help="write each board's trace here as lineN.jsonl (for scripts/simulate_scaling.py)",
    )
    args = ap.parse_args()
    if not args.lines and not args.easiest and not args.random:
        ap.error("give line numbers, --easiest N or --random N")

    from patterndb import PatternError, TableError
    from solver.api import Control, Options, make_plan, prepare, run
    from solver.solution import SearchStopped

    todo = boards(args)
    opts = Options(
        algorithm="idastar",
        pattern=args.pattern,
        reflect=not args.no_reflect,
        jobs=args.jobs,
        data_dir=Path(args.data_dir) if args.data_dir else None,
        prune=args.prune,
        timeout=args.timeout,
    )
    _, frame = prepare(todo[0][1], "blank-first")
    try:
        plan = make_plan(frame, opts)
    except (PatternError, TableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cluster = backend = None
    if args.scheduler:
        from solver.cluster.client import Cluster

        cluster = Cluster(args.scheduler)
        backend = cluster.backend(plan)

    print(
        f"{'line':>4} {'length':>6} {'known':>5} {'expanded':>15} {'generated':>15} {'seconds':>9} {'M gen/s':>8}",
        flush=True,
    )
    bad = expanded = generated = stopped = 0
    seconds = []
    heuristic = plan.heuristic.name
    start = time.perf_counter()
    try:
        for label, board, known in todo:
            board, _ = prepare(board, "blank-first")
            trace = None
            if args.trace_dir:
                Path(args.trace_dir).mkdir(parents=True, exist_ok=True)
                trace = Path(args.trace_dir) / f"line{label}.jsonl"
            try:
                sol = run(board, plan, Control(backend=backend, trace=trace))
            except SearchStopped as e:
                stopped += 1
                expanded += e.nodes_expanded
                generated += e.nodes_generated
                seconds.append(float("inf"))
                print(
                    f"{label:>4} {'>=' + str(e.lower_bound):>6} {known or '-':>5} {e.nodes_expanded:>15,} "
                    f"{e.nodes_generated:>15,} {e.seconds:>9.2f} {'':>8}  {e.reason.upper()}  {board}",
                    flush=True,
                )
                continue
            ok = sol.optimal and (known is None or sol.length == known)
            bad += not ok
            expanded += sol.nodes_expanded
            generated += sol.nodes_generated
            seconds.append(sol.seconds)
            heuristic = sol.heuristic
            print(
                f"{label:>4} {sol.length:>6} {known or '-':>5} {sol.nodes_expanded:>15,} {sol.nodes_generated:>15,} "
                f"{sol.seconds:>9.2f} {sol.nodes_generated / max(sol.seconds, 1e-9) / 1e6:>8.1f}"
                f"{'' if ok else '  MISMATCH'}{'  ' + str(board) if known is None else ''}",
                flush=True,
            )
            # a race of two heuristics (--pattern "A|B"): who searched, each one's leg
            if sol.race is not None:
                print(
                    f"     race won by {sol.race['winner']}: "
                    + "; ".join(
                        f"{leg['heuristic']} bound {leg['bound']}, {leg['expanded']:,} expanded, "
                        f"{leg['seconds']:.1f} s CPU"
                        for leg in sol.race["legs"]
                    ),
                    flush=True,
                )
                for r in sol.race.get("rounds", []):
                    print(
                        f"     raced again at bound {r['bound']}: the loser spent {r['spent']:.1f} s CPU"
                        + (", and searched on" if r["switched"] else ""),
                        flush=True,
                    )
    finally:
        if cluster is not None:
            cluster.close()
    wall = time.perf_counter() - start
    print(
        f"total: {len(todo)} boards, {expanded:,} expanded, {generated:,} generated, {wall:.2f}s wall "
        f"({wall / 60:.1f} min), jobs {args.jobs or 'all cores'}{', ' + args.scheduler if args.scheduler else ''}; "
        f"heuristic {heuristic}"
    )
    if len(seconds) > 1:
        q = statistics.quantiles(seconds, n=10, method="inclusive")
        print(
            f"seconds a board: median {statistics.median(seconds):.2f}, 10th-90th percentile {q[0]:.2f}-{q[-1]:.2f}, "
            f"min {min(seconds):.2f}, max {max(seconds):.2f}"
            + (f" ({stopped} stopped: inf)" if stopped else "")
        )
    if bad:
        print(
            f"FAIL: {bad} length(s) differ from the known optimum or are not proven optimal",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
