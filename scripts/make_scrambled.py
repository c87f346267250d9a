#!/usr/bin/env python
"""Write seeded sets of scrambled 35- and 48-puzzles, made like DeepCubeA's test sets.

DeepCubeA's 35- and 48-puzzle test boards are scrambles, not uniform random boards: their
Manhattan distances average 91.8 (65-128) on 6x6 and 195.1 (104-246) on 7x7, against about
136 and 219 for random boards. Each board here draws a Manhattan distance from a normal
distribution with that mean and a sixth of that range as its deviation, drawn again until it
falls in the range, and walks the blank from the goal (blank first; never undoing a move)
until the tiles first stand at that distance (patterndb.scramble_to). The seed and the
figures are fixed here, so the files can be made again and compared.

    python scripts/make_scrambled.py            # data/scrambled35.txt, data/scrambled48.txt
    python scripts/make_scrambled.py --check    # exit 1 if the files differ from a new run

Solve them with `scripts/bench_within.py --file data/scrambled35.txt --anytime --timeout 45`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 2026
COUNT = 100
# side -> (file, DeepCubeA's Manhattan distance: mean, least, most)
SETS = {6: ("scrambled35.txt", 91.8, 65, 128), 7: ("scrambled48.txt", 195.1, 104, 246)}


def make(side: int) -> str:
    """The text of side's file: a header, then a board a line (cells row-major, 0 = blank)."""
    import numpy as np

    from patterndb import Shape, make_goal, scramble_to

    name, mean, low, high = SETS[side]
    goal = make_goal(Shape(side, side), "blank-first")
    rng = np.random.default_rng([SEED, side])
    lines = [
        f"# {COUNT} scrambled {side}x{side} boards made by scripts/make_scrambled.py (seed {SEED}): "
        f"Manhattan distances drawn around {mean} in {low}-{high}, as DeepCubeA's test set's.",
        "# Goal: 0 1 2 ... (blank first). Each line: the cells row-major (0 = blank); no optimum known.",
    ]
    for _ in range(COUNT):
        md = -1
        while not low <= md <= high:
            md = round(rng.normal(mean, (high - low) / 6))
        lines.append(" ".join(map(str, scramble_to(goal, md, rng).tiles)))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    ap.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    a = ap.parse_args()
    differ = 0
    for side, (name, *_) in SETS.items():
        path = ROOT / "data" / name
        text = make(side)
        if a.check:
            same = path.exists() and path.read_text() == text
            print(f"{path}: {'as made' if same else 'DIFFERS from a new run'}")
            differ += not same
        else:
            path.write_text(text)
            print(f"wrote {path}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
