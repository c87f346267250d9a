import json

import pytest
from click.testing import CliRunner

from patterndb.cli import main as pdb
from solver.cli import main as solver


@pytest.fixture
def run(data_dir):
    def _run(cmd, args, input=None):
        return CliRunner().invoke(cmd, [*args, "--data-dir", str(data_dir)] if args[0] in ("solve", "distance", "build", "list") else args, input=input)
    return _run


def test_solve_json(run):
    r = run(solver, ["solve", "8672543_1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    for k in ("length", "moves", "optimal", "nodes_expanded", "nodes_generated", "seconds", "algorithm", "heuristic"):
        assert k in d
    assert d["length"] == 31 and d["optimal"] is True and len(d["moves"]) == 31


def test_solve_text_and_boards(run):
    r = run(solver, ["solve", "1 2 3\n4 5 6\n7 _ 8", "--show-boards", "-a", "astar", "-H", "manhattan"])
    assert r.exit_code == 0
    assert "length: 1  optimal (A* with admissible manhattan)" in r.stdout
    assert "tiles:  8" in r.stdout and "blank:  R" in r.stdout


def test_distance_prints_only_the_number(run):
    r = run(solver, ["distance", "863.54217"])
    assert r.exit_code == 0 and r.stdout.strip() == "25"


@pytest.mark.parametrize(
    "board, message",
    [("12345687_", "not solvable"), ("1234567_", "square"), ("11345678_", "appears 2 times"), ("12#45678_", "unexpected character")],
)
def test_bad_board_one_line_exit_2(run, board, message):
    r = run(solver, ["solve", board])
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("error:")


def test_usage_errors_exit_2(run):
    assert run(solver, ["solve", "12345678_", "-a", "nope"]).exit_code == 2
    assert run(solver, ["scramble", "--size", "9"]).exit_code == 2
    assert run(pdb, ["build", "--size", "4"]).exit_code == 2  # 15-puzzle exact table: too big
    assert run(solver, ["solve", "12345678_", "--goal", "upside-down"]).exit_code == 2


def test_scramble_and_random_are_seeded():
    a = CliRunner().invoke(solver, ["scramble", "--size", "4", "--moves", "50", "--seed", "1"])
    b = CliRunner().invoke(solver, ["scramble", "--size", "4", "--moves", "50", "--seed", "1"])
    assert a.exit_code == 0 and a.stdout == b.stdout and len(a.stdout.split()) == 16
    r = CliRunner().invoke(solver, ["random", "--rows", "2", "--cols", "3", "--seed", "1"])
    assert r.exit_code == 0 and sorted(map(int, r.stdout.split())) == list(range(6))


def test_pdb_build_list_info_verify(tmp_path):
    r = CliRunner().invoke(pdb, ["build", "--rows", "2", "--cols", "3", "--data-dir", str(tmp_path), "-q"])
    assert r.exit_code == 0, r.output
    path = r.stdout.strip()
    assert "exact-2x3-b0.h5" in path
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert "exact-2x3-b0.h5" in r.stdout and "2x3" in r.stdout
    r = CliRunner().invoke(pdb, ["info", path])
    assert "histogram:" in r.stdout and "goal: 0 1 2 3 4 5" in r.stdout
    r = CliRunner().invoke(pdb, ["verify", path])
    assert r.exit_code == 0 and r.stdout.startswith("OK")
    import h5py
    with h5py.File(path, "r+") as f:
        f["table"][3] ^= 7
    r = CliRunner().invoke(pdb, ["verify", path])
    assert r.exit_code == 1 and "checksum" in r.stderr


def test_help_everywhere():
    for cmd, sub in ((pdb, []), (pdb, ["build"]), (pdb, ["list"]), (solver, []), (solver, ["solve"]), (solver, ["distance"])):
        r = CliRunner().invoke(cmd, [*sub, "--help"])
        assert r.exit_code == 0 and "Usage" in r.stdout


def test_pdb_build_pattern_and_reuse(tmp_path):
    args = ["build", "--size", "3", "--pattern", "4-4", "--data-dir", str(tmp_path)]
    r = CliRunner().invoke(pdb, args)
    assert r.exit_code == 0, r.output
    assert len(r.stdout.split()) == 2 and "built" in r.stderr
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--pattern", "1-4/5,6/7,8", "--data-dir", str(tmp_path), "-q"])
    # Default goal blank-last: user tiles t are canonical 9 - t, so 1-4 is the cached 5-8.
    assert r.exit_code == 0 and len(r.stdout.split()) == 3
    assert "pdb-3x3-b0-5-8.h5" in r.stdout.split()[0]
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert "tiles 5-8" in r.stdout and "tiles 1,2" in r.stdout and "tiles 3,4" in r.stdout
    for bad in ("1-4/4-8", "0,1", "9", "5-5-5"):
        r = CliRunner().invoke(pdb, ["build", "--size", "3", "--pattern", bad, "--data-dir", str(tmp_path)])
        assert r.exit_code == 2 and r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1


def _batch(tmp_path, text):
    f = tmp_path / "boards.txt"
    f.write_text(text)
    return str(f)


def test_solve_file_table_json_and_exit_codes(run, tmp_path):
    good = _batch(tmp_path, "# three boards\n8672543_1 31\n1 2 3 4 5 6 7 0 8  # one move\n\n863.54217 25\n")
    r = run(solver, ["solve", "--file", good])
    assert r.exit_code == 0, r.output
    assert "all expected lengths met" in r.stderr and r.stdout.count("\n") == 4
    r = run(solver, ["solve", "--file", good, "--json"])
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(d["length"], d["expected"]) for d in rows] == [(31, 31), (1, None), (25, 25)]
    assert rows[0]["board"] == "8 6 7 2 5 4 3 0 1" and all(d["optimal"] for d in rows)
    bad = _batch(tmp_path, "8672543_1 30\n")
    r = run(solver, ["solve", "--file", bad])
    assert r.exit_code == 1 and "MISMATCH" in r.stdout
    junk = _batch(tmp_path, "8672543_1\n12345687_\n")
    r = run(solver, ["solve", "--file", junk])
    assert r.exit_code == 2 and "line 2" in r.stderr
    r = run(solver, ["solve", "--file", good, "8672543_1"])
    assert r.exit_code == 2


def test_missing_pattern_is_an_error_naming_the_command(run):
    r = run(solver, ["solve", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "--pattern", "7-8"])
    assert r.exit_code == 1 and "pdb build --size 4 --pattern 7-8" in r.stderr
