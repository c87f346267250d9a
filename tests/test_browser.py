"""The page of `solver serve` in a real browser (Debian's Chromium, driven by Playwright): it
loads fast and from this server only, takes a typed board, solves it and plays the solution
to the goal, moves tiles by click and by arrow key, stops a long search within a second with
its lower bound, shows the command line's message for a bad board, and fills the compare view.
Screenshots of the main views are kept in tests/screenshots (or $PATTERNDB_SCREENSHOTS).

Chromium is a system package (scripts/setup.sh installs it where it can): without it these
tests fail, saying so, unless PATTERNDB_NO_BROWSER=1 asks to skip them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .instances import KORF_1

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SHOTS = Path(os.environ.get("PATTERNDB_SCREENSHOTS") or Path(__file__).parent / "screenshots")


def chromium() -> str:
    found = (
        os.environ.get("PATTERNDB_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if found is None:
        if os.environ.get("PATTERNDB_NO_BROWSER") == "1":
            pytest.skip("PATTERNDB_NO_BROWSER=1: the page's browser tests are skipped")
        pytest.fail(
            "Chromium is not installed: apt-get install chromium (scripts/setup.sh does as root), "
            "or set PATTERNDB_NO_BROWSER=1 to skip the page's browser tests"
        )
    return found


@pytest.fixture(scope="module")
def browser():
    path = chromium()
    # (the browser extra: scripts/setup.sh installs it)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, web_server):
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    pg = context.new_page()
    pg.errors = []
    pg.requests = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(web_server.url)
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    assert pg.errors == []
    context.close()


def shot(pg, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"))


def set_board(pg, text: str, goal: str = "blank-last") -> None:
    pg.fill("#board-text", text)
    pg.select_option("#goal", goal)
    pg.click("#set")


def cli_message(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "solver.cli", "solve", *args], capture_output=True, text=True
    )
    return out.stderr.strip().splitlines()[-1].removeprefix("error: ")


def test_the_page_loads_fast_and_from_this_server_only(page, web_server):
    took = page.evaluate(
        "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"
    )
    # (200 ms is the aim on an idle machine: the test leaves room for a busy one)
    assert 0 < took < 1000, took
    assert all(url.startswith((web_server.url, "data:")) for url in page.requests), page.requests
    assert page.get_attribute("#board", "data-tiles")
    shot(page, "start")


def test_a_typed_board_is_solved_and_played_to_the_goal(page):
    set_board(page, "8 6 7\n2 5 4\n3 _ 1")
    page.wait_for_function("document.querySelector('#board').dataset.tiles === '8 6 7 2 5 4 3 0 1'")
    page.click("#solve")
    page.wait_for_selector("#result:not([hidden])")
    assert page.get_attribute("#result", "data-length") == "31"
    assert "optimal" in page.text_content("#result")
    page.fill("#speed", "20")
    page.click("#play")
    page.wait_for_selector("#player[data-state=ended]", timeout=20000)
    assert page.get_attribute("#board", "data-solved") == "true"
    assert page.text_content("#step") == "move 31 of 31"
    page.click("#back")
    assert (
        page.get_attribute("#board", "data-solved") == "false"
        and page.text_content("#step") == "move 30 of 31"
    )
    page.click("#first")
    assert page.get_attribute("#board", "data-tiles") == "8 6 7 2 5 4 3 0 1"
    page.click("#moves-list li:nth-child(10)")
    assert page.text_content("#step") == "move 10 of 31"
    shot(page, "solved")


def test_tiles_move_by_click_and_by_arrow_key(page):
    page.select_option("#size", "3x3")
    page.click("#reset")
    page.wait_for_function("document.querySelector('#board').dataset.tiles === '1 2 3 4 5 6 7 8 0'")
    page.focus("#board")
    page.keyboard.press("ArrowRight")  # the tile left of the gap slides right
    assert page.get_attribute("#board", "data-tiles") == "1 2 3 4 5 6 7 0 8"
    page.keyboard.press("ArrowDown")
    assert page.get_attribute("#board", "data-tiles") == "1 2 3 4 0 6 7 5 8"
    page.click(".tile[data-tile='5']")
    page.click(".tile[data-tile='8']")
    assert page.get_attribute("#board", "data-tiles") == "1 2 3 4 5 6 7 8 0"
    assert page.get_attribute("#board", "data-solved") == "true"
    page.click(".tile[data-tile='1']")  # not next to the gap: nothing moves
    assert page.get_attribute("#board", "data-tiles") == "1 2 3 4 5 6 7 8 0"


def test_a_7x7_board_is_drawn_and_its_tiles_move(page):
    """The biggest board: 49 cells that fit the page, and tiles that slide as on 3x3."""
    page.select_option("#size", "7x7")
    page.click("#reset")
    goal = " ".join(map(str, [*range(1, 49), 0]))
    page.wait_for_function(f"document.querySelector('#board').dataset.tiles === '{goal}'")
    assert page.locator(".tile").count() >= 48
    box = page.locator("#board").bounding_box()
    assert box["width"] <= 1200 and box["height"] <= 820
    page.click(".tile[data-tile='48']")
    assert page.get_attribute("#board", "data-tiles").endswith("47 0 48")
    shot(page, "board-7x7")


def test_the_stop_button_ends_a_long_search_with_its_lower_bound(page):
    set_board(page, KORF_1, "blank-first")
    page.select_option("#algorithm", "idastar")
    page.select_option("#heuristic", "misplaced")
    page.click("#solve")
    page.wait_for_function(
        "document.querySelector('#status').textContent.includes('generated')", timeout=20000
    )
    shot(page, "searching")
    # (the time since the search began ticks, whatever the search says)
    ticked = page.text_content("#elapsed")
    page.wait_for_function(f"document.querySelector('#elapsed').textContent !== '{ticked}'")
    asked = time.monotonic()
    page.click("#stop")
    page.wait_for_selector("#result[data-lower-bound]")
    took = time.monotonic() - asked
    assert took < 1.0, took
    bound = int(page.get_attribute("#result", "data-lower-bound"))
    assert 0 < bound <= 57
    assert f"no solution is shorter than {bound} moves" in page.text_content("#result")
    assert page.is_enabled("#solve") and not page.is_enabled("#stop")
    assert page.text_content("#elapsed") == ""
    shot(page, "stopped")


def test_a_bad_board_shows_the_command_lines_message(page):
    """...and takes the last board's answer away, the board faded: it is not the one typed."""
    set_board(page, "8 6 7 2 5 4 3 _ 1")
    page.click("#solve")
    page.wait_for_selector("#result:not([hidden])")
    for args in (["1 2 3 4 5 6 7 8 8"], ["1 2 3 4 5 6 8 7 _"], ["1 2 3 4 5"]):
        expected = cli_message(*args)
        set_board(page, args[0])
        page.wait_for_function(
            "m => document.querySelector('#message').textContent === m", arg=expected
        )
        assert page.is_hidden("#result") and "stale" in page.get_attribute("#board", "class")
    shot(page, "bad-board")


def test_the_compare_view_fills_in(page):
    set_board(page, "8 6 7 2 5 4 3 _ 1")
    page.click(".tab[data-view=compare-view]")
    page.click("#compare")
    page.wait_for_selector("#compare-table[data-done=true]", timeout=60000)
    rows = page.query_selector_all("#compare-table tbody tr")
    assert len(rows) >= 9
    cells = [[td.text_content() for td in r.query_selector_all("td")] for r in rows]
    lengths = {(c[0], c[1]): c[2] for c in cells if len(c) == 7}
    assert lengths[("astar", "manhattan")] == lengths[("idastar", "linear-conflict")] == "31"
    # (greedy search proves nothing, whatever the length it finds)
    proven = {(c[0], c[1]): c[3] for c in cells if len(c) == 7}
    assert proven[("astar", "manhattan")] == "yes" and "not proven" in proven.values()
    assert page.text_content(".tab[data-view=solve-view]") == "Solution"
    assert page.text_content("#message") == ""
    shot(page, "compare")


def test_an_answer_within_10_percent_shows_its_bound_and_gap(page):
    set_board(page, KORF_1, "blank-first")
    page.select_option("#answer", "1.1")
    page.click("#solve")
    page.wait_for_selector("#result[data-gap]", timeout=60000)
    length, bound = (
        int(page.get_attribute("#result", "data-length")),
        int(page.get_attribute("#result", "data-bound")),
    )
    assert bound <= 57 <= length <= 1.1 * bound
    assert f"no solution is shorter than {bound}" in page.text_content("#result")
    shot(page, "within")


def test_a_15_puzzle_with_tables_answers_quickly(page):
    set_board(page, KORF_1, "blank-first")
    page.wait_for_function(f"document.querySelector('#board').dataset.tiles === '{KORF_1}'")
    started = time.monotonic()
    page.click("#solve")
    page.wait_for_selector("#result:not([hidden])")
    took = time.monotonic() - started
    assert page.get_attribute("#result", "data-length") == "57"
    assert "pdb-4x4" in page.text_content("#result")  # (the tables it used are named)
    assert took < 2.0, took  # (0.5 s is the aim with `best` tables on an idle machine)


def test_a_missed_target_is_said_and_not_shown_as_met(page):
    """A bounded answer stopped by its time limit before the gap asked for: its proof names
    what was missed, in the colour of a miss, not of "optimal"."""
    # (a random 35-puzzle: a first solution within a second or two, 5% out of reach in 8 s)
    page.select_option("#size", "6x6")
    page.click("#random")
    page.wait_for_function("document.querySelector('#board').dataset.tiles.split(' ').length == 36")
    page.select_option("#answer", "1.05")
    page.fill("#timeout", "8")
    page.click("#solve")
    page.wait_for_selector("#result:not([hidden])", timeout=60000)
    proof = page.locator("#result dd.missed")
    assert "the 5% asked for not reached" in proof.text_content()
    assert page.locator("#result dd.optimal").count() == 0
    shot(page, "within-missed")


def test_seven_rows_or_columns_can_be_set_and_scrambled(page):
    page.fill("#rows", "7")
    page.fill("#cols", "5")
    assert page.evaluate(
        "['rows', 'cols'].every(id => document.getElementById(id).checkValidity())"
    )
    board = " ".join(map(str, [*range(1, 35), 0]))
    page.fill("#board-text", board)
    page.click("#set")
    page.wait_for_function(f"document.querySelector('#board').dataset.tiles === '{board}'")
    assert page.locator(".tile").count() >= 34
    page.fill("#rows", "")
    page.fill("#cols", "")
    for size in ("5x7", "7x5"):
        page.select_option("#size", size)
        page.click("#random")
        page.wait_for_function(
            "document.querySelector('#board').dataset.tiles.split(' ').length == 35"
        )


def test_the_tables_row_names_three_files_and_counts_the_rest(page):
    assert page.evaluate("tableNames(['a', 'b', 'c'])") == "a, b, c"
    assert page.evaluate("tableNames(['a', 'b', 'c', 'd', 'e'])") == "5 files: a, b, c and 2 more"
    assert page.evaluate("tableNames([])") == "none"
