"""`pdb plot`: what a table holds, as a picture: the number of entries at each value.

For a table built by breadth-first search from the goal, the entries at value d are the
search's layer d, so one bar chart per file shows both the value distribution and how
the search grew. Read from the file's `histogram` attribute: nothing of the table itself
is loaded. With --sum, one panel more: the sum of the files' values (a partition's
heuristic, without the mirror) at random solvable states, which loads the tables; a
zero-aware table counts each placement's minimum over the blank's regions there (the
region needs the whole board; the sum is then a little below what the search sees).
matplotlib is an optional extra (`pip install -e '.[plot]'`), imported only here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import PuzzleError, TableError
from ..puzzle.board import Board, random_board
from ..puzzle.geometry import Shape
from ..puzzle.patterns import pattern_tiles


def pyplot() -> Any:
    """matplotlib.pyplot without a display, or a one-line error saying how to get it."""
    try:
        import matplotlib
    except ImportError:
        raise PuzzleError("pictures need matplotlib: pip install -e '.[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _title(path: Path, attrs: dict[str, Any]) -> str:
    what = "exact" if attrs.get("kind") == "exact" else f"tiles {attrs.get('tiles_label', '?')}"
    zero = ", zero-aware" if "flag_code" in attrs else ""
    return f"{path.name}\n{attrs.get('rows')}x{attrs.get('cols')} {what}{zero}, mean {float(attrs.get('mean', 0)):.2f}"


FORMATS = ("png", "svg")


def group_minima(table: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """One byte per placement: the table's value, for a zero-aware table the minimum over
    the blank's regions (its 4-bit code less the flag)."""
    from ..files.attrs import is_packed, is_zero_aware
    from ..files.catalog import unpack

    entries = int(attrs["entries"])
    if not (is_packed(attrs) or is_zero_aware(attrs)):
        return table[:entries]
    values = unpack(table, attrs)
    if is_zero_aware(attrs):  # a flagged code c means md + 2 (c - flag_code) at the least
        codes = np.empty(entries + 1, dtype=np.uint8)
        half = (entries + 1) // 2
        codes[0::2][:half] = table[:half] & 15
        codes[1::2][:half] = table[:half] >> 4
        flagged = codes[:entries] >= int(attrs["flag_code"])
        values[flagged] -= 2 * np.uint8(attrs["flag_code"])
    return values


def rank_rows(cells: np.ndarray, n: int) -> np.ndarray:
    """patterndb.puzzle.ranking.rank of each row of cells (samples x k), vectorised."""
    r = np.zeros(cells.shape[0], dtype=np.int64)
    for i in range(cells.shape[1]):
        lower = (cells[:, :i] < cells[:, i : i + 1]).sum(axis=1)
        r = r * (n - i) + cells[:, i] - lower
    return r


def sampled_sums(
    tables: list[tuple[np.ndarray, dict[str, Any]]], samples: int, rng: np.random.Generator
) -> np.ndarray:
    """The sum of the groups' values at `samples` random solvable states; TableError unless
    the tables are disjoint groups of one board and goal."""
    first = tables[0][1]
    if any(a.get("kind") != "pdb" for _, a in tables):
        raise TableError("--sum adds group tables (pdb-*.h5), not exact ones")
    if any(
        (a["rows"], a["cols"], str(a["goal"])) != (first["rows"], first["cols"], str(first["goal"]))
        for _, a in tables
    ):
        raise TableError("--sum adds tables of one board and goal")
    groups = [pattern_tiles(tuple(int(t) for t in a["tiles"])) for _, a in tables]
    if len(set().union(*groups)) != sum(map(len, groups)):
        raise TableError("--sum adds disjoint groups (a partition): these share tiles")
    shape = Shape(int(first["rows"]), int(first["cols"]))
    goal = Board(shape, np.array([int(t) for t in str(first["goal"]).split()], dtype=np.int64))
    positions = np.array([random_board(shape, goal, rng).positions() for _ in range(samples)])
    total = np.zeros(samples, dtype=np.int64)
    for (table, attrs), tiles in zip(tables, groups):
        total += group_minima(table, attrs)[rank_rows(positions[:, list(tiles)], shape.n)]
    return total


def plot_tables(
    tables: list[tuple[Path, dict[str, Any]]],
    out: Path,
    fmt: str = "png",
    sums: np.ndarray | None = None,
) -> int:
    """One panel per table: entries at each value (log scale), and one for sampled sums if
    given; written to out as fmt (png or svg). Returns the number of panels."""
    plt = pyplot()
    panels = len(tables) + (sums is not None)
    cols = min(panels, 3)
    rows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (path, attrs) in zip(axes.flat, tables):
        hist = np.asarray(attrs["histogram"], dtype=np.int64)
        values = np.flatnonzero(hist)
        ax.bar(values, hist[values], width=0.85, color="#4c72b0")
        ax.set_yscale("log")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("value (moves; breadth-first layer)")
        ax.set_ylabel("entries")
        ax.set_title(_title(path, attrs), fontsize=9)
    if sums is not None:
        ax = axes.flat[len(tables)]
        values, counts = np.unique(sums, return_counts=True)
        ax.bar(values, counts, width=0.85, color="#dd8452")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("sum of the tables' values")
        ax.set_ylabel("states")
        ax.set_title(f"sum at {sums.size:,} random states\nmean {sums.mean():.2f}", fontsize=9)
    for ax in list(axes.flat)[panels:]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(out, format=fmt, dpi=110)
    plt.close(fig)
    return panels
