"""Slow checks on the big tables (run by `scripts/test.sh -m slow`, not by CI)."""

import subprocess
import sys

import pytest

from patterndb import Frame, Shape, make_goal
from patterndb.files.catalog import build_pattern_file, pattern_path
from patterndb.files.datadir import default_data_dir
from patterndb.puzzle.patterns import parse_partition


@pytest.mark.slow
def test_korf100_with_7_8_and_reflection():
    """All 100 optimal lengths (builds 7-8 in the data directory if missing: minutes)."""
    frame = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    d = default_data_dir()
    for tiles in parse_partition("7-8", frame):
        if not pattern_path(d, frame, tiles).exists():
            build_pattern_file(frame, tiles, d)
    r = subprocess.run(
        [sys.executable, "scripts/bench_korf100.py", "--pattern", "7-8"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "total: 100 boards" in r.stdout
