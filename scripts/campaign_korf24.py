#!/usr/bin/env python
"""Solve a list of Korf & Felner's 24-puzzles in order, over as many sittings as it takes.

Each line runs as its own `solver solve BOARD --goal blank-first --checkpoint DIR/lineN.ckpt
--json` process (its CPU, wall time and peak memory measured from outside, by wait4). A line
already in the results table is skipped; a line with a checkpoint resumes where it stopped
(a stop by --hours, Ctrl-C, kill -9 or a power cut alike). Each sitting of an unfinished line
is noted in DIR/lineN.json, and when the line is done its figures (CPU and wall summed over its
sittings, the peak memory of the largest) are appended to the table as one row, and its
iterations to a second table (`--iterations`: where its nodes went, which
scripts/campaign_report.py sums up); its checkpoint and notes are then removed. The length
must equal the file's optimum and the moves must lead to the goal, or the campaign stops with
exit 1.

Run it when the machine is otherwise idle, and take no benchmark figure while it runs. The
checkpoints are small (a few hundred KB): keep DIR with the repository, so that a fresh
machine picks up where the last one stopped.

    python scripts/campaign_korf24.py 43 49 23 --hours 2          # at most 2 hours this sitting
    python scripts/campaign_korf24.py --all -j 16 --hours 0.15     # every line not yet done

Exit status: 0 every line asked for is done, 4 the sitting's time ran out (run it again to go
on), 1 a wrong length or a solution that does not replay, 2 bad usage or missing tables,
130 interrupted.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = [
    "line",
    "length",
    "nodes_expanded",
    "cpu_seconds",
    "wall_seconds",
    "peak_rss_mb",
    "cores",
    "date",
    "version",
]
# Where a line's nodes went: its winning heuristic's iterations (the last one found the
# solution), and the race's losing leg as one row (scripts/campaign_report.py reads them).
ITERATION_COLUMNS = ["line", "kind", "heuristic", "bound", "expanded", "generated", "seconds"]
STOPPED = 4  # solver's exit status for --timeout / --max-nodes (README: Contract)


def solver_command() -> list[str]:
    """The `solver` of this Python: its console script where installed, else the module."""
    script = Path(sys.executable).parent / "solver"
    return [str(script)] if script.exists() else [sys.executable, "-m", "solver.cli"]


def done_lines(table: Path) -> set[int]:
    if not table.exists():
        return set()
    with open(table, newline="") as f:
        return {int(row["line"]) for row in csv.DictReader(f)}


def append_rows(table: Path, rows: list[dict], columns: list[str]) -> None:
    """Rows appended to a CSV table (the header first if the table is new)."""
    new = not table.exists() or table.stat().st_size == 0
    table.parent.mkdir(parents=True, exist_ok=True)
    with open(table, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        if new:
            w.writeheader()
        w.writerows(rows)


def iteration_rows(n: int, result: dict, race: dict | None) -> list[dict]:
    """A solved line's iterations (every sitting's: a resumed search reports those it resumed
    from too) and, where heuristics were raced (in its first sitting), the loser's leg up to
    where it stopped."""
    rows = [
        {
            "line": n,
            "kind": "iteration",
            "heuristic": result["heuristic"],
            "bound": it["bound"],
            "expanded": it["expanded"],
            "generated": it["generated"],
            "seconds": it["seconds"],
        }
        for it in result.get("iterations", [])
    ]
    for leg in race["legs"] if race else []:
        if leg["heuristic"] != race["winner"]:
            rows.append(
                {"line": n, "kind": "race loser", **{k: leg[k] for k in ITERATION_COLUMNS[2:]}}
            )
    return rows


def replays(board: str, directions: str) -> bool:
    """Do the blank's moves lead from board to the blank-first goal?"""
    from patterndb import make_goal, parse_board

    b = parse_board(board)
    tiles, cols = list(b.tiles), b.shape.cols
    blank = tiles.index(0)
    step = {"U": -cols, "D": cols, "L": -1, "R": 1}
    for d in directions:
        to = blank + step[d]
        if not 0 <= to < len(tiles) or (d in "LR" and to // cols != blank // cols):
            return False
        tiles[blank], tiles[to] = tiles[to], 0
        blank = to
    return tiles == list(make_goal(b.shape, "blank-first").tiles)


def sitting(cmd: list[str]) -> tuple[int, str, float, float, float]:
    """Run one solve: (exit status, its stdout, CPU seconds, wall seconds, peak RSS in MB)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    while True:
        try:
            _, status, usage = os.wait4(p.pid, 0)
            break
        except InterruptedError:
            continue
    wall = time.perf_counter() - start
    return (
        os.waitstatus_to_exitcode(status),
        out,
        usage.ru_utime + usage.ru_stime,
        wall,
        usage.ru_maxrss / 1024,
    )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "lines", nargs="*", type=int, help="instances by number (1-50), in the order to solve them"
    )
    ap.add_argument(
        "--all",
        action="store_true",
        help="every line of the file not yet in the table, in file order",
    )
    ap.add_argument("--file", default=str(ROOT / "data" / "korf24_50.txt"))
    ap.add_argument(
        "--table",
        default=str(ROOT / "data" / "korf24_50_results.csv"),
        help="the results table (CSV)",
    )
    ap.add_argument(
        "--iterations",
        default=str(ROOT / "data" / "korf24_50_iterations.csv"),
        help="each solved line's iterations (CSV) [data/korf24_50_iterations.csv]",
    )
    ap.add_argument(
        "--dir",
        default=str(ROOT / "data" / "korf24_campaign"),
        help="checkpoints and notes of unfinished lines [data/korf24_campaign]",
    )
    ap.add_argument(
        "--hours", type=float, default=None, help="stop this sitting after this long (exit 4)"
    )
    ap.add_argument("--pattern", default="best")
    ap.add_argument(
        "--heuristic", default=None, help="a classic heuristic instead of --pattern (for tests)"
    )
    ap.add_argument("-j", "--jobs", type=int, default=None, help="threads (default: every core)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument(
        "--prune", type=int, default=None, help="move-pruning depth (default: the solver's)"
    )
    ap.add_argument(
        "--max-nodes", type=int, default=None, help="stop a sitting of a line after this many nodes"
    )
    args = ap.parse_args()
    if not args.lines and not args.all:
        ap.error("give line numbers or --all")

    from patterndb import __version__
    from solver.batch import instances

    found = instances(args.file)
    todo = sorted(n for n, e in found.items() if e.board is not None) if args.all else args.lines
    for n in todo:
        if n not in found or found[n].board is None:
            ap.error(f"{args.file} has no board number {n}")
    table, folder = Path(args.table), Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    finished = done_lines(table)
    cores = min(args.jobs or 1 << 30, len(os.sched_getaffinity(0)))  # the cores the search had
    deadline = None if args.hours is None else time.monotonic() + args.hours * 3600
    # the solver stops on it and saves; this waits for it
    signal.signal(signal.SIGINT, lambda *_: None)
    for n in todo:
        if n in finished:
            print(f"line {n}: done (in {table.name})", flush=True)
            continue
        e = found[n]
        board = " ".join(str(t) for t in e.board.tiles)
        notes_path, ckpt = folder / f"line{n}.json", folder / f"line{n}.ckpt"
        notes = (
            json.loads(notes_path.read_text())
            if notes_path.exists()
            else {"line": n, "sittings": []}
        )
        cmd = [
            *solver_command(),
            "solve",
            board,
            "--goal",
            "blank-first",
            "--checkpoint",
            str(ckpt),
            "--json",
            "--quiet",
            *(["-H", args.heuristic] if args.heuristic else ["--pattern", args.pattern]),
            *(["-j", str(args.jobs)] if args.jobs else []),
            *(["--data-dir", args.data_dir] if args.data_dir else []),
            *(["--prune", str(args.prune)] if args.prune else []),
            *(["--max-nodes", str(args.max_nodes)] if args.max_nodes else []),
        ]
        if deadline is not None:
            left = deadline - time.monotonic()
            if left < 1:
                print("the sitting's time is up: run the campaign again to go on", flush=True)
                return STOPPED
            cmd += ["--timeout", f"{left:.0f}"]
        print(
            f"line {n}: {'resuming' if ckpt.exists() else 'starting'} (sitting {len(notes['sittings']) + 1})",
            flush=True,
        )
        code, out, cpu, wall, rss = sitting(cmd)
        result = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        notes["sittings"].append(
            {
                "cpu_seconds": round(cpu, 2),
                "wall_seconds": round(wall, 2),
                "peak_rss_mb": round(rss, 1),
                "cores": cores,
                "status": code,
                "lower_bound": result.get("lower_bound"),
                "date": dt.date.today().isoformat(),
                "version": __version__,
                **({"race": result["race"]} if result.get("race") else {}),
            }
        )
        notes_path.write_text(json.dumps(notes, indent=1) + "\n")
        if code != 0:
            what = (
                f"stopped at lower bound {result['lower_bound']}"
                if "lower_bound" in result
                else f"exit {code}"
            )
            print(f"line {n}: {what} after {wall:.1f} s; its checkpoint is {ckpt}", flush=True)
            return code if code in (STOPPED, 130, 143) else 2
        if (
            result["length"] != e.expected
            or not result["optimal"]
            or not replays(board, result["directions"])
        ):
            print(
                f"FAIL: line {n}: length {result['length']} (optimal: {result['optimal']}), the file says "
                f"{e.expected}, or its moves do not lead to the goal",
                file=sys.stderr,
            )
            return 1
        s = notes["sittings"]
        row = {
            "line": n,
            "length": result["length"],
            "nodes_expanded": result["nodes_expanded"],
            "cpu_seconds": round(sum(x["cpu_seconds"] for x in s), 2),
            "wall_seconds": round(sum(x["wall_seconds"] for x in s), 2),
            "peak_rss_mb": max(x["peak_rss_mb"] for x in s),
            "cores": max(x["cores"] for x in s),
            "date": s[-1]["date"],
            "version": __version__,
        }
        append_rows(table, [row], COLUMNS)
        append_rows(
            Path(args.iterations),
            iteration_rows(n, result, next((x["race"] for x in s if "race" in x), None)),
            ITERATION_COLUMNS,
        )
        ckpt.unlink(missing_ok=True)
        notes_path.unlink()
        print(
            f"line {n}: {row['length']} moves, {row['nodes_expanded']:,} expanded, {row['cpu_seconds']} s CPU, "
            f"{row['wall_seconds']} s wall in {len(s)} sitting(s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
