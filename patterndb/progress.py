"""Per-level progress for breadth-first builds: states done, rate, ETA.

The rate is measured from the end of the first level, so the kernels' compile
or cache load does not make the early estimates absurd, and no estimate is
given before a second of work and 1% of the states."""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


class LevelProgress:
    """Reports after each BFS level; redraws one line on a terminal, else prints a line per level."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
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
            f"{self.label}: depth {depth:>2} +{new:,} -> {done:,}/{self.total:,} "
            f"({100 * frac:5.1f}%) {rate / 1e6:6.2f} M/s elapsed {elapsed:6.1f}s {eta}"
        )
        if self.tty:
            self.stream.write("\r" + msg + "\x1b[K")
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def done(self, seconds: float) -> None:
        if self.tty:
            self.stream.write("\n")
        self.stream.write(f"{self.label}: done in {seconds:.1f}s\n")
        self.stream.flush()
