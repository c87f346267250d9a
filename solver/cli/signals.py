"""Ctrl-C and SIGTERM as a clean stop of a long search.

While a search runs, the first SIGINT or SIGTERM asks it to stop (the
search then ends within a second with what it has proven). After it a
second SIGINT gets the default behaviour back, so a user pressing Ctrl-C
twice is never stuck; a second SIGTERM asks again (and after the block,
where the command prints its answer, is ignored), so the answer still
comes: `timeout` sends SIGTERM to the command and then to its process
group, and a container runtime sends one before its SIGKILL, both for the
answer. Handlers can only be set from the main thread; elsewhere this does
nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

REASONS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}
EXIT_CODES = {"interrupted": 130, "terminated": 143}  # 128 + signal number, as shells report


@contextmanager
def stop_on_signals(request: Callable[[str], None]) -> Iterator[None]:
    """Call request(reason) on the first SIGINT/SIGTERM inside the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in REASONS}
    received: list[int] = []

    def handler(signum, frame) -> None:
        received.append(signum)
        signal.signal(signal.SIGINT, previous[signal.SIGINT])  # a second Ctrl-C acts as usual
        request(REASONS[signum])

    for s in REASONS:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if signal.SIGTERM in received:  # (the command ends with its answer: a second one waits)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
