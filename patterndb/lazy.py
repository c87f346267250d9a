"""Package names imported on first use (PEP 562), so a command can configure the
process (see cli.py) before the heavy modules, numpy first, are imported."""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """A module __getattr__ for package that imports name from exports[name] (a relative
    module) the first time it is asked for, and keeps it."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(exports[name], package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
