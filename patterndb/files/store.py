"""HDF5 storage of tables: self-describing, checksummed, written atomically.

One file holds one table in the dataset 'table' (uint8, contiguous, so it
loads with a single read straight into the caller's buffer). Everything
needed to interpret it lives in the dataset's attributes. Files are written
under a temporary name and renamed into place only when complete, so a build
killed at any moment never leaves a file that loads.
"""

from __future__ import annotations

import datetime as _dt
import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..build.nibbles import ENCODING
from ..build.zeroaware import ENCODING as REGIONS
from ..errors import TableError, WriteError
from . import integrity
from .attrs import FORMAT_VERSION, REQUIRED, check_attrs, plain, stored_size
from .integrity import TMP_MARK, checksum, digest

DATASET = "table"


@contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary name beside path, to write to; flushed to disk and renamed onto path when
    the block ends without an error, removed otherwise: path is never half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    tmp = path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}")
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except (OSError, RuntimeError) as e:  # (h5py reports a failed write as either)
        raise WriteError(f"cannot write {path}: {_reason(e)}; nothing was kept") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def _reason(e: BaseException) -> str:
    """The system's words for the error number behind e (h5py puts it in its message, and
    its RuntimeError on closing the file is raised while handling the OSError of the write)."""
    while e is not None:
        number = getattr(e, "errno", None)
        if not number:
            m = re.search(r"errno = (\d+)", str(e))
            number = int(m.group(1)) if m else None
        if number:
            return os.strerror(number)
        e = e.__context__
    return "the write failed"


class _FailSoftFile(io.RawIOBase):
    """The file h5py writes through (its fileobj driver), never failing a write: the first
    error is kept and later writes are dropped, so the library closes the file cleanly and
    the caller raises the kept error. (After a write it saw fail, HDF5 is left in a state
    where the process's next HDF5 call crashes: measured, a segmentation fault on writing
    the move machine to its second place after the first ran out of room.)"""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.file = open(path, "wb+")
        self.error: OSError | None = None

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def write(self, b) -> int:
        size = memoryview(b).nbytes
        if self.error is None:
            try:
                self.file.write(b)
            except OSError as e:
                self.error = e
        return size

    def readinto(self, b) -> int:
        return self.file.readinto(b)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()

    def truncate(self, size: int | None = None) -> int:
        if self.error is None:
            try:
                return self.file.truncate(size)
            except OSError as e:
                self.error = e
        return self.file.tell() if size is None else size

    def flush(self) -> None:
        if self.error is None and not self.file.closed:
            try:
                self.file.flush()
            except OSError as e:
                self.error = e

    def close(self) -> None:
        self.flush()
        self.file.close()
        super().close()


@contextmanager
def hdf5_writer(tmp: Path) -> Iterator[Any]:
    """An HDF5 file to write at tmp (inside atomic's block): a failed write (disk full, a
    file size limit) is raised as OSError once the library has closed the file."""
    import h5py  # (imported where needed: a solve that finds its tables remembered never needs it)

    fh = _FailSoftFile(tmp)
    try:
        with h5py.File(fh, "w") as f:
            yield f
    finally:
        fh.close()
    if fh.error is not None:
        raise fh.error


def write_table(path: Path, data: np.ndarray, attrs: dict[str, Any]) -> None:
    """Write data with its attributes to path atomically."""
    with atomic(path) as tmp:
        with hdf5_writer(tmp) as f:
            ds = f.create_dataset(DATASET, data=data)
            for k, v in attrs.items():
                ds.attrs[k] = v
            ds.attrs["format_version"] = FORMAT_VERSION
            if "entries" not in attrs:
                ds.attrs["entries"] = data.size
            ds.attrs["checksum_crc32"] = checksum(data)
            ds.attrs["digest_crc32"] = digest(
                int(ds.attrs["checksum_crc32"]), {k: ds.attrs[k] for k in ds.attrs}
            )
            ds.attrs["created"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def temporaries(data_dir: Path, pattern: str = "*") -> list[tuple[Path, int, bool]]:
    """Temporary files of writers in data_dir (matching pattern + TMP_MARK + pid):
    (path, pid, whether that process still runs). A dead writer's file is never completed."""
    out = []
    for tmp in sorted(Path(data_dir).glob(f"{pattern}{TMP_MARK}*")):
        pid = tmp.name.rsplit(TMP_MARK, 1)[1]
        if pid.isdigit():
            out.append((tmp, int(pid), Path(f"/proc/{pid}").exists()))
    return out


def _remove_stale_temporaries(path: Path) -> None:
    """Delete what killed writers of this table left behind (their process is gone)."""
    for tmp, _, alive in temporaries(path.parent, path.name):
        if not alive:
            tmp.unlink(missing_ok=True)


def read_attrs(path: Path) -> dict[str, Any]:
    """The table's attributes, or TableError if the file is not a table of ours."""
    path = Path(path)
    if not path.exists():
        raise TableError(f"no table file {path}")
    import h5py

    try:
        with h5py.File(path, "r") as f:
            if DATASET not in f:
                raise TableError(f"{path} is not a pattern-database file (no '{DATASET}' dataset)")
            attrs = {k: plain(v) for k, v in f[DATASET].attrs.items()}
            ds = f[DATASET]
            attrs["_shape"] = ds.shape
            attrs["_dtype"] = str(ds.dtype)
            # where the data starts in the file, if it is one plain run of bytes (it can be mapped)
            attrs["_offset"] = (
                ds.id.get_offset() if ds.chunks is None and ds.compression is None else None
            )
    except TableError:
        raise
    except Exception as e:  # noqa: BLE001 - h5py raises OSError/KeyError/... for damaged files
        raise TableError(
            f"{path} is damaged or not an HDF5 file ({e.__class__.__name__}: {e})"
        ) from None
    missing = [k for k in REQUIRED if k not in attrs]
    if missing:
        raise TableError(
            f"{path} is damaged: attribute{'s' if len(missing) > 1 else ''} {', '.join(missing)} missing"
        )
    if attrs.get("format_version") != FORMAT_VERSION:
        raise TableError(
            f"{path} has format version {attrs.get('format_version')}, this program reads {FORMAT_VERSION}: rebuild it"
        )
    if attrs.get("encoding", "byte") not in ("byte", ENCODING, REGIONS):
        raise TableError(
            f"{path} has encoding {attrs.get('encoding')!r}, this program reads 'byte', '{ENCODING}' "
            f"and '{REGIONS}'"
        )
    if attrs["_dtype"] != "uint8" or attrs["_shape"] != (stored_size(attrs),):
        raise TableError(
            f"{path} is damaged: table is {attrs['_dtype']}{attrs['_shape']}, "
            f"expected uint8 ({stored_size(attrs)},)"
        )
    return attrs


def load_table(
    path: Path, expect: dict[str, Any], out: np.ndarray | None = None, verify: str = "once"
) -> tuple[np.ndarray, dict[str, Any]]:
    """Read a table after checking its attributes against expect.

    out, if given, is a uint8 buffer of exactly the table's size that
    receives the data (one contiguous read, no intermediate copy).
    verify: "always" checks the crc32 of the data; "once" (the default)
    skips it when this very file version (integrity: its fingerprint and
    recorded crc) was verified before, which any change to its bytes through
    the file system undoes; hashing the 7-8 tables on every start cost 0.09 s.
    A few random blocks are checked again on every load (integrity.spot_check).
    """
    path = Path(path)
    attrs = read_attrs(path)
    check_attrs(path, attrs, expect)
    size = stored_size(attrs)
    if out is None:
        out = np.empty(size, dtype=np.uint8)
    elif out.shape != (size,):
        raise TableError(f"{path} holds {size} bytes, buffer has {out.size}")
    import h5py

    try:
        with h5py.File(path, "r") as f:
            f[DATASET].read_direct(out)
    except Exception as e:  # noqa: BLE001 - whatever h5py raises for a damaged file
        raise TableError(f"{path} is damaged: cannot read its table ({e})") from None
    integrity.verify(path, attrs, out, verify)
    return out, attrs
