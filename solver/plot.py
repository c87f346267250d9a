"""`solver plot`: a search's iterations as a picture, from `--json` output or a trace.

IDA* repeats its search with a bound two moves higher each time, and each iteration
costs several times the one before: nodes against the bound on a log scale show that
growth, and the growth factor per iteration shows how steady it is. From a trace
(`--trace FILE`) also each worker's busy seconds per iteration: how evenly the parallel
search spread the work. matplotlib is an optional extra (`pip install -e '.[plot]'`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from patterndb import BoardError
from patterndb.cli.plot import pyplot

FORMATS = ("png", "svg")


def read_runs(path: Path) -> tuple[list[tuple[str, list[dict]]], dict[int, dict[str, float]]]:
    """(label, iterations) per solve, and (for a trace) worker -> busy seconds per bound."""
    try:
        text = path.read_text(encoding="utf-8")
        try:
            objects = [json.loads(ln) for ln in text.splitlines() if ln.strip()]  # JSON lines
        except json.JSONDecodeError:
            objects = [json.loads(text)]  # one object over several lines
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BoardError(f"{path} is not solver --json output or a --trace file: {e}") from None
    if not objects or not all(isinstance(o, dict) for o in objects):
        raise BoardError(f"{path} is not solver --json output or a --trace file")
    try:
        runs, busy = _runs(objects)
    except (KeyError, TypeError, ValueError) as e:  # valid JSON of another shape
        raise BoardError(f"{path} is not solver --json output or a --trace file (no {e})") from None
    if not runs:
        raise BoardError(f"{path} has no IDA* iterations to draw (the table walk and A* have none)")
    return runs, busy


def _runs(objects: list[dict]) -> tuple[list[tuple[str, list[dict]]], dict[int, dict[str, float]]]:
    """read_runs' answer from the parsed objects; KeyError, TypeError or ValueError where a
    field it needs is missing or of another type."""

    def iteration(bound: object, it: dict) -> dict:
        return {
            "bound": int(bound),
            "expanded": int(it["expanded"]),
            "seconds": float(it["seconds"]),
        }

    busy: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    if "trace" in objects[0]:
        its = [iteration(o["iteration"], o) for o in objects if "iteration" in o]
        for o in objects:
            if "chunk" in o:
                busy[int(o["bound"])][str(o["worker"])] += float(o["end"]) - float(o["start"])
        return [(f"trace of {str(objects[0].get('board', '?'))[:30]}", its)], busy
    runs = [
        (
            f"line {o['line']}" if "line" in o else str(o.get("board", "?"))[:30],
            [iteration(it["bound"], it) for it in o["iterations"]],
        )
        for o in objects
        if o.get("iterations")
    ]
    return runs, busy


def plot_runs(
    runs: list[tuple[str, list[dict]]],
    busy: dict[int, dict[str, float]],
    out: Path,
    fmt: str = "png",
) -> int:
    """Panels: nodes and seconds per bound (log), growth per iteration, and workers' busy
    seconds when there is a trace. Returns the number of panels."""
    plt = pyplot()
    panels = 4 if busy else 3
    fig, axes = plt.subplots(1, panels, figsize=(4.4 * panels, 3.6))
    alpha = 1.0 if len(runs) <= 10 else 0.35
    for label, its in runs:
        bounds = [it["bound"] for it in its]
        nodes = [max(it["expanded"], 1) for it in its]
        axes[0].plot(bounds, nodes, marker="o", ms=3, alpha=alpha, label=label)
        axes[1].plot(
            bounds, [max(it["seconds"], 1e-6) for it in its], marker="o", ms=3, alpha=alpha
        )
        growth = [(b, n / p) for b, n, p in zip(bounds[1:], nodes[1:], nodes[:-1])]
        if growth:
            axes[2].plot(*zip(*growth), marker="o", ms=3, alpha=alpha)
    for ax, what in zip(axes, ("nodes expanded", "seconds", "growth (x the iteration before)")):
        ax.set_xlabel("bound (moves)")
        ax.set_ylabel(what)
        ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0].set_yscale("log")
    axes[1].set_yscale("log")
    axes[2].set_yscale("log")
    axes[0].set_title("nodes per iteration")
    axes[1].set_title("time per iteration")
    axes[2].set_title("growth per iteration")
    if len(runs) <= 10:
        axes[0].legend(fontsize=7)
    if busy:
        workers = sorted({w for per in busy.values() for w in per})
        bounds = sorted(busy)
        bottom = [0.0] * len(bounds)
        for w in workers:
            secs = [busy[b].get(w, 0.0) for b in bounds]
            axes[3].bar([str(b) for b in bounds], secs, bottom=bottom, label=w)
            bottom = [x + y for x, y in zip(bottom, secs)]
        axes[3].set_xlabel("bound (moves)")
        axes[3].set_ylabel("busy seconds, stacked by worker")
        axes[3].set_title("work per worker")
        if len(workers) <= 16:
            axes[3].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, format=fmt, dpi=110)
    plt.close(fig)
    return panels
