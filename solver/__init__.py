"""Optimal and classic solvers for sliding-tile puzzles over patterndb tables.

The names below are imported on first use (PEP 562), so that the `solver`
command can configure the process (see cli.py) before numpy is imported.
"""
from importlib import import_module

_EXPORTS = {"distance": ".api", "solve": ".api", "SearchStopped": ".solution", "Solution": ".solution"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
