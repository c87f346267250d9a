"""`solver compile`: the IDA* kernels compiled ahead of time into one extension.

The compile step sits above everything it traces: to fix each export's argument
types it records one real call of each from a search through the parallel
driver (Manhattan distance, every iteration after the first split into
subtrees) and a walk down an exact table, then hands numba.pycc the JIT
dispatchers' compiled signatures. solver.search.aot, below the driver, only
finds and loads what this writes (its docstring says where and how it is keyed).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from patterndb import Shape, make_goal, scramble
from patterndb.build.exact import build_exact
from patterndb.build.movefsm import undo_machine
from patterndb.errors import TableError
from patterndb.files.buildcheck import check_writable
from patterndb.puzzle.frame import Frame

from .heuristics import manhattan
from .ida.parallel import Driver
from .ida.state import Problem, StopFlag
from .ida.threads import ThreadBackend
from .search import aot
from .search.aot import EXPORTS, PREFIX
from .search.table_walk import table_walk


def _example_calls() -> dict[str, tuple]:
    """One real call of each export, recorded from an IDA* search of an easy 15-puzzle
    (Manhattan distance; every heuristic kind passes the same tuple types), every iteration
    after the first split into subtrees, from the heuristic's value on its board, and from
    a walk down the exact 2x3 table."""
    jit = aot.jit_kernels()
    calls: dict[str, tuple] = {}

    def recorder(name: str) -> Callable:
        def call(*args: Any) -> Any:
            calls.setdefault(name, args)
            return getattr(jit, name)(*args)

        return call

    shape = Shape(4, 4)
    frame = Frame.for_goal(make_goal(shape, "blank-first"))
    goal = frame.canonical_goal
    board = scramble(goal, 30, np.random.default_rng(1))  # a few thousand nodes
    heuristic = manhattan(goal)
    problem = Problem(
        board.tiles.astype(np.int64),
        goal.tiles.astype(np.int64),
        heuristic.H,
        shape.neighbours,
        undo_machine(shape),
    )
    with aot.serving(SimpleNamespace(**{n: recorder(n) for n in EXPORTS})):
        Driver(problem, ThreadBackend(1), StopFlag(), split_nodes=1).run()
        heuristic(board)  # a heuristic's value on one board (solver distance, the show command)
        small = Frame.for_goal(make_goal(Shape(2, 3), "blank-first"))
        table_walk(
            scramble(small.canonical_goal, 9, np.random.default_rng(1)), build_exact(small)[0]
        )
    missing = set(EXPORTS) - set(calls)
    if missing:
        raise RuntimeError(f"the example search never called {', '.join(sorted(missing))}")
    return calls


def build(directory: Path | None = None) -> Path:
    """Compile the extension for this checkout into directory (default: the first writable of
    aot.directories()); returns its path. Takes about 15 s; written atomically."""
    import warnings

    from patterndb.jit import load

    load()
    import numba
    from numba.core import compiler as numba_compiler
    from numba.core.errors import NumbaPendingDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    target = directory if directory is not None else _writable(aot.directories())
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob(".aot-*"):  # left by a build that was killed (a running one is younger)
        if time.time() - old.stat().st_mtime > 3600:
            shutil.rmtree(old, ignore_errors=True)
    calls = _example_calls()
    jit = aot.jit_kernels()
    name = PREFIX + aot.key()
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    with tempfile.TemporaryDirectory(dir=target, prefix=".aot-") as tmp:
        cc = CC(name)
        cc.output_dir = tmp
        cc.target_cpu = "host"
        signatures = {}
        for n in EXPORTS:
            dispatcher = getattr(jit, n)
            argtypes = tuple(numba.typeof(a) for a in calls[n])
            cres = dispatcher.overloads[argtypes]
            cc.export(n, cres.signature)(dispatcher.py_func)
            signatures[n] = [aot.arg_key(a) for a in calls[n]]  # (JSON writes the tuples as lists)

        class GilFreeFlags(numba_compiler.Flags):
            """The exported wrappers release the GIL, as nogil=True does for the JIT kernels
            (the worker threads of a split iteration run them side by side)."""

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.release_gil = True

        saved = pycc_compiler.Flags
        pycc_compiler.Flags = GilFreeFlags
        try:
            cc.compile()
        finally:
            pycc_compiler.Flags = saved
        data = Path(tmp, name + suffix).read_bytes()
        meta = {
            "key": name[len(PREFIX) :],
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "numba": numba.__version__,
            "size": len(data),
            "crc32": zlib.crc32(data),
            "signatures": signatures,
        }
        Path(tmp, name + ".json").write_text(json.dumps(meta))
        os.replace(Path(tmp, name + suffix), target / (name + suffix))
        # last: it marks the pair complete
        os.replace(Path(tmp, name + ".json"), target / (name + ".json"))
    for old in target.glob(PREFIX + "*"):
        if not old.name.startswith(name):
            old.unlink(missing_ok=True)
    aot.reset()
    return target / (name + suffix)


def _writable(dirs: list[Path]) -> Path:
    """The first of dirs that can be made and written to, with room for the extension."""
    if not dirs:
        raise OSError("PATTERNDB_AOT is off: give a directory to build into")
    for d in dirs:
        try:
            check_writable(d, 4 << 20, "the compiled kernels")
            return d
        except TableError:
            continue
    raise OSError(f"cannot write the compiled kernels to any of: {', '.join(map(str, dirs))}")
