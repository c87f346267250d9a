#!/usr/bin/env python
"""Are dual pattern-database lookups admissible on the 8-puzzle? Counts over every state.

The dual of a state is its inverse permutation: in the dual, tile t stands on
the cell numbered by the tile that stands on cell t in the state (the goal is
blank-first, so cell c is tile c's goal). Where any two cells may be swapped,
a state and its dual are equally far from the goal, and a table lookup on the
dual is a second admissible heuristic (Felner et al. 2005). In the
sliding-tile puzzle only the blank's cell may be swapped with a neighbour.
This script measures what that does to dual lookups: for every solvable
8-puzzle state it compares the exact distance with the additive pattern
databases (and their mirrors) looked up on the state and on its dual, apart
for states with the blank on its goal cell and elsewhere. Exits 1 if a
regular lookup ever overestimates.

    python scripts/dual_lookups.py
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PARTITIONS = ("4-4", "z4-4", "1,3,5,7/2,4,6,8")


def main() -> int:
    from patterndb import Frame, Shape, make_goal
    from patterndb.catalog import build_pattern_file
    from patterndb.exact import UNREACHED, build_exact
    from patterndb.patterns import parse_partition
    from patterndb.ranking import unrank_many
    from solver.api import Options, make_plan
    from solver.heuristics.kernels import h_many

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    table, _ = build_exact(frame)
    ranks = np.flatnonzero(table != UNREACHED)
    pos = unrank_many(ranks, 9, 9)
    boards = np.empty_like(pos)
    np.put_along_axis(boards, pos, np.arange(9)[None, :].repeat(len(pos), 0), axis=1)
    exact = table[ranks].astype(np.int64)
    duals = np.argsort(boards, axis=1).astype(np.int64)  # the positions, read as a board
    at_goal = boards[:, 0] == 0
    print(f"{len(boards):,} states, {at_goal.sum():,} with the blank on its goal cell")
    print(f"{'tables':<26} {'blank':<8} {'states':>8} {'dual > exact':>13} {'dual > regular':>15}")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for spec in PARTITIONS:
            for groups in parse_partition(spec, frame):
                build_pattern_file(frame, groups, Path(tmp))
            H = make_plan(frame, Options(algorithm="idastar", pattern=spec, data_dir=Path(tmp))).heuristic.H
            h, hd = h_many(boards, H), h_many(duals, H)
            bad += int((h > exact).sum())
            for label, where in (("on goal", at_goal), ("off goal", ~at_goal)):
                print(f"{spec + ' + mirror':<26} {label:<8} {where.sum():>8,} {(hd > exact)[where].sum():>13,} "
                      f"{(hd > h)[where].sum():>15,}")
    if bad:
        print(f"FAILED: a regular lookup overestimates {bad} times", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
