import os

import numpy as np
import pytest
from click.testing import CliRunner

from patterndb import Frame, Shape, make_goal
from patterndb.build.exact import UNREACHED
from patterndb.files.catalog import build_exact_file, build_pattern_file, load_exact
from patterndb.puzzle.patterns import parse_partition
from patterndb.puzzle.ranking import unrank_many


@pytest.fixture(scope="session", autouse=True)
def default_data_dir(tmp_path_factory):
    """The default data directory of every test (and of the commands they run): a fresh
    one, so that nothing is written into the checkout and no table of the user's is used."""
    d = tmp_path_factory.mktemp("default-data")
    old = os.environ.get("PATTERNDB_DATA")
    os.environ["PATTERNDB_DATA"] = str(d)
    yield d
    if old is None:
        os.environ.pop("PATTERNDB_DATA", None)
    else:
        os.environ["PATTERNDB_DATA"] = old


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    """A data directory with the exact 2x3 and 3x3 tables (blank-first frame)."""
    d = tmp_path_factory.mktemp("tables")
    for shape in (Shape(2, 3), Shape(3, 3)):
        build_exact_file(Frame.for_goal(make_goal(shape, "blank-first")), d)
    return d


@pytest.fixture(scope="session")
def pdb_dir(tmp_path_factory):
    """The 15-puzzle 5-5-5 tables, the exact 8-puzzle table and its 4-4 tables (blank-first frame)."""
    d = tmp_path_factory.mktemp("pdb")
    f4 = Frame.for_goal(make_goal(Shape(4, 4), "blank-first"))
    for tiles in parse_partition("5-5-5", f4):
        build_pattern_file(f4, tiles, d)
    f3 = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    build_exact_file(f3, d)
    for tiles in parse_partition("4-4", f3):
        build_pattern_file(f3, tiles, d)
    return d


@pytest.fixture
def table_file(tmp_path):
    """(frame, path) of a fresh exact 2x3 table (blank-last goal)."""
    frame = Frame.for_goal(make_goal(Shape(2, 3), "blank-last"))
    return frame, build_exact_file(frame, tmp_path)


@pytest.fixture
def run(data_dir):
    """Invoke a command in-process, its tables in the data_dir fixture's directory."""

    def _run(cmd, args, input=None):
        return CliRunner().invoke(
            cmd,
            [*args, "--data-dir", str(data_dir)]
            if args[0] in ("solve", "distance", "build", "list")
            else args,
            input=input,
        )

    return _run


@pytest.fixture(scope="session")
def web_server(pdb_dir, tmp_path_factory):
    """`solver serve` on a data directory of links to pdb_dir's tables (tests/web_server.py)."""
    from .web_server import start_server, stop_server

    data = tmp_path_factory.mktemp("web-data")
    for f in pdb_dir.glob("*.h5"):
        os.link(f, data / f.name)
    server = start_server(data)
    yield server
    stop_server(server)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def all_8puzzle_states(data_dir):
    """(frame, boards (181440, 9), exact distances) for the blank-first 8-puzzle."""
    frame = Frame.for_goal(make_goal(Shape(3, 3), "blank-first"))
    table = load_exact(frame, data_dir)
    ranks = np.flatnonzero(table != UNREACHED)
    pos = unrank_many(ranks, 9, 9)
    boards = np.empty_like(pos)
    np.put_along_axis(boards, pos, np.arange(9)[None, :].repeat(len(pos), 0), axis=1)
    return frame, boards, table[ranks].astype(np.int64)
