"""Per-level progress for breadth-first builds: states done, rate, ETA.

The rate is measured from the end of the first level, so the kernels' compile
or cache load does not make the early estimates absurd, and no estimate is
given before a second of work and 1% of the states."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO


def terminal_width(stream: TextIO) -> int:
    """The columns of the terminal stream writes to (stdout may be redirected while stderr is not)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return shutil.get_terminal_size((80, 24)).columns


def fit(line: str, stream: TextIO) -> str:
    """A line to redraw in place, cut to the terminal's width: a line that wraps leaves a
    stale copy of itself on the screen at every redraw."""
    width = terminal_width(stream) - 1
    return line if len(line) <= width else line[: max(width - 3, 1)] + "..."


def count(x: float) -> str:
    """1234567 -> '1.23 M': a count short enough for a status line."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if x >= size:
            return f"{x / size:.2f} {unit}"
    return f"{x:.0f}"


class LevelProgress:
    """Reports after each BFS level; redraws one line on a terminal, else prints a line per level."""

    def __init__(
        self,
        label: str,
        total: int,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.tty = self.stream.isatty()
        self.last = 0.0  # logs: first line after a second of work, then at most one a second
        self.first: tuple[float, int] | None = None  # (time, states) after the first level

    def level(self, depth: int, done: int, new: int) -> None:
        """After each level. A level that added nothing (past the table's maximum) is not shown."""
        now = self.clock()
        if self.first is None:  # the first level includes loading or compiling the kernels
            self.first = (now, done)
        elapsed = now - self.start
        if new == 0 or (not self.tty and elapsed - self.last < 1.0):
            return  # a log file gets at most a line a second
        self.last = elapsed
        t0, d0 = self.first
        rate = (done - d0) / (now - t0) if now > t0 else 0.0
        frac = done / self.total if self.total else 1.0
        if rate > 0 and now - t0 >= 1.0 and frac >= 0.01:
            eta = f"ETA ~{(self.total - done) / rate:4.0f}s" if done < self.total else "ETA ~   0s"
        else:
            eta = "ETA ?"  # too early to say
        msg = (
            f"{self.label}: depth {depth:>2}, {count(done)} of {count(self.total)} ({100 * frac:4.1f}%), "
            f"{rate / 1e6:.2f} M/s, {elapsed:.0f}s, {eta}"
        )
        if self.tty:
            self.stream.write("\r" + fit(msg, self.stream) + "\x1b[K")
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def done(self, seconds: float) -> None:
        if self.tty:
            self.stream.write("\n")
        self.stream.write(f"{self.label}: done in {seconds:.1f}s\n")
        self.stream.flush()
