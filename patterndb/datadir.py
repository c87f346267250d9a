"""Where built tables live: --data-dir, else $PATTERNDB_DATA, else data/ of the checkout."""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "PATTERNDB_DATA"


def default_data_dir() -> Path:
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").exists():
        return root / "data"
    return Path.home() / ".cache" / "patterndb"


def cache_dir() -> Path:
    """The user's cache for what a read-only data directory cannot keep ($XDG_CACHE_HOME/patterndb)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "patterndb"


def resolve_data_dir(data_dir: str | os.PathLike | None) -> Path:
    return Path(data_dir) if data_dir is not None else default_data_dir()


def available_memory() -> int:
    """Bytes of memory available to a new allocation (MemAvailable), or -1 if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1
