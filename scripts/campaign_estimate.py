#!/usr/bin/env python
"""How far the Korf & Felner campaign is, and what the rest should cost: the solved lines'
totals against the published catalogue's expansions, and the CPU time of the unsolved lines
projected from the hard lines solved so far.

Reads the campaign's results table (scripts/campaign_korf24.py writes it) and the published
per-line node counts (`smallt_zpdb_exp`: Clausecker & Reinefeld's zero-aware catalogue, the
best published single-machine heuristic). A line's cost is its CPU seconds per billion of the
catalogue's expansions; the projection multiplies the unsolved lines' published counts by the
lowest, median and highest cost among the solved lines whose published count is at least
--hard (the easy lines cost more per published node: start-up and table loading dominate),
and by their pooled cost (their CPU seconds over their published expansions, which weighs the
big lines most, as the rest's total does).

--column scales by another published count instead: `KF_zpdb_exp` is Korf & Felner's
partition (our `z6-6-6-6`) in zero-aware tables, without move pruning, and the solved hard
lines' cost per billion of it spreads less than per billion of the catalogue (a standard
deviation of their logarithms 0.36 against 0.49 on the 19 solved by 2026-11-29).

    python scripts/campaign_estimate.py
    python scripts/campaign_estimate.py --hard 5e9 --target 34
    python scripts/campaign_estimate.py --column KF_zpdb_exp

Exit status: 0, or 2 for a missing or malformed table.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT.parent / "shared" / "data" / "korf24_50_nodecounts.txt"
COLUMN = "smallt_zpdb_exp"


def published_counts(path: Path, *columns: str) -> list[dict[int, int]]:
    """For each of `columns`, line -> its published expansions, from one reading of the
    node-count file (its last '#' line before the data names the columns)."""
    names: list[str] = []
    rows = []
    for ln in path.read_text().splitlines():
        if ln.startswith("#"):
            names = ln.lstrip("# ").split()
        elif ln.strip():
            rows.append(dict(zip(names, ln.split())))
    for column in columns:
        if column not in names:
            raise ValueError(f"{path} has no column {column!r} (it has {', '.join(names[2:])})")
    return [{int(r["n"]): int(r[column]) for r in rows} for column in columns]


def solved_lines(path: Path) -> dict[int, dict]:
    """Line -> its row of the results table (CPU seconds and expansions as numbers)."""
    with path.open(newline="") as f:
        return {
            int(r["line"]): {"cpu": float(r["cpu_seconds"]), "expanded": int(r["nodes_expanded"])}
            for r in csv.DictReader(f)
        }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--table", default=str(ROOT / "data" / "korf24_50_results.csv"))
    ap.add_argument(
        "--published", default=str(PUBLISHED), help="the published node counts [../shared/data/...]"
    )
    ap.add_argument("--column", default=COLUMN, help=f"the published count to scale by [{COLUMN}]")
    ap.add_argument(
        "--hard",
        type=float,
        default=5e9,
        help="the catalogue's expansions from which a solved line's cost counts [5e9]",
    )
    ap.add_argument(
        "--target", type=float, default=34.0, help="CPU-hours for all 50 to compare with [34]"
    )
    a = ap.parse_args()
    try:
        published, catalogue = published_counts(Path(a.published), a.column, COLUMN)
        solved = solved_lines(Path(a.table))
        missing = sorted(set(solved) - set(published))
    except (OSError, KeyError, ValueError) as e:
        print(f"error: cannot read the tables: {e}", file=sys.stderr)
        return 2
    if missing:
        print(f"error: lines {missing} of {a.table} have no published count", file=sys.stderr)
        return 2
    cpu = sum(s["cpu"] for s in solved.values())
    expanded = sum(s["expanded"] for s in solved.values())
    theirs = sum(published[n] for n in solved)
    print(
        f"solved {len(solved)} of {len(published)}: {expanded / 1e9:,.2f} G expanded "
        f"({expanded / theirs:.2f}x {a.column}'s {theirs / 1e9:,.2f} G), {cpu:,.0f} CPU s ({cpu / 3600:.2f} CPU-hours)"
    )
    costs = sorted(
        (solved[n]["cpu"] / (published[n] / 1e9), n) for n in solved if catalogue[n] >= a.hard
    )
    left = sorted((n for n in published if n not in solved), key=published.get)
    rest = sum(published[n] for n in left)
    print(f"left {len(left)}: {' '.join(map(str, left)) or '-'} ({rest / 1e9:,.1f} G published)")
    if not costs or not left:
        return 0
    print(
        f"CPU s per G of {a.column} on the {len(costs)} solved lines of at least {a.hard / 1e9:g} G in the catalogue: "
        + ", ".join(f"{n}: {c:.0f}" for c, n in sorted(costs, key=lambda x: x[1]))
    )
    hard = [n for _, n in costs]
    pooled = sum(solved[n]["cpu"] for n in hard) / (sum(published[n] for n in hard) / 1e9)
    for label, c in (
        ("lowest", costs[0][0]),
        ("median", statistics.median(c for c, _ in costs)),
        ("pooled", pooled),
        ("highest", costs[-1][0]),
    ):
        more = rest / 1e9 * c / 3600
        print(
            f"  at the {label} ({c:.0f} s/G): the rest {more:.1f} CPU-hours, "
            f"all {len(published)} {cpu / 3600 + more:.1f} "
            f"({'within' if cpu / 3600 + more <= a.target else 'over'} {a.target:g})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
