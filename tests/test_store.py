import os

import h5py
import numpy as np
import pytest

from patterndb import Frame, Shape, TableError, make_goal
from patterndb.catalog import build_exact_file, exact_path, load_exact
from patterndb import store


@pytest.fixture
def table_file(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(2, 3), "blank-last"))
    return frame, build_exact_file(frame, tmp_path)


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
    import time

    from patterndb.catalog import list_tables

    code = (
        "import numpy as np; from patterndb import store; from pathlib import Path\n"
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
            assert int(ds.attrs["checksum_crc32"]) == store.checksum(ds[:])
    else:
        assert list_tables(tmp_path) == []
        left = store.temporaries(tmp_path)  # only the killed writer's temporary file
        assert [t for t, _, _ in left] == sorted(tmp_path.iterdir()) and not any(alive for *_, alive in left)


def test_stale_temporary_is_removed_by_the_next_write(tmp_path):
    stale = tmp_path / f"t.h5{store.TMP_MARK}999999999"
    stale.write_bytes(b"half a table")
    store.write_table(tmp_path / "t.h5", np.zeros(4, np.uint8), {"kind": "x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.h5"]


def _swap_data(path, donor):
    """Give path the donor's data (same size) with all the donor's attributes but its tiles:
    the donor file with only its `tiles` attribute edited."""
    with h5py.File(donor, "r") as f:
        data = f["table"][:]
        stats = {k: v for k, v in f["table"].attrs.items() if k not in ("tiles", "tiles_label")}
    with h5py.File(path, "r+") as f:
        f["table"][:] = data
        for k, v in stats.items():
            f["table"].attrs[k] = v


@pytest.mark.parametrize("packed", [False, True])
def test_table_of_another_group_with_its_crc_recomputed_is_refused(tmp_path, packed):
    """Same size, own checksum, `tiles` attribute edited: refused (IDA* would never stop). A 1-byte
    table's goal entry gives it away; a 4-bit one's goal entry is 0 for most data, its digest
    over data and attributes does not match."""
    from click.testing import CliRunner

    from patterndb.catalog import build_pattern_file, pattern_path
    from patterndb.cli import main as pdb
    from solver import solve

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    a, b = (1, 2, 3, 4), (5, 6, 7, 8)
    build_pattern_file(frame, a, tmp_path, packed=packed)
    build_pattern_file(frame, b, tmp_path, packed=packed)
    _swap_data(pattern_path(tmp_path, frame, a), pattern_path(tmp_path, frame, b))
    why = "digest_crc32" if packed else "goal's entry"
    if not packed:  # (a byte table would also fail its digest: the old files have none)
        with h5py.File(pattern_path(tmp_path, frame, a), "r+") as f:
            del f["table"].attrs["digest_crc32"]
    with pytest.raises(TableError, match=why):
        solve("1 2 3 4 5 6 7 8 0", "blank-first", pattern="1-4/5-8", data_dir=tmp_path)
    r = CliRunner().invoke(pdb, ["verify", str(pattern_path(tmp_path, frame, a))])
    assert r.exit_code == 3 and why in r.stderr


def test_missing_checksum_attribute_is_one_line(table_file):
    from click.testing import CliRunner

    from patterndb.cli import main as pdb

    frame, path = table_file
    with h5py.File(path, "r+") as f:
        del f["table"].attrs["checksum_crc32"]
    with pytest.raises(TableError, match="checksum_crc32 missing"):
        load_exact(frame, path.parent)
    r = CliRunner().invoke(pdb, ["verify", str(path)])
    assert r.exit_code == 3 and r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1


def _age(path, seconds=10):
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_checksum_is_checked_once_per_file_version(table_file, monkeypatch):
    """A verified file is not hashed again; any change to it (new mtime) is hashed before use."""
    frame, path = table_file
    _age(path)
    load_exact(frame, path.parent)  # verified and remembered
    calls = []
    real = store.checksum
    monkeypatch.setattr(store, "checksum", lambda d: calls.append(1) or real(d))
    load_exact(frame, path.parent)
    assert calls == []  # skipped: same file
    with h5py.File(path, "r+") as f:
        f["table"][100] ^= 1
    with pytest.raises(TableError, match="checksum"):
        load_exact(frame, path.parent)
    assert calls


def test_remembered_tables_are_mapped_without_opening_them_as_hdf5(pdb_dir, monkeypatch):
    """Once verified, a table's attributes come from the record of that very file version;
    a changed file is opened (and checked) again."""
    from patterndb.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    expects = [pattern_expect(frame, g) for g in groups]
    for p in paths:
        _age(p)
    first, _, attrs = map_checked(paths, expects)  # read, verified, remembered
    first = first.copy()
    monkeypatch.setattr(store, "read_attrs", lambda p: pytest.fail(f"{p} opened again"))
    again, _, attrs2 = map_checked(paths, expects)
    assert np.array_equal(first, again) and attrs2 == attrs
    st = paths[0].stat()
    os.utime(paths[0], ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # changed (as far as anyone can tell)
    with pytest.raises(pytest.fail.Exception, match="opened again"):
        map_checked(paths, expects)


def test_fresh_files_are_not_remembered(table_file, monkeypatch):
    """Within MTIME_SLACK of a write the fingerprint is not trusted (coarse timestamps)."""
    frame, path = table_file
    load_exact(frame, path.parent)
    assert path.name not in store._registry(path.parent)


def test_pdb_verify_always_hashes(table_file):
    """Even a forger who restores the mtime after flipping a byte is caught by pdb verify."""
    from click.testing import CliRunner

    from patterndb.cli import main as pdb

    frame, path = table_file
    _age(path)
    load_exact(frame, path.parent)
    st = path.stat()
    with h5py.File(path, "r+") as f:
        f["table"][200] ^= 1
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = CliRunner().invoke(pdb, ["verify", str(path)])
    assert r.exit_code == 3 and "checksum" in r.stderr


def test_mapped_tables_equal_read_tables_and_the_fallback_works(pdb_dir, monkeypatch):
    from patterndb.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    expects = [pattern_expect(frame, g) for g in groups]
    mapped, offsets, _ = map_checked(paths, expects)
    assert store.map_tables(paths, expects) is not None  # Linux: really mapped
    monkeypatch.setattr("patterndb.catalog.map_tables", lambda p, e: None)
    read, roffsets, _ = map_checked(paths, expects)
    for p, o, ro in zip(paths, offsets, roffsets):
        with h5py.File(p, "r") as f:
            want = f["table"][:]
        assert np.array_equal(mapped[o : o + want.size], want) and np.array_equal(read[ro : ro + want.size], want)


def test_mapped_tables_sit_at_their_file_offsets_modulo_a_huge_page(pdb_dir):
    """The condition for the kernel to map a table's 2 MB page-cache folios with one entry each."""
    from patterndb.catalog import pattern_expect, pattern_path
    from patterndb.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    data, offsets, attrs = store.map_tables(paths, [pattern_expect(frame, g) for g in groups])
    for o, a in zip(offsets, attrs):
        assert (data.ctypes.data + int(o)) % store._HUGE_PAGE == a["_offset"] % store._HUGE_PAGE
    assert np.all(np.diff(offsets) > 0) and int(offsets[-1]) + store.stored_size(attrs[-1]) <= data.size


def _mapped_kb(start: int, end: int) -> int:
    """Kilobytes of [start, end) of this process's address space mapped to pages (its
    mappings' Rss in /proc/self/smaps)."""
    kb, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo < end and hi > start
            elif inside and head == "Rss:":
                kb += int(line.split()[1])
    return kb


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="Linux's /proc")
def test_populate_maps_every_page_of_the_tables_at_once(pdb_dir, tmp_path):
    """A batch maps its tables before it searches (store.populate): every page of a mapped
    file is then in the process, and the bytes are the file's."""
    from patterndb.catalog import pattern_expect, pattern_path
    from patterndb.patterns import parse_partition

    f = tmp_path / "eight-mb"
    f.write_bytes(np.random.default_rng(5).integers(0, 256, 8 << 20, dtype=np.uint8).tobytes())
    data = np.memmap(f, dtype=np.uint8, mode="r")
    start, end = data.ctypes.data, data.ctypes.data + data.nbytes
    before = _mapped_kb(start, end)
    if not store.populate(data):
        pytest.skip("this kernel has no MADV_POPULATE_READ (Linux 5.14)")
    assert before < 1024 and _mapped_kb(start, end) >= 8192
    assert np.array_equal(data, np.fromfile(f, dtype=np.uint8))

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    tables, offsets, _ = store.map_tables(paths, [pattern_expect(frame, g) for g in groups])
    assert store.populate(tables) and store.populate(np.zeros(10, dtype=np.uint8))  # (memory of the process too)
    for p, o in zip(paths, offsets):
        with h5py.File(p, "r") as h:
            want = h["table"][:]
        assert np.array_equal(tables[o : o + want.size], want)


def test_mapping_a_truncated_file_is_refused(table_file):
    frame, path = table_file
    with h5py.File(path, "r") as f:
        end = f["table"].id.get_offset() + f["table"].size
    with open(path, "r+b") as fh:
        fh.truncate(end - 10)
    from patterndb.catalog import exact_expect
    with pytest.raises(TableError, match="damaged"):
        store.map_tables([path], [exact_expect(frame)])


@pytest.mark.parametrize("packed", [False, True])
def test_doubled_values_with_a_recomputed_crc_are_refused(tmp_path, packed):
    """Every value doubled, crc (and digest) recomputed: a solver would give too-long answers
    called optimal. The values no longer match their histogram."""
    from click.testing import CliRunner

    from patterndb.catalog import build_pattern_file, pattern_path
    from patterndb.cli import main as pdb
    from solver import solve

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    for tiles in ((1, 2, 3, 4), (5, 6, 7, 8)):
        build_pattern_file(frame, tiles, tmp_path, packed=packed)
    path = pattern_path(tmp_path, frame, (1, 2, 3, 4))
    with h5py.File(path, "r+") as f:
        data = f["table"][:]
        data[data != 255] *= 2  # (packed: both nibbles of a byte doubled, the low one's carry aside)
        f["table"][:] = data
        a = f["table"].attrs
        a["checksum_crc32"] = store.checksum(data)
        a["digest_crc32"] = store.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})
    with pytest.raises(TableError, match="recorded histogram"):
        solve("1 2 3 4 5 6 7 8 0", "blank-first", pattern="1-4/5-8", data_dir=tmp_path)
    good = pattern_path(tmp_path, frame, (5, 6, 7, 8))
    r = CliRunner().invoke(pdb, ["verify", str(good), str(path)])
    assert r.exit_code == 3 and r.stdout.startswith("OK") and "recorded histogram" in r.stderr


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_two_builds_of_one_table_build_it_once(tmp_path, monkeypatch):
    """The second build waits for the first, then finds the table written."""
    import threading
    import time

    from patterndb import catalog

    builds = []
    real = catalog.build_pattern

    def slow(*a, **k):
        builds.append(1)
        time.sleep(0.5)
        return real(*a, **k)

    monkeypatch.setattr(catalog, "build_pattern", slow)
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    paths = []
    threads = [threading.Thread(target=lambda: paths.append(catalog.build_pattern_file(frame, (1, 2, 3), tmp_path)))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and paths[0] == paths[1] and paths[0].exists()
    catalog.build_pattern_file(frame, (1, 2, 3), tmp_path)  # a deliberate rebuild (--force) still builds
    assert len(builds) == 2


def test_verify_checks_the_name_against_the_attributes(tmp_path):
    """The loader finds a table by its name: a table copied under another group's name is refused."""
    from click.testing import CliRunner

    from patterndb.catalog import build_pattern_file
    from patterndb.cli import main as pdb

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    good = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    wrong = tmp_path / "pdb-3x3-b0-5-8.h5"
    wrong.write_bytes(good.read_bytes())
    r = CliRunner().invoke(pdb, ["verify", str(good), str(wrong)])
    assert r.exit_code == 3 and r.stdout.startswith("OK") and "pdb-3x3-b0-1-4.h5" in r.stderr


@pytest.mark.parametrize("entries", [300, 2000])
def test_entries_shrunk_with_a_recomputed_digest_are_refused_on_load(tmp_path, entries):
    """A table that claims fewer placements than its group has would let the search read past it
    (issue 29: an IndexError traceback with entries=300): the count is checked on every load."""
    from patterndb.catalog import build_pattern_file, pattern_path
    from solver import solve

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    for tiles in ((1, 2, 3, 4), (5, 6, 7, 8)):
        build_pattern_file(frame, tiles, tmp_path, packed=False)
    path = pattern_path(tmp_path, frame, (1, 2, 3, 4))
    with h5py.File(path, "r+") as f:
        data = f["table"][:entries]
        del f["table"]
        f.create_dataset("table", data=data)
    with h5py.File(path, "r+") as f:
        a = f["table"].attrs
        old = {k: v for k, v in h5py.File(pattern_path(tmp_path, frame, (5, 6, 7, 8)), "r")["table"].attrs.items()}
        for k, v in old.items():
            a[k] = v
        a["tiles"] = np.array((1, 2, 3, 4))
        a["entries"] = entries
        a["checksum_crc32"] = store.checksum(data)
        a["digest_crc32"] = store.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})
    with pytest.raises(TableError, match=f"built for entries={entries}, not 3024"):
        solve("8 7 6 5 4 3 2 1 0", "blank-first", pattern="1-4/5-8", data_dir=tmp_path)


def test_a_table_changed_in_place_with_its_mtime_kept_is_caught_on_load(pdb_dir, tmp_path):
    """rsync --inplace -t or a failing disk: size, mtime and inode stay, so the file still looks
    verified; a random block or two is re-checked on every load. A 4x4 5-tile table is one
    block, so every load checks all of this one."""
    from patterndb.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    group = parse_partition("5-5-5", frame)[0]
    path = pattern_path(tmp_path, frame, group)
    path.write_bytes(pattern_path(pdb_dir, frame, group).read_bytes())
    _age(path)
    map_checked([path], [pattern_expect(frame, group)])  # checked in full, remembered with its blocks
    entry = store._registry(tmp_path)[path.name]
    assert len(np.frombuffer(__import__("base64").b64decode(entry["blocks"]), "<u4")) == 1
    st = path.stat()
    offset = store.read_attrs(path)["_offset"]
    with open(path, "r+b") as fh:  # one byte of the table, in place
        fh.seek(offset + 200_000)
        byte = fh.read(1)
        fh.seek(offset + 200_000)
        fh.write(bytes([byte[0] ^ 0x10]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.remembered(path) is not None  # it still looks like the verified file
    with pytest.raises(TableError, match="changed since it was checked"):
        map_checked([path], [pattern_expect(frame, group)])
    assert path.name not in store._registry(tmp_path)  # forgotten: the next load checks it in full
    with pytest.raises(TableError, match="checksum"):
        map_checked([path], [pattern_expect(frame, group)])


def test_the_spot_check_costs_well_under_5_ms_per_table(pdb_dir, tmp_path):
    import time

    data = np.random.default_rng(1).integers(0, 255, 300 << 20, dtype=np.uint8)  # a 7-8-sized table
    blocks = store.block_crcs(data)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        store.spot_check(tmp_path / "x.h5", data, blocks)
        times.append(time.perf_counter() - t)
    assert sorted(times)[10] < 0.005


def test_a_read_only_data_directory_keeps_its_state_in_the_users_cache(pdb_dir, tmp_path, monkeypatch):
    """Issue 29: a data directory this process cannot write (a shared, read-only one) made every
    solve rebuild the move-pruning machine and hash every table again. Writes to it fail here
    as they would on a read-only mount (root may write anywhere, so they are made to fail)."""
    from patterndb import machines
    from patterndb.catalog import pattern_path
    from patterndb.patterns import parse_partition
    from solver import solve

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ro = tmp_path / "ro"
    ro.mkdir()
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    for g in parse_partition("5-5-5", frame):
        dst = pattern_path(ro, frame, g)
        dst.write_bytes(pattern_path(pdb_dir, frame, g).read_bytes())
        _age(dst)
    real_save, real_write = store._save, machines.write_machine

    def save(file, reg):
        return False if file.parent == ro else real_save(file, reg)

    def write(path, *a):
        if path.parent == ro:
            raise OSError(30, "Read-only file system")
        return real_write(path, *a)

    monkeypatch.setattr(store, "_save", save)
    monkeypatch.setattr(machines, "write_machine", write)
    monkeypatch.setattr(machines, "_memo", {})
    board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # Korf #1, 57 moves
    logs = []
    first = solve(board, "blank-first", pattern="5-5-5", data_dir=ro, prune=8, log=logs.append)
    assert any(f"kept it in {tmp_path / 'cache' / 'patterndb' / 'machines'}" in m for m in logs), logs
    assert not list(ro.glob("moves-*")) and not (ro / store.VERIFIED).exists()
    hashed, built = [], []
    monkeypatch.setattr(store, "checksum", lambda d: hashed.append(1) or 0)
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

    code = (f"import resource\n{code['warm']}\n"
            f"resource.setrlimit(resource.RLIMIT_FSIZE, ({size_bytes}, {size_bytes}))\n{code['run']}\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_a_failed_table_write_is_one_line_and_keeps_nothing(tmp_path):
    """Issue 29: a full disk during the HDF5 write gave a traceback after the whole build."""
    data = tmp_path / "data"
    p = _run_limited({"warm": f"from patterndb.cli import main; from patterndb import exact, Frame, Shape, make_goal\n"
                              f"exact.build_exact(Frame.for_goal(make_goal(Shape(2, 3))))",
                      "run": f"main(['build', '--size', '3', '--data-dir', {str(data)!r}, '-q'])"}, 100_000, tmp_path)
    assert p.returncode == 3, p.stderr
    assert p.stderr.strip().splitlines() == [f"error: cannot write {data / 'exact-3x3-b0.h5'}: File too large; "
                                             "nothing was kept"]
    assert list(data.iterdir()) == []  # (the build lock removed too)


def test_a_machine_that_cannot_be_written_is_used_and_not_kept(tmp_path):
    data = tmp_path / "data"
    p = _run_limited({"warm": "from pathlib import Path; from patterndb import Shape; from patterndb.machines import "
                              f"load_or_build; from patterndb.movefsm import build, build_cost\n"
                              "build(Shape(2, 3), 12); build_cost(Shape(2, 3), 12)",
                      "run": f"m = load_or_build(Shape(3, 3), 12, Path({str(data)!r}), print)\n"
                             "print(m.transitions.shape[0], 'states')"}, 2_000, tmp_path)
    assert p.returncode == 0, p.stderr
    assert "could not keep it" in p.stdout and p.stdout.strip().endswith("states")
    assert not list(tmp_path.rglob("*.h5*"))
