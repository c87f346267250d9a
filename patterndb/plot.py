"""`pdb plot`: what a table holds, as a picture: the number of entries at each value.

For a table built by breadth-first search from the goal, the entries at value d are the
search's layer d, so one bar chart per file shows both the value distribution and how
the search grew. Read from the file's `histogram` attribute: nothing of the table itself
is loaded. matplotlib is an optional extra (`pip install -e '.[plot]'`), imported only here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .errors import PuzzleError


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


def plot_tables(tables: list[tuple[Path, dict[str, Any]]], out: Path, fmt: str = "png") -> int:
    """One panel per table: entries at each value (log scale); written to out as fmt (png
    or svg). Returns the number of panels."""
    plt = pyplot()
    cols = min(len(tables), 3)
    rows = (len(tables) + cols - 1) // cols
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
    for ax in list(axes.flat)[len(tables):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(out, format=fmt, dpi=110)
    plt.close(fig)
    return len(tables)
