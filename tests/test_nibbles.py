"""4-bit tables: lossless against the byte tables, same search, half the size."""

import numpy as np
import pytest
from click.testing import CliRunner

from patterndb import Frame, Shape, make_goal
from patterndb.build.additive import build_pattern
from patterndb.build.nibbles import goal_md, pack, unpack
from patterndb.cli.commands import main as pdb
from patterndb.files.attrs import is_packed
from patterndb.files.catalog import build_pattern_file, load_pattern, pack_pattern_file
from patterndb.files.store import read_attrs
from patterndb.puzzle.patterns import parse_partition
from solver import solve

from . import naive
from .instances import korf


@pytest.mark.parametrize(
    "rows, cols, cells, blank",
    [
        (3, 3, (1, 2, 3, 4), 0),
        (2, 4, (4, 5, 6, 7), 0),
        (3, 4, (1, 2, 3, 4, 5), 0),
        (4, 4, (1, 2, 5), 0),
    ],
)
def test_pack_is_lossless(rows, cols, cells, blank):
    shape = Shape(rows, cols)
    table, _, _ = build_pattern(shape.neighbours, cols, np.array(cells), blank)
    md = goal_md(cols, np.array(cells), shape.n)
    packed = pack(table, len(cells), shape.n, md)
    assert packed is not None and packed.size == (table.size + 1) // 2
    assert np.array_equal(unpack(packed, table.size, len(cells), shape.n, md), table)
    if table.size <= 20_000:  # the stated decoding rule, in plain Python
        assert naive.nibble_decode(packed, table.size, rows, cols, cells) == table.tolist()


def test_a_value_that_does_not_fit_keeps_bytes():
    shape = Shape(3, 3)
    table, _, _ = build_pattern(shape.neighbours, 3, np.array([1, 2, 3, 4]), 0)
    md = goal_md(3, np.array([1, 2, 3, 4]), 9)
    odd = table.copy()
    odd[5] += 1  # parity broken
    assert pack(odd, 4, 9, md) is None
    big = table.copy()
    big[7] += 40  # (h - md) / 2 > 15
    assert pack(big, 4, 9, md) is None


def test_builds_are_packed_and_load_as_h(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    p = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    b = build_pattern_file(frame, (5, 6, 7, 8), tmp_path, packed=False)
    assert is_packed(read_attrs(p)) and not is_packed(read_attrs(b))
    assert read_attrs(p)["_shape"] == ((read_attrs(p)["entries"] + 1) // 2,)
    ref, _, _ = build_pattern(frame.shape.neighbours, 3, np.array([1, 2, 3, 4]), 0)
    assert np.array_equal(load_pattern(frame, (1, 2, 3, 4), tmp_path), ref)


def test_same_nodes_as_byte_tables_on_15_puzzles(tmp_path):
    """5-5-5 in bytes and in 4 bits (converted by pdb pack): every count identical."""
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    byte_dir, nib_dir = tmp_path / "b", tmp_path / "n"
    for tiles in parse_partition("5-5-5", frame):
        build_pattern_file(frame, tiles, byte_dir, packed=False)
        build_pattern_file(frame, tiles, nib_dir, packed=False)
    r = CliRunner().invoke(pdb, ["pack", *map(str, nib_dir.glob("pdb-*.h5"))])
    assert r.exit_code == 0 and r.stdout.count("packed") == 3, r.output
    r = CliRunner().invoke(pdb, ["verify", *map(str, nib_dir.glob("pdb-*.h5"))])
    assert r.exit_code == 0 and r.stdout.count("OK") == 3
    assert sum(f.stat().st_size for f in nib_dir.glob("pdb-*.h5")) < 0.55 * sum(
        f.stat().st_size for f in byte_dir.glob("pdb-*.h5")
    )
    for board, want in map(korf, range(12)):
        a = solve(board, "blank-first", pattern="5-5-5", data_dir=byte_dir, jobs=1)
        b = solve(board, "blank-first", pattern="5-5-5", data_dir=nib_dir, jobs=1)
        assert a.length == b.length == want
        assert (a.nodes_expanded, a.nodes_generated) == (b.nodes_expanded, b.nodes_generated)


def test_pack_leaves_packed_and_exact_tables_alone(tmp_path):
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    p = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    before = p.read_bytes()
    assert pack_pattern_file(p) == "it is 4-bit already" and p.read_bytes() == before


@pytest.mark.parametrize("entries", [1, 2, 37, 1000])
def test_nibble_histogram_counts_every_entry_whatever_the_slice(monkeypatch, entries):
    from patterndb.build import nibbles

    rng = np.random.default_rng(entries)
    values = rng.integers(0, 16, entries)
    packed = np.zeros((entries + 1) // 2, dtype=np.uint8)
    for r, v in enumerate(values):
        packed[r >> 1] |= np.uint8(v << (4 * (r & 1)))
    want = np.bincount(values, minlength=16)
    for piece in (1, 3, 64, 1 << 22):  # bytes counted at a time
        monkeypatch.setattr(nibbles, "_SLICE", piece)
        assert np.array_equal(nibbles.nibble_histogram(packed, entries), want)


def test_raw_byte_reads_match_the_array():
    """bits.address/load_u8 (the zero-aware lookup's reads) read what indexing reads."""
    from patterndb.bits import address, load_u8
    from patterndb.jit import njit

    @njit
    def read_all(a):
        base = address(a)
        return np.array([load_u8(base + i) for i in range(a.size)])

    a = np.random.default_rng(3).integers(0, 256, 1000).astype(np.uint8)
    assert np.array_equal(read_all(a), a) and np.array_equal(read_all(a[1:]), a[1:])
