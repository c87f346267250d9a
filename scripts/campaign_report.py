#!/usr/bin/env python
"""Where the Korf & Felner campaign's nodes went, line by line: the complete iterations
against the one that found the solution, and how far into that one the solution lay.

Reads the iterations table that scripts/campaign_korf24.py writes (one row an iteration of
the heuristic that solved the line, and the race's losing leg) and prints, per line: the
heuristic, the nodes of the complete iterations, of the solving one and of the race's loser,
the solving iteration's share of the line's nodes, and its share of a whole iteration at that
bound (its nodes over the last complete iteration's times their growth from the one before:
where in the order of subtrees the solution was met), and the expansions a second. Then the
totals: what the solving iterations cost against what a better subtree order could save
(at most their nodes), and against the complete iterations that any order must search.

    python scripts/campaign_report.py                       # data/korf24_50_iterations.csv
    python scripts/campaign_report.py --table other.csv 19 20

Exit status: 0, or 2 for a missing or malformed table.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHORT = {"pdb z6-6-6-6 + reflection": "z6-6-6-6", "pdb cr14, 28 sums from 15 tables": "cr14"}


def short(name: str) -> str:
    """A heuristic's name as the tables and docs write it."""
    return SHORT.get(name, name.removeprefix("pdb ").split(",")[0])


def line_figures(rows: list[dict]) -> dict:
    """One line's figures from its rows (its iterations in order, the race loser's leg)."""
    its = [r for r in rows if r["kind"] == "iteration"]
    lost = sum(int(r["expanded"]) for r in rows if r["kind"] == "race loser")
    complete = sum(int(r["expanded"]) for r in its[:-1])
    solving = int(its[-1]["expanded"])
    whole = None  # the solving iteration's nodes had it been searched to its end, foreseen
    if len(its) >= 3 and int(its[-3]["expanded"]):
        last, before = int(its[-2]["expanded"]), int(its[-3]["expanded"])
        whole = last * last / before
    seconds = sum(float(r["seconds"]) for r in its)
    total = complete + solving + lost
    return {
        "heuristic": short(its[-1]["heuristic"]),
        "bound": int(its[-1]["bound"]),
        "complete": complete,
        "solving": solving,
        "lost": lost,
        "total": total,
        "share": solving / total if total else 0.0,
        "into": solving / whole if whole else None,
        "rate": (complete + solving) / seconds if seconds else 0.0,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "lines", nargs="*", type=int, help="only these lines (default: every line in the table)"
    )
    ap.add_argument("--table", default=str(ROOT / "data" / "korf24_50_iterations.csv"))
    args = ap.parse_args()
    try:
        with open(args.table, newline="") as f:
            by_line: dict[int, list[dict]] = defaultdict(list)
            for row in csv.DictReader(f):
                by_line[int(row["line"])].append(row)
        figures = {
            n: line_figures(rows)
            for n, rows in by_line.items()
            if (not args.lines or n in args.lines) and any(r["kind"] == "iteration" for r in rows)
        }
    except (OSError, KeyError, ValueError) as e:
        print(f"error: {args.table}: {e}", file=sys.stderr)
        return 2
    if not figures:
        print(f"error: {args.table} has none of those lines", file=sys.stderr)
        return 2
    print(
        f"{'line':>4} {'heuristic':>9} {'length':>6} {'complete':>15} {'solving':>15} {'race loser':>12} "
        f"{'solving %':>9} {'into it %':>9} {'M/s':>6}"
    )
    for n, f in sorted(figures.items(), key=lambda kv: kv[1]["total"]):
        into = f"{100 * f['into']:.1f}" if f["into"] is not None else "-"
        print(
            f"{n:>4} {f['heuristic']:>9} {f['bound']:>6} {f['complete']:>15,} {f['solving']:>15,} {f['lost']:>12,} "
            f"{100 * f['share']:>9.1f} {into:>9} {f['rate'] / 1e6:>6.2f}"
        )
    total = sum(f["total"] for f in figures.values())
    solving = sum(f["solving"] for f in figures.values())
    lost = sum(f["lost"] for f in figures.values())
    into = [f["into"] for f in figures.values() if f["into"] is not None]
    print(
        f"{len(figures)} lines, {total:,} expanded: complete iterations {100 * (total - solving - lost) / total:.1f}%, "
        f"solving iterations {100 * solving / total:.1f}%, race losers {100 * lost / total:.1f}%"
    )
    if into:
        print(
            f"the solution met after a median {100 * statistics.median(into):.1f}% of its iteration "
            f"(range {100 * min(into):.1f}-{100 * max(into):.1f}%)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
