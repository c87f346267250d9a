"""`solver solve --file`: a batch of boards, its rows, its exit status, its bad lines."""

import json
import os

from solver.cli.commands import main as solver


def _batch(tmp_path, text):
    f = tmp_path / "boards.txt"
    f.write_text(text)
    return str(f)


def test_solve_file_table_json_and_exit_codes(run, tmp_path):
    good = _batch(
        tmp_path, "# three boards\n8672543_1 31\n1 2 3 4 5 6 7 0 8  # one move\n\n863.54217 25\n"
    )
    r = run(solver, ["solve", "--file", good])
    assert r.exit_code == 0, r.output
    assert "all 2 expected lengths met" in r.stderr and r.stdout.count("\n") == 4
    unchecked = tmp_path / "unchecked.txt"
    unchecked.write_text("8672543_1\n")
    # nothing was checked: it must not say 'met'
    r = run(solver, ["solve", "--file", str(unchecked)])
    assert (
        r.exit_code == 0 and "no expected lengths to check" in r.stderr and "met" not in r.stderr
    ), r.output
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


def test_a_batch_maps_its_tables_before_searching_only_where_it_holds_several_boards(
    run, tmp_path, monkeypatch
):
    """solve_batch populates each plan's tables once (Plan.populate) when the batch has
    POPULATE_MIN boards or more (`solver solve --file` tells it the file's lines); a shorter
    batch, one of unknown length and a single solve leave the pages to be mapped as read."""
    from solver import api
    from solver.batch import POPULATE_MIN, iter_batch, solve_batch

    calls = []
    monkeypatch.setattr(api.Plan, "populate", lambda plan: calls.append(plan.frame.key))
    lines = ["8672543_1 31", "863.54217 25", "1 2 3 4 5 6 7 0 8 1", "8672543_1 31"]
    f = _batch(tmp_path, "\n".join(lines * POPULATE_MIN) + "\n")
    opts = api.Options(algorithm="idastar", heuristic="manhattan", jobs=1)
    for boards, want in (
        (None, 0),
        (POPULATE_MIN - 1, 0),
        (POPULATE_MIN, 1),
        (4 * POPULATE_MIN, 1),
    ):
        calls.clear()
        rows = list(solve_batch(iter_batch(f), "blank-last", opts, lambda m: None, boards=boards))
        assert len(calls) == want and [s.length for _, s in rows] == [31, 25, 1, 31] * POPULATE_MIN
    calls.clear()
    assert (
        run(solver, ["solve", "--file", f, "--heuristic", "manhattan"]).exit_code == 0
        and len(calls) == 1
    )
    assert (
        run(solver, ["solve", "8672543_1", "--heuristic", "manhattan"]).exit_code == 0
        and len(calls) == 1
    )


def test_batch_reports_bad_lines_and_solves_the_rest(run, tmp_path):
    # BOM, unsolvable, junk
    f = _batch(tmp_path, "\ufeff8672543_1 31\n12345687_\nnot a board\n863.54217 25\n")
    r = run(solver, ["solve", "--file", f])
    assert r.exit_code == 2, r.output
    rows = r.stdout.splitlines()[1:]
    assert [x.split()[:2] for x in rows] == [
        ["1", "31"],
        ["2", "ERROR"],
        ["3", "ERROR"],
        ["4", "25"],
    ]
    assert f"{f}:3:" in r.stderr and "line 2:" in r.stderr and "2 of 4 boards solved" in r.stderr
    r = run(solver, ["solve", "--file", f, "--json"])
    d = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["line"] for x in d] == [1, 2, 3, 4] and "error" in d[1] and d[3]["length"] == 25


def test_batch_from_stdin_and_non_text_files(run, tmp_path):
    r = run(solver, ["solve", "--file", "-"], input="8672543_1 31\n")
    assert r.exit_code == 0 and r.stdout.splitlines()[1].split()[:3] == ["1", "31", "31"]
    for name, data in (
        ("t.h5", b"\x89HDF\r\n\x1a\n\x00\x00"),
        ("u16.txt", "8672543_1\n".encode("utf-16")),
    ):
        p = tmp_path / name
        p.write_bytes(data)
        r = run(solver, ["solve", "--file", str(p)])
        assert (
            r.exit_code == 2
            and "not a UTF-8 text file" in r.stderr
            and len(r.stderr.splitlines()) == 1
        )


def test_a_batch_streams_each_row_is_printed_before_the_next_line_is_read(tmp_path):
    """--file reads as it solves, not the whole file first: the first board's row comes out
    while standard input is still open."""
    import subprocess
    import sys

    p = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "solve", "--file", "-", "-j", "1", "-H", "manhattan"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        p.stdin.write("8672543_1 31\n")
        p.stdin.flush()
        header, row = p.stdout.readline(), p.stdout.readline()
        assert "line" in header and row.split()[:3] == ["1", "31", "31"], header + row
        p.stdin.write("# a comment\n1 2 3 4 5 6 7 _ 8 1\n")
        p.stdin.close()
        out, err = p.stdout.read(), p.stderr.read()
        p.wait(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 0 and out.split()[:3] == ["3", "1", "1"], out + err
    assert "2 of 2 boards solved" in err and "all 2 expected lengths met" in err


def test_a_file_that_stops_being_text_keeps_the_rows_before_it(run, tmp_path):
    f = tmp_path / "b.txt"
    f.write_bytes(b"8672543_1 31\n\xff\xfe\n1 2 3 4 5 6 7 _ 8\n")
    r = run(solver, ["solve", "--file", str(f), "-H", "manhattan"])
    rows = [x.split()[:2] for x in r.stdout.splitlines()[1:]]
    # line 3 is not read
    assert r.exit_code == 2 and rows == [["1", "31"], ["2", "ERROR"]], r.stdout
    assert f"error: {f} is not a UTF-8 text file of boards (undecodable byte on line 2)" in r.stderr
    assert "1 of 2 boards solved" in r.stderr


def test_the_5x5_cost_warning_is_for_far_boards_single_or_in_a_batch(run, tmp_path):
    goal = " ".join(map(str, range(25)))
    one_move = "1 0 " + " ".join(map(str, range(2, 25)))
    lc = [
        "--goal",
        "blank-first",
        "-H",
        "linear-conflict",
        "--prune",
        "12",
    ]  # (the default machine, depth 18: minutes to build; 12: a second)
    for board in (goal, one_move):
        r = run(solver, ["solve", board, *lc])
        assert r.exit_code == 0 and "warning" not in r.stderr, r.stderr
    far = "14 5 9 2 18 8 23 19 12 17 15 0 10 20 4 6 11 21 1 7 24 3 16 22 13"  # Korf & Felner's #1
    r = run(solver, ["solve", far, *lc, "--max-nodes", "1000"])
    assert r.exit_code == 4 and "warning: IDA* with linear-conflict on a 5x5 board" in r.stderr
    f = tmp_path / "b.txt"
    f.write_text(f"{far}\n{far}\n")
    r = run(solver, ["solve", "--file", str(f), *lc, "--max-nodes", "1000"])
    assert (
        r.exit_code == 4
        and r.stderr.count("warning: IDA* with linear-conflict on a 5x5 board") == 1
    ), r.stderr
