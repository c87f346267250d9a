#!/usr/bin/env python
"""The race of a raced pattern (`best` on 5x5: z6-6-6-6 | cr14) on Korf & Felner's 24-puzzles,
leg by leg, without the searches after it: each board's cheap leg (its bound, nodes, CPU
seconds), the strong leg (the same, and the CPU of each of its steps) and the winner. The
strong leg's CPU is what the race costs where the cheap one wins.

--margin sets solver.search.race.RACE_MARGIN (the strong leg gives up before an iteration
expected to take it past this times the cheap leg's CPU); --margin inf is the race before
that rule, the leg stopped only by its CPU and wall-clock limits. Exits 1 if a board's race
ended the search (a stop, or a solution found during it).

    python scripts/race_legs.py --easiest 20                # about a minute
    python scripts/race_legs.py 46 27 47 6 35 --margin inf
    python scripts/race_legs.py 3 --file data/korf100.txt --pattern "5-5-5|5-5-5" --seconds 0
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def main() -> int:
    from bench_korf24 import EASIEST

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lines", nargs="*", type=int, help="instances by line number (1-50)")
    ap.add_argument("--easiest", type=int, default=None, help=f"the N easiest (N <= {len(EASIEST)})")
    ap.add_argument("--file", default=str(ROOT / "data" / "korf24_50.txt"))
    ap.add_argument("--pattern", default="best", help="a raced pattern: best, or \"A|B\"")
    ap.add_argument("--margin", type=float, default=None, help="RACE_MARGIN (default: the solver's; inf: no such rule)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="race once the cheap leg's next iteration is expected to take this much CPU (default: RACE_SECONDS)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="threads (default: every core)")
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    lines = args.lines + EASIEST[: args.easiest or 0]
    if not lines:
        ap.error("give line numbers or --easiest N")

    import solver.search.race as race_module
    from solver.api import Options, make_plan, prepare
    from solver.batch import read_batch
    from solver.search.parallel import Driver, StopFlag, ThreadBackend, default_jobs

    if args.margin is not None:
        race_module.RACE_MARGIN = args.margin
    entries = {e.line - 2: e for e in read_batch(args.file)}  # two comment lines precede instance 1
    _, frame = prepare(entries[lines[0]].board, "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", pattern=args.pattern, jobs=args.jobs,
                                    data_dir=Path(args.data_dir) if args.data_dir else None))
    if plan.rival is None:
        ap.error(f"--pattern {args.pattern} is not a race of two heuristics")
    backend = ThreadBackend(args.jobs or default_jobs())
    print(f"RACE_MARGIN {race_module.RACE_MARGIN}; cheap: {plan.heuristic.name}; strong: {plan.rival.name}")
    print(f"{'line':>4} {'cheap bound':>11} {'nodes':>11} {'CPU s':>6} {'strong bound':>12} {'nodes':>11} {'CPU s':>6}"
          f"  winner  strong steps (bound: CPU s)")
    totals = [0.0, 0.0]
    for line in lines:
        board, _ = prepare(entries[line].board, "blank-first")
        canon = frame.to_canonical(board)
        stop = StopFlag()
        drivers = [Driver(plan.problem(canon.tiles, h), backend, stop) for h in (plan.heuristic, plan.rival)]
        steps: list[str] = []
        step = drivers[1].step

        def logged(state, step=step, steps=steps):
            c = time.process_time()
            out = step(state)
            bound = state.iterations[-1].bound if state.iterations else "-"
            steps.append(f"{bound}: {time.process_time() - c:.2f}")
            return out

        drivers[1].step = logged
        r = race_module.race(*drivers, ("cheap", "strong"), stop,
                             race_module.RACE_SECONDS if args.seconds is None else args.seconds)
        if r.outcome is not None:
            print(f"{line:>4}: the race ended the search ({r.outcome.status})", file=sys.stderr)
            return 1
        cheap, strong = r.legs
        totals[0] += cheap.seconds
        totals[1] += strong.seconds
        print(f"{line:>4} {cheap.bound:>11} {cheap.expanded:>11,} {cheap.seconds:>6.2f} {strong.bound:>12} "
              f"{strong.expanded:>11,} {strong.seconds:>6.2f}  {('cheap', 'strong')[r.winner]:>6}  {', '.join(steps)}",
              flush=True)
    print(f"total: {len(lines)} boards, cheap legs {totals[0]:.2f} s, strong legs {totals[1]:.2f} s of CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
