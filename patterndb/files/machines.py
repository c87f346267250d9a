"""Move-pruning machines (movefsm) cached on disk beside the tables.

A machine takes seconds to minutes to build (a 5x5 machine of depth 18 about 2 min) and
is the same for every board of a shape, so it is built once and kept in the
data directory as moves-RxC-dN.h5: datasets `transitions` and `start`, with
attributes that describe them and a crc32 over both. A machine that prunes a
path it should not could make an answer too long, so a file is refused
unless its checksum, shape and depth match and every transition points at a
state that exists; it is then rebuilt.
"""

from __future__ import annotations

import datetime as _dt
import shutil
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..build.movefsm import MoveMachine, build, build_cost, undo_machine
from ..errors import TableError
from ..puzzle.geometry import Shape
from .attrs import plain
from .datadir import available_memory, cache_dir
from .integrity import remember, remembered
from .locks import exclusive
from .store import atomic, hdf5_writer

FORMAT_VERSION = 1
KIND = "move-fsm"
DEPTH_MAX = (
    20  # the deepest machine built on request (4x4 at 20: about 30 s and 1.9 GB, 2.6 M states)
)
# The depth IDA* uses unless told, by measurement: on 4x4 (Korf's 100, 7-8) depths 12, 14
# and 16 keep 77%, 75% and 74% of the nodes in 0.46, 0.47 and 0.51 s; on 5x5 with `best`
# (2 threads, docs/benchmarks.md) 16 against 14 took 0.82x the time on Korf-Felner's five
# hard boards and 0.84x on the 20 easiest (9-13% fewer nodes); 18 against 16, 0.98x and
# 0.93x (one pair each; 6-8% fewer nodes in the hard boards' complete iterations, the same
# time a node within the noise). The 5x5 machine of depth 18 takes about 2 min and 3.3 GiB
# to build (16: 15 s and 1 GB); where it does not fit, 16 serves.
DEFAULT_DEPTH = {(4, 4): 14, (5, 5): 18}

_memo: dict[
    tuple[Path, int, int], MoveMachine
] = {}  # this process's machines by (path, mtime, size)


def default_depth(shape: Shape) -> int:
    """The move-pruning depth of a shape unless told (other shapes: only the undo)."""
    return DEFAULT_DEPTH.get((shape.rows, shape.cols), 2)


def machine_path(data_dir: Path, shape: Shape, depth: int) -> Path:
    return Path(data_dir) / f"moves-{shape}-d{depth}.h5"


def _checksum(transitions: np.ndarray, start: np.ndarray) -> int:
    return zlib.crc32(start.tobytes(), zlib.crc32(transitions.tobytes()))


def write_machine(path: Path, shape: Shape, machine: MoveMachine, seconds: float) -> None:
    """Write atomically (a temporary file renamed into place)."""
    with atomic(path) as tmp:
        with hdf5_writer(tmp) as f:
            t = f.create_dataset("transitions", data=machine.transitions)
            t.attrs["meaning"] = (
                "transitions[s, d]: the state after the blank moves in direction d "
                "(0 U, 1 D, 2 L, 3 R) from state s, or -1 when the move leaves the board "
                "or ends a duplicate move sequence"
            )
            s = f.create_dataset("start", data=machine.start)
            s.attrs["meaning"] = (
                "start[c]: the state of a search whose blank starts on cell c (row-major)"
            )
            a = f.attrs
            a["kind"] = KIND
            a["format_version"] = FORMAT_VERSION
            a["rows"], a["cols"] = shape.rows, shape.cols
            a["depth"] = machine.depth
            a["states"] = machine.transitions.shape[0]
            a["forbidden_per_length"] = machine.forbidden
            a["checksum_crc32"] = _checksum(machine.transitions, machine.start)
            a["build_seconds"] = float(seconds)
            a["created"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
            a["description"] = (
                "Taylor-Korf move pruning: an Aho-Corasick automaton over every minimal blank "
                "path of up to `depth` moves whose effect an earlier path (by length, then "
                "direction string) already has"
            )


def is_machine_file(path: Path) -> bool:
    return Path(path).name.startswith("moves-")


def _attrs(f) -> dict:
    """An open file's attributes as plain Python values."""
    return {k: v.item() if isinstance(v, np.generic) else v for k, v in f.attrs.items()}


def machine_attrs(path: Path) -> dict:
    """The file's attributes (TableError if it is not a readable machine file)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            a = _attrs(f)
    except Exception as e:  # noqa: BLE001 - h5py raises OSError/KeyError/... for damaged files
        raise TableError(
            f"{path} is damaged or not a move-pruning machine ({e.__class__.__name__}: {e})"
        ) from None
    if a.get("kind") != KIND:
        raise TableError(f"{path} is not a move-pruning machine")
    return a


def verify_machine(path: Path) -> MoveMachine:
    """Read the file in full and check it against its own attributes (pdb verify)."""
    a = machine_attrs(path)
    return read_machine(path, Shape(int(a["rows"]), int(a["cols"])), int(a["depth"]), trust=False)


def read_machine(path: Path, shape: Shape, depth: int, trust: bool = True) -> MoveMachine:
    """The machine in path, or TableError if it is not this shape's machine of this depth, or damaged.

    Where this very file was read before (integrity.remembered; trust), its arrays are read
    straight from their recorded places in it, without h5py; both ways, every check
    below (crc32 included) runs on what was read."""
    entry = remembered(path) if trust else None
    got = _read_remembered(path, entry["machine"]) if entry and "machine" in entry else None
    places = None  # where the arrays lie in the file, when read through HDF5 now
    if got is None:
        a, transitions, start, places = _read_hdf5(path)
    else:
        a, transitions, start = got
    want = {
        "kind": KIND,
        "format_version": FORMAT_VERSION,
        "rows": shape.rows,
        "cols": shape.cols,
        "depth": depth,
    }
    for k, v in want.items():
        if a.get(k) != v:
            raise TableError(f"{path} was built for {k}={a.get(k)!r}, not {v!r}")
    states = transitions.shape[0] if transitions.ndim == 2 else 0
    if (
        transitions.dtype != np.int32
        or transitions.shape != (states, 4)
        or start.dtype != np.int32
        or start.shape != (shape.n,)
        or a.get("checksum_crc32") != _checksum(transitions, start)
        or not (-1 <= transitions.min(initial=0) and transitions.max(initial=0) < states)
        or not (0 <= start.min() and start.max() < states)
    ):
        raise TableError(f"{path} is damaged: checksum or structure mismatch (it is rebuilt)")
    forbidden = np.asarray(a.get("forbidden_per_length", np.zeros(depth + 1)), dtype=np.int64)
    if places is not None:
        remember(path, {"machine": {"attrs": {k: plain(v) for k, v in a.items()}, **places}})
    return MoveMachine(transitions, start, depth, forbidden)


def _read_hdf5(path: Path) -> tuple[dict, np.ndarray, np.ndarray, dict | None]:
    """(attributes, transitions, start, where the two arrays lie in the file if contiguous)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            a = _attrs(f)
            t, s = f["transitions"], f["start"]
            transitions, start = t[()], s[()]
            plain = all(
                d.chunks is None and d.compression is None and d.id.get_offset() is not None
                for d in (t, s)
            )
            places = (
                {"transitions": int(t.id.get_offset()), "start": int(s.id.get_offset())}
                if plain
                else None
            )
    except Exception as e:  # noqa: BLE001 - h5py raises OSError/KeyError/... for damaged files
        raise TableError(
            f"{path} is damaged or not a move-pruning machine ({e.__class__.__name__}: {e})"
        ) from None
    return a, transitions, start, places


def _read_remembered(path: Path, info: dict) -> tuple[dict, np.ndarray, np.ndarray] | None:
    """(attributes, transitions, start) from the places recorded in info, or None if they cannot be read."""
    a = info["attrs"]
    try:
        states, n = int(a["states"]), int(a["rows"]) * int(a["cols"])
        transitions = np.fromfile(
            path, dtype=np.int32, count=4 * states, offset=info["transitions"]
        )
        start = np.fromfile(path, dtype=np.int32, count=n, offset=info["start"])
        if transitions.size != 4 * states or start.size != n:
            return None
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return a, transitions.reshape(states, 4), start


def load_or_build(
    shape: Shape, depth: int, data_dir: Path, log: Callable[[str], None] = lambda s: None
) -> MoveMachine:
    """This shape's machine of this depth: from this process's memory, the data directory (or
    the user's cache, where a read-only data directory made us keep it), or built now and
    kept in the first of the two that can be written (a damaged file is rebuilt)."""
    if not 2 <= depth <= DEPTH_MAX:
        raise ValueError(f"the move-pruning depth must be from 2 to {DEPTH_MAX}, got {depth}")
    if depth == 2:
        return undo_machine(shape)  # nothing to search for: made in microseconds
    places = _places(shape, depth, data_dir)
    machine = _kept(places, shape, depth, log)
    if machine is not None:
        return machine
    with _build_lock(places, log) as locked:
        # built while we waited?
        machine = _kept(places, shape, depth, lambda s: None) if locked else None
        if machine is not None:
            log(f"another process built the {shape} move-pruning machine meanwhile: using it")
            return machine
        return _build_and_keep(shape, depth, places, log)


def _places(shape: Shape, depth: int, data_dir: Path) -> tuple[Path, Path]:
    """Where this machine is kept: the data directory, else the user's cache."""
    return (
        machine_path(data_dir, shape, depth),
        machine_path(cache_dir() / "machines", shape, depth),
    )


def where_kept(shape: Shape, depth: int, data_dir: Path) -> Path | None:
    """The file this shape's machine of this depth is read from: in the data directory, or in
    the user's cache where the data directory could not hold it; None if neither holds one."""
    return next((p for p in _places(shape, depth, data_dir) if p.exists()), None)


def keep_in(shape: Shape, depth: int, data_dir: Path) -> Path | None:
    """Where the data directory lacks this machine and the user's cache holds it (a read-only
    data directory made us keep it there once), a copy in the data directory, written atomically:
    a build there leaves its machine beside its tables. The path kept in, or None where the copy
    cannot be written (the cache's copy serves)."""
    here, cached = _places(shape, depth, data_dir)
    if here.exists():
        return here
    if not cached.exists():
        return None
    try:
        with atomic(here) as tmp:
            shutil.copyfile(cached, tmp)
    except (OSError, TableError):
        return None
    return here


def _kept(
    places: tuple[Path, Path], shape: Shape, depth: int, log: Callable[[str], None]
) -> MoveMachine | None:
    """The machine kept in the first of places that holds a sound one (read once per file
    version: _memo), or None; a damaged file is logged and passed over."""
    for path in places:
        try:
            st = path.stat()
        except OSError:
            continue
        key = (path, st.st_mtime_ns, st.st_size)
        try:
            if key not in _memo:
                _memo[key] = read_machine(path, shape, depth)
            return _memo[key]
        except TableError as e:
            log(f"{e}")
    return None


@contextmanager
def _build_lock(places: tuple[Path, Path], log: Callable[[str], None]) -> Iterator[bool]:
    """One build of a machine at a time across processes (three first solves side by side
    each built it): a lock file beside the first place that can hold one; yields whether
    a lock is held (not where neither place can hold one: the build goes ahead unlocked)."""
    for path in places:
        lock = path.parent / f".{path.name}.lock"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(lock, "a"):  # (can one be made here?)
                pass
        except OSError:
            continue
        waiting = f"waiting for another process building {path.name} ..."
        with exclusive(lock, lambda: log(waiting)):  # noqa: B023 - called within this iteration
            yield True
        return
    yield False


class TooBig(TableError):
    """A machine whose build would not fit in the memory at hand; why says so without advice."""

    def __init__(self, why: str, advice: str) -> None:
        super().__init__(f"{why}: {advice}")
        self.why = why


def load_default(
    shape: Shape, data_dir: Path, log: Callable[[str], None] = lambda s: None
) -> MoveMachine:
    """This shape's machine of its default depth (load_or_build); where that one is not kept
    and its build would not fit in the memory at hand, the deepest shallower one that does,
    said in one line."""
    depth = default_depth(shape)
    while True:
        try:
            return load_or_build(shape, depth, data_dir, log)
        except TooBig as e:
            if depth <= 4:
                raise
            log(f"{e.why}: pruning to depth {depth - 2} instead")
            depth -= 2


def check_build(shape: Shape, depth: int) -> float:
    """Refuse, before it starts, a build that would not fit in the memory at hand (TooBig;
    4x4 at depth 20 once took 15 GB); returns its estimated seconds."""
    cost = build_cost(shape, depth)
    free = available_memory()
    if free >= 0 and cost.bytes > free:
        why = (
            f"the {shape} move-pruning machine of depth {depth} would need about {cost.bytes / 2**30:.1f} GiB "
            f"to build and {free / 2**30:.1f} GiB is available"
        )
        raise TooBig(why, f"choose a smaller depth (the default is {default_depth(shape)})")
    return cost.seconds


def _build_and_keep(
    shape: Shape, depth: int, places: tuple[Path, Path], log: Callable[[str], None]
) -> MoveMachine:
    """Build the machine and keep it in the first of places that can be written."""
    seconds = check_build(shape, depth)
    about = f", about {seconds:.0f} s" if seconds >= 5 else ""
    log(f"building the {shape} move-pruning machine of depth {depth} (once{about})")
    t0 = time.perf_counter()
    machine = build(shape, depth)
    for path in places:
        try:
            write_machine(path, shape, machine, time.perf_counter() - t0)
            st = path.stat()
        except (OSError, TableError):  # (a failed write: WriteError)
            continue
        _memo[(path, st.st_mtime_ns, st.st_size)] = machine
        if path is not places[0]:
            log(f"kept it in {path.parent}: {places[0].parent} cannot be written")
        return machine
    log(f"could not keep it: neither {places[0].parent} nor {places[1].parent} can be written")
    return machine
