"""pdb plot and solver plot: valid pictures with the panels they claim (matplotlib: the [plot] extra)."""

import json
import re

import pytest
from click.testing import CliRunner

from patterndb.cli.commands import main as pdb
from solver.cli.commands import main as solver

from .instances import KORF_12

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


def _axes(svg_text: str) -> int:
    return len(set(re.findall(r'<g id="axes_(\d+)"', svg_text)))


def test_pdb_plot_draws_a_panel_per_table(tmp_path):
    r = CliRunner().invoke(
        pdb, ["build", "--size", "3", "--pattern", "4-4", "--data-dir", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    files = sorted(str(p) for p in tmp_path.glob("pdb-*.h5"))
    assert len(files) == 2
    r = CliRunner().invoke(pdb, ["plot", *files, "--out", str(tmp_path / "t.svg")])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "t.svg").read_text()
    assert _axes(text) == 2 and "tiles 1-4" in text and "tiles 5-8" in text
    r = CliRunner().invoke(pdb, ["plot", files[0], "--out", str(tmp_path / "t.png")])
    assert r.exit_code == 0 and (tmp_path / "t.png").read_bytes()[:8] == PNG
    r = CliRunner().invoke(pdb, ["plot", files[0], "--out", str(tmp_path / "t.gif")])
    assert r.exit_code == 2 and not (tmp_path / "t.gif").exists()


def test_solver_plot_from_json_and_from_a_trace(tmp_path):
    board = KORF_12
    trace = tmp_path / "k.trace"
    r = CliRunner().invoke(
        solver,
        [
            "solve",
            board,
            "--goal",
            "blank-first",
            "-H",
            "manhattan",
            "--json",
            "-j",
            "2",
            "--trace",
            str(trace),
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    (tmp_path / "k.json").write_text(r.stdout)
    assert len(json.loads(r.stdout)["iterations"]) >= 5
    r = CliRunner().invoke(
        solver, ["plot", str(tmp_path / "k.json"), "--out", str(tmp_path / "j.svg")]
    )
    assert r.exit_code == 0 and _axes((tmp_path / "j.svg").read_text()) == 3, r.output
    r = CliRunner().invoke(solver, ["plot", str(trace), "--out", str(tmp_path / "t.svg")])
    text = (tmp_path / "t.svg").read_text()
    assert r.exit_code == 0 and _axes(text) == 4 and "work per worker" in text
    r = CliRunner().invoke(solver, ["plot", str(trace), "--out", str(tmp_path / "t.png")])
    assert r.exit_code == 0 and (tmp_path / "t.png").read_bytes()[:8] == PNG
    for junk in (
        "not json\n",
        '{"trace": 1}\n{"chunk": [0]}\n',
        '{"iterations": [{"bound": 41}]}\n',
    ):
        (tmp_path / "junk.txt").write_text(junk)
        r = CliRunner().invoke(
            solver, ["plot", str(tmp_path / "junk.txt"), "--out", str(tmp_path / "x.png")]
        )
        assert (
            r.exit_code == 2
            and len(r.stderr.strip().splitlines()) == 1
            and not (tmp_path / "x.png").exists()
        ), (junk, r.output)


@pytest.mark.parametrize("pattern, zero", [("4-4", False), ("z4-4", True)])
def test_the_sampled_sum_is_the_partitions_heuristic(tmp_path, pattern, zero):
    """pdb plot --sum: at each sampled state, the sum of the groups' values equals what the
    solver's pattern-database heuristic (without the mirror) gives; for zero-aware tables the
    minimum over regions, so never above it and equal where the regions cost the same."""
    import numpy as np

    from patterndb import Board, Shape, random_board
    from patterndb.cli.plot import sampled_sums
    from patterndb.files.catalog import load_checked
    from solver.api import Options, make_plan, prepare

    r = CliRunner().invoke(
        pdb,
        [
            "build",
            "--size",
            "3",
            "--goal",
            "blank-first",
            "--pattern",
            pattern,
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("pdb-*.h5"))
    tables = [load_checked(f, {}) for f in files]
    assert len(tables) == 2
    sums = sampled_sums(tables, 300, np.random.default_rng(7))
    goal = Board(Shape(3, 3), np.arange(9))
    _, frame = prepare(goal, "blank-first")
    h = make_plan(
        frame, Options(algorithm="idastar", pattern=pattern, reflect=False, data_dir=tmp_path)
    ).heuristic
    rng = np.random.default_rng(7)
    exact = np.array([h(random_board(goal.shape, goal, rng)) for _ in range(300)])
    if zero:
        assert (sums <= exact).all() and (sums == exact).mean() > 0.5 and (sums < exact).any()
    else:
        assert (sums == exact).all()
    r = CliRunner().invoke(
        pdb, ["plot", *map(str, files), "--sum", "500", "--out", str(tmp_path / "s.svg")]
    )
    assert (
        r.exit_code == 0
        and _axes((tmp_path / "s.svg").read_text()) == 3
        and "random states" in (tmp_path / "s.svg").read_text()
    )
