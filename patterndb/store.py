"""HDF5 storage of tables: self-describing, checksummed, written atomically.

One file holds one table in the dataset 'table' (uint8, contiguous, so it
loads with a single read straight into the caller's buffer). Everything
needed to interpret it lives in the dataset's attributes. Files are written
under a temporary name and renamed into place only when complete, so a build
killed at any moment never leaves a file that loads.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import time
import zlib
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from .errors import TableError

FORMAT_VERSION = 1
DATASET = "table"
TMP_MARK = ".tmp"
VERIFIED = ".verified.json"  # beside the tables: fingerprints of the files whose checksum matched
MTIME_SLACK = 2.0
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
            ds.attrs["checksum_crc32"] = crc = checksum(data)
            ds.attrs["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _remember_verified(path, {"checksum_crc32": crc})
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


def _fingerprint(path: Path, attrs: dict[str, Any]) -> list[int]:
    """What changes whenever the file's bytes are changed through the file system."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, int(attrs["checksum_crc32"])]


def _registry(directory: Path) -> dict[str, Any]:
    try:
        return json.loads((directory / VERIFIED).read_text())
    except (OSError, ValueError):
        return {}


def _remember_verified(path: Path, attrs: dict[str, Any]) -> None:
    """Record that path's data matched its checksum (best effort: a read-only directory records nothing).

    Not while the file's mtime is under MTIME_SLACK s old: on a file system with coarse
    timestamps a change made within the same tick would keep the fingerprint."""
    fingerprint = _fingerprint(path, attrs)
    if time.time_ns() - fingerprint[1] < MTIME_SLACK * 1e9:
        return
    reg = _registry(path.parent)
    reg[path.name] = fingerprint
    tmp = path.parent / f"{VERIFIED}{TMP_MARK}{os.getpid()}"
    try:
        tmp.write_text(json.dumps(reg))
        os.replace(tmp, path.parent / VERIFIED)
    except OSError:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def load_table(
    path: Path, expect: dict[str, Any], out: np.ndarray | None = None, verify: str = "once"
) -> tuple[np.ndarray, dict[str, Any]]:
    """Read a table after checking its attributes against expect.

    out, if given, is a uint8 buffer of exactly the table's size that
    receives the data (one contiguous read, no intermediate copy).
    verify: "always" checks the crc32 of the data; "once" (the default)
    skips it when this very file (size, mtime, inode, recorded crc) was
    verified before, which any change to its bytes through the file system
    undoes; hashing half a gigabyte on every start cost 0.15 s.
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
    if verify == "always" or _registry(path.parent).get(path.name) != _fingerprint(path, attrs):
        if checksum(out) != attrs["checksum_crc32"]:
            raise TableError(f"{path} is damaged: checksum mismatch (rebuild it)")
        _remember_verified(path, attrs)
    return out, attrs
