"""One build of a file at a time across processes, with no lock file left behind.

A lock file beside the target is locked (flock) for the build and removed
before it is unlocked. A process that was waiting on it then holds a lock on
a file no longer in the directory, so after each lock is taken the name is
checked to still be that file (else it is opened afresh): two builders never
both believe they hold the lock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def exclusive(
    lock_path: Path, waiting: Callable[[], None] = lambda: None, wait: bool = True
) -> Iterator[None]:
    """Hold the lock of lock_path for the block; waiting() is called once if another
    process holds it first (or, with wait False, BlockingIOError is raised then). Raises
    OSError when the lock file cannot be made."""
    said = False
    while True:
        fh = open(lock_path, "a")
        try:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not wait:
                    raise
                if not said:
                    waiting()
                    said = True
                fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                same = os.stat(lock_path).st_ino == os.fstat(fh.fileno()).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            fh.close()
            raise
        if same:
            break
        fh.close()  # the holder before us removed it: lock the file now at that name
    try:
        yield
    finally:
        try:
            os.unlink(lock_path)
        except OSError:
            pass
        fh.close()


def stale(directory: Path) -> list[Path]:
    """Lock files in directory (.NAME.lock) that no process holds: left by a process killed
    while it held one (kill -9 skips the removal above). Harmless, but clutter."""
    out = []
    for path in sorted(Path(directory).glob(".*.lock")):
        try:
            with open(path, "a") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fh, fcntl.LOCK_UN)
        except BlockingIOError:
            continue  # held: a build in progress
        except OSError:
            continue
        out.append(path)
    return out
