"""HDF5 storage of tables: self-describing, checksummed, written atomically.

One file holds one table in the dataset 'table' (uint8, contiguous, so it
loads with a single read straight into the caller's buffer). Everything
needed to interpret it lives in the dataset's attributes. Files are written
under a temporary name and renamed into place only when complete, so a build
killed at any moment never leaves a file that loads.
"""
from __future__ import annotations

import base64
import ctypes
import datetime as _dt
import hashlib
import io
import json
import os
import re
import sys
import time
import weakref
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .datadir import cache_dir
from .errors import TableError, WriteError
from .exact import histogram, histogram_mean
from .nibbles import ENCODING, nibble_histogram
from .zeroaware import ENCODING as REGIONS
from .zeroaware import layout

FORMAT_VERSION = 1
DATASET = "table"
TMP_MARK = ".tmp"
VERIFIED = ".verified.json"  # beside the tables: what was found about each file checked in full
MTIME_SLACK = 2.0
SPOT_BLOCK = 256 << 10  # bytes per block whose crc32 is remembered after a full check
SPOT_BLOCKS = 2  # blocks re-checked at random on every load of a remembered file (about 0.2 ms)
REQUIRED = ("format_version", "entries", "checksum_crc32", "kind", "rows", "cols", "goal", "histogram")


def checksum(data: np.ndarray) -> int:
    """crc32 of the raw bytes (0.15 s for half a gigabyte)."""
    return zlib.crc32(np.ascontiguousarray(data).view(np.uint8)) & 0xFFFFFFFF


IDENTITY = ("kind", "rows", "cols", "goal", "tiles", "encoding", "entries", "histogram", "nibble_histogram")
ZERO_AWARE_LAYOUT = ("flag_code", "region_bytes", "prefix_at", "regions_at", "flagged")  # (in a zero-aware digest)


def digest(data_crc: int, attrs: dict[str, Any]) -> int:
    """crc32 over the data's crc32 and the attributes that say what the data means: a table's
    data under another group's name, or with its values and statistics changed together,
    no longer matches (a 4-bit table needs this: its goal entry is 0 for most groups' data)."""
    keys = IDENTITY + (ZERO_AWARE_LAYOUT if is_zero_aware(attrs) else ())
    text = json.dumps([plain(np.asarray(attrs[k])) if k in attrs else None for k in keys])
    return zlib.crc32(text.encode(), data_crc) & 0xFFFFFFFF


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
            ds.attrs["digest_crc32"] = digest(int(ds.attrs["checksum_crc32"]), {k: ds.attrs[k] for k in ds.attrs})
            ds.attrs["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


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


def plain(v: Any) -> Any:
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
            attrs["_offset"] = ds.id.get_offset() if ds.chunks is None and ds.compression is None else None
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
    if attrs.get("encoding", "byte") not in ("byte", ENCODING, REGIONS):
        raise TableError(f"{path} has encoding {attrs.get('encoding')!r}, this program reads 'byte', '{ENCODING}' "
                         f"and '{REGIONS}'")
    if attrs["_dtype"] != "uint8" or attrs["_shape"] != (stored_size(attrs),):
        raise TableError(f"{path} is damaged: table is {attrs['_dtype']}{attrs['_shape']}, "
                         f"expected uint8 ({stored_size(attrs)},)")
    return attrs


def is_packed(attrs: dict[str, Any]) -> bool:
    """Is the table in 4 bits an entry (patterndb.nibbles)?"""
    return attrs.get("encoding") == ENCODING


def is_zero_aware(attrs: dict[str, Any]) -> bool:
    """Is the table zero-aware (patterndb.zeroaware: codes, and region bits where flagged)?"""
    return attrs.get("encoding") == REGIONS


def stored_size(attrs: dict[str, Any]) -> int:
    """Bytes of the dataset: an entry each, two entries a byte when packed, or zero-aware's layout."""
    entries = int(attrs["entries"])
    if is_zero_aware(attrs):
        return layout(entries, int(attrs["flagged"]), int(attrs["region_bytes"]), int(attrs["prefix_at"]) < 0)[2]
    return (entries + 1) // 2 if is_packed(attrs) else entries


def check_attrs(path: Path, attrs: dict[str, Any], expect: dict[str, Any]) -> None:
    for k, want in expect.items():
        got = attrs.get(k)
        if plain(np.asarray(got)) != plain(np.asarray(want)):
            raise TableError(f"{path} was built for {k}={got!r}, not {want!r}")


def _stat(path: Path) -> list[int]:
    """What changes whenever the file's bytes are changed through the file system."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]


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

    Not while the file's mtime is under MTIME_SLACK s old: on a file system with coarse
    timestamps a change made within the same tick would keep the fingerprint."""
    path = Path(path)
    stat = _stat(path)
    if time.time_ns() - stat[1] < MTIME_SLACK * 1e9:
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
        raise TableError(f"{path} is damaged: it has {n} blocks, {crcs.size} were recorded (run pdb verify)")
    for i in np.random.default_rng().choice(n, min(n, count), replace=False):
        if zlib.crc32(raw[i * SPOT_BLOCK : (i + 1) * SPOT_BLOCK]) != crcs[i]:
            forget(path)
            raise TableError(f"{path} is damaged: bytes {i * SPOT_BLOCK:,} to {(i + 1) * SPOT_BLOCK:,} changed since "
                             "it was checked, with its size and time kept (rebuild it)")


def remembered_attrs(path: Path) -> dict[str, Any] | None:
    """The attributes read_attrs gave when this very file was last verified, without opening it
    (so without importing h5py: 0.03 s of a cold solve), or None."""
    entry = remembered(path)
    if entry is None or "attrs" not in entry:
        return None
    attrs = dict(entry["attrs"])
    attrs["_shape"] = tuple(attrs["_shape"])
    return attrs


def load_table(
    path: Path, expect: dict[str, Any], out: np.ndarray | None = None, verify: str = "once"
) -> tuple[np.ndarray, dict[str, Any]]:
    """Read a table after checking its attributes against expect.

    out, if given, is a uint8 buffer of exactly the table's size that
    receives the data (one contiguous read, no intermediate copy).
    verify: "always" checks the crc32 of the data; "once" (the default)
    skips it when this very file (size, mtime, inode, recorded crc) was
    verified before, which any change to its bytes through the file system
    undoes; hashing the 7-8 tables on every start cost 0.09 s. A file
    changed in place with its mtime kept is caught by a spot check of a
    few random blocks on every load (spot_check).
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
    except Exception as e:
        raise TableError(f"{path} is damaged: cannot read its table ({e})") from None
    _verify(path, attrs, out, verify)
    return out, attrs


def _verify(path: Path, attrs: dict[str, Any], data: np.ndarray, verify: str) -> None:
    """The checks of load_table's `verify` (see there): the crc32, and the values against the
    recorded histogram, max and mean (a table with changed values and a recomputed crc is
    caught here: doubled values would give too-long answers called optimal)."""
    entry = None if verify == "always" else remembered(path)
    if entry is not None and entry.get("crc") == int(attrs["checksum_crc32"]) and "blocks" in entry:
        spot_check(path, data, entry["blocks"])
    else:
        if checksum(data) != attrs["checksum_crc32"]:
            raise TableError(f"{path} is damaged: checksum mismatch (rebuild it)")
        if ("digest_crc32" in attrs or is_packed(attrs) or is_zero_aware(attrs)) and attrs.get("digest_crc32") != digest(
                int(attrs["checksum_crc32"]), attrs):
            raise TableError(f"{path} is damaged or altered: its data does not match its attributes (digest_crc32)")
        want = np.asarray(attrs["histogram"])
        if is_packed(attrs):  # the stored values against their own histogram; h's histogram is consistent
            hist = want
            same = np.array_equal(nibble_histogram(data, int(attrs["entries"])), attrs.get("nibble_histogram"))
        elif is_zero_aware(attrs):  # the codes against their histogram, and the flagged ones against the layout
            hist = want
            entries = int(attrs["entries"])
            code_hist = nibble_histogram(data[:(entries + 1) // 2], entries)
            same = (np.array_equal(code_hist, attrs.get("nibble_histogram"))
                    and int(code_hist[int(attrs["flag_code"]):].sum()) == int(attrs["flagged"]))
        else:
            hist = histogram(data)
            same = np.array_equal(hist, want)
        if (not same or attrs.get("max") != hist.size - 1
                or not np.isclose(attrs.get("mean", -1.0), histogram_mean(hist))):
            raise TableError(f"{path} is damaged or altered: its values differ from its recorded histogram")
        remember(path, {"crc": int(attrs["checksum_crc32"]), "attrs": attrs, "blocks": block_crcs(data)})


def map_tables(paths: list[Path], expects: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, list[dict]] | None:
    """Memory-map several tables into one array: (data, offsets, attributes), or None where
    that is not possible (then read them). Table i is data[offsets[i] : offsets[i] + stored_size].

    Nothing is read up front: a search touches only the pages it needs, and several
    processes share one copy in the page cache. The files' data pages are mapped
    copy-on-write into one reserved address range, each at an address with the same
    place in a 2 MB huge page as its place in its file (the gaps between them read as
    zeros and are never indexed), so the search kernels see one ordinary contiguous uint8
    array. Checks as load_table.

    Why 2 MB: the kernel keeps the page cache of a big file in folios of up to 2 MB (on
    Linux 6.x ext4 and xfs; MADV_HUGEPAGE asks for them when it reads the file in), and it
    maps a whole folio with one page-table entry when address and file offset agree
    modulo 2 MB. Every table read of a search is a random access to hundreds of MB, so
    with 4 KB entries nearly every one also missed the TLB: Korf's 100 with `best` took
    0.26 s of search instead of 0.31 s, and fewer page faults, with the tables mapped in
    2 MB pages. Where the kernel has no large folios the mapping is the same as with 4 KB
    alignment.
    """
    libc = _libc()
    if libc is None:
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    huge = max(_HUGE_PAGE, page)
    places, all_attrs = [], []
    for path, expect in zip(paths, expects):
        path = Path(path)
        attrs = remembered_attrs(path) or read_attrs(path)
        check_attrs(path, attrs, expect)
        start = attrs["_offset"]
        if start is None:
            return None
        if path.stat().st_size < start + stored_size(attrs):
            raise TableError(f"{path} is damaged: the file ends before its table does")
        places.append((path, start, stored_size(attrs)))
        all_attrs.append(attrs)
    # table i's pages start at file offset start - start % page, which is phase = that % huge into
    # a huge page: they are mapped at an address phase into one too
    spans = [(size + start % huge + huge - 1) // huge * huge for _, start, size in places]
    total = sum(spans) + huge  # and room to align the start
    # reserve, readable: the gaps between tables read as zeros, so the whole array can be read
    base = libc.mmap(None, total, _PROT_READ, _MAP_PRIVATE | _MAP_ANONYMOUS, -1, 0)
    if base in (None, ctypes.c_void_p(-1).value):
        return None
    offsets, cursor = [], (-base) % huge
    for (path, start, size), span in zip(places, spans):
        delta, phase = start % page, start % huge - start % page
        with open(path, "rb") as fh:
            got = libc.mmap(base + cursor + phase, size + delta, _PROT_READ | _PROT_WRITE, _MAP_PRIVATE | _MAP_FIXED,
                            fh.fileno(), start - delta)
        if got != base + cursor + phase:
            libc.munmap(ctypes.c_void_p(base), total)
            return None
        libc.madvise(ctypes.c_void_p(got), ctypes.c_size_t(size + delta), _MADV_HUGEPAGE)  # advice: may fail
        offsets.append(cursor + phase + delta)
        cursor += span
    region = (ctypes.c_uint8 * total).from_address(base)
    weakref.finalize(region, libc.munmap, ctypes.c_void_p(base), ctypes.c_size_t(total))
    data = np.ctypeslib.as_array(region)
    for (path, _, size), off, attrs in zip(places, offsets, all_attrs):
        _verify(path, attrs, data[off : off + size], "once")
    return data, np.array(offsets, dtype=np.int64), all_attrs


def populate(data: np.ndarray) -> bool:
    """Map every page of an array of map_tables into this process at once (Linux 5.14's
    MADV_POPULATE_READ; nothing is copied: the pages are the page cache's); False where the
    platform cannot (then each page is mapped when a search first reads it, as before).

    Why: a search that first touches a page of its tables takes a page fault, about 20 us
    each on the 2-core VM; Korf's 100 with `best` took about 2,800 of them (60 ms of
    system time, spread over the first 50 boards), where mapping all 922 MB in one call
    took 15-19 ms. A solver that will read most of its tables (a batch of boards) maps them
    first; a single short search does not (it reads a third of them)."""
    libc = _libc()
    if libc is None or data.size == 0:
        return False
    page = os.sysconf("SC_PAGE_SIZE")
    start = data.ctypes.data // page * page
    end = data.ctypes.data + data.nbytes
    return libc.madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), _MADV_POPULATE_READ) == 0


_PROT_READ, _PROT_WRITE = 1, 2
_MAP_PRIVATE, _MAP_FIXED, _MAP_ANONYMOUS = 0x02, 0x10, 0x20  # Linux values
_MADV_HUGEPAGE, _HUGE_PAGE = 14, 2 << 20  # Linux; x86-64's and arm64's (4 KB pages) PMD size
_MADV_POPULATE_READ = 22  # Linux 5.14


def _libc():
    """The C library's mmap/munmap/madvise (Linux only: the flag values above are Linux's), or None."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc
