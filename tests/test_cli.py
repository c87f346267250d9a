"""The `solver` and `pdb` commands: their output, exit status and one-line errors, board by board."""

import json
import os

import pytest
from click.testing import CliRunner

from patterndb.cli.commands import main as pdb
from solver.cli.commands import main as solver

from .instances import KORF_1


def test_solve_json(run):
    r = run(solver, ["solve", "8672543_1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    for k in (
        "length",
        "moves",
        "optimal",
        "nodes_expanded",
        "nodes_generated",
        "seconds",
        "algorithm",
        "heuristic",
    ):
        assert k in d
    assert d["length"] == 31 and d["optimal"] is True and len(d["moves"]) == 31


def test_solve_text_and_boards(run):
    r = run(
        solver, ["solve", "1 2 3\n4 5 6\n7 _ 8", "--show-boards", "-a", "astar", "-H", "manhattan"]
    )
    assert r.exit_code == 0
    assert "length: 1  optimal (A* with admissible manhattan)" in r.stdout
    assert "tiles:  8" in r.stdout and "blank:  R" in r.stdout


def test_distance_prints_only_the_number(run):
    r = run(solver, ["distance", "863.54217"])
    assert r.exit_code == 0 and r.stdout.strip() == "25"


@pytest.mark.parametrize(
    "board, message",
    [
        ("12345687_", "not solvable"),
        ("1234567_", "square"),
        ("11345678_", "appears 2 times"),
        ("12#45678_", "unexpected character"),
    ],
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
    r = CliRunner().invoke(
        pdb, ["build", "--rows", "2", "--cols", "3", "--data-dir", str(tmp_path), "-q"]
    )
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
    assert r.exit_code == 3 and "checksum" in r.stderr


def test_help_everywhere():
    for cmd, sub in (
        (pdb, []),
        (pdb, ["build"]),
        (pdb, ["list"]),
        (solver, []),
        (solver, ["solve"]),
        (solver, ["distance"]),
    ):
        r = CliRunner().invoke(cmd, [*sub, "--help"])
        assert r.exit_code == 0 and "Usage" in r.stdout


def test_prune_help_names_the_default_depth_of_each_shape():
    """--prune's help says the depth a search takes unless told, per shape, from the table
    the search reads (it had said 14 on 5x5 after the default there became 16)."""
    from patterndb.files.machines import DEFAULT_DEPTH

    help_text = " ".join(CliRunner().invoke(solver, ["solve", "--help"]).stdout.split())
    for (rows, cols), depth in DEFAULT_DEPTH.items():
        assert f"{depth} on {rows}x{cols}" in help_text


def test_a_long_build_says_which_table_of_how_many_it_builds(tmp_path, monkeypatch):
    """Each table a build announces (those foreseen to take more than 5 s) says its place."""
    from patterndb.cli import commands

    monkeypatch.setattr(commands, "BUILD_RATE", 1.0)  # (every table foreseen to be long)
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "4-4", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    assert [ln.split(":")[0] for ln in r.stderr.splitlines() if ln.startswith("building")] == [
        "building tiles 1-4 (table 1 of 2)",
        "building tiles 5-8 (table 2 of 2)",
    ], r.stderr

    # a race's tables are counted together, each once
    r = CliRunner().invoke(
        pdb,
        [
            "build",
            "--size",
            "3",
            "--pattern",
            "4-4|1,2,3+4,5,6,7,8",
            "--data-dir",
            str(tmp_path / "r"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert [ln.split(":")[0] for ln in r.stderr.splitlines() if ln.startswith("building")] == [
        "building tiles 1-4 (table 1 of 4)",
        "building tiles 5-8 (table 2 of 4)",
        "building tiles 6-8 (table 3 of 4)",
        "building tiles 1-5 (table 4 of 4)",
    ], r.stderr


def test_pdb_build_pattern_and_reuse(tmp_path):
    args = ["build", "--size", "3", "--pattern", "4-4", "--data-dir", str(tmp_path)]
    r = CliRunner().invoke(pdb, args)
    assert r.exit_code == 0, r.output
    assert len(r.stdout.split()) == 2 and "built" in r.stderr
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "1-4/5,6/7,8", "--data-dir", str(tmp_path), "-q"]
    )
    # Default goal blank-last: user tiles t are canonical 9 - t, so 1-4 is the cached 5-8.
    assert r.exit_code == 0 and len(r.stdout.split()) == 3
    assert "pdb-3x3-b0-5-8.h5" in r.stdout.split()[0]
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert "tiles 5-8" in r.stdout and "tiles 1,2" in r.stdout and "tiles 3,4" in r.stdout
    for bad in ("1-4/4-8", "0", "0,0,1", "9", "5-5-5"):
        r = CliRunner().invoke(
            pdb, ["build", "--size", "3", "--pattern", bad, "--data-dir", str(tmp_path)]
        )
        assert (
            r.exit_code == 2 and r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1
        )


def test_missing_pattern_is_an_error_naming_the_command(run):
    r = run(solver, ["solve", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "--pattern", "7-8"])
    assert r.exit_code == 3 and "pdb build --size 4 --pattern 7-8" in r.stderr


@pytest.mark.parametrize(
    "board", ["1 2 3 4 5 6 7 8 \u00b2", "1 2 3 4 5 6 7 8 ab", "[1, 2, 3, 4, 5, 6, 7, 8, x]"]
)
def test_odd_characters_are_one_line_errors(run, board):
    r = run(solver, ["solve", board])
    assert r.exit_code == 2 and r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "board",
    ["[1, 2, 3, 4, 5, 6, 7, 0, 8]", "(1 2 3 4 5 6 7 0 8)", "1 2 3 4 5 6 7 8 9 A B C D E _ F"],
)
def test_lists_and_spaced_letters_are_boards(run, board):
    r = run(solver, ["solve", board, "-H", "manhattan", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["length"] == 1


def test_out_of_range_numbers_are_usage_errors(run):
    assert (
        run(solver, ["solve", "12345678_", "--max-nodes", "99999999999999999999999"]).exit_code == 2
    )
    assert run(solver, ["scramble", "--size", "3", "--seed", "-1"]).exit_code == 2
    assert run(solver, ["--version"]).exit_code == 0 and run(pdb, ["--version"]).exit_code == 0


def test_korf_board_without_its_goal_names_the_goal_that_fits(run):
    r = run(solver, ["solve", KORF_1])
    assert r.exit_code == 2 and "solvable for --goal blank-first" in r.stderr


def test_build_refuses_unwritable_or_full_places_before_starting(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(blocker / "sub")])
    assert r.exit_code == 3 and "cannot write to" in r.stderr and len(r.stderr.splitlines()) == 1
    monkeypatch.setenv("PATTERNDB_DATA", str(blocker))
    r = CliRunner().invoke(solver, ["solve", "8672543_1"])  # the automatic 3x3 build
    assert r.exit_code == 3 and "is not a directory" in r.stderr
    monkeypatch.delenv("PATTERNDB_DATA")
    import shutil

    monkeypatch.setattr(
        shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 1000, 1000)
    )
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path / "full")])
    assert (
        r.exit_code == 3 and "MiB free" in r.stderr and not list((tmp_path / "full").glob("*.h5"))
    )


def test_build_rebuilds_a_damaged_cached_table(tmp_path):
    import h5py

    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path)])
    path = r.stdout.strip()
    with h5py.File(path, "r+") as f:
        f["table"][7] ^= 1
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and "rebuilding" in r.stderr and "built" in r.stderr
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and "cached" in r.stderr


def test_2x6_and_4x6_boards_and_one_side_given(tmp_path):
    """Boards up to 7 on a side, of any shape; with a board, --rows or --cols alone is enough."""
    b = (
        CliRunner()
        .invoke(solver, ["scramble", "--rows", "2", "--cols", "6", "--moves", "40", "--seed", "3"])
        .stdout.strip()
    )
    r = CliRunner().invoke(
        pdb,
        [
            "build",
            "--rows",
            "2",
            "--cols",
            "6",
            "--pattern",
            "1-5/6-11",
            "-q",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    lengths = []
    for args in (["--pattern", "1-5/6-11"], ["-H", "linear-conflict"]):
        r = CliRunner().invoke(
            solver, ["solve", b, "--rows", "2", "--json", "--data-dir", str(tmp_path), *args]
        )
        assert r.exit_code == 0, r.output
        lengths.append(json.loads(r.stdout)["length"])
    assert lengths[0] == lengths[1] == 28
    r = CliRunner().invoke(solver, ["random", "--rows", "5", "--cols", "7", "--seed", "1"])
    assert r.exit_code == 0 and sorted(map(int, r.stdout.split())) == list(range(35))
    r = CliRunner().invoke(solver, ["random", "--rows", "5", "--cols", "8"])
    assert r.exit_code == 2 and "2<=x<=7" in r.stderr
    r = CliRunner().invoke(solver, ["random", "--rows", "3"])
    assert r.exit_code == 2 and "give --cols too" in r.output


def test_distance_on_a_big_board_says_exact_tables_stop_at_12_cells(run):
    r = run(solver, ["distance", KORF_1, "--goal", "blank-first"])
    assert (
        r.exit_code == 3 and "up to 12 cells" in r.stderr and "pdb build --rows 4" not in r.stderr
    )


@pytest.mark.parametrize("spec", ["7-8", "7-7"])
def test_a_lone_range_that_is_not_a_name_is_refused(tmp_path, spec):
    """On 3x3, '7-8' silently built one 2-tile group and '7-7' a file named for tile 9."""
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", spec, "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 2 and "not a named partition for 3x3" in r.stderr and "commas" in r.stderr
    assert not list(tmp_path.glob("*.h5"))


def test_explicit_groups_are_said_to_be_tile_groups(tmp_path):
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "1-4/5-8", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 0 and "as tile groups 1-4 / 5-8" in r.stderr
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "4-4", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 0 and "tile groups" not in r.stderr


def test_json_says_the_board_shape_and_where_the_time_went(run):
    r = run(solver, ["solve", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "-H", "manhattan", "--json"])
    d = json.loads(r.stdout)
    assert (d["rows"], d["cols"]) == (4, 4) and d["load_seconds"] >= 0
    assert d["kernels"] in ("aot", "jit") and d["kernel_seconds"] >= 0
    assert (
        d["process_seconds"] is None or d["process_seconds"] >= d["seconds"] + d["kernel_seconds"]
    )

    batch = run(
        solver,
        ["solve", "--file", "-", "-H", "manhattan", "--json"],
        input="8672543_1 31\n1 2 3 4 5 6 7 _ 8\n",
    )
    rows = [json.loads(x) for x in batch.stdout.splitlines()]
    assert [r["length"] for r in rows] == [31, 1]
    for r in rows:  # a batch row says what a single solve's does
        assert (
            r["kernels"] in ("aot", "jit") and r["kernel_seconds"] >= 0 and r["load_seconds"] >= 0
        )
        assert r["process_seconds"] is None or r["process_seconds"] > 0


def test_list_shows_leftovers_and_clean_removes_only_dead_ones(tmp_path):
    CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path)])
    dead = tmp_path / "pdb-3x3-b0-1-4.h5.tmp999999999"
    dead.write_bytes(b"x" * 1000)
    alive = tmp_path / f"pdb-3x3-b0-5-8.h5.tmp{os.getpid()}"
    alive.write_bytes(b"y")
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert f"tables in {tmp_path}" in r.stderr and "exact-3x3" in r.stdout
    assert "killed build" in r.stdout and "being written" in r.stdout
    rows = [
        json.loads(x)
        for x in CliRunner()
        .invoke(pdb, ["list", "--json", "--data-dir", str(tmp_path)])
        .stdout.splitlines()
    ]
    assert rows[0]["kind"] == "exact" and [x["writer_running"] for x in rows[1:]] == [False, True]
    r = CliRunner().invoke(pdb, ["clean", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and not dead.exists() and alive.exists()
    info = json.loads(CliRunner().invoke(pdb, ["info", "--json", rows[0]["file"]]).stdout)
    assert info["kind"] == "exact" and info["rows"] == 3 and isinstance(info["histogram"], list)


def test_pdb_build_also_builds_the_move_pruning_machine(tmp_path):
    """A 4x4 build leaves the search's move-pruning machine beside the tables, so the first
    solve does not build it; pdb list, info and verify know the file."""
    args = [
        "build",
        "--size",
        "4",
        "--goal",
        "blank-first",
        "--pattern",
        "1,2,3/4,5,6",
        "--data-dir",
        str(tmp_path),
    ]
    r = CliRunner().invoke(pdb, args)
    assert r.exit_code == 0, r.output
    assert r.stdout.split()[-1].endswith("moves-4x4-d14.h5") and "move-pruning machine" in r.stderr
    r = CliRunner().invoke(
        solver,
        [
            "solve",
            "1 2 3 0 4 5 6 7 8 9 10 11 12 13 14 15",
            "--goal",
            "blank-first",
            "--pattern",
            "1,2,3/4,5,6",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0 and "move-pruning" not in r.stderr, r.output
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert "move pruning, depth 14" in r.stdout
    r = CliRunner().invoke(pdb, ["verify", str(tmp_path / "moves-4x4-d14.h5")])
    assert r.exit_code == 0 and "45,161 states" in r.stdout
    r = CliRunner().invoke(pdb, ["info", str(tmp_path / "moves-4x4-d14.h5")])
    assert "kind: move-fsm" in r.stdout and "depth: 14" in r.stdout


def test_pdb_info_json_on_a_move_pruning_file_and_verify_with_malformed_attributes(tmp_path):
    """Each is one line, not a traceback."""
    import json

    import h5py

    from patterndb import Frame, Shape, make_goal
    from patterndb.cli.commands import main as pdb
    from patterndb.files import integrity
    from patterndb.files.catalog import build_exact_file
    from patterndb.files.machines import load_or_build

    load_or_build(Shape(3, 3), 6, tmp_path, lambda _: None)
    machine = next(tmp_path.glob("moves-*.h5"))
    r = CliRunner().invoke(pdb, ["info", "--json", str(machine)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["depth"] == 6
    path = build_exact_file(Frame.for_goal(make_goal(Shape(2, 3), "blank-last")), tmp_path)
    with h5py.File(path, "r+") as f:
        a = f["table"].attrs
        a["goal"] = "junk"
        # a consistent forgery
        a["digest_crc32"] = integrity.digest(int(a["checksum_crc32"]), {k: a[k] for k in a})
    r = CliRunner().invoke(pdb, ["verify", str(path)])
    assert r.exit_code == 3 and "Traceback" not in r.output
    assert r.stderr.startswith("error:") and len(r.stderr.splitlines()) == 1, r.stderr


def test_both_packages_and_commands_say_one_version(run):
    from importlib.metadata import version

    import patterndb
    import solver as solver_package

    assert patterndb.__version__ == solver_package.__version__ == version("patterndb")
    assert run(solver, ["--version"]).stdout.strip() == f"solver, version {patterndb.__version__}"
    assert run(pdb, ["--version"]).stdout.strip() == f"pdb, version {patterndb.__version__}"


def test_the_changelog_names_this_version_first():
    """Every release is in CHANGELOG.md, the newest first (after Unreleased): a figure names the
    version it was measured on, so the version must move with the changes."""
    import re
    from pathlib import Path

    import patterndb

    text = (Path(__file__).resolve().parent.parent / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", text, re.M)
    assert versions and versions[0][0] == patterndb.__version__
    assert [v for v, _ in versions] == sorted(
        (v for v, _ in versions), key=lambda v: tuple(map(int, v.split("."))), reverse=True
    )
    assert "## [Unreleased]" in text


def test_pdb_list_says_when_the_directory_is_missing_or_a_file(tmp_path):
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path / "nowhere")])
    assert r.exit_code == 0 and r.stderr.strip() == (
        f"no tables: {tmp_path / 'nowhere'} (--data-dir) does not exist (nothing was built there)"
    )
    (tmp_path / "f").write_text("x")
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path / "f")])
    assert r.exit_code == 2 and "is a file" in r.stderr


def test_sane_upper_bounds_and_show_boards_only_where_it_shows(run):
    assert run(solver, ["scramble", "--size", "3", "--moves", "100000000"]).exit_code == 2
    assert run(solver, ["solve", "8672543_1", "-j", "100000"]).exit_code == 2
    r = run(solver, ["solve", "8672543_1", "--json", "--show-boards"])
    assert r.exit_code == 2 and "--show-boards" in r.stderr


@pytest.mark.parametrize("cli", [pdb, solver], ids=["pdb", "solver"])
def test_help_texts_fit_80_columns_and_none_is_cut_off(cli):
    runner = CliRunner()
    top = runner.invoke(cli, ["--help"], terminal_width=80)
    listed = top.stdout.split("Commands:")[1].splitlines()
    assert top.exit_code == 0 and not any(ln.endswith("...") for ln in listed), top.stdout
    for name in cli.commands:
        r = runner.invoke(cli, [name, "--help"], terminal_width=80)
        assert r.exit_code == 0, name
        assert max(len(ln) for ln in r.stdout.splitlines()) <= 80, (name, r.stdout)


def test_a_mistyped_data_dir_is_refused_and_not_made(tmp_path):
    typo = tmp_path / "typo" / "dir"
    r = CliRunner().invoke(solver, ["solve", "8672543_1", "--data-dir", str(typo)])
    assert r.exit_code == 2 and "mistyped" in r.output and not typo.parent.exists()
    new = tmp_path / "new"  # (its parent exists: made when a table is built there)
    assert CliRunner().invoke(solver, ["solve", "8672543_1", "--data-dir", str(new)]).exit_code == 0


@pytest.mark.parametrize("option", ["--checkpoint-every", "--timeout", "--within"])
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_time_or_ratio_that_is_no_finite_number_is_a_usage_error(option, value):
    r = CliRunner().invoke(solver, ["solve", "8672543_1", option, value])
    assert r.exit_code == 2 and "not a finite number" in r.output


def test_several_boards_on_standard_input_are_said_to_be_a_batch():
    r = CliRunner().invoke(solver, ["solve", "-"], input="8672543_1\n863.54217\n")
    assert r.exit_code == 2 and "2 boards, one a line" in r.output and "--file -" in r.output
    grid = CliRunner().invoke(solver, ["solve", "-"], input="1 2 3\n4 5 6\n7 _ 8\n")
    assert grid.exit_code == 0 and "length: 1  optimal" in grid.output
