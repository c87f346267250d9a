"""Tables memory-mapped into one array for the search kernels, in 2 MB pages where the kernel
can (map_tables), and mapped in bulk before a batch (populate). Linux only: elsewhere the
tables are read (store.load_table)."""

from __future__ import annotations

import ctypes
import os
import sys
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import TableError
from .attrs import check_attrs, stored_size
from .integrity import remembered_attrs, verify
from .store import read_attrs


def map_tables(
    paths: list[Path], expects: list[dict[str, Any]]
) -> tuple[np.ndarray, np.ndarray, list[dict]] | None:
    """Memory-map several tables into one array: (data, offsets, attributes), or None where
    that is not possible (then read them). Table i is data[offsets[i] : offsets[i] + stored_size].

    Nothing is read up front: a search touches only the pages it needs, and several
    processes share one copy in the page cache. The files' data pages are mapped
    copy-on-write into one reserved address range, each at an address with the same
    place in a 2 MB huge page as its place in its file (the gaps between them read as
    zeros and are never indexed), so the search kernels see one ordinary contiguous uint8
    array. Checks as load_table.

    Why 2 MB: the kernel keeps the page cache of a big file in folios of up to 2 MB (on
    Linux 6.x ext4 and xfs; MADV_HUGEPAGE asks for them when it reads the file in), and it
    maps a whole folio with one page-table entry when address and file offset agree
    modulo 2 MB. Every table read of a search is a random access to hundreds of MB, so
    with 4 KB entries nearly every one also missed the TLB: Korf's 100 with `best` took
    0.26 s of search instead of 0.31 s, and fewer page faults, with the tables mapped in
    2 MB pages. Where the kernel has no large folios the mapping is the same as with 4 KB
    alignment.
    """
    libc = _libc()
    if libc is None:
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    huge = max(_HUGE_PAGE, page)
    places, all_attrs = [], []
    for path, expect in zip(paths, expects):
        path = Path(path)
        attrs = remembered_attrs(path) or read_attrs(path)
        check_attrs(path, attrs, expect)
        start = attrs["_offset"]
        if start is None:
            return None
        if path.stat().st_size < start + stored_size(attrs):
            raise TableError(f"{path} is damaged: the file ends before its table does")
        places.append((path, start, stored_size(attrs)))
        all_attrs.append(attrs)
    # table i's pages start at file offset start - start % page, which is phase = that % huge into
    # a huge page: they are mapped at an address phase into one too
    spans = [(size + start % huge + huge - 1) // huge * huge for _, start, size in places]
    total = sum(spans) + huge  # and room to align the start
    # reserve, readable: the gaps between tables read as zeros, so the whole array can be read
    base = libc.mmap(None, total, _PROT_READ, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        return None
    offsets, cursor = [], (-base) % huge
    for (path, start, size), span in zip(places, spans):
        delta, phase = start % page, start % huge - start % page
        with open(path, "rb") as fh:
            got = libc.mmap(
                base + cursor + phase,
                size + delta,
                _PROT_READ | _PROT_WRITE,
                _MAP_PRIVATE | _MAP_FIXED,
                fh.fileno(),
                start - delta,
            )
        if got != base + cursor + phase:
            libc.munmap(ctypes.c_void_p(base), total)
            return None
        # advice: may fail
        libc.madvise(ctypes.c_void_p(got), ctypes.c_size_t(size + delta), _MADV_HUGEPAGE)
        offsets.append(cursor + phase + delta)
        cursor += span
    region = (ctypes.c_uint8 * total).from_address(base)
    weakref.finalize(region, libc.munmap, ctypes.c_void_p(base), ctypes.c_size_t(total))
    data = np.ctypeslib.as_array(region)
    for (path, _, size), off, attrs in zip(places, offsets, all_attrs):
        verify(path, attrs, data[off : off + size], "once")
    return data, np.array(offsets, dtype=np.int64), all_attrs


def populate(data: np.ndarray, settle: bool = False) -> bool:
    """Map every page of an array of map_tables into this process at once (Linux 5.14's
    MADV_POPULATE_READ; nothing is copied: the pages are the page cache's); False where the
    platform cannot (then each page is mapped when a search first reads it, as before).

    Why: a search that first touches a page of its tables takes a page fault, about 20 us
    each on the 2-core VM; Korf's 100 with `best` took about 2,800 of them (60 ms of
    system time, spread over the first 50 boards), where mapping all 922 MB in one call
    took 15-19 ms. A solver that will read most of its tables (a batch of boards) maps them
    first, as a race of two heuristics does (solver.ida.race); a single short search does not
    (it reads a third of them).

    settle: then read a byte of every page, in address order. Where the call had to read
    the files from disk, the first random reads of the new pages were 5x dearer than later
    ones on the 2-core VM (20 M random reads of cr14's 2 GB: 2.5 s of CPU, then 0.47 s), and
    a race (solver.ida.race) charged that to the leg with the most tables; reading a byte a
    page in order settles it in 0.09 s, and takes about 15 ms where the pages were cached
    (a race, a few seconds long at least, settles; a batch of 15-puzzles, 0.3 s, does not)."""
    libc = _libc()
    if libc is None or data.size == 0:
        return False
    page = os.sysconf("SC_PAGE_SIZE")
    start = data.ctypes.data // page * page
    end = data.ctypes.data + data.nbytes
    if libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), _MADV_POPULATE_READ):
        return False
    if settle:
        data[(-data.ctypes.data) % page :: page].max(initial=0)
    return True


_PROT_READ, _PROT_WRITE = 1, 2
_MAP_PRIVATE, _MAP_FIXED, _MAP_ANONYMOUS = 0x02, 0x10, 0x20  # Linux values
_MADV_HUGEPAGE, _HUGE_PAGE = 14, 2 << 20  # Linux; x86-64's and arm64's (4 KB pages) PMD size
_MADV_POPULATE_READ = 22  # Linux 5.14


def _libc():
    """The C library's mmap/munmap/madvise (Linux only: the flag values above are Linux's), or None."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc
