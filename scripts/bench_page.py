#!/usr/bin/env python
"""How fast the page of `solver serve` is, as a user sees it in a real browser (Debian's
Chromium through Playwright): the page and its files loaded (navigation start to the load
event), and a solve from the click on Solve to the answer on the page, for the first N of
Korf's 100 (blank-first goal) with the tables of --pattern. Medians with the range.

    python scripts/bench_page.py --pattern best --boards 10 --loads 20
    python scripts/bench_page.py --pattern 5-5-5 --data-dir DIR

Fails (exit 1) on a wrong length or a page error. Starts its own server on a free port of
127.0.0.1 and stops it; builds nothing (the tables must be built: it says which `pdb build`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def boards(n: int) -> list[tuple[str, int]]:
    rows = []
    for line in (ROOT / "data" / "korf100.txt").read_text().splitlines():
        fields = line.split("#")[0].split()
        if len(fields) == 17:
            rows.append((" ".join(fields[:16]), int(fields[16])))
    return rows[:n]


def summary(xs: list[float]) -> str:
    lo, hi = min(xs) * 1000, max(xs) * 1000
    return f"median {statistics.median(xs) * 1000:.0f} ms (range {lo:.0f}-{hi:.0f}, n={len(xs)})"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    ap.add_argument("--pattern", default="best", help="the tables to solve with [best]")
    ap.add_argument("--boards", type=int, default=10, help="how many of Korf's 100 to solve [10]")
    ap.add_argument("--loads", type=int, default=20, help="how many page loads to time [20]")
    ap.add_argument(
        "--data-dir", default=None, help="where the tables are [the default data directory]"
    )
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    env = os.environ | ({"PATTERNDB_DATA": a.data_dir} if a.data_dir else {})
    server = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        banner = server.stderr.readline()
        m = re.search(r"(http://\S+/)", banner)
        if not m:
            print(
                f"FAIL: the server did not start: {banner}{server.stderr.read()}", file=sys.stderr
            )
            return 1
        url = m.group(1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=a.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 820})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            loads = []
            for _ in range(a.loads):
                page.goto(url)
                page.wait_for_selector("body[data-ready=true]")
                loads.append(
                    page.evaluate(
                        "() => { const n = performance.getEntriesByType('navigation')[0];"
                        " return (n.loadEventEnd - n.startTime) / 1000; }"
                    )
                )
            page.fill("#pattern", a.pattern)
            page.select_option("#goal", "blank-first")
            solves, failed = [], 0
            print(f"{'board':>5} {'length':>6} {'ms':>7}")
            for i, (board, length) in enumerate(boards(a.boards), 1):
                page.fill("#board-text", board)
                page.click("#set")
                page.wait_for_function(
                    "b => document.querySelector('#board').dataset.tiles === b", arg=board
                )
                started = time.perf_counter()
                page.click("#solve")
                page.wait_for_function(
                    "() => !document.querySelector('#result').hidden || "
                    "document.querySelector('#message').textContent !== ''",
                    timeout=120000,
                )
                took = time.perf_counter() - started
                got = page.get_attribute("#result", "data-length")
                if got != str(length):
                    print(
                        f"FAIL: board {i}: length {got} (expected {length}): {page.text_content('#message')}",
                        file=sys.stderr,
                    )
                    failed += 1
                solves.append(took)
                print(f"{i:>5} {got:>6} {took * 1000:>7.0f}")
            browser.close()
        print(f"page load: {summary(loads)}")
        print(f"solve, click to answer ({a.pattern}): {summary(solves)}")
        if errors:
            print("FAIL: page errors: " + "; ".join(errors), file=sys.stderr)
        return 1 if failed or errors else 0
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
