"""Every tool in scripts/ says how to use it (--help) and runs on a tiny input.

The benchmarks are what docs/benchmarks.md cites, so each must still run and still fail
loudly on a wrong length; these runs take a few seconds each on the 15-puzzle's 5-5-5
tables (the 24-puzzle's are too big for the default test run)."""

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
PY = [sys.executable]


def load(name):
    """A script of scripts/ as a module, to call its functions."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(*args, env=None, timeout=300):
    return subprocess.run(
        [*args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )


def test_scripts_holds_only_the_tools_the_docs_name():
    """No experiments: every file is a tool a user or CI runs, and each is tested here."""
    tools = {
        "setup.sh",
        "demo.sh",
        "test.sh",
        "bench_korf100.py",
        "bench_korf24.py",
        "bench_whole.py",
        "bench_build.py",
        "simulate_scaling.py",
        "scaling_check.sh",
        "campaign_korf24.py",
        "campaign_report.py",
        "campaign_estimate.py",
        "damage_trials.py",
        "bench_page.py",
        "bench_within.py",
        "make_scrambled.py",
    }
    assert {p.name for p in SCRIPTS.iterdir() if p.is_file()} == tools


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.iterdir() if p.is_file()))
def test_every_script_answers_help(script):
    cmd = (
        ["bash", str(SCRIPTS / script)] if script.endswith(".sh") else [*PY, str(SCRIPTS / script)]
    )
    r = run(*cmd, "--help", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(r.stdout.split()) > 10, r.stdout  # a real description, not an empty line
    assert "Traceback" not in r.stderr


def test_bench_korf100_solves_its_boards_and_checks_their_lengths(pdb_dir, tmp_path):
    r = run(
        *PY,
        "scripts/bench_korf100.py",
        "--pattern",
        "5-5-5",
        "--first",
        "3",
        "--data-dir",
        str(pdb_dir),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "total: 3 boards" in r.stdout
    wrong = tmp_path / "wrong.txt"  # Korf's first board with a length it does not have
    wrong.write_text("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 59\n")
    r = run(
        *PY,
        "scripts/bench_korf100.py",
        "--pattern",
        "5-5-5",
        "--file",
        str(wrong),
        "--data-dir",
        str(pdb_dir),
    )
    assert r.returncode == 1, r.stdout + r.stderr


def test_bench_page_times_the_page_in_a_browser(pdb_dir):
    if os.environ.get("PATTERNDB_NO_BROWSER") == "1":
        pytest.skip("PATTERNDB_NO_BROWSER=1: no browser here")
    r = run(
        *PY,
        "scripts/bench_page.py",
        "--pattern",
        "5-5-5",
        "--boards",
        "2",
        "--loads",
        "2",
        "--data-dir",
        str(pdb_dir),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "page load: median" in r.stdout and "solve, click to answer (5-5-5): median" in r.stdout
    assert [ln.split()[:2] for ln in r.stdout.splitlines()[1:3]] == [["1", "57"], ["2", "55"]]


def test_bench_within_checks_each_bound(pdb_dir):
    common = [
        "--pattern",
        "5-5-5",
        "--data-dir",
        str(pdb_dir),
        "--within",
        "1.1",
        "--timeout",
        "60",
        "-j",
        "2",
    ]
    r = run(*PY, "scripts/bench_within.py", "--file", "data/korf100.txt", "1", "2", *common)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "within 1.1 proven in 60 s: 2 of 2 boards" in r.stdout
    rows = [ln.split() for ln in r.stdout.splitlines()[1:3]]
    lengths = sorted(int(row[1]) for row in rows)
    assert (
        f"length: mean {sum(lengths) / 2:.1f} ({lengths[0]}-{lengths[1]}), lower bound: mean "
        f"{sum(int(row[2]) for row in rows) / 2:.1f}" in r.stdout
    )
    r = run(*PY, "scripts/bench_within.py", "--size", "4", "--random", "2", "--seed", "3", *common)
    assert r.returncode == 0 and "gap: median" in r.stdout, r.stdout + r.stderr
    # Boards of the seeded sample on their own: the same boards, under their own names.
    bench = load("bench_within")
    sample = dict(random=5, size=4, seed=3, file=None)
    assert bench.boards(argparse.Namespace(**sample, lines=[4, 2])) == [
        bench.boards(argparse.Namespace(**sample, lines=[]))[i] for i in (3, 1)
    ]
    bad = run(*PY, "scripts/bench_within.py", "--random", "2", "3", *common)
    assert bad.returncode == 2 and "makes boards 1 to 2: got [3]" in bad.stderr


def test_bench_within_runs_anytime_on_every_board_of_a_file_without_optima(pdb_dir, tmp_path):
    """A set like the scrambled ones: cells only, every line searched when none is named."""
    boards = [ln.rsplit(" ", 1)[0] for ln in (ROOT / "data/korf100.txt").read_text().splitlines()]
    boards = [b for b in boards if b and not b.startswith("#")][:2]
    f = tmp_path / "two.txt"
    f.write_text("# two boards, no optimum\n" + "\n".join(boards) + "\n")
    r = run(
        *PY,
        "scripts/bench_within.py",
        "--file",
        str(f),
        "--anytime",
        *("--pattern", "5-5-5", "--data-dir", str(pdb_dir), "--timeout", "60", "-j", "2"),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "optimal proven in 60 s: 2 of 2 boards" in r.stdout
    assert [ln.split()[0] for ln in r.stdout.splitlines()[1:3]] == ["1", "2"]


def test_make_scrambled_sets_are_as_their_script_makes_them():
    """The scrambled 35- and 48-puzzles: their seed and generator make the files again, and
    their Manhattan distances lie in DeepCubeA's ranges around its means."""
    r = run(*PY, "scripts/make_scrambled.py", "--check")
    assert r.returncode == 0 and r.stdout.count("as made") == 2, r.stdout + r.stderr
    from tests import naive

    for name, side, mean, low, high in (("35", 6, 91.8, 65, 128), ("48", 7, 195.1, 104, 246)):
        lines = (ROOT / f"data/scrambled{name}.txt").read_text().splitlines()
        rows = [tuple(map(int, ln.split())) for ln in lines if not ln.startswith("#")]
        goal = tuple(range(side * side))
        mds = [naive.manhattan(row, goal, side) for row in rows]
        assert len(rows) == 100 and all(low <= m <= high for m in mds)
        assert abs(sum(mds) / len(mds) - mean) < 3


def test_bench_korf24_takes_lines_or_a_random_sample(pdb_dir):
    """Its board numbers are the file's board lines; --random draws seeded boards of the
    file's shape (here the 15-puzzle's, for its small tables)."""
    common = [
        "--file",
        "data/korf100.txt",
        "--pattern",
        "5-5-5",
        "--data-dir",
        str(pdb_dir),
        "-j",
        "2",
    ]
    r = run(*PY, "scripts/bench_korf24.py", "1", "3", *common)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.split()[:1] in (["1"], ["3"])]
    assert [(row[0], row[1], row[2]) for row in rows] == [("1", "57", "57"), ("3", "59", "59")]
    r = run(*PY, "scripts/bench_korf24.py", "--random", "3", "--seed", "5", *common)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "total: 3 boards" in r.stdout and "median" in r.stdout
    again = run(*PY, "scripts/bench_korf24.py", "--random", "3", "--seed", "5", *common)
    boards = lambda out: [ln.split()[-16:] for ln in out.splitlines() if ln.startswith("  r")]
    # the seed fixes the sample
    assert boards(r.stdout) == boards(again.stdout) and len(boards(r.stdout)) == 3


def test_bench_whole_times_the_commands(pdb_dir, tmp_path):
    batch = tmp_path / "two.txt"
    batch.write_text("".join(open(ROOT / "data" / "korf100.txt").readlines()[2:4]))
    r = run(
        *PY,
        "scripts/bench_whole.py",
        "--rounds",
        "1",
        "--pattern",
        "5-5-5",
        "--data-dir",
        str(pdb_dir),
        "--file",
        str(batch),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (
        "one board, -j 1" in r.stdout
        and "Korf's 100, -j 2" in r.stdout
        and "load average" in r.stdout
    )


def test_bench_build_times_a_build():
    """A row of wall, CPU, cores busy, entries (the 8-puzzle's 181,440 states), their rate
    and peak RSS, and the published rate it is held against."""
    r = run(*PY, "scripts/bench_build.py", "--only", "exact 3x3")
    assert r.returncode == 0, r.stdout + r.stderr
    row = next(ln.split() for ln in r.stdout.splitlines() if ln.startswith("exact 3x3"))
    wall, cpu, busy, count = (float(x.replace(",", "")) for x in row[2:6])
    assert count == 181_440 and 0 < cpu and abs(busy - cpu / wall) < 0.1, r.stdout
    assert r.stdout.splitlines()[-1].startswith("published: 1.50 M entries"), r.stdout


def test_scaling_check_runs_its_rounds_on_a_small_board(pdb_dir, tmp_path):
    """The many-core check, shrunk to one 15-puzzle and 2 threads, without Dask or setup."""
    env = {
        "SETUP": "0",
        "LOCAL": "0",
        "ROUNDS": "1",
        "MAX": "2",
        "LINES": "3",
        "FILE": "data/korf100.txt",
        "PYTHON": sys.executable,
        "PATTERNDB_DATA": str(pdb_dir),
    }
    r = run("bash", "scripts/scaling_check.sh", str(tmp_path / "res"), "5-5-5", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-j 2 speed-up over -j 1 (median)" in r.stdout
    assert (tmp_path / "res" / "j1" / "line3.jsonl").exists()


def test_the_campaign_runs_stops_resumes_and_skips(tmp_path):
    """Three easy 5x5 boards (Manhattan distance, no move-pruning machine): the first sitting
    stops the second board at a node limit and keeps its checkpoint; the next resumes it and
    finishes the rest; a third skips them all. The table has one row a board, with the
    known lengths, and the iterations table each board's iterations, the resumed one's
    first sitting's too, summing to its nodes; the report reads them; a wrong known length
    fails loudly."""
    import csv

    import numpy as np

    from patterndb import Shape, make_goal, scramble
    from solver import solve

    goal = make_goal(Shape(5, 5), "blank-first")
    boards = [
        scramble(goal, moves, np.random.default_rng(seed))
        for seed, moves in ((3, 30), (2, 40), (4, 50))
    ]
    lengths = [
        solve(
            str(b), goal="blank-first", algorithm="idastar", heuristic="manhattan", prune=2
        ).length
        for b in boards
    ]
    file = tmp_path / "boards.txt"
    file.write_text(
        "# three scrambles\n"
        + "".join(f"{' '.join(map(str, b.tiles))} {n}\n" for b, n in zip(boards, lengths))
    )
    table, folder, its = (
        tmp_path / "results.csv",
        tmp_path / "campaign",
        tmp_path / "iterations.csv",
    )
    common = [
        "scripts/campaign_korf24.py",
        "--file",
        str(file),
        "--table",
        str(table),
        "--dir",
        str(folder),
        "--iterations",
        str(its),
        "--heuristic",
        "manhattan",
        "--prune",
        "2",
        "-j",
        "1",
    ]
    first = run(*PY, *common, "1", "2", "3", "--max-nodes", "3000")
    assert first.returncode == 4, first.stdout + first.stderr  # line 2 needs more than 3,000 nodes
    assert "line 2: stopped at lower bound" in first.stdout and (folder / "line2.ckpt").exists()
    assert [r["line"] for r in csv.DictReader(open(table))] == ["1"]
    second = run(*PY, *common, "1", "2", "3")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "line 1: done" in second.stdout and "line 2: resuming (sitting 2)" in second.stdout
    rows = list(csv.DictReader(open(table)))
    assert [(r["line"], int(r["length"])) for r in rows] == [
        ("1", lengths[0]),
        ("2", lengths[1]),
        ("3", lengths[2]),
    ]
    assert list(folder.iterdir()) == []  # finished lines leave no checkpoint behind
    assert set(rows[0]) == {
        "line",
        "length",
        "nodes_expanded",
        "cpu_seconds",
        "wall_seconds",
        "peak_rss_mb",
        "cores",
        "date",
        "version",
    }
    iterations = list(csv.DictReader(open(its)))
    for row in rows:
        mine = [r for r in iterations if r["line"] == row["line"]]
        assert {r["kind"] for r in mine} == {"iteration"} and mine[-1]["bound"] == row["length"]
        assert [int(r["bound"]) for r in mine] == sorted(int(r["bound"]) for r in mine)
        assert sum(int(r["expanded"]) for r in mine) == int(row["nodes_expanded"])
    report = run(*PY, "scripts/campaign_report.py", "--table", str(its))
    assert report.returncode == 0, report.stdout + report.stderr
    assert "3 lines" in report.stdout and "complete iterations" in report.stdout
    assert (
        run(*PY, "scripts/campaign_report.py", "--table", str(tmp_path / "none.csv")).returncode
        == 2
    )
    third = run(*PY, *common, "1", "2", "3")
    assert third.returncode == 0 and third.stdout.count(": done") == 3, third.stdout
    file.write_text(file.read_text().replace(f" {lengths[2]}\n", f" {lengths[2] + 2}\n"))
    table.unlink()
    wrong = run(*PY, *common, "3")
    assert wrong.returncode == 1 and "FAIL: line 3" in wrong.stderr, wrong.stdout + wrong.stderr


def test_the_campaign_keeps_the_race_losers_leg_and_the_report_weighs_the_solving_iteration():
    """A raced line's iterations table keeps the winner's iterations and the loser's leg as
    one row; the report counts that leg apart, and foresees the solving iteration's whole
    size from the growth of the two before it (here 10x: 1,000 of a foreseen 100,000)."""
    campaign, report = load("campaign_korf24"), load("campaign_report")
    its = [
        {"bound": b, "expanded": e, "generated": 2 * e, "seconds": e / 1e6}
        for b, e in ((60, 100), (62, 1000), (64, 10000), (66, 1000))
    ]
    race = {
        "winner": "pdb A",
        "legs": [
            {
                "heuristic": "pdb A",
                "bound": 62,
                "expanded": 1100,
                "generated": 2200,
                "seconds": 0.1,
            },
            {"heuristic": "pdb B", "bound": 60, "expanded": 50, "generated": 100, "seconds": 0.2},
        ],
    }
    rows = campaign.iteration_rows(7, {"heuristic": "pdb A", "iterations": its}, race)
    assert [r["kind"] for r in rows] == ["iteration"] * 4 + ["race loser"]
    assert rows[-1]["heuristic"] == "pdb B" and rows[-1]["expanded"] == 50
    f = report.line_figures([{k: str(v) for k, v in r.items()} for r in rows])
    assert (f["complete"], f["solving"], f["lost"], f["total"]) == (11100, 1000, 50, 12150)
    assert f["into"] == pytest.approx(0.01) and f["bound"] == 66 and f["heuristic"] == "A"


def test_damage_trials_sort_every_outcome_and_find_no_wrong_answer(pdb_dir, tmp_path):
    """Six trials on the 15-puzzle's 5-5-5 tables (copies: the fixture's are never written):
    each damaged table is refused (exit 3) or, where the damage cannot matter, answers right."""
    before = {p.name: p.read_bytes() for p in pdb_dir.glob("pdb-4x4-*.h5")}
    r = run(
        *PY,
        "scripts/damage_trials.py",
        "--trials",
        "6",
        "--seed",
        "3",
        "--data-dir",
        str(pdb_dir),
        "--case",
        "4x4 5-5-5",
        "--scratch",
        str(tmp_path / "scratch"),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    total = r.stdout.splitlines()[-1].split()
    assert total[:5] == ["all", "0", "6", "0", "0"], r.stdout  # every one refused: its ctime moved
    assert {p.name: p.read_bytes() for p in pdb_dir.glob("pdb-4x4-*.h5")} == before


def test_campaign_estimate_projects_the_unsolved_lines_from_the_solved_hard_ones(tmp_path):
    """Three published lines, two solved: the totals against the catalogue, and the third
    line's CPU projected at the cost per published billion of the solved line that counts
    as hard (the easy one does not: below --hard)."""
    counts = tmp_path / "counts.txt"
    counts.write_text(
        "# a comment\n# n len KF_zpdb_exp smallt_zpdb_exp\n"
        "1 90 6000000000 2000000000\n2 100 30000000000 10000000000\n3 110 100000000000 40000000000\n"
    )
    table = tmp_path / "results.csv"
    table.write_text(
        "line,length,nodes_expanded,cpu_seconds,wall_seconds,peak_rss_mb,cores,date,version\n"
        "1,90,1000000000,400,200,1,2,d,v\n2,100,5000000000,900,450,1,2,d,v\n"
    )
    r = run(
        *PY,
        "scripts/campaign_estimate.py",
        "--table",
        str(table),
        "--published",
        str(counts),
        "--hard",
        "5e9",
        "--target",
        "1",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert (
        "solved 2 of 3: 6.00 G expanded (0.50x smallt_zpdb_exp's 12.00 G), 1,300 CPU s" in r.stdout
    )
    assert "left 1: 3 (40.0 G published)" in r.stdout
    assert "on the 1 solved lines of at least 5 G in the catalogue: 2: 90" in r.stdout
    assert "at the median (90 s/G): the rest 1.0 CPU-hours, all 3 1.4 (over 1)" in r.stdout
    # scaled by another published count; which lines count as hard is still the catalogue's say
    # (line 1 has 6 G of KF_zpdb_exp but 2 G in the catalogue)
    r = run(
        *PY,
        "scripts/campaign_estimate.py",
        "--table",
        str(table),
        "--published",
        str(counts),
        "--hard",
        "5e9",
        "--target",
        "1",
        "--column",
        "KF_zpdb_exp",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(0.17x KF_zpdb_exp's 36.00 G)" in r.stdout
    assert (
        "CPU s per G of KF_zpdb_exp on the 1 solved lines of at least 5 G in the catalogue: 2: 30"
        in r.stdout
    )
    assert "at the median (30 s/G): the rest 0.8 CPU-hours, all 3 1.2 (over 1)" in r.stdout
    r = run(
        *PY,
        "scripts/campaign_estimate.py",
        "--table",
        str(table),
        "--published",
        str(counts),
        "--column",
        "nope",
    )
    assert r.returncode == 2 and "has no column 'nope'" in r.stderr
    table.write_text(table.read_text() + "9,1,1,1,1,1,2,d,v\n")  # a line with no published count
    assert (
        run(
            *PY, "scripts/campaign_estimate.py", "--table", str(table), "--published", str(counts)
        ).returncode
        == 2
    )
    assert (
        run(*PY, "scripts/campaign_estimate.py", "--table", str(tmp_path / "none.csv")).returncode
        == 2
    )
