"""Every tool in scripts/ says how to use it (--help) and runs on a tiny input.

The benchmarks are what docs/benchmarks.md cites, so each must still run and still fail
loudly on a wrong length; these runs take a few seconds each on the 15-puzzle's 5-5-5
tables (the 24-puzzle's are too big for the default test run)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
PY = [sys.executable]


def run(*args, env=None, timeout=300):
    return subprocess.run([*args], capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


def test_scripts_holds_only_the_tools_the_docs_name():
    """No experiments: every file is a tool a user or CI runs, and each is tested here."""
    tools = {"setup.sh", "demo.sh", "test.sh", "bench_korf100.py", "bench_korf24.py", "bench_whole.py",
             "bench_build.py", "simulate_scaling.py", "scaling_check.sh", "campaign_korf24.py"}
    assert {p.name for p in SCRIPTS.iterdir() if p.is_file()} == tools


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.iterdir() if p.is_file()))
def test_every_script_answers_help(script):
    cmd = ["bash", str(SCRIPTS / script)] if script.endswith(".sh") else [*PY, str(SCRIPTS / script)]
    r = run(*cmd, "--help", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(r.stdout.split()) > 10, r.stdout  # a real description, not an empty line
    assert "Traceback" not in r.stderr


def test_bench_korf100_solves_its_boards_and_checks_their_lengths(pdb_dir, tmp_path):
    r = run(*PY, "scripts/bench_korf100.py", "--pattern", "5-5-5", "--first", "3", "--data-dir", str(pdb_dir))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "total: 3 boards" in r.stdout
    wrong = tmp_path / "wrong.txt"  # Korf's first board with a length it does not have
    wrong.write_text("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 59\n")
    r = run(*PY, "scripts/bench_korf100.py", "--pattern", "5-5-5", "--file", str(wrong), "--data-dir", str(pdb_dir))
    assert r.returncode == 1, r.stdout + r.stderr


def test_bench_korf24_takes_lines_or_a_random_sample(pdb_dir):
    """Its board numbers are the file's board lines; --random draws seeded boards of the
    file's shape (here the 15-puzzle's, for its small tables)."""
    common = ["--file", "data/korf100.txt", "--pattern", "5-5-5", "--data-dir", str(pdb_dir), "-j", "2"]
    r = run(*PY, "scripts/bench_korf24.py", "1", "3", *common)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.split()[:1] in (["1"], ["3"])]
    assert [(row[0], row[1], row[2]) for row in rows] == [("1", "57", "57"), ("3", "59", "59")]
    r = run(*PY, "scripts/bench_korf24.py", "--random", "3", "--seed", "5", *common)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "total: 3 boards" in r.stdout and "median" in r.stdout
    again = run(*PY, "scripts/bench_korf24.py", "--random", "3", "--seed", "5", *common)
    boards = lambda out: [ln.split()[-16:] for ln in out.splitlines() if ln.startswith("  r")]
    assert boards(r.stdout) == boards(again.stdout) and len(boards(r.stdout)) == 3  # the seed fixes the sample


def test_bench_whole_times_the_commands(pdb_dir, tmp_path):
    batch = tmp_path / "two.txt"
    batch.write_text("".join(open(ROOT / "data" / "korf100.txt").readlines()[2:4]))
    r = run(*PY, "scripts/bench_whole.py", "--rounds", "1", "--pattern", "5-5-5", "--data-dir", str(pdb_dir),
            "--file", str(batch))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "one board, -j 1" in r.stdout and "Korf's 100, -j 2" in r.stdout and "load average" in r.stdout


def test_bench_build_times_a_build():
    r = run(*PY, "scripts/bench_build.py", "--only", "exact 3x3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [ln.split()[:2] for ln in r.stdout.splitlines()][-1] == ["exact", "3x3"]


def test_scaling_check_runs_its_rounds_on_a_small_board(pdb_dir, tmp_path):
    """The many-core check, shrunk to one 15-puzzle and 2 threads, without Dask or setup."""
    env = {"SETUP": "0", "LOCAL": "0", "ROUNDS": "1", "MAX": "2", "LINES": "3", "FILE": "data/korf100.txt",
           "PYTHON": sys.executable, "PATTERNDB_DATA": str(pdb_dir)}
    r = run("bash", "scripts/scaling_check.sh", str(tmp_path / "res"), "5-5-5", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-j 2 speed-up over -j 1 (median)" in r.stdout
    assert (tmp_path / "res" / "j1" / "line3.jsonl").exists()
