"""solver show: the solution played back as text and as an animated SVG that ends on the goal."""

import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from patterndb import BoardError, make_goal, parse_board
from solver.cli.commands import main as solver
from solver.show import CELL, GAP, frames, svg

SVG = "{http://www.w3.org/2000/svg}"


def test_frames_follow_the_blank_and_refuse_moves_off_the_board():
    b = parse_board("1 2 3 4 5 6 7 _ 8")
    boards = frames(b, "RUL")
    assert [str(x) for x in boards] == [
        "1 2 3 4 5 6 7 0 8",
        "1 2 3 4 5 6 7 8 0",
        "1 2 3 4 5 0 7 8 6",
        "1 2 3 4 0 5 7 8 6",
    ]
    for bad in ("D", "X"):
        with pytest.raises(BoardError):
            frames(b, bad)


def test_the_svg_is_one_animation_per_tile_from_the_board_to_the_goal():
    board = parse_board("8672543_1")
    directions = "UURDLLDRRULLURRDLDLUURDDLUURRDD"  # an optimal solution (31 moves)
    boards = frames(board, directions)
    assert boards[-1] == make_goal(board.shape, "blank-last")
    root = ET.fromstring(svg(boards))
    anims = list(root.iter(SVG + "animateTransform"))
    assert root.tag == SVG + "svg" and len(anims) == 8
    goal_pos, start_pos = boards[-1].positions(), board.positions()
    for g in root.iter(SVG + "g"):
        tile = int(g.find(SVG + "text").text)
        values = g.find(SVG + "animateTransform").get("values").split(";")
        keys = g.find(SVG + "animateTransform").get("keyTimes").split(";")
        assert len(values) == len(keys) == len(boards) + 1  # every frame, and the goal held
        at = lambda cell: f"{cell % 3 * CELL + GAP},{cell // 3 * CELL + GAP}"
        assert values[0] == at(start_pos[tile]) and values[-1] == values[-2] == at(goal_pos[tile])
        assert [float(k) for k in keys] == sorted(float(k) for k in keys) and float(keys[-1]) == 1.0


def test_show_writes_the_svg_and_plays_the_frames(tmp_path):
    out = tmp_path / "s.svg"
    r = CliRunner().invoke(
        solver,
        [
            "show",
            "1 2 3 4 5 6 7 _ 8",
            "--moves",
            "RUL",
            "--out",
            str(out),
            "--play",
            "--delay",
            "0",
        ],
    )
    assert r.exit_code == 0, r.output
    assert ET.parse(out).getroot().tag == SVG + "svg" and "wrote" in r.stderr
    assert r.stdout.count("move ") == 3 and r.stdout.startswith("start\n1 2 3")
    r = CliRunner().invoke(
        solver, ["show", "1 2 3 4 5 6 7 _ 8", "--moves", "DD", "--out", str(tmp_path / "x.svg")]
    )
    assert r.exit_code == 2 and "off the board" in r.stderr and not (tmp_path / "x.svg").exists()
    # solved first
    solved = CliRunner().invoke(solver, ["show", "8672543_1", "--data-dir", str(tmp_path)])
    assert solved.exit_code == 0 and "move 31 of 31: blank D\n1 2 3\n4 5 6\n7 8 ." in solved.stdout


def test_show_writes_a_gif_with_a_frame_per_board(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    out = tmp_path / "s.gif"
    r = CliRunner().invoke(
        solver, ["show", "1 2 3 4 5 6 7 _ 8", "--moves", "RUL", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    with Image.open(out) as im:
        assert (
            im.format == "GIF" and im.n_frames == 4 and im.size == (3 * CELL + GAP, 3 * CELL + GAP)
        )
        im.seek(3)
        assert im.info["duration"] > 0
    r = CliRunner().invoke(
        solver, ["show", "1 2 3 4 5 6 7 _ 8", "--moves", "R", "--out", str(tmp_path / "s.png")]
    )
    assert r.exit_code == 2 and ".svg or a .gif" in r.stderr and not (tmp_path / "s.png").exists()
