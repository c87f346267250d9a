"""Optimal and classic solvers for sliding-tile puzzles over patterndb tables.

The names below are imported on first use (patterndb.lazy), so the `solver`
command can configure the process before numpy is imported."""

from patterndb import __version__ as __version__
from patterndb.lazy import lazy_exports

_EXPORTS = {
    "distance": ".api",
    "solve": ".api",
    "solve_within": ".bounded.anytime",
    "Bounded": ".bounded.anytime",
    "SearchStopped": ".solution",
    "Solution": ".solution",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
