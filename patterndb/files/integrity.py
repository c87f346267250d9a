"""Is a table file the one that was built? Checksums, digests, and what was found about each
file the last time it was checked in full.

A file is checked in full (crc32 of its data, a digest over the data and the attributes that
give it its meaning, its values against their recorded histogram) the first time this file
version is seen; what was found is then remembered beside the tables (.verified.json), keyed by
the file's fingerprint: size, mtime, ctime, inode and device. Any change made through the file
system changes the ctime, which no program can set back (restoring the mtime with utime sets
the ctime to now), so such a change is always checked in full before the table is used. A few
random blocks are checked again on every later load (spot_check), for damage that bypasses the
file system. docs/design.md ("What is checked") says what this guarantees."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ..build.exact import histogram, histogram_mean
from ..build.nibbles import nibble_histogram
from ..errors import TableError
from .attrs import is_packed, is_zero_aware, plain
from .datadir import cache_dir

VERIFIED = ".verified.json"  # beside the tables: what was found about each file checked in full
TMP_MARK = ".tmp"  # (a registry is written through a temporary file too)
MTIME_SLACK = 2.0  # seconds: an mtime this recent may share its (coarse) tick with a change to come
CTIME_SLACK = (
    0.1  # the ctime is the kernel's clock, a few ms a tick where it is finer than the mtime's
)
SPOT_BLOCK = 256 << 10  # bytes per block whose crc32 is remembered after a full check
SPOT_BLOCKS = 2  # blocks re-checked at random on every load of a remembered file (about 0.2 ms)


def checksum(data: np.ndarray) -> int:
    """crc32 of the raw bytes (0.15 s for half a gigabyte)."""
    return zlib.crc32(np.ascontiguousarray(data).view(np.uint8)) & 0xFFFFFFFF


IDENTITY = (
    "kind",
    "rows",
    "cols",
    "goal",
    "tiles",
    "encoding",
    "entries",
    "histogram",
    "nibble_histogram",
)
# (in a zero-aware digest)
ZERO_AWARE_LAYOUT = "flag_code", "region_bytes", "prefix_at", "regions_at", "flagged"


def digest(data_crc: int, attrs: dict[str, Any]) -> int:
    """crc32 over the data's crc32 and the attributes that say what the data means: a table's
    data under another group's name, or with its values and statistics changed together,
    no longer matches (a 4-bit table needs this: its goal entry is 0 for most groups' data)."""
    keys = IDENTITY + (ZERO_AWARE_LAYOUT if is_zero_aware(attrs) else ())
    text = json.dumps([plain(np.asarray(attrs[k])) if k in attrs else None for k in keys])
    return zlib.crc32(text.encode(), data_crc) & 0xFFFFFFFF


def _stat(path: Path) -> list[int]:
    """What changes whenever the file's bytes are changed through the file system: the ctime
    too, which a program that restores the mtime (touch -r, rsync --inplace -t, utime) cannot
    set back."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns]


def registry_files(directory: Path) -> tuple[Path, Path]:
    """Where what is known about the tables of directory is kept: beside them, and, for a
    directory this process cannot write (a shared read-only one), in the user's cache."""
    directory = Path(directory)
    key = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:16]
    return directory / VERIFIED, cache_dir() / "verified" / f"{key}.json"


def _load(file: Path) -> dict[str, Any]:
    try:
        reg = json.loads(file.read_text())
    except (OSError, ValueError):
        return {}
    return reg if isinstance(reg, dict) else {}


def _save(file: Path, reg: dict[str, Any]) -> bool:
    """Write a registry atomically; False where it cannot be written."""
    tmp = file.with_name(f"{file.name}{TMP_MARK}{os.getpid()}")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(reg))
        os.replace(tmp, file)
        return True
    except OSError:
        return False
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def _registry(directory: Path) -> dict[str, Any]:
    """What is known about directory's files (beside them first, then the user's cache)."""
    beside, cached = registry_files(directory)
    return _load(cached) | _load(beside)


def remembered(path: Path) -> dict[str, Any] | None:
    """What was recorded (remember) about this very file when it was last checked in full, or
    None if it was not, or has changed since (size, mtime, inode, device)."""
    path = Path(path)
    entry = _registry(path.parent).get(path.name)
    if not isinstance(entry, dict):
        return None
    try:
        return entry if entry.get("stat") == _stat(path) else None
    except OSError:
        return None


def remember(path: Path, info: dict[str, Any]) -> None:
    """Record info (JSON) about path as it is now, once it was checked in full: beside it, or
    in the user's cache where its directory cannot be written (else nothing).

    Not while the file's mtime is under MTIME_SLACK s old, nor its ctime under CTIME_SLACK:
    on a file system with coarse timestamps a change made within the same tick would keep the
    fingerprint."""
    path = Path(path)
    stat = _stat(path)
    now = time.time_ns()
    if now - stat[1] < MTIME_SLACK * 1e9 or now - stat[4] < CTIME_SLACK * 1e9:
        return
    for file in registry_files(path.parent):
        reg = _load(file)
        reg[path.name] = {"stat": stat, **info}
        if _save(file, reg):
            return


def forget(path: Path) -> None:
    """Drop what was remembered about path (best effort), so that its next load checks it in full."""
    path = Path(path)
    for file in registry_files(path.parent):
        reg = _load(file)
        if reg.pop(path.name, None) is not None:
            _save(file, reg)


def block_crcs(data: np.ndarray) -> str:
    """crc32 of each SPOT_BLOCK bytes of data, as base64 of little-endian uint32 (what remember keeps)."""
    raw = memoryview(np.ascontiguousarray(data).view(np.uint8))
    crcs = [zlib.crc32(raw[i : i + SPOT_BLOCK]) for i in range(0, len(raw), SPOT_BLOCK)]
    return base64.b64encode(np.array(crcs, dtype="<u4").tobytes()).decode()


def spot_check(path: Path, data: np.ndarray, blocks: str, count: int = SPOT_BLOCKS) -> None:
    """Re-check count random blocks of a remembered file against their recorded crc32.

    A file changed in place with its size, mtime and inode kept (rsync --inplace -t, a
    failing disk) still looks remembered; this catches it, sooner or later, where the
    change is. On a mismatch the file is forgotten (its next load checks it in full)."""
    crcs = np.frombuffer(base64.b64decode(blocks), dtype="<u4")
    raw = memoryview(np.ascontiguousarray(data).view(np.uint8))
    n = (len(raw) + SPOT_BLOCK - 1) // SPOT_BLOCK
    if crcs.size != n:
        raise TableError(
            f"{path} is damaged: it has {n} blocks, {crcs.size} were recorded (run pdb verify)"
        )
    for i in np.random.default_rng().choice(n, min(n, count), replace=False):
        if zlib.crc32(raw[i * SPOT_BLOCK : (i + 1) * SPOT_BLOCK]) != crcs[i]:
            forget(path)
            raise TableError(
                f"{path} is damaged: bytes {i * SPOT_BLOCK:,} to {(i + 1) * SPOT_BLOCK:,} changed since "
                "it was checked, with its size and time kept (rebuild it)"
            )


def remembered_attrs(path: Path) -> dict[str, Any] | None:
    """The attributes read_attrs gave when this very file was last verified, without opening it
    (so without importing h5py: 0.03 s of a cold solve), or None."""
    entry = remembered(path)
    if entry is None or "attrs" not in entry:
        return None
    attrs = dict(entry["attrs"])
    attrs["_shape"] = tuple(attrs["_shape"])
    return attrs


def verify(path: Path, attrs: dict[str, Any], data: np.ndarray, verify: str) -> None:
    """The checks of load_table's `verify` (see there): the crc32, and the values against the
    recorded histogram, max and mean (a table with changed values and a recomputed crc is
    caught here: doubled values would give too-long answers called optimal)."""
    entry = None if verify == "always" else remembered(path)
    if entry is not None and entry.get("crc") == int(attrs["checksum_crc32"]) and "blocks" in entry:
        spot_check(path, data, entry["blocks"])
    else:
        if checksum(data) != attrs["checksum_crc32"]:
            raise TableError(f"{path} is damaged: checksum mismatch (rebuild it)")
        if ("digest_crc32" in attrs or is_packed(attrs) or is_zero_aware(attrs)) and attrs.get(
            "digest_crc32"
        ) != digest(int(attrs["checksum_crc32"]), attrs):
            raise TableError(
                f"{path} is damaged or altered: its data does not match its attributes (digest_crc32)"
            )
        want = np.asarray(attrs["histogram"])
        # the stored values against their own histogram; h's histogram is consistent
        if is_packed(attrs):
            hist = want
            same = np.array_equal(
                nibble_histogram(data, int(attrs["entries"])), attrs.get("nibble_histogram")
            )
        # the codes against their histogram, and the flagged ones against the layout
        elif is_zero_aware(attrs):
            hist = want
            entries = int(attrs["entries"])
            code_hist = nibble_histogram(data[: (entries + 1) // 2], entries)
            same = np.array_equal(code_hist, attrs.get("nibble_histogram")) and int(
                code_hist[int(attrs["flag_code"]) :].sum()
            ) == int(attrs["flagged"])
        else:
            hist = histogram(data)
            same = np.array_equal(hist, want)
        if (
            not same
            or attrs.get("max") != hist.size - 1
            or not np.isclose(attrs.get("mean", -1.0), histogram_mean(hist))
        ):
            raise TableError(
                f"{path} is damaged or altered: its values differ from its recorded histogram"
            )
        remember(
            path, {"crc": int(attrs["checksum_crc32"]), "attrs": attrs, "blocks": block_crcs(data)}
        )
