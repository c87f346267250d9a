"""HDF5 storage of tables: self-describing, checksummed, written atomically.

One file holds one table in the dataset 'table' (uint8, contiguous, so it
loads with a single read straight into the caller's buffer). Everything
needed to interpret it lives in the dataset's attributes. Files are written
under a temporary name and renamed into place only when complete, so a build
killed at any moment never leaves a file that loads.
"""
from __future__ import annotations

import datetime as _dt
import os
import zlib
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from .errors import TableError

FORMAT_VERSION = 1
DATASET = "table"
TMP_MARK = ".tmp"
REQUIRED = ("format_version", "entries", "checksum_crc32", "kind", "rows", "cols", "goal", "histogram")


def checksum(data: np.ndarray) -> int:
    """crc32 of the raw bytes (0.15 s for half a gigabyte)."""
    return zlib.crc32(np.ascontiguousarray(data).view(np.uint8)) & 0xFFFFFFFF


def write_table(path: Path, data: np.ndarray, attrs: dict[str, Any]) -> None:
    """Write data with its attributes to path atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
    try:
        with h5py.File(tmp, "w") as f:
            ds = f.create_dataset(DATASET, data=data)
            for k, v in attrs.items():
                ds.attrs[k] = v
            ds.attrs["format_version"] = FORMAT_VERSION
            ds.attrs["entries"] = data.size
            ds.attrs["checksum_crc32"] = checksum(data)
            ds.attrs["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _remove_stale_temporaries(path: Path) -> None:
    """Delete what killed writers of this table left behind (their process is gone)."""
    for tmp in path.parent.glob(f"{path.name}{TMP_MARK}*"):
        pid = tmp.name[len(path.name) + len(TMP_MARK):]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            tmp.unlink(missing_ok=True)


def _plain(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def read_attrs(path: Path) -> dict[str, Any]:
    """The table's attributes, or TableError if the file is not a table of ours."""
    path = Path(path)
    if not path.exists():
        raise TableError(f"no table file {path}")
    try:
        with h5py.File(path, "r") as f:
            if DATASET not in f:
                raise TableError(f"{path} is not a pattern-database file (no '{DATASET}' dataset)")
            attrs = {k: _plain(v) for k, v in f[DATASET].attrs.items()}
            attrs["_shape"] = f[DATASET].shape
            attrs["_dtype"] = str(f[DATASET].dtype)
    except TableError:
        raise
    except Exception as e:  # h5py raises OSError/KeyError/... for damaged files
        raise TableError(f"{path} is damaged or not an HDF5 file ({e.__class__.__name__}: {e})") from None
    missing = [k for k in REQUIRED if k not in attrs]
    if missing:
        raise TableError(f"{path} is damaged: attribute{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing")
    if attrs.get("format_version") != FORMAT_VERSION:
        raise TableError(
            f"{path} has format version {attrs.get('format_version')}, this program reads {FORMAT_VERSION}: rebuild it"
        )
    if attrs["_dtype"] != "uint8" or attrs["_shape"] != (attrs.get("entries"),):
        raise TableError(f"{path} is damaged: table is {attrs['_dtype']}{attrs['_shape']}, expected uint8 ({attrs.get('entries')},)")
    return attrs


def check_attrs(path: Path, attrs: dict[str, Any], expect: dict[str, Any]) -> None:
    for k, want in expect.items():
        got = attrs.get(k)
        if _plain(np.asarray(got)) != _plain(np.asarray(want)):
            raise TableError(f"{path} was built for {k}={got!r}, not {want!r}")


def load_table(
    path: Path, expect: dict[str, Any], out: np.ndarray | None = None, verify: bool = True
) -> tuple[np.ndarray, dict[str, Any]]:
    """Read a table after checking its attributes against expect.

    out, if given, is a uint8 buffer of exactly the table's size that
    receives the data (one contiguous read, no intermediate copy).
    """
    path = Path(path)
    attrs = read_attrs(path)
    check_attrs(path, attrs, expect)
    if out is None:
        out = np.empty(attrs["entries"], dtype=np.uint8)
    elif out.shape != (attrs["entries"],):
        raise TableError(f"{path} holds {attrs['entries']} entries, buffer has {out.size}")
    try:
        with h5py.File(path, "r") as f:
            f[DATASET].read_direct(out)
    except Exception as e:
        raise TableError(f"{path} is damaged: cannot read its table ({e})") from None
    if verify and checksum(out) != attrs["checksum_crc32"]:
        raise TableError(f"{path} is damaged: checksum mismatch (rebuild it)")
    return out, attrs
