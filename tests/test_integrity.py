"""Is a table the one that was built: checksums, digests, the record of files checked in full,
and the spot checks (patterndb.files.integrity)."""

import os
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

from patterndb import Frame, Shape, TableError, make_goal
from patterndb.files import integrity, store
from patterndb.files.catalog import load_exact


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

    from patterndb.cli.commands import main as pdb
    from patterndb.files.catalog import build_pattern_file, pattern_path
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

    from patterndb.cli.commands import main as pdb

    frame, path = table_file
    with h5py.File(path, "r+") as f:
        del f["table"].attrs["checksum_crc32"]
    with pytest.raises(TableError, match="checksum_crc32 missing"):
        load_exact(frame, path.parent)
    r = CliRunner().invoke(pdb, ["verify", str(path)])
    assert r.exit_code == 3 and r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1


def _age(path, seconds=10):
    """Make path look written long ago (its ctime, which no program can set, is now: the
    fingerprint is trusted once it is CTIME_SLACK old)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))
    time.sleep(integrity.CTIME_SLACK)


def test_checksum_is_checked_once_per_file_version(table_file, monkeypatch):
    """A verified file is not hashed again; any change to it (new mtime) is hashed before use."""
    frame, path = table_file
    _age(path)
    load_exact(frame, path.parent)  # verified and remembered
    calls = []
    real = integrity.checksum
    monkeypatch.setattr(integrity, "checksum", lambda d: calls.append(1) or real(d))
    load_exact(frame, path.parent)
    assert calls == []  # skipped: same file
    with h5py.File(path, "r+") as f:
        f["table"][100] ^= 1
    with pytest.raises(TableError, match="checksum"):
        load_exact(frame, path.parent)
    assert calls


def test_fresh_files_are_not_remembered(table_file, monkeypatch):
    """Within MTIME_SLACK of a write the fingerprint is not trusted (coarse timestamps)."""
    frame, path = table_file
    load_exact(frame, path.parent)
    assert path.name not in integrity._registry(path.parent)


def test_pdb_verify_always_hashes(table_file):
    """Even a forger who restores the mtime after flipping a byte is caught by pdb verify."""
    from click.testing import CliRunner

    from patterndb.cli.commands import main as pdb

    frame, path = table_file
    _age(path)
    load_exact(frame, path.parent)
    st = path.stat()
    with h5py.File(path, "r+") as f:
        f["table"][200] ^= 1
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = CliRunner().invoke(pdb, ["verify", str(path)])
    assert r.exit_code == 3 and "checksum" in r.stderr


@pytest.mark.parametrize("packed", [False, True])
def test_doubled_values_with_a_recomputed_crc_are_refused(tmp_path, packed):
    """Every value doubled, crc (and digest) recomputed: a solver would give too-long answers
    called optimal. The values no longer match their histogram."""
    from click.testing import CliRunner

    from patterndb.cli.commands import main as pdb
    from patterndb.files.catalog import build_pattern_file, pattern_path
    from solver import solve

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    for tiles in ((1, 2, 3, 4), (5, 6, 7, 8)):
        build_pattern_file(frame, tiles, tmp_path, packed=packed)
    path = pattern_path(tmp_path, frame, (1, 2, 3, 4))
    with h5py.File(path, "r+") as f:
        data = f["table"][:]
        data[data != 255] *= (
            2  # (packed: both nibbles of a byte doubled, the low one's carry aside)
        )
        f["table"][:] = data
        a = f["table"].attrs
        a["checksum_crc32"] = integrity.checksum(data)
        a["digest_crc32"] = integrity.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})
    with pytest.raises(TableError, match="recorded histogram"):
        solve("1 2 3 4 5 6 7 8 0", "blank-first", pattern="1-4/5-8", data_dir=tmp_path)
    good = pattern_path(tmp_path, frame, (5, 6, 7, 8))
    r = CliRunner().invoke(pdb, ["verify", str(good), str(path)])
    assert r.exit_code == 3 and r.stdout.startswith("OK") and "recorded histogram" in r.stderr


def test_verify_checks_the_name_against_the_attributes(tmp_path):
    """The loader finds a table by its name: a table copied under another group's name is refused."""
    from click.testing import CliRunner

    from patterndb.cli.commands import main as pdb
    from patterndb.files.catalog import build_pattern_file

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    good = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    wrong = tmp_path / "pdb-3x3-b0-5-8.h5"
    wrong.write_bytes(good.read_bytes())
    r = CliRunner().invoke(pdb, ["verify", str(good), str(wrong)])
    assert r.exit_code == 3 and r.stdout.startswith("OK") and "pdb-3x3-b0-1-4.h5" in r.stderr


@pytest.mark.parametrize("entries", [300, 2000])
def test_entries_shrunk_with_a_recomputed_digest_are_refused_on_load(tmp_path, entries):
    """A table that claims fewer placements than its group has would let the search read past it
    (entries=300): the count is checked on every load, and such a table is refused."""
    from patterndb.files.catalog import build_pattern_file, pattern_path
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
        old = {
            k: v
            for k, v in h5py.File(pattern_path(tmp_path, frame, (5, 6, 7, 8)), "r")[
                "table"
            ].attrs.items()
        }
        for k, v in old.items():
            a[k] = v
        a["tiles"] = np.array((1, 2, 3, 4))
        a["entries"] = entries
        a["checksum_crc32"] = integrity.checksum(data)
        a["digest_crc32"] = integrity.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})
    with pytest.raises(TableError, match=f"built for entries {entries}, not 3024"):
        solve("8 7 6 5 4 3 2 1 0", "blank-first", pattern="1-4/5-8", data_dir=tmp_path)


def _verified_copy(pdb_dir, tmp_path):
    """(path, a load of it) of a copy of a 4x4 5-tile table, checked in full once and remembered."""
    from patterndb.files.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    group = parse_partition("5-5-5", frame)[0]
    path = pattern_path(tmp_path, frame, group)
    path.write_bytes(pattern_path(pdb_dir, frame, group).read_bytes())
    _age(path)
    load = lambda: map_checked([path], [pattern_expect(frame, group)])
    load()  # checked in full, remembered with its blocks
    return path, load


def _flip_a_byte(path):
    """One byte of the table changed in place, through the file system."""
    offset = store.read_attrs(path)["_offset"] + 200_000
    with open(path, "r+b") as fh:
        fh.seek(offset)
        byte = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([byte[0] ^ 0x10]))


def test_a_table_changed_in_place_with_its_mtime_kept_is_checked_in_full_on_every_load(
    pdb_dir, tmp_path
):
    """A stray write, rsync --inplace -t, a tool that puts the mtime back: size, mtime and inode
    stay, but the ctime moves (no program can set it), so the file is checked in full before
    it is used, on every load until it is whole again."""
    path, load = _verified_copy(pdb_dir, tmp_path)
    entry = integrity._registry(tmp_path)[path.name]
    assert len(np.frombuffer(__import__("base64").b64decode(entry["blocks"]), "<u4")) == 1
    st = path.stat()
    _flip_a_byte(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size
    assert integrity.remembered(path) is None  # its ctime gives the change away
    for _ in range(5):  # every load, not by luck
        with pytest.raises(TableError, match="checksum"):
            load()


def test_a_block_changed_beneath_the_file_system_is_caught_by_the_spot_check(
    pdb_dir, tmp_path, monkeypatch
):
    """Bytes a failing disk changes leave every time stamp as it was: the blocks re-checked on
    each load find it where the change is, and the file is then checked in full again."""
    path, load = _verified_copy(pdb_dir, tmp_path)
    fingerprint = integrity._stat(path)
    _flip_a_byte(path)
    real = integrity._stat
    monkeypatch.setattr(integrity, "_stat", lambda p: fingerprint if Path(p) == path else real(p))
    assert integrity.remembered(path) is not None  # it looks like the verified file
    with pytest.raises(TableError, match="changed since it was checked"):
        load()  # (its one block is re-checked)
    # forgotten: the next load checks it in full
    assert path.name not in integrity._registry(tmp_path)
    with pytest.raises(TableError, match="checksum"):
        load()


def test_the_spot_check_costs_well_under_5_ms_per_table(pdb_dir, tmp_path):
    import time

    data = np.random.default_rng(1).integers(0, 255, 300 << 20, dtype=np.uint8)  # a 7-8-sized table
    blocks = integrity.block_crcs(data)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        integrity.spot_check(tmp_path / "x.h5", data, blocks)
        times.append(time.perf_counter() - t)
    assert sorted(times)[10] < 0.005


def test_a_goal_no_build_writes_is_refused_by_list_and_verify(tmp_path):
    """Builds write every table in the canonical frame (blank on a cell of the board's first
    half, tiles numbered around it): a table claiming another goal (here blank-last, 'b8'),
    its name and digest made to match, is no table a solver could have asked for."""
    from click.testing import CliRunner

    from patterndb.cli.commands import main as pdb
    from patterndb.files.catalog import build_pattern_file

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    good = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    with h5py.File(good, "r+") as f:
        a = f["table"].attrs
        a["goal"] = "1 2 3 4 5 6 7 8 0"
        a["blank_cell"] = 8
        a["digest_crc32"] = integrity.digest(
            int(a["checksum_crc32"]), {k: a[k] for k in a if k != "digest_crc32"}
        )
    forged = good.rename(tmp_path / "pdb-3x3-b8-1-4.h5")
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert (
        r.exit_code == 0 and "pdb-3x3-b8-1-4.h5" in r.stdout and "not a canonical goal" in r.stdout
    )
    r = CliRunner().invoke(pdb, ["verify", str(forged)])
    assert r.exit_code == 3 and "not a canonical goal" in r.stderr
