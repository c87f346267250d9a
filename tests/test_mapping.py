"""Tables memory-mapped for the search, in 2 MB pages, and mapped in bulk (patterndb.files.mapping)."""

import os

import h5py
import numpy as np
import pytest

from patterndb import Frame, Shape, TableError, make_goal
from patterndb.files import mapping
from patterndb.files.attrs import stored_size
from tests.test_integrity import _age


def test_remembered_tables_are_mapped_without_opening_them_as_hdf5(pdb_dir, monkeypatch):
    """Once verified, a table's attributes come from the record of that very file version;
    a changed file is opened (and checked) again."""
    from patterndb.files.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    expects = [pattern_expect(frame, g) for g in groups]
    for p in paths:
        _age(p)
    first, _, attrs = map_checked(paths, expects)  # read, verified, remembered
    first = first.copy()
    monkeypatch.setattr(mapping, "read_attrs", lambda p: pytest.fail(f"{p} opened again"))
    again, _, attrs2 = map_checked(paths, expects)
    assert np.array_equal(first, again) and attrs2 == attrs
    st = paths[0].stat()
    # changed (as far as anyone can tell)
    os.utime(paths[0], ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(pytest.fail.Exception, match="opened again"):
        map_checked(paths, expects)


def test_mapped_tables_equal_read_tables_and_the_fallback_works(pdb_dir, monkeypatch):
    from patterndb.files.catalog import map_checked, pattern_expect, pattern_path
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    expects = [pattern_expect(frame, g) for g in groups]
    mapped, offsets, _ = map_checked(paths, expects)
    assert mapping.map_tables(paths, expects) is not None  # Linux: really mapped
    monkeypatch.setattr("patterndb.files.catalog.map_tables", lambda p, e: None)
    read, roffsets, _ = map_checked(paths, expects)
    for p, o, ro in zip(paths, offsets, roffsets):
        with h5py.File(p, "r") as f:
            want = f["table"][:]
        assert np.array_equal(mapped[o : o + want.size], want) and np.array_equal(
            read[ro : ro + want.size], want
        )


def test_mapped_tables_sit_at_their_file_offsets_modulo_a_huge_page(pdb_dir):
    """The condition for the kernel to map a table's 2 MB page-cache folios with one entry each."""
    from patterndb.files.catalog import pattern_expect, pattern_path
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    data, offsets, attrs = mapping.map_tables(paths, [pattern_expect(frame, g) for g in groups])
    for o, a in zip(offsets, attrs):
        assert (data.ctypes.data + int(o)) % mapping._HUGE_PAGE == a["_offset"] % mapping._HUGE_PAGE
    assert np.all(np.diff(offsets) > 0) and int(offsets[-1]) + stored_size(attrs[-1]) <= data.size


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
    """A batch maps its tables before it searches (mapping.populate): every page of a mapped
    file is then in the process, and the bytes are the file's."""
    from patterndb.files.catalog import pattern_expect, pattern_path
    from patterndb.puzzle.patterns import parse_partition

    f = tmp_path / "eight-mb"
    f.write_bytes(np.random.default_rng(5).integers(0, 256, 8 << 20, dtype=np.uint8).tobytes())
    data = np.memmap(f, dtype=np.uint8, mode="r")
    start, end = data.ctypes.data, data.ctypes.data + data.nbytes
    before = _mapped_kb(start, end)
    if not mapping.populate(data):
        pytest.skip("this kernel has no MADV_POPULATE_READ (Linux 5.14)")
    assert before < 1024 and _mapped_kb(start, end) >= 8192
    assert np.array_equal(data, np.fromfile(f, dtype=np.uint8))

    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    groups = parse_partition("5-5-5", frame)
    paths = [pattern_path(pdb_dir, frame, g) for g in groups]
    tables, offsets, _ = mapping.map_tables(paths, [pattern_expect(frame, g) for g in groups])
    # (memory of the process too)
    assert mapping.populate(tables) and mapping.populate(np.zeros(10, dtype=np.uint8))
    # settled (a byte of every page read, as a race does): the same bytes, also for an array
    # smaller than a page that starts inside one
    assert mapping.populate(tables, settle=True)
    assert mapping.populate(np.zeros(10, dtype=np.uint8)[3:], settle=True)
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
    from patterndb.files.catalog import exact_expect

    with pytest.raises(TableError, match="damaged"):
        mapping.map_tables([path], [exact_expect(frame)])
