"""Where built tables live: --data-dir, else $PATTERNDB_DATA, else data/ of a checkout, else the
user's data directory as the platform names it (an installed package)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import PuzzleError, TableError

ENV_VAR = "PATTERNDB_DATA"
APP = "patterndb"


def user_data_dir() -> Path:
    """The platform's place for a user's application data: $XDG_DATA_HOME/patterndb (else
    ~/.local/share/patterndb) on Linux and other Unix systems, ~/Library/Application
    Support/patterndb on macOS, %LOCALAPPDATA%\\patterndb on Windows."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Application Support")
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


def checkout_data_dir() -> Path | None:
    """data/ of the source checkout this package runs from, or None for an installed package."""
    root = Path(__file__).resolve().parents[2]  # (patterndb/files/datadir.py)
    return root / "data" if (root / "pyproject.toml").exists() else None


def default_data_dir() -> Path:
    return data_dir_and_source(None)[0]


def data_dir_and_source(data_dir: str | os.PathLike | None) -> tuple[Path, str]:
    """(the data directory, where that choice came from, in words for `pdb list`)."""
    if data_dir is not None:
        return _checked(Path(data_dir), str(data_dir), "--data-dir"), "--data-dir"
    env = os.environ.get(ENV_VAR)
    if env is not None:
        return _checked(Path(env), env, f"${ENV_VAR}"), f"${ENV_VAR}"
    checkout = checkout_data_dir()
    if checkout is not None:
        return checkout, "data/ of the checkout"
    return user_data_dir(), "the user's data directory"


def _checked(path: Path, text: str, what: str) -> Path:
    """path, unless it names nothing (an empty string would mean the current directory:
    PuzzleError) or a file (no table can be built there: TableError), one line each."""
    if not text.strip():
        raise PuzzleError(f"{what} is empty: name a directory (. for this one)")
    if path.exists() and not path.is_dir():
        raise TableError(
            f"{what} {text} is not a directory (it is a file): no table can be kept there"
        )
    return path


def cache_dir() -> Path:
    """The user's cache for what a read-only data directory cannot keep ($XDG_CACHE_HOME/patterndb)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / APP


def resolve_data_dir(data_dir: str | os.PathLike | None) -> Path:
    return data_dir_and_source(data_dir)[0]


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
