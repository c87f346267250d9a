"""What a long IDA* search shows while it runs (a Listener of search.parallel).

On a terminal: one status line, redrawn at most four times a second, with
the bound, nodes, nodes/s, elapsed time, the share of the iteration's
subtrees done and an estimate of the time it still needs (from the growth of
the earlier iterations). Otherwise (piped, or quiet): one line per finished
iteration. Nothing at all during the first second, so short solves print
nothing extra.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from patterndb.build.progress import count as _count
from patterndb.build.progress import fit

from .state import Iteration, Listener, SearchState

QUIET_SECONDS = 1.0  # nothing is shown before the search has run this long
REDRAW = 0.25


def _clock(s: float) -> str:
    s = int(s)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class Status:
    """Progress of one search on stderr; live when stream is a terminal."""

    def __init__(
        self,
        stream: TextIO | None = None,
        live: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.clock = clock
        self.start = clock()
        self.drawn = 0.0
        self.estimate: float | None = None
        self.shown = False  # a live line is on the screen

    def _visible(self) -> bool:
        return self.clock() - self.start >= QUIET_SECONDS

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        self.estimate = estimate

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        now = self.clock()
        if not self.live or not self._visible() or now - self.drawn < REDRAW:
            return
        self.drawn = now
        nodes = state.total_generated
        rate = nodes / max(now - self.start, 1e-9)
        line = (
            f"bound {state.bound}  {_count(nodes)} generated  {_count(rate)}/s  {_clock(now - self.start)}"
            f"  iteration {100 * done / max(total, 1):.0f}% of {total} subtrees"
        )
        if self.estimate and state.expanded and elapsed > 0:
            left = (self.estimate - state.expanded) / (state.expanded / elapsed)
            line += f", ~{_clock(left)} left" if left > 0 else ", ending soon"
        self.stream.write("\r\033[K" + fit(line, self.stream))
        self.stream.flush()
        self.shown = True

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        if not self._visible():
            return
        self.clear()
        self.stream.write(
            f"bound {it.bound}: {it.expanded:,} expanded, {it.generated:,} generated, "
            f"{it.seconds:.1f}s ({_count(it.generated / max(it.seconds, 1e-9))}/s)\n"
        )
        self.stream.flush()

    def clear(self) -> None:
        """Take the live line off the screen (before printing anything else)."""
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False


class Fanout:
    """Several listeners as one."""

    def __init__(self, *listeners: Listener | None) -> None:
        self.listeners = [x for x in listeners if x is not None]

    def iteration_started(self, bound: int, subtrees: int, estimate: float | None) -> None:
        for x in self.listeners:
            x.iteration_started(bound, subtrees, estimate)

    def subtrees_done(self, state: SearchState, done: int, total: int, elapsed: float) -> None:
        for x in self.listeners:
            x.subtrees_done(state, done, total, elapsed)

    def iteration_finished(self, state: SearchState, it: Iteration) -> None:
        for x in self.listeners:
            x.iteration_finished(state, it)
