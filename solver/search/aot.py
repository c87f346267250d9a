"""The IDA* kernels compiled ahead of time, so that a command starts without numba.

A cold `solver solve` spent about 0.2 s importing numba and another 0.24 s
loading its cached kernels (five dispatches, by cProfile),
against about 1 ms of search for a typical 15-puzzle. `solver compile`
(solver.compile_kernels; scripts/setup.sh runs it) compiles the eight
functions the IDA* driver calls, from the same Python functions the JIT
compiles, into one CPython extension with numba.pycc: search_subtrees (with
the DFS kernels inlined into it), search_root (the small iterations from the
root, back to back), root_bound (the first bound and the solutions' parity),
frontier, h_full, scratch_size and next_bound, and rank (the walk down an
exact table). Loading it takes a few milliseconds and
needs only numpy.

The extension's name carries a key over everything its code depends on
(every source file of both packages, the numpy and Python versions, the
CPU it was compiled for), so a changed checkout or another machine simply
finds none and the JIT kernels run instead: same functions, same node
counts, only a slower start. Its size and crc32 are checked before it is
loaded (a truncated extension would kill the process with SIGBUS). A pycc module converts its arguments without
checking their types, so every call is checked against the argument types
recorded when it was compiled; a call that differs goes to the JIT kernel.

Where it lives: $PATTERNDB_AOT if set (a directory; "off" disables it),
else the package's __pycache__ (where numba keeps its cache too), else the
user's cache directory when that is not writable.

This module is the kernel registry: it imports only the kernels themselves
(for the JIT fallback), never the driver or the heuristics above them, so
every layer can ask it for kernels without an import cycle.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from patterndb.jit import hash_sources

EXPORTS = (
    "search_subtrees",
    "search_root",
    "root_bound",
    "frontier",
    "h_full",
    "scratch_size",
    "next_bound",
    "rank",
)
_PACKAGES = ("patterndb", "solver")
PREFIX = "_kernels_"


def _package_dirs() -> list[Path]:
    return [Path(importlib.import_module(p).__file__).parent for p in _PACKAGES]


def _cpu() -> str:
    """What the code was compiled for: the CPU model and its feature flags."""
    try:
        with open("/proc/cpuinfo") as f:
            info = {}
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k in ("model name", "flags", "Features", "CPU part") and k not in info:
                    info[k] = v.strip()
                if not line.strip() and info:
                    break
        return json.dumps(info, sort_keys=True)
    except OSError:
        return platform.processor()


def key() -> str:
    """16 hex digits over the sources, numpy, Python and the CPU."""
    h = hashlib.sha256()
    for part in (np.__version__, sys.version, platform.machine(), _cpu()):
        h.update(part.encode() + b"\0")
    hash_sources(h, _package_dirs())
    return h.hexdigest()[:16]


def directories() -> list[Path]:
    """Where an extension is looked for, in order (the first writable one is where it is built)."""
    env = os.environ.get("PATTERNDB_AOT")
    if env:
        return [] if env.lower() in ("off", "0", "no") else [Path(env)]
    dirs = [Path(__file__).parent / "__pycache__"]
    try:
        dirs.append(
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "patterndb" / "aot"
        )
    except RuntimeError:  # no home directory
        pass
    return dirs


def arg_key(value: Any) -> Any:
    """What a pycc signature fixes about an argument: dtype, rank, layout, writability of an
    array; int or bool; the same of each field of a tuple."""
    if isinstance(value, np.ndarray):
        return _array_key(value)
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, tuple):
        return ("t",) + tuple(arg_key(v) for v in value)
    return ("?", type(value).__name__)


def _array_key(a: np.ndarray) -> tuple:
    """arg_key of an array."""
    flags = a.flags
    return ("a", a.dtype.str, a.ndim, flags.c_contiguous, flags.writeable)


def _tuples(k: Any) -> Any:
    """A key read back from JSON, lists made tuples again (as arg_key gives them)."""
    return tuple(_tuples(v) for v in k) if isinstance(k, list) else k


class _Checked:
    """An AOT function behind a check of its arguments' types; other calls go to the JIT kernel."""

    def __init__(self, compiled: Callable, jit: Callable, expected: list) -> None:
        self.compiled, self.jit = compiled, jit
        self.expected = tuple(_tuples(k) for k in expected)
        self._seen: dict[int, tuple[Any, Any]] = {}  # id -> (object, key) of tuples (the heuristic)
        self.misses = 0

    def _key(self, v: Any) -> Any:
        """arg_key(v), the commonest types first (a search_root call has 15 arguments and its
        check cost about 2% of Korf's 100), a tuple's remembered while it lives."""
        kind = type(v)
        if kind is int:
            return "i"
        if kind is np.ndarray:
            return _array_key(v)
        if kind is tuple:
            hit = self._seen.get(id(v))
            if hit is not None and hit[0] is v:
                return hit[1]
            k = arg_key(v)
            if len(self._seen) > 16:
                self._seen.clear()
            self._seen[id(v)] = (v, k)
            return k
        return arg_key(v)

    def __call__(self, *args: Any) -> Any:
        if tuple(map(self._key, args)) == self.expected:
            return self.compiled(*args)
        self.misses += 1
        return self.jit(*args)


def jit_kernels() -> SimpleNamespace:
    """The exports as numba's JIT dispatchers (what a compiled extension is built from)."""
    from patterndb.puzzle.ranking import rank

    from .heuristic import h_full, scratch_size
    from .moves import next_bound
    from .subtrees import frontier, root_bound, search_root, search_subtrees

    return SimpleNamespace(
        search_subtrees=search_subtrees,
        search_root=search_root,
        root_bound=root_bound,
        frontier=frontier,
        h_full=h_full,
        scratch_size=scratch_size,
        next_bound=next_bound,
        rank=rank,
    )


_lock = threading.Lock()
_active: SimpleNamespace | None = None
origin = "jit"  # where the active kernels come from: "aot <path>" or "jit"


def kernels() -> SimpleNamespace:
    """The driver's kernels: the compiled extension when one matches this checkout, else numba's."""
    global _active, origin
    if _active is None:
        with _lock:
            if _active is None:
                jit = jit_kernels()
                found = _load(jit)
                if found is not None:
                    _active, origin = found
                else:
                    from patterndb.jit import load

                    load()  # numba itself, now rather than inside the first kernel call
                    _active, origin = jit, "jit"
    return _active


def reset() -> None:
    """Forget the chosen kernels (after a build, or when PATTERNDB_AOT changed)."""
    global _active, origin
    with _lock:
        _active, origin = None, "jit"


def _load(jit: SimpleNamespace) -> tuple[SimpleNamespace, str] | None:
    dirs = directories()
    if not dirs:
        return None
    name = PREFIX + key()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for d in dirs:
        so = d / (name + suffix)
        if not (so.is_file() and so.with_name(name + ".json").is_file()):
            continue
        try:
            return open_extension(so, jit), f"aot {so}"
        except (OSError, ImportError, KeyError, AttributeError, ValueError):
            continue  # unreadable or half-written: the JIT kernels are always right
    return None


def open_extension(so: Path, jit: SimpleNamespace | None = None) -> SimpleNamespace:
    """The exports of the compiled extension so (its .json beside it), each behind the check
    of its argument types (calls that differ go to jit's kernels). Raises ValueError where
    its size or crc32 is not the recorded one (loading a truncated extension kills the
    process with SIGBUS), OSError, ImportError, KeyError or AttributeError where it cannot
    be read or lacks an export. Several may be open side by side (to compare two builds)."""
    name = so.name.split(".")[0]
    info = json.loads(so.with_name(name + ".json").read_text())
    data = so.read_bytes()
    if len(data) != info["size"] or zlib.crc32(data) != info["crc32"]:
        raise ValueError(f"{so} is damaged: its size or crc32 is not the recorded one")
    spec = importlib.util.spec_from_file_location(name, so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    jit = jit or jit_kernels()
    return SimpleNamespace(
        **{n: _Checked(getattr(module, n), getattr(jit, n), info["signatures"][n]) for n in EXPORTS}
    )


@contextmanager
def serving(stand_in: SimpleNamespace) -> Iterator[None]:
    """Serve stand_in as the kernels while the block runs (solver.compile_kernels records the
    calls of a real search so), then whatever was served before."""
    global _active
    with _lock:
        saved = _active
        _active = stand_in
        try:
            yield
        finally:
            _active = saved
