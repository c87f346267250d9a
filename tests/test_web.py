"""`solver serve` over HTTP, as a page or a stranger would use it: boards in every notation,
answers that replay and are optimal, one search per page, a stop that ends a search with a
lower bound, a closed connection that ends its search, and every bad or oversized request
refused with one line (never a stack trace, never a file outside the page)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time

import pytest

from patterndb import parse_board
from solver import distance

from .instances import KORF_1
from .web_server import start_server, stop_server

pytest.importorskip("starlette")


def cli_message(*args: str) -> str:
    """What `solver solve` prints for a bad board, without its 'error: '."""
    out = subprocess.run(
        [sys.executable, "-m", "solver.cli", "solve", *args], capture_output=True, text=True
    )
    assert out.returncode == 2, out
    line = out.stderr.strip().splitlines()[-1]
    assert line.startswith("error: ")
    return line.removeprefix("error: ")


def test_listens_on_loopback_and_says_so(web_server):
    assert web_server.host == "127.0.0.1"
    assert "this computer only" in web_server.banner


@pytest.mark.parametrize(
    "text",
    [
        "8 6 7 2 5 4 3 _ 1",
        "8672543_1",
        "8,6,7,2,5,4,3,0,1",
        "8 6 7\n2 5 4\n3 _ 1",
        "8 6 7 / 2 5 4 / 3 0 1",
    ],
)
def test_every_notation_of_the_command_line(web_server, text):
    status, data = web_server.post("/api/board", {"board": text})
    assert status == 200, data
    assert data["tiles"] == parse_board(text).tiles.tolist() == [8, 6, 7, 2, 5, 4, 3, 0, 1]
    assert (data["rows"], data["cols"], data["goal_tiles"]) == (3, 3, [1, 2, 3, 4, 5, 6, 7, 8, 0])


@pytest.mark.parametrize(
    "args",
    [
        ["1 2 3 4 5 6 7 8 8"],
        ["1 2 3 4 5 6 8 7 _"],
        ["1 2 3 4 5"],
        ["1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 _", "--goal", "1 2 3"],
        ["1 2 3 x 5 6 7 8 _"],
        ["1 2 3 4 5 _", "--rows", "4"],
    ],
)
def test_a_bad_board_gets_the_command_lines_message(web_server, args):
    body = {"client": "t", "board": args[0]}
    for flag, value in zip(args[1::2], args[2::2]):
        body[flag.lstrip("-")] = int(value) if value.isdigit() else value
    expected = cli_message(*args)
    for path in ("/api/board", "/api/solve", "/api/compare"):
        status, data = web_server.post(path, body)
        assert (status, data) == (400, {"error": expected})


def test_a_solution_replays_to_the_goal_and_is_optimal(web_server, data_dir):
    board = "8 6 7 2 5 4 3 _ 1"
    events = web_server.events(
        "/api/solve", {"client": "replay", "board": board, "goal": "blank-first"}
    )
    assert events[0]["event"] == "start" and events[-1]["event"] == "solution"
    sol = events[-1]
    assert sol["optimal"] and sol["length"] == distance(
        board, "blank-first", data_dir=data_dir
    ) == len(sol["moves"])
    b = parse_board(board)
    for tile in sol["moves"]:
        b = b.move_tile(tile)
    assert b.tiles.tolist() == list(range(9))


def test_the_15_puzzle_with_the_servers_tables(web_server):
    events = web_server.events(
        "/api/solve", {"client": "pdb", "board": KORF_1, "goal": "blank-first", "pattern": "5-5-5"}
    )
    start, sol = events[0], events[-1]
    assert start["heuristic"].startswith("pdb 5-5-5") and len(start["tables"]) == 3
    assert (sol["event"], sol["length"], sol["optimal"]) == ("solution", 57, True)
    assert any(e["event"] == "iteration" for e in events)


def test_two_goals_of_one_shape_each_get_their_own_answer(web_server):
    """Blank-last and blank-first 15-puzzles share a canonical frame but not its mapping: a plan
    kept for one goal must not search the other's boards."""
    last = web_server.events(
        "/api/solve", {"client": "goals", "board": "1 2 3 4 5 6 7 8 9 10 11 12 13 _ 14 15"}
    )
    first = web_server.events(
        "/api/solve", {"client": "goals", "board": KORF_1, "goal": "blank-first"}
    )
    assert (last[-1]["length"], first[-1]["length"]) == (2, 57)
    assert first[-1]["optimal"] and first[0]["heuristic"].startswith("pdb 5-5-5")


def test_an_answer_with_a_proven_bound(web_server):
    events = web_server.events(
        "/api/solve",
        {
            "client": "within",
            "board": KORF_1,
            "goal": "blank-first",
            "pattern": "5-5-5",
            "within": 1.1,
        },
    )
    sol = events[-1]
    assert sol["event"] == "solution" and sol["lower_bound"] <= 57 <= sol["length"]
    # (the gap is sent rounded to 6 places: Bounded.to_dict)
    assert sol["length"] <= 1.1 * sol["lower_bound"] and sol["gap"] == round(
        sol["length"] / sol["lower_bound"] - 1, 6
    )
    assert sol["optimal"] == (sol["length"] == sol["lower_bound"]) and sol["ended"] in (
        "within",
        "optimal",
    )
    bounded = [e for e in events if e["event"] == "bounded"]
    assert bounded and all(e["lower_bound"] <= 57 for e in bounded)


def test_an_anytime_search_stopped_keeps_its_best_solution(web_server):
    conn = http.client.HTTPConnection(web_server.host, web_server.port, timeout=60)
    body = {
        "client": "anytime",
        "board": KORF_1,
        "goal": "blank-first",
        "heuristic": "manhattan",
        "anytime": True,
    }
    conn.request("POST", "/api/solve", json.dumps(body), {"Content-Type": "application/json"})
    res = conn.getresponse()
    while (event := json.loads(res.readline()))["event"] != "bounded" or event["length"] is None:
        pass  # (until the first solution)
    assert web_server.post("/api/stop", {"client": "anytime"}) == (200, {"stopped": True})
    sol = rest(res)[-1]
    assert (
        sol["event"] == "solution"
        and sol["ended"] == "stopped"
        and sol["lower_bound"] <= 57 <= sol["length"]
    )
    assert not sol["optimal"] or sol["length"] == 57


def long_search(server, client: str, running: bool = True, **extra) -> http.client.HTTPResponse:
    """Start a search that runs for minutes (Korf's #1 with misplaced tiles), read to its first progress
    event when running (else to its start)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    body = {
        "client": client,
        "board": KORF_1,
        "goal": "blank-first",
        "algorithm": "idastar",
        "heuristic": "misplaced",
    } | extra
    conn.request("POST", "/api/solve", json.dumps(body), {"Content-Type": "application/json"})
    res = conn.getresponse()
    assert res.status == 200
    assert json.loads(res.readline())["event"] == "start"
    # (searching now: its kernels loaded)
    while running and json.loads(res.readline())["event"] != "progress":
        pass
    return res


def rest(res: http.client.HTTPResponse) -> list[dict]:
    return [json.loads(line) for line in res.read().decode().splitlines()]


def test_one_search_a_page_and_a_stop_that_proves_a_bound(web_server):
    res = long_search(web_server, "busy")
    status, data = web_server.post("/api/solve", {"client": "busy", "board": "8672543_1"})
    assert (status, data) == (
        429,
        {"error": "this page is already searching: stop that search first"},
    )
    asked = time.monotonic()
    assert web_server.post("/api/stop", {"client": "busy"}) == (200, {"stopped": True})
    events = rest(res)
    took = time.monotonic() - asked
    end = events[-1]
    assert end["event"] == "stopped" and end["reason"] == "stopped"
    assert took < 1.0, took
    assert 0 < end["lower_bound"] <= 57  # (the optimum is 57)
    assert (
        "stopped by its user" in end["message"]
        and f"no solution is shorter than {end['lower_bound']}" in end["message"]
    )
    assert web_server.post("/api/stop", {"client": "busy"}) == (200, {"stopped": False})


def test_searches_at_once_are_bounded(web_server):
    a, b = long_search(web_server, "one"), long_search(web_server, "two")
    status, data = web_server.post("/api/solve", {"client": "three", "board": "8672543_1"})
    assert status == 429 and data["error"].startswith(
        "the server is running its 2 searches at once"
    )
    for c in ("one", "two"):
        web_server.post("/api/stop", {"client": c})
    assert rest(a)[-1]["event"] == rest(b)[-1]["event"] == "stopped"
    assert (
        web_server.events("/api/solve", {"client": "three", "board": "8672543_1"})[-1]["event"]
        == "solution"
    )


def test_a_closed_connection_ends_its_search(web_server):
    res = long_search(web_server, "gone")
    res.close()  # (the connection's socket with it)
    closed = time.monotonic()
    while True:  # the page may search again once its search has ended
        status, _, data = web_server.request(
            "POST", "/api/solve", {"client": "gone", "board": "8672543_1"}
        )
        if status == 200 or time.monotonic() > closed + 5:
            break
        time.sleep(0.05)
    assert status == 200, data
    # (the server looks for a closed connection twice a second)
    assert time.monotonic() - closed < 2.0


def test_a_search_stops_at_its_time_limit(web_server):
    started = time.monotonic()
    events = rest(long_search(web_server, "slow", running=False, timeout=0.5))
    assert events[-1]["event"] == "stopped" and events[-1]["reason"] == "timeout"
    assert time.monotonic() - started < 3


def test_the_compare_view(web_server, data_dir):
    board = "8 6 7 2 5 4 3 _ 1"
    events = web_server.events(
        "/api/compare", {"client": "cmp", "board": board, "goal": "blank-first"}
    )
    assert events[-1]["event"] == "done"
    rows = {(e["algorithm"], e["heuristic"]): e for e in events if e["event"] == "row"}
    best = distance(board, "blank-first", data_dir=data_dir)
    assert {
        ("bfs", "none"),
        ("astar", "manhattan"),
        ("idastar", "linear-conflict"),
        ("table", "exact"),
    } <= set(rows)
    for row in rows.values():
        if "message" in row:  # a row that stopped says why
            assert (
                row["message"].startswith("stopped at this view's limit")
                and "--" not in row["message"]
            )
            continue
        assert row["length"] >= best and (not row["optimal"] or row["length"] == best)
    assert (
        rows[("astar", "misplaced")]["nodes_expanded"]
        > rows[("astar", "linear-conflict")]["nodes_expanded"]
    )
    assert web_server.events(
        "/api/compare", {"client": "cmp", "board": KORF_1, "goal": "blank-first"}
    )[-1] == {
        "event": "error",
        "message": "the compare view takes boards of at most 12 cells (3x3, 2x4, 3x4...): this one has 16",
    }


def test_random_boards_and_scrambles(web_server):
    status, data = web_server.post("/api/random", {"rows": 3, "cols": 4, "goal": "blank-first"})
    assert (
        status == 200
        and sorted(data["tiles"]) == list(range(12))
        and data["goal_tiles"] == list(range(12))
    )
    status, data = web_server.post("/api/random", {"rows": 4, "cols": 4, "moves": 0})
    assert data["tiles"] == data["goal_tiles"] == [*range(1, 16), 0]


BAD = [  # (method, path, body, headers, status, the start of the message)
    (
        "POST",
        "/api/board",
        "8672543_1",
        {"Content-Type": "text/plain"},
        415,
        "send the request as JSON",
    ),
    ("POST", "/api/board", "{not json", None, 400, "the request is not JSON"),
    ("POST", "/api/board", "[1, 2]", None, 400, "the request must be a JSON object"),
    (
        "POST",
        "/api/board",
        json.dumps({"board": "1" * 20000}),
        None,
        413,
        "a request is at most 16,384 bytes",
    ),
    (
        "POST",
        "/api/board",
        json.dumps({"board": "1 " * 3000}),
        None,
        400,
        "a board of 6,000 characters",
    ),
    ("POST", "/api/board", json.dumps({"board": 12345}), None, 400, "board must be a string"),
    (
        "POST",
        "/api/board",
        json.dumps({"board": "8672543_1", "rows": 99}),
        None,
        400,
        "9 tiles do not fill rows of 99",
    ),
    (
        "POST",
        "/api/board",
        json.dumps({"board": "8672543_1", "rows": True}),
        None,
        400,
        "rows must be a whole number",
    ),
    ("POST", "/api/board", json.dumps({"board": ""}), None, 400, "empty board"),
    (
        "POST",
        "/api/solve",
        json.dumps({"board": "8672543_1"}),
        None,
        400,
        "a request names its client",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "../x", "board": "8672543_1"}),
        None,
        400,
        "a request names its client",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "timeout": 1e9}),
        None,
        400,
        "the time-out must be above 0 and at most 60 seconds",
    ),
    (
        "POST",
        "/api/solve",
        '{"client": "c", "board": "8672543_1", "timeout": NaN}',
        None,
        400,
        "the time-out must be",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "timeout": -1}),
        None,
        400,
        "the time-out",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "max_nodes": 10**15}),
        None,
        400,
        "the node limit must be from 1 to",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "algorithm": "rm -rf"}),
        None,
        400,
        "unknown algorithm 'rm -rf'",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "pattern": "../../etc/passwd"}),
        None,
        400,
        "no partition is named '../../etc/passwd'",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "within": 0.5}),
        None,
        400,
        "within must be from 1 to 10",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "within": "x"}),
        None,
        400,
        "within must be a number",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "anytime": 1}),
        None,
        400,
        "anytime must be true or false",
    ),
    (
        "POST",
        "/api/solve",
        json.dumps({"client": "c", "board": "8672543_1", "anytime": True, "algorithm": "astar"}),
        None,
        400,
        "an answer with a proven bound is searched with IDA*",
    ),
    (
        "POST",
        "/api/random",
        json.dumps({"rows": 8, "cols": 6}),
        None,
        400,
        "a board is 2 to 7 rows and columns",
    ),
    (
        "POST",
        "/api/random",
        json.dumps({"moves": 10**7}),
        None,
        400,
        "a scramble is 0 to 1,000 moves",
    ),
    ("POST", "/api/stop", json.dumps({}), None, 400, "a request names its client"),
    ("GET", "/static/../../../etc/passwd", None, None, 404, "Not Found"),
    ("GET", "/static/secret.py", None, None, 404, "no such file: secret.py"),
    ("GET", "/etc/passwd", None, None, 404, "Not Found"),
    ("GET", "/api/solve", None, None, 405, "Method Not Allowed"),
    ("GET", "/api/info", None, {"Host": "evil.example"}, 400, "Invalid host header"),
]


@pytest.mark.parametrize(
    "method,path,body,headers,status,message", BAD, ids=[b[-1][:30] for b in BAD]
)
def test_bad_requests_get_one_line(web_server, method, path, body, headers, status, message):
    got, hdrs, data = web_server.request(method, path, body, headers)
    assert got == status, data
    text = data.decode()
    assert "Traceback" not in text and "root:" not in text
    if hdrs.get("content-type", "").startswith("application/json"):
        text = json.loads(text)["error"]
    assert text.startswith(message), text
    assert web_server.process.poll() is None


def test_a_pattern_that_is_not_built_says_how_to_build_it(web_server):
    events = web_server.events(
        "/api/solve", {"client": "nt", "board": KORF_1, "goal": "blank-first", "pattern": "7-8"}
    )
    assert events[-1]["event"] == "error" and "pdb build" in events[-1]["message"]


def test_another_address_is_said(tmp_path):
    server = start_server(tmp_path, "--host", "0.0.0.0")
    try:
        assert "every computer that can reach this one" in server.banner
        assert server.request("GET", "/api/info", headers={"Host": "my-laptop.local"})[0] == 200
    finally:
        stop_server(server)


def test_a_port_in_use_is_one_line(web_server):
    out = subprocess.run(
        [sys.executable, "-m", "solver.cli", "serve", "--port", str(web_server.port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert (
        out.stderr.strip()
        == f"error: cannot listen on 127.0.0.1:{web_server.port}: Address already in use"
    )


def test_stopping_a_busy_server_ends_its_searches_at_once_and_quietly(tmp_path):
    """Ctrl-C or SIGTERM stops every search first: the page's stream ends with its "stopped"
    event, and the server is gone within a second, with no traceback."""
    import signal

    from .web_server import start_server, stop_server

    server = start_server(tmp_path)
    try:
        res = long_search(server, "busy")
        t = time.monotonic()
        server.process.send_signal(signal.SIGINT)
        events = rest(res)
        server.process.wait(10)
        took = time.monotonic() - t
        err = server.process.stderr.read()
    finally:
        stop_server(server)
    assert events[-1]["event"] == "stopped" and events[-1]["lower_bound"] > 0
    assert took < 1.0, took
    assert "Traceback" not in err and "ERROR" not in err, err


def test_a_client_gone_before_its_request_body_leaves_no_traceback(tmp_path):
    import signal
    import socket

    from .web_server import start_server, stop_server

    server = start_server(tmp_path)
    try:
        for _ in range(3):
            with socket.create_connection((server.host, server.port)) as s:
                s.sendall(
                    b"POST /api/solve HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"board": '
                )
        assert server.post("/api/board", {"board": "8672543_1"})[0] == 200  # (still serving)
    finally:
        server.process.send_signal(signal.SIGINT)
        server.process.wait(10)
        err = server.process.stderr.read()
        stop_server(server)
    assert "Traceback" not in err and "ClientDisconnect" not in err, err
