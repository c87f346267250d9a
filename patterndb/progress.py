"""Per-level progress for breadth-first builds: states done, rate, ETA."""
from __future__ import annotations

import sys
import time
from typing import TextIO


class LevelProgress:
    """Reports after each BFS level; redraws one line on a terminal, else prints a line per level."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.tty = self.stream.isatty()
        self.last = 0.0  # logs: first line after a second of work, then at most one a second

    def level(self, depth: int, done: int, new: int) -> None:
        elapsed = time.perf_counter() - self.start
        if not self.tty and elapsed - self.last < 1.0:
            return  # a log file gets at most a line a second
        self.last = elapsed
        rate = done / elapsed if elapsed > 0 else 0.0
        frac = done / self.total if self.total else 1.0
        eta = (self.total - done) / rate if rate > 0 and done < self.total else 0.0
        msg = (
            f"{self.label}: depth {depth:>2} +{new:,} -> {done:,}/{self.total:,} "
            f"({100 * frac:5.1f}%) {rate / 1e6:6.2f} M/s elapsed {elapsed:6.1f}s ETA ~{eta:4.0f}s"
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
