"""What a careful user meets: every message says what is true, names what is wrong, and never
advises deleting a file that is not ours; bad input is refused before it costs anything."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from patterndb.cli.commands import main as pdb
from solver.cli.commands import main as solver

from .instances import KORF_1

BIN = Path(sys.executable).parent


def test_a_full_disk_says_the_margin_it_keeps(tmp_path, monkeypatch):
    import shutil

    monkeypatch.setattr(
        shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - (2 << 20), 2 << 20)
    )
    r = CliRunner().invoke(pdb, ["build", "--size", "3", "--data-dir", str(tmp_path)])
    assert r.exit_code == 3 and "it needs 0.3 MiB on disk and 16 MiB to spare" in r.stderr, r.stderr
    assert "has 2.0 MiB free" in r.stderr


@pytest.mark.parametrize("content", ["my notes, not a checkpoint\n", "[1, 2, 3]\n", '{"a": 1}\n'])
def test_a_file_that_is_not_a_checkpoint_is_named_and_left_alone(tmp_path, content):
    notes = tmp_path / "notes.txt"
    notes.write_text(content)
    r = CliRunner().invoke(
        solver,
        [
            "solve",
            "1 2 3 4 5 6 7 _ 8",
            "-a",
            "idastar",
            "-H",
            "manhattan",
            "--checkpoint",
            str(notes),
        ],
    )
    assert r.exit_code == 2 and "is not a checkpoint" in r.stderr, r.stderr
    assert "remove" not in r.stderr and notes.read_text() == content


def test_a_checkpoint_in_use_is_refused_to_a_second_search(tmp_path):
    """Two solves with one --checkpoint file would overwrite each other's saves: the second is
    refused while the first runs (Manhattan distance on Korf's #1: minutes)."""
    ckpt = tmp_path / "k.ckpt"
    first = subprocess.Popen(
        [
            str(BIN / "solver"),
            "solve",
            KORF_1,
            "--goal",
            "blank-first",
            "-H",
            "manhattan",
            "-j",
            "1",
            "--checkpoint",
            str(ckpt),
            "--quiet",
            "--data-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120  # (the first save: the search is under way)
        while not ckpt.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tmp_path / ".k.ckpt.lock").exists()
        second = subprocess.run(
            [
                str(BIN / "solver"),
                "solve",
                KORF_1,
                "--goal",
                "blank-first",
                "-H",
                "manhattan",
                "--checkpoint",
                str(ckpt),
                "--data-dir",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
        )
        assert second.returncode == 2 and "is in use by another search" in second.stderr, (
            second.stderr
        )
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130 and ckpt.exists() and not (tmp_path / ".k.ckpt.lock").exists()


def test_batch_lines_name_what_is_wrong(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("1 2 3 4 5 6 7 _ 8 1x\n1 2 3\n4 5 6\n7 8 0\n863.54217 25 extra\n")
    r = CliRunner().invoke(solver, ["solve", "--file", str(f)])
    assert r.exit_code == 2
    assert "the expected length '1x' after the board is not a whole number of moves" in r.output
    assert "a batch takes one whole board a line" in r.output
    assert "2 more words after the board 863.54217: a line holds one board" in r.output
    assert "5 bad lines (said above)" in r.output


def test_an_overlong_line_is_refused_before_it_costs_memory(tmp_path):
    """A 10 MB line took 900 MB of memory to be refused as a board."""
    f = tmp_path / "long.txt"
    # (nothing to solve: no table is built)
    f.write_text("1 " * 5_000_000 + "\nnot a board either\n")
    # (-a astar: no search kernels are loaded up front, whose compiling would be the peak)
    # A child's peak memory counts what its parent had mapped when it forked (Linux folds the
    # old memory's peak in at exec): a small Python in between forks the command and measures it.
    between = (
        "import os, sys\npid = os.fork()\nif pid == 0:\n"
        "    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\n"
        "    os.dup2(fd, 1)\n    os.dup2(fd, 2)\n    os.dup2(os.open(sys.argv[2], os.O_RDONLY), 0)\n"
        "    os.execv(sys.argv[3], sys.argv[3:])\n"
        "_, st, ru = os.wait4(pid, 0)\nprint(os.waitstatus_to_exitcode(st), ru.ru_maxrss)"
    )
    # (-a astar: no search kernels are loaded up front, whose compiling would be the peak)
    for cmd, said in (
        (
            [str(BIN / "solver"), "solve", "--file", str(f), "-a", "astar", "-H", "manhattan"],
            "a line of more than 8,192 bytes",
        ),
        ([str(BIN / "solver"), "solve", "-"], "no board is longer than 4,096"),
    ):
        out = tmp_path / "out"
        r = subprocess.run(
            [sys.executable, "-c", between, str(out), str(f), *cmd, "--data-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        )
        status, peak = map(int, r.stdout.split())
        text = out.read_text()
        assert status == 2 and said in text, text
        assert peak < 300_000, peak  # KB


def test_a_byte_order_mark_before_a_board_is_allowed(tmp_path):
    r = CliRunner().invoke(solver, ["solve", "\ufeff8672543_1", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and r.stdout.startswith("length: 31"), r.output


def test_with_json_an_error_is_a_json_object_too(tmp_path):
    r = CliRunner().invoke(solver, ["solve", "1234", "--json"])
    assert r.exit_code == 2 and json.loads(r.stdout) == {
        "error": "tile 4 is out of range: a 2x2 board has tiles 0..3",
        "exit_status": 2,
    }
    r = CliRunner().invoke(
        solver,
        [
            "solve",
            KORF_1,
            "--goal",
            "blank-first",
            "--pattern",
            "7-8",
            "--json",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert (
        r.exit_code == 3
        and json.loads(r.stdout)["exit_status"] == 3
        and "pdb build" in json.loads(r.stdout)["error"]
    )
    r = CliRunner().invoke(pdb, ["list", "--json", "--data-dir", str(tmp_path / "nowhere")])
    assert r.exit_code == 0 and json.loads(r.stdout) == {
        "data_dir": str(tmp_path / "nowhere"),
        "source": "--data-dir",
        "exists": False,
    }


def test_the_api_names_the_argument_that_is_wrong():
    from patterndb import BoardError
    from solver import solve

    with pytest.raises(BoardError, match="the goal is None"):
        solve("8672543_1", goal=None)
    for bad in ("x", True, -1):
        with pytest.raises(BoardError, match="the timeout must be a number of seconds above 0"):
            solve("8672543_1", timeout=bad)


def test_a_missing_data_directory_is_said(tmp_path):
    typo = tmp_path / "tabels"
    r = CliRunner().invoke(solver, ["solve", "8672543_1", "--data-dir", str(typo)])
    assert r.exit_code == 0 and f"the data directory {typo} does not exist" in r.stderr


def test_a_lock_left_by_a_killed_build_is_listed_and_cleaned(tmp_path):
    (tmp_path / ".exact-3x3-b8.h5.lock").write_text("")  # as kill -9 of a build leaves it
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert "a lock no process holds" in r.stdout, r.output
    r = CliRunner().invoke(pdb, ["clean", "--data-dir", str(tmp_path)])
    assert r.exit_code == 0 and not list(tmp_path.glob(".*.lock")), r.output


def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path):
    """The first tenth of a second imports numpy and click, and a first solve imports numba: a
    Ctrl-C then must not print a Python traceback (numba's, as an ImportError). From the moment the
    command's own code runs, it is "interrupted" and exit 130 (a signal during the interpreter's
    own start-up, before any of it, is Python's)."""
    handled = 0
    seen = []
    for delay in (0.05, 0.08, 0.11, 0.15, 0.2, 0.3, 0.4):
        p = subprocess.Popen(
            [str(BIN / "solver"), "solve", "8672543_1", "--data-dir", str(tmp_path / str(delay))],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # (as a terminal has
        # it: a test run started in the background would otherwise pass its ignored SIGINT on)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        seen.append((delay, p.returncode, err[-200:]))
        finished = "table / exact: 31 expanded" in out and p.returncode in (0, -signal.SIGINT)
        if finished or "init_import_site" in err or "from solver.cli.launch import main" in err:
            continue  # finished first (a signal in the interpreter's last moments, as it shuts down, is
            # the default one), or still in Python's start-up (before the command's first line)
        assert p.returncode == 130 and "Traceback" not in err, (delay, err)
        # the command's own notes (data directory, table, kernels), then:
        lines = err.strip().splitlines()
        assert lines[-1] == "interrupted" and not any(
            line.startswith(" ") or "Error" in line for line in lines
        ), err
        handled += 1
    assert handled >= 2, seen


def test_ctrl_c_turned_into_another_error_by_an_extension_is_still_one_line(tmp_path):
    """numba's compiled `_dispatcher` turns a Ctrl-C during its import into "ImportError:
    numba._devicearray failed to import"; the command still says "interrupted", exit 130."""
    (tmp_path / "cut_short.py").write_text(
        "import os, signal, time\n"
        "import click\n"
        "@click.command()\n"
        "def main():\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        time.sleep(5)\n"
        "    except KeyboardInterrupt:\n"
        "        raise ImportError('an_extension failed to import') from None\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", "from patterndb.cli.launch import launch; launch('cut_short')"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (p.returncode, p.stderr) == (130, "interrupted\n")


def test_a_table_of_another_group_is_named_in_plain_numbers(tmp_path):
    """The mismatch names the tiles in plain numbers (not "tiles=array([1, 2, 4, 5, 8])")."""
    from patterndb import Frame, Shape, TableError, make_goal
    from patterndb.files.catalog import build_pattern_file, load_pattern, pattern_path

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    built = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    os.replace(built, pattern_path(tmp_path, frame, (5, 6, 7, 8)))
    with pytest.raises(TableError, match=r"was built for tiles 1,2,3,4, not 5,6,7,8$"):
        load_pattern(frame, (5, 6, 7, 8), tmp_path)


def test_pdb_pack_says_why_it_kept_a_file(tmp_path):
    from patterndb import Frame, Shape, make_goal
    from patterndb.files.catalog import build_exact_file, build_pattern_file

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    packed = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    exact = build_exact_file(frame, tmp_path)
    r = CliRunner().invoke(pdb, ["pack", str(packed), str(exact)])
    assert r.exit_code == 0 and f"kept {packed}: it is 4-bit already" in r.stdout
    assert f"kept {exact}: it is not a group table (kind 'exact')" in r.stdout


def _build_555_beside_copies(pdb_dir, data):
    """`pdb build --size 4 --pattern 5-5-5` into data, which holds copies of pdb_dir's 4x4 tables
    (the build finds them built, and goes on to the move-pruning machine)."""
    import shutil

    data.mkdir()
    for f in pdb_dir.glob("pdb-4x4-*.h5"):
        shutil.copyfile(f, data / f.name)
    return CliRunner().invoke(
        pdb,
        [
            "build",
            "--size",
            "4",
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5",
            "--data-dir",
            str(data),
        ],
    )


def test_pdb_build_prints_the_machine_file_it_used(pdb_dir, tmp_path, monkeypatch):
    """Where the data directory cannot keep the move-pruning machine, it is kept in the user's
    cache, and that is the path printed (not the data directory's, where nothing is)."""

    from patterndb.files import machines

    data = tmp_path / "data"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real = machines.atomic

    @contextlib.contextmanager
    def atomic(path):  # (a read-only data directory: root may write anywhere)
        if Path(path).parent == data:
            raise OSError(30, "Read-only file system")
        with real(path) as tmp:
            yield tmp

    monkeypatch.setattr(machines, "atomic", atomic)
    monkeypatch.setattr(machines, "_memo", {})
    r = _build_555_beside_copies(pdb_dir, data)
    assert r.exit_code == 0, r.output
    printed = Path(r.stdout.splitlines()[-1])
    assert printed.parent == tmp_path / "cache" / "patterndb" / "machines" and printed.exists(), (
        r.stdout
    )


def test_a_machine_kept_in_the_users_cache_is_copied_into_a_later_data_directory(
    pdb_dir, tmp_path, monkeypatch
):
    """Once a read-only data directory made the machine go to the user's cache, a build in
    another data directory still leaves the machine beside its tables, and prints that path."""
    import shutil

    from patterndb import Shape
    from patterndb.files import machines

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(machines, "_memo", {})
    first = tmp_path / "first"
    cached = machines.machine_path(tmp_path / "cache" / "patterndb" / "machines", Shape(4, 4), 14)
    machines.load_or_build(Shape(4, 4), 14, first)
    cached.parent.mkdir(parents=True)
    shutil.move(machines.machine_path(first, Shape(4, 4), 14), cached)
    data = tmp_path / "data"
    r = _build_555_beside_copies(pdb_dir, data)
    assert r.exit_code == 0, r.output
    here = machines.machine_path(data, Shape(4, 4), 14)
    assert Path(r.stdout.splitlines()[-1]) == here and here.exists() and cached.exists()
    assert machines.read_machine(here, Shape(4, 4), 14).depth == 14


def test_a_build_says_what_it_will_take_and_a_refused_one_says_only_why(tmp_path):
    r = CliRunner().invoke(
        pdb, ["build", "--rows", "2", "--cols", "4", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 0 and "building the exact 2x4 table: 20,160 states" in r.stderr, r.stderr
    r = CliRunner().invoke(
        pdb, ["build", "--size", "5", "--pattern", "1-12/13-24", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 3 and "needs about" in r.stderr and "minutes" not in r.stderr, r.stderr


def test_h_pdb_names_the_custom_tables_that_are_built(tmp_path):
    """-H pdb with only a partition of the user's own built names them and how to ask for them."""
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "1-3/4-8", "--data-dir", str(tmp_path), "-q"]
    )
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(
        solver, ["solve", "8672543_1", "-a", "idastar", "-H", "pdb", "--data-dir", str(tmp_path)]
    )
    assert (
        r.exit_code == 3 and "tables of tiles 1-3, 4-8 are: give --pattern 1-3/4-8" in r.stderr
    ), r.stderr


def test_limits_are_honoured_closely_and_never_ignored(tmp_path):
    """--timeout 0.5 in a batch stopped its boards at 1.3-1.4 s (the clock was read between
    kernel calls, and a batch thread runs whole iterations in one); the table walk ignored
    --max-nodes."""

    f = tmp_path / "b.txt"
    f.write_text(f"{KORF_1}\n" * 4)  # Manhattan on Korf's #1: minutes each
    subprocess.run(
        [
            str(BIN / "solver"),
            "solve",
            KORF_1,
            "--goal",
            "blank-first",
            "-H",
            "manhattan",
            "--max-nodes",
            "1000",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
    )  # (kernels loaded or compiled once)
    start = time.monotonic()
    r = subprocess.run(
        [
            str(BIN / "solver"),
            "solve",
            "--file",
            str(f),
            "--goal",
            "blank-first",
            "-H",
            "manhattan",
            "--timeout",
            "0.5",
            "-j",
            "2",
            "--json",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert (
        r.returncode == 4 and len(rows) == 4 and all(row["reason"] == "timeout" for row in rows)
    ), r.stderr
    assert max(row["seconds"] for row in rows) < 0.8, [row["seconds"] for row in rows]
    assert time.monotonic() - start < 30
    r = CliRunner().invoke(
        solver,
        ["solve", "8672543_1", "-a", "table", "--max-nodes", "1", "--data-dir", str(tmp_path)],
    )
    assert r.exit_code == 2 and "--max-nodes is for searches" in r.stderr, r.output


def test_a_small_board_is_solved_from_a_data_directory_that_cannot_be_written(
    tmp_path, monkeypatch
):
    """It failed (exit 3) though its exact table builds in memory in under a second. (Root may
    write anywhere, so the write check is made to fail as on a read-only mount.)"""
    from patterndb.errors import WriteError
    from patterndb.files import buildcheck
    from solver import solve

    ro = tmp_path / "ro"
    ro.mkdir()

    def refuse(data_dir, needed, what):
        raise WriteError(f"cannot write {what}: cannot write to {data_dir} (Read-only file system)")

    monkeypatch.setattr(buildcheck, "check_writable", refuse)
    logs = []
    sol = solve("8672543_1", data_dir=ro, log=logs.append)
    assert sol.length == 31 and sol.optimal and any("in memory for this run" in m for m in logs), (
        logs
    )
    assert not list(tmp_path.rglob("*.h5"))


def test_pdb_list_flags_a_table_stored_under_another_groups_name(tmp_path):
    from patterndb import Frame, Shape, make_goal
    from patterndb.files.catalog import build_pattern_file, pattern_path

    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    built = build_pattern_file(frame, (1, 2, 3, 4), tmp_path)
    wrong = pattern_path(tmp_path, frame, (5, 6, 7, 8))
    os.replace(built, wrong)
    r = CliRunner().invoke(pdb, ["list", "--data-dir", str(tmp_path)])
    assert (
        r.exit_code == 0
        and f"{wrong.name}" in r.stdout
        and "its name and its attributes disagree" in r.stdout
    ), r.stdout


def test_a_partly_built_partition_is_said_to_be_incomplete(tmp_path):
    """A build under way or stopped leaves some of a partition's tables: the hint says which
    partition and how many, not a partition of the tables that happen to be there."""
    from patterndb import Frame, Shape, make_goal
    from patterndb.files.catalog import build_pattern_file
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(3, 3)))
    build_pattern_file(frame, parse_partition("4-4", frame)[0], tmp_path)
    r = CliRunner().invoke(
        solver, ["solve", "8 6 7 2 5 4 3 _ 1", "-H", "pdb", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 3
    assert "4-4 is incomplete: 1 of its 2 tables are built" in r.output
    assert "pdb build --size 3 --pattern 4-4' builds the rest" in r.output
