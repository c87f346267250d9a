"""Before a build: can it be done here? Its memory, its room on disk, and one build of a file at
a time across processes. A build that cannot be done is refused in one line before it starts,
so a long build never ends in a traceback with its work thrown away."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..build import zeroaware
from ..build.additive import bytes_needed
from ..build.exact import check_exact_size, table_size
from ..errors import TableError, WriteError
from ..puzzle.frame import Frame
from ..puzzle.patterns import group_label, is_zero_aware, pattern_tiles
from ..puzzle.ranking import num_placements
from .datadir import available_memory
from .locks import exclusive


def check_memory(needed: int, what: str) -> None:
    free = available_memory()
    if free >= 0 and needed > free:
        raise TableError(
            f"building {what} needs about {needed / 2**30:.2f} GiB but only {free / 2**30:.2f} GiB is available"
        )


def check_writable(data_dir: Path, needed: int, what: str) -> None:
    """Before a build: the directory can be made, written to, and has room for the table,
    so a long build never ends in a traceback with its work thrown away (WriteError, a
    TableError: a caller may build in memory instead)."""
    data_dir = Path(data_dir)
    if data_dir.exists() and not data_dir.is_dir():
        raise WriteError(f"cannot write {what}: {data_dir} is not a directory")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        # a unique name: builds in two threads do not collide
        with tempfile.TemporaryFile(dir=data_dir):
            pass
    except OSError as e:
        raise WriteError(
            f"cannot write {what}: cannot write to {data_dir} ({e.strerror or e})"
        ) from None
    free = shutil.disk_usage(data_dir).free
    if needed + DISK_MARGIN > free:
        raise WriteError(
            f"cannot write {what}: it needs {_mib(needed)} on disk and {_mib(DISK_MARGIN)} to spare, "
            f"{data_dir} has {_mib(free)} free"
        )


# bytes a build leaves free beside its table (the HDF5 file's own overhead and more)
DISK_MARGIN = 16 << 20


def _mib(n: int) -> str:
    """Bytes in MiB, with a decimal below 10 (a 3x3 table is 0.4 MiB, not 0)."""
    return f"{n / 2**20:,.1f} MiB" if n < 10 << 20 else f"{n / 2**20:,.0f} MiB"


@contextmanager
def build_lock(path: Path, progress: bool) -> Iterator[bool]:
    """One build of a table at a time: a second build of it waits for the first, and is
    told (True) when the table was written meanwhile, so it need not build it again."""
    before = path.stat().st_mtime_ns if path.exists() else None
    say = (
        (
            lambda: print(
                f"waiting for another build of {path.name} ...", file=sys.stderr, flush=True
            )
        )
        if progress
        else (lambda: None)
    )
    with exclusive(path.parent / f".{path.name}.lock", say):
        built = path.exists() and path.stat().st_mtime_ns != before
        if built and progress:
            print(
                f"another build wrote {path.name} meanwhile: using it", file=sys.stderr, flush=True
            )
        yield built


def exact_build_cost(frame: Frame) -> tuple[int, int]:
    """(bytes on disk, bytes of memory) of building frame's exact table."""
    size = table_size(frame.shape.n)
    return size, int(size * 2.5)


def check_exact_build(frame: Frame, data_dir: Path) -> None:
    """Refuse, before anything is said or done, an exact build that cannot be done here."""
    check_exact_size(frame)
    disk, memory = exact_build_cost(frame)
    check_memory(memory, f"the exact {frame.shape} table")
    check_writable(data_dir, disk, f"the exact {frame.shape} table")


def build_memory(n: int, tiles: tuple[int, ...]) -> int:
    """About the most memory building a group's table on n cells takes: the search's
    arrays, and for a zero-aware table what its encoding adds while they are kept."""
    k = len(pattern_tiles(tiles))
    need = bytes_needed(n, k) + (64 << 20)
    if is_zero_aware(tiles):
        need += zeroaware.encoding_bytes(n, k, num_placements(n, k))
    return need


def check_pattern_build(frame: Frame, tiles: tuple[int, ...], data_dir: Path) -> None:
    """Refuse, before anything is said or done, a group's build that cannot be done here
    (its memory, its room on disk)."""
    n, k = frame.shape.n, len(pattern_tiles(tiles))
    size = num_placements(n, k) // 2
    if is_zero_aware(tiles):
        size = zeroaware.max_stored_bytes(n, k, num_placements(n, k))
    check_memory(build_memory(n, tiles), f"the table of tiles {group_label(tiles)}")
    check_writable(data_dir, size, f"the table of tiles {group_label(tiles)}")
