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
the old order). So, unless NUMBA_CACHE_DIR says otherwise, the cache lives in
a directory named after a hash of every source file of the packages that
define kernels (cache_dir), and an edit anywhere starts a fresh one.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any, Callable

_lock = threading.RLock()
_pending: list["Deferred"] = []
_loaded = False
_loading = False
_covered: set[str] = set()  # the packages numba's cache directory is named after (cache_dir)


class Deferred:
    """A numba object not made yet: made by factory() when numba is loaded."""

    def __init__(self, factory: Callable[[], Any], like: Any = None) -> None:
        self._factory = factory
        self._value: Any = None
        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            setattr(self, attr, getattr(like, attr, None))
        self.__wrapped__ = like

    def resolve(self) -> Any:
        if self._value is None:
            if _loading:  # asked for by another factory while load() runs
                self._value = self._factory()
            else:
                load()
        return self._value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.resolve(), name)

    def __repr__(self) -> str:
        return f"<deferred numba object {self.__qualname__ or self._factory!r}>"


def defer(factory: Callable[[], Any], like: Any = None) -> Any:
    """factory(), made now if numba is loaded, else a placeholder made with the rest
    (like: the Python function it wraps, for its name and docstring)."""
    with _lock:
        if _loaded:
            _cover(getattr(like, "__module__", None))
            return factory()
        d = Deferred(factory, like)
        _pending.append(d)
        return d


def load() -> None:
    """Import numba, make every deferred object, and rebind the module globals holding them."""
    global _loaded, _loading
    with _lock:
        if _loaded:
            return
        import numba  # (the whole point: imported here, once)

        _covered.update(_package_names())
        if not os.environ.get("NUMBA_CACHE_DIR"):
            numba.config.CACHE_DIR = str(cache_dir(_dirs(_covered)))
        _loading = True
        made = {}
        for d in _pending:
            if d._value is None:
                d._value = d._factory()
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


def _package_names() -> set[str]:
    """The top-level packages whose modules define the kernels made so far (this one too)."""
    return {__name__.split(".")[0]} | {d.__module__.split(".")[0] for d in _pending if d.__module__}


def _dirs(names: set[str]) -> list[Path]:
    dirs = []
    for name in sorted(names):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            dirs.append(Path(file).parent)
    return dirs


def _cover(module: str | None) -> None:
    """Before a kernel of module is made after numba was loaded: if its package was not
    among those the cache directory is named after (numba was loaded by this package's
    kernels before the solver's modules were imported: the tests, a tool), name the cache
    after that package too from now on. Else an edit of the solver's sources would leave
    its kernels running the callees' old code from the cache (seen: the catalogue kernel's
    old code after its file was changed back). Kernels made before keep their directory:
    they cannot call the new package's kernels."""
    if not module or os.environ.get("NUMBA_CACHE_DIR"):
        return
    name = module.split(".")[0]
    if name in _covered or name not in sys.modules:
        return
    _covered.add(name)
    import numba

    numba.config.CACHE_DIR = str(cache_dir(_dirs(_covered)))


def hash_sources(h: Any, packages: list[Path]) -> None:
    """Feed h every .py file of the packages, with its path (compiled kernels' keys too)."""
    for d in packages:
        for f in sorted(d.rglob("*.py")):
            h.update(str(f.relative_to(d.parent)).encode() + b"\0" + f.read_bytes() + b"\0")


def cache_dir(packages: list[Path]) -> Path:
    """numba's cache directory for these packages' sources as they are now:
    <first package>/__pycache__/numba-<names>-<hash>, where the older ones of the same packages
    are removed (a checkout's earlier states), or the same under ~/.cache/patterndb where the
    package is read-only. (A command using only some of the packages keeps its own cache.)"""
    h = hashlib.sha256()
    hash_sources(h, packages)
    prefix = "numba-" + "+".join(d.name for d in packages) + "-"
    name = prefix + h.hexdigest()[:16]
    parents = [packages[0] / "__pycache__"]
    try:
        parents.append(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "patterndb")
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
        return defer(lambda: _numba().njit(func), func)

    def decorate(func: Callable) -> Any:
        return defer(lambda: _numba().njit(*args, **options)(func), func)

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
