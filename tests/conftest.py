import numpy as np
import pytest

from patterndb import Frame, Shape, make_goal
from patterndb.catalog import build_exact_file


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    """A data directory with the exact 2x3 and 3x3 tables (blank-first frame)."""
    d = tmp_path_factory.mktemp("tables")
    for shape in (Shape(2, 3), Shape(3, 3)):
        build_exact_file(Frame.for_goal(make_goal(shape, "blank-first")), d)
    return d


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
