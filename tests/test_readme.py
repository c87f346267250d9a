"""The README is a user's guide a newcomer can follow: short, its two commands exist, and
its tour's 8-puzzle commands and Python API do what it says."""

import inspect
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)


def test_the_readme_is_a_guide_not_a_notebook():
    assert len(README.splitlines()) <= 150


def test_it_starts_with_the_two_commands():
    lang, first = BLOCKS[0]
    commands = [ln.split("#")[0].strip() for ln in first.splitlines()]
    assert commands == ["scripts/demo.sh", "scripts/test.sh"]
    for c in commands:
        assert os.access(ROOT / c, os.X_OK), c
    # what CI runs is the second
    assert (ROOT / ".ci" / "run").read_text().count("scripts/test.sh") == 1


def test_the_tour_on_the_8_puzzle_says_what_it_prints(tmp_path):
    tour = next(body for lang, body in BLOCKS if "pdb build --size 3" in body)
    lines = [
        ln
        for ln in tour.splitlines()
        if ln.startswith(("pdb build --size 3", "solver "))
        and "--size 4" not in ln
        and "--size 5" not in ln
        and "blank-first" not in ln
    ]
    assert len(lines) == 5, lines
    env = {**os.environ, "PATTERNDB_DATA": str(tmp_path)}
    bin_dir = Path(sys.executable).parent
    for line in lines:
        cmd, _, comment = line.partition("#")
        argv = shlex.split(cmd)
        r = subprocess.run(
            [str(bin_dir / argv[0]), *argv[1:]],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert r.returncode == 0, line + r.stderr
        for number in re.findall(r"length (\d+)|^\s*(\d+)$", comment.strip()):
            assert any(n and n in r.stdout for n in number), (line, r.stdout)
        if argv[1] == "distance":
            assert r.stdout.strip() == "25"
        if argv[1] == "solve":
            assert r.stdout.startswith("length: 31  optimal"), r.stdout
        if argv[1] == "show":
            assert (tmp_path / "solution.svg").read_text().startswith("<svg")


def test_the_python_api_lines_exist_as_written():
    from solver import distance, solve
    from solver.api import Control
    from solver.solution import SearchStopped

    assert {"goal", "jobs", "timeout", "checkpoint"} <= set(inspect.signature(solve).parameters)
    sol = solve("1 2 3 4 5 6 7 _ 8", algorithm="idastar", heuristic="manhattan")
    assert (sol.length, sol.moves, sol.directions, sol.optimal) == (1, [8], "R", True)
    assert {"stop", "listener", "backend"} <= set(inspect.signature(Control).parameters)
    stopped = SearchStopped("timeout", "idastar", 40, 1, 2, 0.1, [])
    assert (stopped.reason, stopped.lower_bound) == ("timeout", 40) and callable(distance)
