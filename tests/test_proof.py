"""pdb verify --full: tables proven right, not only intact (patterndb.build.proof).

Each forgery below passes every checksum (its digest and statistics recomputed, as a
forger would), and plain `pdb verify`; --full must refuse it."""

import h5py
import numpy as np
import pytest
from click.testing import CliRunner

from patterndb import Frame, Shape, TableError, make_goal
from patterndb.build.exact import UNREACHED, histogram, histogram_mean
from patterndb.build.nibbles import nibble_histogram
from patterndb.build.proof import prove_exact
from patterndb.cli.commands import main as pdb
from patterndb.files import integrity
from patterndb.files.attrs import is_packed
from patterndb.files.catalog import build_exact_file, build_pattern_file, load_checked, unpack
from patterndb.puzzle.ranking import rank


def _forge(path, data, attrs):
    """Rewrite path's table with data and attrs, its statistics and checksums recomputed."""
    with h5py.File(path, "r+") as f:
        del f["table"]
        f.create_dataset("table", data=data)
        a = f["table"].attrs
        for k, v in attrs.items():
            a[k] = v
        values = unpack(data, attrs) if is_packed(attrs) else data
        hist = histogram(values)
        a["histogram"], a["max"], a["mean"] = hist, hist.size - 1, histogram_mean(hist)
        if is_packed(attrs):
            a["nibble_histogram"] = nibble_histogram(data, int(attrs["entries"]))
        a["checksum_crc32"] = integrity.checksum(data)
        a["digest_crc32"] = integrity.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})


def _attrs(path):
    return {k: v for k, v in load_checked(path, {})[1].items() if not k.startswith("_")}


def _verify(*args):
    return CliRunner().invoke(pdb, ["verify", *map(str, args)])


@pytest.fixture
def frame3():
    return Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))


def test_honest_tables_are_proven(tmp_path, frame3):
    paths = [build_pattern_file(frame3, t, tmp_path) for t in ((1, 2, 3, 4), (5, 6, 7, 8))]
    paths.append(build_pattern_file(frame3, (0, 1, 2, 3, 4), tmp_path))  # zero-aware
    paths.append(build_pattern_file(frame3, (5, 6, 7, 8), tmp_path / "bytes", packed=False))
    paths.append(build_exact_file(frame3, tmp_path))
    r = _verify("--full", *paths)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 5 and all(line.startswith("OK") for line in lines)
    assert sum("bytes equal" in line for line in lines) == 4
    assert "exact: 181,440 states" in lines[4]


def test_another_groups_data_under_edited_tiles_is_refused(tmp_path, frame3):
    """A relabelled table: 5-8's data named as 1-4 (its goal entry happens to be 0,
    so the load's goal check passes); plain verify cannot tell, --full can."""
    real = build_pattern_file(frame3, (1, 2, 3, 4), tmp_path)
    other = build_pattern_file(frame3, (5, 6, 7, 8), tmp_path / "o")
    _forge(
        real,
        load_checked(other, {})[0],
        _attrs(other) | {"tiles": np.array((1, 2, 3, 4)), "tiles_label": "1-4"},
    )
    assert _verify(real).exit_code == 0  # intact as far as checksums can tell
    r = _verify("--full", real)
    assert r.exit_code == 3 and r.stdout == ""
    assert "is not the table of tiles 1-4: built again" in r.stderr and "bytes differ" in r.stderr


@pytest.mark.parametrize("packed", [False, True])
def test_values_changed_with_statistics_recomputed_are_refused(tmp_path, frame3, packed):
    path = build_pattern_file(frame3, (1, 2, 3, 4), tmp_path, packed=packed)
    data = load_checked(path, {})[0]
    forged = data.copy()
    if packed:
        # every nibble from 1 to 14 one more: h 2 moves more (the goal's 0 kept)
        lo, hi = forged & 15, forged >> 4
        forged = np.where((lo > 0) & (lo < 15), lo + 1, lo) | (
            np.where((hi > 0) & (hi < 15), hi + 1, hi) << 4
        )
        forged = forged.astype(np.uint8)
    else:
        forged = forged * 2
    _forge(path, forged, _attrs(path))
    assert _verify(path).exit_code == 0
    r = _verify("--full", path)
    assert r.exit_code == 3 and "bytes differ" in r.stderr


def _exact_forgery(tmp_path, change):
    frame = Frame.for_goal(make_goal(Shape(2, 3), "blank-first"))
    path = build_exact_file(frame, tmp_path)
    data, attrs = load_checked(path, {})
    forged = data.copy()
    change(forged, frame)
    return path, forged, attrs


def _at(frame, tiles):
    """The exact table's index of a 2x3 board (cell -> tile, canonical frame)."""
    pos = np.argsort(np.array(tiles))
    return rank(pos.astype(np.int64), 6, 6)


def _reachable(t):
    return t != UNREACHED


@pytest.mark.parametrize(
    "change, message",
    [
        # 1 -> 3
        (lambda t, f: t.__setitem__(_at(f, (1, 0, 2, 3, 4, 5)), 3), "lower a value by more than 1"),
        (
            lambda t, f: t.__setitem__(_reachable(t), t[_reachable(t)] // 2),
            "no neighbour one move nearer",
        ),
        # consistent, 0 at the goal
        (lambda t, f: t.__setitem__(_reachable(t), 0), "no neighbour one move nearer"),
        (lambda t, f: t.__setitem__(_at(f, (1, 0, 2, 3, 4, 5)), UNREACHED), "unreachable half"),
        (lambda t, f: t.__setitem__(_reachable(t), t[_reachable(t)] + 2), "the goal's value is 2"),
    ],
)
def test_exact_tables_are_proven_by_one_pass(tmp_path, change, message):
    path, forged, attrs = _exact_forgery(tmp_path, change)
    assert prove_exact(path, load_checked(path, {})[0], attrs).startswith("exact: 360 states")
    with pytest.raises(TableError, match=message):
        prove_exact(path, forged, attrs)


def test_an_exact_build_that_went_wrong_is_not_written(tmp_path, monkeypatch):
    """pdb build proves a small exact table before its atomic rename."""
    from patterndb.files import catalog

    real = catalog.build_exact

    def broken(frame, progress=False):
        table, seconds = real(frame, progress)
        table[table == 5] = 7
        return table, seconds

    monkeypatch.setattr(catalog, "build_exact", broken)
    frame = Frame.for_goal(make_goal(Shape(2, 3), "blank-first"))
    with pytest.raises(TableError, match="is not an exact table"):
        build_exact_file(frame, tmp_path)
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == []


def test_a_machine_that_prunes_more_is_refused(tmp_path):
    """A move-pruning machine forged to forbid one more move (written with a matching
    checksum) passes plain verify and would lose optimal solutions; --full builds it again."""
    from patterndb.build.movefsm import build
    from patterndb.files.machines import machine_path, write_machine

    shape = Shape(3, 3)
    machine = build(shape, 6)
    path = machine_path(tmp_path, shape, 6)
    write_machine(path, shape, machine, 0.0)
    assert _verify("--full", path).exit_code == 0
    transitions = machine.transitions.copy()
    state, move = np.argwhere(transitions >= 0)[0]
    transitions[state, move] = -1
    write_machine(path, shape, machine._replace(transitions=transitions), 0.0)
    assert _verify(path).exit_code == 0
    r = _verify("--full", path)
    assert (
        r.exit_code == 3 and "move-pruning machine of depth 6: built again, it differs" in r.stderr
    )
