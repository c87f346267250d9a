"""numba's decorators and names, deferred until a kernel is first used.

Importing numba costs a cold command about 0.2 s, and loading its cached
kernels another 0.2 s (solver/search/aot.py measures both). A `solver solve`
that runs ahead-of-time compiled kernels needs neither, but it imports the
modules that define kernels (for their Python helpers and constants). So
those modules take `njit`, `prange`, `types`, ... from here: each is a
placeholder until the first kernel is called (or any numba attribute of one
is read). Then numba is imported once, every placeholder becomes the real
object (a dispatcher, numba.prange, ...), and every module global that holds
a placeholder is rebound to it, so kernels that call kernels compile exactly
as if numba had been imported at the top. Once numba is loaded, the
decorators return real dispatchers at once.

numba's on-disk cache of a kernel is keyed on its own file only: a kernel that
calls one in another module keeps running the callee's old code after that
module changes (seen here: search_subtrees cached with the children visited in
the old order). So, unless NUMBA_CACHE_DIR says otherwise, a kernel is cached
in a directory named after a hash of every source file of the packages whose
kernels it can call (cache_dir, _reach): its own package, this one, and those
whose kernels its package's modules hold. An edit of any of them starts a fresh
one, and an edit elsewhere does not: patterndb's kernels (which call only
patterndb's) share one directory whichever command or test process made them,
and the solver's kernels one with patterndb's sources and its own.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_lock = threading.RLock()
_pending: list[Deferred] = []
_loaded = False
_loading = False
_HOME = __name__.split(".")[0]  # this package: every kernel is made here (its directory names it)
_dirs_made: dict[
    tuple[str, ...], str
] = {}  # cache_dir's answers, by the packages named (hashed once)


class Deferred:
    """A numba object not made yet: made by factory() when numba is loaded."""

    def __init__(self, factory: Callable[[], Any], like: Any = None, cached: bool = False) -> None:
        self._factory = factory
        self._value: Any = None
        self._cached = cached
        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            setattr(self, attr, getattr(like, attr, None))
        self.__wrapped__ = like

    def resolve(self) -> Any:
        if self._value is None:
            if _loading:  # asked for by another factory while load() runs
                self._value = _make(self._factory, self.__module__ if self._cached else None)
            else:
                load()
        return self._value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.resolve(), name)

    def __repr__(self) -> str:
        return f"<deferred numba object {self.__qualname__ or self._factory!r}>"


def defer(factory: Callable[[], Any], like: Any = None, cached: bool = False) -> Any:
    """factory(), made now if numba is loaded, else a placeholder made with the rest
    (like: the Python function it wraps, for its name and docstring; cached: a kernel
    numba caches on disk, made with the cache directory of like's package)."""
    with _lock:
        if _loaded:
            return _make(factory, getattr(like, "__module__", None) if cached else None)
        d = Deferred(factory, like, cached)
        _pending.append(d)
        return d


def load() -> None:
    """Import numba, make every deferred object, and rebind the module globals holding them."""
    global _loaded, _loading
    with _lock:
        if _loaded:
            return

        _loading = True
        reached: dict[
            str | None, str | None
        ] = {}  # each package's cache directory, found once here
        made = {}
        for d in _pending:
            if d._value is None:
                d._value = _make(d._factory, d.__module__ if d._cached else None, reached)
            made[id(d)] = d._value
        for module in list(sys.modules.values()):
            env = getattr(module, "__dict__", None)
            if not isinstance(env, dict):
                continue
            for name, value in list(env.items()):
                if type(value) is Deferred and id(value) in made:
                    env[name] = made[id(value)]
        _pending.clear()
        _loaded = True
        _loading = False


def _make(factory: Callable[[], Any], module: str | None, reached: dict | None = None) -> Any:
    """factory(), with numba's cache directory, while it runs, the one for the kernels of
    module's package (numba fixes a kernel's cache path when the kernel is made); module
    None: a kernel not cached, or not a kernel."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return factory()
    package = module.split(".")[0] if module else None
    if reached is not None and package in reached:
        where = reached[package]
    else:
        where = _cache_for(package)
        if reached is not None:
            reached[package] = where
    if where is None:  # (not a package's: numba's own default)
        return factory()
    import numba

    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = where
    try:
        return factory()
    finally:
        numba.config.CACHE_DIR = before


def _cache_for(package: str | None) -> str | None:
    """The cache directory of package's kernels: named after the packages they can call
    (None for a module that is no package, a script's: numba's own place beside it)."""
    if package is None or not hasattr(sys.modules.get(package), "__path__"):
        return None
    names = tuple(sorted(_reach(package)))
    if names not in _dirs_made:
        _dirs_made[names] = str(cache_dir(_dirs(names)))
    return _dirs_made[names]


def _reach(package: str) -> set[str]:
    """The packages whose kernels a kernel of package can call. numba finds a kernel's
    callees among its module's globals, so: package, the packages of the kernels its loaded
    modules hold, theirs in turn; and this one (this module makes every kernel)."""
    from numba.core.dispatcher import Dispatcher

    seen: set[str] = set()
    todo = [package]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for name, mod in list(sys.modules.items()):
            if name != p and not name.startswith(p + "."):
                continue
            for value in list(getattr(mod, "__dict__", {}).values()):
                if type(value) is Deferred:
                    owner = value.__module__
                elif isinstance(value, Dispatcher):
                    owner = value.py_func.__module__
                else:
                    continue
                if owner:
                    todo.append(owner.split(".")[0])
    return seen | {_HOME}


def _dirs(names: tuple[str, ...]) -> list[Path]:
    dirs = []
    for name in names:
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            dirs.append(Path(file).parent)
    return dirs


def hash_sources(h: Any, packages: list[Path]) -> None:
    """Feed h every .py file of the packages, with its path (compiled kernels' keys too)."""
    for d in packages:
        for f in sorted(d.rglob("*.py")):
            h.update(str(f.relative_to(d.parent)).encode() + b"\0" + f.read_bytes() + b"\0")


def cache_dir(packages: list[Path]) -> Path:
    """numba's cache directory for these packages' sources as they are now:
    <first package>/__pycache__/numba-<names>-<hash>, where the older ones of the same packages
    are removed (a checkout's earlier states), or the same under ~/.cache/patterndb where the
    package is read-only. (Each set of packages has its own: patterndb's kernels one, the
    solver's, hashed over both packages, another.)"""
    h = hashlib.sha256()
    hash_sources(h, packages)
    prefix = "numba-" + "+".join(d.name for d in packages) + "-"
    name = prefix + h.hexdigest()[:16]
    parents = [packages[0] / "__pycache__"]
    try:
        parents.append(
            Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "patterndb"
        )
    except RuntimeError:  # no home directory
        pass
    for parent in parents:
        try:
            (parent / name).mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(parent / name, os.W_OK):
            for old in parent.glob(prefix + "*"):
                if old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
            return parent / name
    return parents[0] / name  # numba then warns that it cannot cache, and compiles


def njit(*args: Any, **options: Any) -> Any:
    """numba.njit, made when numba is loaded (same arguments)."""
    if args and callable(args[0]) and not options:
        func = args[0]
        return defer(lambda: _numba().njit(func), func)  # (not cached)

    def decorate(func: Callable) -> Any:
        return defer(
            lambda: _numba().njit(*args, **options)(func), func, bool(options.get("cache"))
        )

    return decorate


def intrinsic(func: Callable) -> Any:
    """numba.extending.intrinsic, made when numba is loaded."""
    return defer(lambda: _extending().intrinsic(func), func)


def _numba() -> Any:
    import numba

    return numba


def _extending() -> Any:
    import numba.extending

    return numba.extending


prange = defer(lambda: _numba().prange)
types = defer(lambda: _numba().types)
