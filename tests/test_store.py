"""Table files: written atomically, read back, refused when they are not whole (patterndb.files.store)."""

import os
import time

import h5py
import numpy as np
import pytest

from patterndb import Frame, Shape, TableError, make_goal
from patterndb.files import integrity, store
from patterndb.files.catalog import exact_path, load_exact
from tests.instances import KORF_1
from tests.test_integrity import _age


def test_loads(table_file):
    frame, path = table_file
    assert load_exact(frame, path.parent).size == 720


def test_other_board_or_goal_refused(table_file, tmp_path):
    frame, path = table_file
    other = Frame.for_goal(make_goal(Shape(2, 3), "1 2 0 3 4 5"))
    os.replace(path, exact_path(tmp_path, other))
    with pytest.raises(TableError, match="built for goal"):
        load_exact(other, tmp_path)
    wrong_shape = Frame.for_goal(make_goal(Shape(3, 2), "blank-last"))
    os.replace(exact_path(tmp_path, other), exact_path(tmp_path, wrong_shape))
    with pytest.raises(TableError, match="built for rows"):
        load_exact(wrong_shape, tmp_path)


def test_flipped_byte_refused(table_file):
    frame, path = table_file
    with h5py.File(path, "r+") as f:
        f["table"][5] ^= 1
    with pytest.raises(TableError, match="checksum"):
        load_exact(frame, path.parent)


def test_truncated_file_refused(table_file):
    frame, path = table_file
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(TableError, match="damaged"):
        load_exact(frame, path.parent)


def test_not_hdf5_refused(tmp_path):
    p = tmp_path / "x.h5"
    p.write_text("hello")
    with pytest.raises(TableError, match="damaged or not an HDF5 file"):
        store.read_attrs(p)


def test_missing_table_names_the_command(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(2, 4), "blank-last"))
    with pytest.raises(TableError, match="pdb build --rows 2 --cols 4"):
        load_exact(frame, tmp_path)


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    path = tmp_path / "t.h5"
    real = h5py.File.create_dataset

    def boom(self, *a, **k):
        real(self, *a, **k)
        raise KeyboardInterrupt  # killed half way through writing

    monkeypatch.setattr(h5py.Group, "create_dataset", boom)
    with pytest.raises(KeyboardInterrupt):
        store.write_table(path, np.zeros(10, np.uint8), {"kind": "exact"})
    assert list(tmp_path.iterdir()) == []


def test_killed_process_leaves_no_loadable_file(tmp_path):
    """A real kill -9 while writing: the final name appears only complete, and
    the temporary file left behind is never taken for a table."""
    import signal
    import subprocess
    import sys

    from patterndb.files.catalog import list_tables

    code = (
        "import numpy as np; from patterndb.files import store; from pathlib import Path\n"
        f"store.write_table(Path({str(tmp_path / 'big.h5')!r}), np.ones(400_000_000, np.uint8), {{'kind': 'x'}})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code])
    # The kill lands once the temporary file exists, i.e. during the write (a fixed sleep of
    # 1.5 s let a fresh machine finish the 400 MB first).
    deadline = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < deadline and not store.temporaries(tmp_path):
        time.sleep(0.002)
    p.send_signal(signal.SIGKILL)
    p.wait()
    final = tmp_path / "big.h5"
    if final.exists():  # it finished before the kill: then it must be whole (this test's
        # table has no board attributes, so it is read as HDF5, not through load_table)
        with h5py.File(final, "r") as f:
            ds = f[store.DATASET]
            assert ds.shape == (400_000_000,) and int(ds.attrs["entries"]) == 400_000_000
            assert int(ds.attrs["checksum_crc32"]) == integrity.checksum(ds[:])
    else:
        assert list_tables(tmp_path) == []
        left = store.temporaries(tmp_path)  # only the killed writer's temporary file
        assert [t for t, _, _ in left] == sorted(tmp_path.iterdir()) and not any(
            alive for *_, alive in left
        )


def test_stale_temporary_is_removed_by_the_next_write(tmp_path):
    stale = tmp_path / f"t.h5{store.TMP_MARK}999999999"
    stale.write_bytes(b"half a table")
    store.write_table(tmp_path / "t.h5", np.zeros(4, np.uint8), {"kind": "x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.h5"]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_two_builds_of_one_table_build_it_once(tmp_path, monkeypatch):
    """The second build waits for the first, then finds the table written."""
    import threading

    from patterndb.files import catalog

    builds = []
    real = catalog.build_pattern

    def slow(*a, **k):
        builds.append(1)
        time.sleep(0.5)
        return real(*a, **k)

    monkeypatch.setattr(catalog, "build_pattern", slow)
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    paths = []
    threads = [
        threading.Thread(
            target=lambda: paths.append(catalog.build_pattern_file(frame, (1, 2, 3), tmp_path))
        )
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and paths[0] == paths[1] and paths[0].exists()
    # a deliberate rebuild (--force) still builds
    catalog.build_pattern_file(frame, (1, 2, 3), tmp_path)
    assert len(builds) == 2


def test_a_read_only_data_directory_keeps_its_state_in_the_users_cache(
    pdb_dir, tmp_path, monkeypatch
):
    """A data directory this process cannot write (a shared, read-only one) does not make every
    solve rebuild the move-pruning machine and hash every table again. Writes to it fail here
    as they would on a read-only mount (root may write anywhere, so they are made to fail)."""
    from patterndb.files import machines
    from patterndb.files.catalog import pattern_path
    from patterndb.puzzle.patterns import parse_partition
    from solver import solve

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ro = tmp_path / "ro"
    ro.mkdir()
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    for g in parse_partition("5-5-5", frame):
        dst = pattern_path(ro, frame, g)
        dst.write_bytes(pattern_path(pdb_dir, frame, g).read_bytes())
        _age(dst)
    real_save, real_write = integrity._save, machines.write_machine

    def save(file, reg):
        return False if file.parent == ro else real_save(file, reg)

    def write(path, *a):
        if path.parent == ro:
            raise OSError(30, "Read-only file system")
        return real_write(path, *a)

    monkeypatch.setattr(integrity, "_save", save)
    monkeypatch.setattr(machines, "write_machine", write)
    monkeypatch.setattr(machines, "_memo", {})
    board = KORF_1  # 57 moves
    logs = []
    first = solve(board, "blank-first", pattern="5-5-5", data_dir=ro, prune=8, log=logs.append)
    assert any(f"kept it in {tmp_path / 'cache' / 'patterndb' / 'machines'}" in m for m in logs), (
        logs
    )
    assert not list(ro.glob("moves-*")) and not (ro / integrity.VERIFIED).exists()
    hashed, built = [], []
    monkeypatch.setattr(integrity, "checksum", lambda d: hashed.append(1) or 0)
    monkeypatch.setattr(machines, "build", lambda *a: built.append(1))
    monkeypatch.setattr(machines, "_memo", {})
    logs.clear()
    again = solve(board, "blank-first", pattern="5-5-5", data_dir=ro, prune=8, log=logs.append)
    assert again.length == first.length == 57 and again.nodes_expanded == first.nodes_expanded
    assert hashed == [] and built == [] and logs == []  # nothing hashed or built again


def _run_limited(code, size_bytes, tmp_path):
    """Run code in a child process under a file size limit set after warm (a first run of
    what it does, so numba's cache files are written before the limit), so the table's
    write fails for real part way: EFBIG, as a full disk gives ENOSPC (Python ignores
    SIGXFSZ, so the write returns the error)."""
    import subprocess
    import sys

    code = (
        f"import resource\n{code['warm']}\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({size_bytes}, {size_bytes}))\n{code['run']}\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_failed_table_write_is_one_line_and_keeps_nothing(tmp_path):
    """A full disk during the HDF5 write is one line, and nothing half-written is kept."""
    data = tmp_path / "data"
    p = _run_limited(
        {
            "warm": "from patterndb.cli import main; from patterndb.build import exact\n"
            "from patterndb import Frame, Shape, make_goal\n"
            "exact.build_exact(Frame.for_goal(make_goal(Shape(2, 3))))",
            "run": f"main(['build', '--size', '3', '--data-dir', {str(data)!r}, '-q'])",
        },
        100_000,
        tmp_path,
    )
    assert p.returncode == 3, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"error: cannot write {data / 'exact-3x3-b0.h5'}: File too large; nothing was kept"
    ]
    assert list(data.iterdir()) == []  # (the build lock removed too)


def test_a_machine_that_cannot_be_written_is_used_and_not_kept(tmp_path):
    data = tmp_path / "data"
    p = _run_limited(
        {
            "warm": "from pathlib import Path; from patterndb import Shape; from patterndb.files.machines import "
            "load_or_build; from patterndb.build.movefsm import build, build_cost\n"
            "build(Shape(2, 3), 12); build_cost(Shape(2, 3), 12)",
            "run": f"m = load_or_build(Shape(3, 3), 12, Path({str(data)!r}), print)\n"
            "print(m.transitions.shape[0], 'states')",
        },
        2_000,
        tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert "could not keep it" in p.stdout and p.stdout.strip().endswith("states")
    assert not list(tmp_path.rglob("*.h5*"))
