"""The ahead-of-time compiled kernels (solver/search/aot.py) and the deferred numba names
(patterndb/jit.py): same answers and node counts as the JIT kernels, a cold solve that
never imports numba, and every stale, foreign or broken extension ignored."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from patterndb import jit
from solver import solve
from solver.api import Control
from solver.compile_kernels import build
from solver.search import aot

from .instances import KORF_12, KORF_12_LENGTH, korf


@pytest.fixture(scope="module")
def aot_dir(tmp_path_factory):
    """A directory holding the extension of this checkout: the one scripts/setup.sh built when
    it is current, else one built now (about 15-60 s)."""
    pytest.importorskip(
        "numba.pycc", reason="this numba has no ahead-of-time compiler: solve uses its JIT"
    )
    aot.reset()
    aot.kernels()
    if aot.origin.startswith("aot"):
        d = Path(aot.origin.split(" ", 1)[1]).parent
    else:
        d = tmp_path_factory.mktemp("aot")
        build(d)
    aot.reset()
    return d


@pytest.fixture
def use(monkeypatch):
    """use(setting): PATTERNDB_AOT for the next kernels() (a directory, or "off")."""

    def set_to(value) -> None:
        monkeypatch.setenv("PATTERNDB_AOT", str(value))
        aot.reset()

    yield set_to
    aot.reset()


def _counts(sol):
    return (
        sol.length,
        sol.nodes_expanded,
        sol.nodes_generated,
        [(it["bound"], it["expanded"], it["generated"]) for it in sol.iterations],
    )


def test_compiled_kernels_are_used_and_give_the_jit_counts(aot_dir, use, pdb_dir):
    cases = [(korf(i)[0], dict(data_dir=pdb_dir, pattern="5-5-5")) for i in (0, 2, 7)]
    cases.append((korf(7)[0], dict(data_dir=pdb_dir, pattern="5-5-5", reflect=False)))
    cases.append(("8 6 7 2 5 4 3 0 1", dict(algorithm="idastar", heuristic="linear-conflict")))
    cases.append(("8 6 7 2 5 4 3 0 1", dict(data_dir=pdb_dir)))  # the walk down the exact table
    cases.append(("8 6 7 2 5 4 3 0 1", dict(data_dir=pdb_dir, algorithm="idastar", pattern="4-4")))
    for board, kw in cases:
        use(aot_dir)
        fast = solve(board, goal="blank-first", jobs=1, **kw)
        assert aot.origin.startswith("aot"), aot.origin
        assert all(f.misses == 0 for f in vars(aot.kernels()).values())
        use("off")
        slow = solve(board, goal="blank-first", jobs=1, **kw)
        assert aot.origin == "jit"
        assert _counts(fast) == _counts(slow), (board, kw)
        assert fast.moves == slow.moves


def test_split_iterations_on_two_threads_give_the_serial_counts(aot_dir, use):
    board = KORF_12
    use("off")
    serial = solve(board, goal="blank-first", algorithm="idastar", heuristic="manhattan", jobs=1)
    use(aot_dir)
    split = solve(
        board,
        goal="blank-first",
        algorithm="idastar",
        heuristic="manhattan",
        jobs=2,
        control=Control(split_nodes=1),
    )
    assert aot.origin.startswith("aot")
    assert split.length == serial.length == KORF_12_LENGTH
    assert [it["subtrees"] > 1 for it in split.iterations][1:] == [True] * (
        len(split.iterations) - 1
    )
    # Every iteration but the last (which stops at the first solution any thread finds) is complete.
    assert [(it["bound"], it["expanded"]) for it in split.iterations[:-1]] == [
        (it["bound"], it["expanded"]) for it in serial.iterations[:-1]
    ]


def test_a_call_with_other_argument_types_goes_to_the_jit_kernel(aot_dir, use):
    use(aot_dir)
    k = aot.kernels()
    assert k.next_bound(7, 0) == 8 and k.next_bound.misses == 0
    from patterndb import Frame, Shape, make_goal
    from solver.heuristics import manhattan

    goal = Frame.for_goal(make_goal(Shape(4, 4), "blank-first")).canonical_goal
    tiles = goal.tiles.astype(np.int64)
    tiles[[0, 1]] = tiles[[1, 0]]  # the blank one move from its cell: h 1, odd lengths
    goal32 = goal.tiles.astype(np.int32)  # compiled for int64: must not be reinterpreted
    H = manhattan(goal).H
    assert tuple(k.root_bound(tiles, goal32, H)) == (1, 1) and k.root_bound.misses == 1
    assert (
        tuple(k.root_bound(tiles, goal32.astype(np.int64), H)) == (1, 1)
        and k.root_bound.misses == 1
    )


COLD = (
    "import sys\n"
    "from solver.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as e:\n"
    "    assert e.code in (0, None), e.code\n"
    "assert 'numba' not in sys.modules, 'numba was imported'\n"
)


@pytest.mark.parametrize(
    "args, length",
    [
        # IDA*
        (["1 2 3 0 4 5 6 7 8 9 10 11 12 13 14 15", "--heuristic", "manhattan", "--prune", "2"], 3),
        (["1 2 0 3 4 5", "--rows", "2", "--cols", "3"], 2),  # the walk down an exact table
    ],
)
def test_a_cold_solve_never_imports_numba(aot_dir, tmp_path, args, length):
    env = {**os.environ, "PATTERNDB_AOT": str(aot_dir), "PATTERNDB_DATA": str(tmp_path)}
    solve_args = ["solve", *args, "--goal", "blank-first", "--json"]
    if "--rows" in args:  # the table, built and checked once by earlier processes (those use numba)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "patterndb.cli",
                "build",
                "--rows",
                "2",
                "--cols",
                "3",
                "--goal",
                "blank-first",
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        table = next(tmp_path.glob("exact-*.h5"))
        # old enough for its check to be remembered
        os.utime(table, (table.stat().st_mtime - 60,) * 2)
        subprocess.run(
            [sys.executable, "-m", "solver.cli", *solve_args],
            env=env,
            check=True,
            capture_output=True,
        )
    out = subprocess.run(
        [sys.executable, "-c", COLD, *solve_args], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["length"] == length


def test_solver_distance_cold_never_imports_numba(aot_dir, tmp_path):
    env = {**os.environ, "PATTERNDB_AOT": str(aot_dir), "PATTERNDB_DATA": str(tmp_path)}
    subprocess.run(
        [sys.executable, "-m", "patterndb.cli", "build", "--rows", "2", "--cols", "3"],
        env=env,
        check=True,
        capture_output=True,
    )
    table = next(tmp_path.glob("exact-*.h5"))
    os.utime(table, (table.stat().st_mtime - 60,) * 2)  # old enough for its check to be remembered
    distance = ["distance", "1 2 3 4 0 5", "--rows", "2"]
    subprocess.run(
        [sys.executable, "-m", "solver.cli", *distance], env=env, check=True, capture_output=True
    )
    out = subprocess.run(
        [sys.executable, "-c", COLD, *distance], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"


def test_compile_check_says_which_kernels_solve_uses(aot_dir, tmp_path):
    env = {**os.environ, "PATTERNDB_AOT": str(aot_dir)}
    check = subprocess.run(
        [sys.executable, "-m", "solver.cli", "compile", "--check"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert check.returncode == 0 and check.stdout.startswith("aot "), check.stdout + check.stderr
    off = subprocess.run(
        [sys.executable, "-m", "solver.cli", "compile", "--check"],
        capture_output=True,
        text=True,
        env={**env, "PATTERNDB_AOT": "off"},
    )
    assert off.returncode == 3 and off.stdout.strip() == "jit"


NO_PYCC = """
import sys
class NoPycc:
    def find_spec(self, name, path=None, target=None):
        if name == "numba.pycc" or name.startswith("numba.pycc."):
            raise ModuleNotFoundError("No module named 'numba.pycc'")
sys.meta_path.insert(0, NoPycc())
from solver.cli import main
main()
"""


def test_a_numba_without_pycc_is_one_line_and_solve_still_runs(tmp_path):
    """numba marks pycc as pending deprecation: where it is gone, compile says so in one line
    (exit 3, nothing written) and solve runs on the JIT kernels with the same answer."""
    env = {**os.environ, "PATTERNDB_AOT": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-c", NO_PYCC, "compile"], capture_output=True, text=True, env=env
    )
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 3 and "Traceback" not in run.stderr, run.stderr
    assert lines[-1].startswith("error: cannot compile the kernels (ModuleNotFoundError)"), lines
    assert not list(tmp_path.glob(aot.PREFIX + "*"))
    solved = subprocess.run(
        [
            sys.executable,
            "-c",
            NO_PYCC,
            "solve",
            "1 2 3 4 5 6 7 8 0",
            "--goal",
            "blank-first",
            "--algorithm",
            "idastar",
            "--heuristic",
            "manhattan",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert solved.returncode == 0 and "length: 22  optimal" in solved.stdout, (
        solved.stdout + solved.stderr
    )


def _copy_as(src_dir: Path, dst_dir: Path) -> tuple[Path, Path]:
    dst_dir.mkdir()
    so = next(src_dir.glob(aot.PREFIX + "*.so"))
    meta = so.with_name(so.name.split(".")[0] + ".json")
    return Path(shutil.copy(so, dst_dir)), Path(shutil.copy(meta, dst_dir))


def test_stale_half_written_and_broken_extensions_are_ignored(aot_dir, use, tmp_path, monkeypatch):
    half = tmp_path / "half"
    so, meta = _copy_as(aot_dir, half)
    meta.unlink()  # the .json is written last: without it the pair is incomplete
    use(half)
    aot.kernels()
    assert aot.origin == "jit"

    broken = tmp_path / "broken"
    so, meta = _copy_as(aot_dir, broken)
    so.write_bytes(so.read_bytes()[:4096])  # truncated: loading it would be a SIGBUS
    use(broken)
    aot.kernels()
    assert aot.origin == "jit"
    data = bytearray(shutil.copy(next(aot_dir.glob(aot.PREFIX + "*.so")), so) and so.read_bytes())
    data[len(data) // 2] ^= 1  # one bit flipped
    so.write_bytes(bytes(data))
    aot.reset()
    aot.kernels()
    assert aot.origin == "jit"

    use(aot_dir)
    # the sources changed since the build
    monkeypatch.setattr(aot, "key", lambda: "0123456789abcdef")
    aot.kernels()
    assert aot.origin == "jit"


def test_an_extension_opened_by_path_serves_the_search_and_a_damaged_one_is_refused(
    aot_dir, use, tmp_path
):
    """aot.open_extension (two builds can be compared side by side): the exports of one
    file, checked as the registry checks them; a truncated file is a ValueError, not a SIGBUS."""
    use("off")
    so = next(aot_dir.glob(aot.PREFIX + "*.so"))
    k = aot.open_extension(so)
    board = KORF_12
    with aot.serving(k):
        fast = solve(board, goal="blank-first", jobs=1, algorithm="idastar", heuristic="manhattan")
    assert k.search_root.misses == 0 and k.search_root.compiled is not k.search_root.jit
    slow = solve(board, goal="blank-first", jobs=1, algorithm="idastar", heuristic="manhattan")
    assert _counts(fast) == _counts(slow)
    broken = tmp_path / so.name
    broken.write_bytes(so.read_bytes()[:4096])
    shutil.copy(so.with_name(so.name.split(".")[0] + ".json"), tmp_path)
    with pytest.raises(ValueError, match="damaged"):
        aot.open_extension(broken)


def test_deferred_kernels_become_numba_dispatchers_everywhere():
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import solver.search.subtrees as st, solver.search.heuristic as hk, patterndb.puzzle.ranking as rk\n"
        "assert 'numba' not in sys.modules\n"
        "assert type(st.slide).__name__ == 'Deferred'\n"
        "r = rk.rank(np.array([3, 0, 1], dtype=np.int64), 3, 4)\n"
        "assert 'numba' in sys.modules\n"
        "from numba.core.dispatcher import Dispatcher\n"
        "for f in (st.slide, st.search_subtrees, hk.h_full, rk.rank, st.dfs_pdb):\n"
        "    assert isinstance(f, Dispatcher), f\n"
        "print(r)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PATTERNDB_AOT": "off"},
    )
    assert out.returncode == 0, out.stderr


def _jitcheck(tmp_path: Path) -> tuple[Path, dict]:
    """A throwaway package jitcheck beside a copy of patterndb (so that the checkout's own
    cache is left alone): caller.twice() calls callee.value(), each a cached kernel in its
    own module. (its directory, the environment to run it in)"""
    shutil.copytree(
        Path(jit.__file__).parent,
        tmp_path / "patterndb",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    pkg = tmp_path / "jitcheck"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "callee.py").write_text(
        "from patterndb.jit import njit\n\n\n@njit(cache=True)\ndef value():\n    return 1\n"
    )
    (pkg / "caller.py").write_text(
        "from patterndb.jit import njit\n\nfrom .callee import value\n\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path)
    return pkg, env


def test_the_jit_cache_follows_an_edit_of_a_called_kernel(tmp_path):
    """numba caches a kernel keyed on its own file; one that calls a kernel of another module
    kept the callee's old code after an edit. patterndb.jit keys the cache on all the sources
    of the packages that define kernels, so the edit is seen (here: a throwaway package, with
    a copy of patterndb, so that the checkout's own cache is left alone)."""
    pkg, env = _jitcheck(tmp_path)

    def run() -> str:
        out = subprocess.run(
            [sys.executable, "-c", "from jitcheck.caller import twice; print(twice())"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run() == "2"
    assert run() == "2"  # (from the cache)
    (pkg / "callee.py").write_text((pkg / "callee.py").read_text().replace("return 1", "return 5"))
    assert run() == "10"
    caches = list((tmp_path / "jitcheck" / "__pycache__").glob("numba-*"))
    assert [c.name.split("-")[1] for c in caches] == ["jitcheck+patterndb"]  # the older one removed


def test_the_jit_cache_follows_an_edit_when_numba_was_loaded_by_another_package_first(tmp_path):
    """The same, where the process ran a kernel of patterndb before it imported the package
    (as the tests and the tools do): the package's kernels, made after numba was loaded,
    were cached under a name hashed from patterndb's sources alone, so after an edit of the
    package they ran the callee's old code from the cache."""
    pkg, env = _jitcheck(tmp_path)
    first = "from patterndb.bits import popcount; import numpy as np; popcount(np.uint64(3)); "

    def run() -> str:
        out = subprocess.run(
            [sys.executable, "-c", first + "from jitcheck.caller import twice; print(twice())"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run() == "2"
    assert run() == "2"
    (pkg / "callee.py").write_text((pkg / "callee.py").read_text().replace("return 1", "return 5"))
    assert run() == "10"


def test_a_kernel_of_patterndb_is_cached_in_one_place_whatever_else_the_process_imported(tmp_path):
    """patterndb's kernels call only patterndb's, so they are cached under patterndb's sources
    alone: a process that also imported another package with kernels (the test run, a
    `solver` command) and a `pdb` command find each other's compiled code. Cached under every
    loaded package's sources, they would be compiled once per kind of process."""
    _, env = _jitcheck(tmp_path)
    show = (
        "from patterndb.bits import popcount; import numpy as np; popcount(np.uint64(3)); "
        "print(popcount.stats.cache_hits and 'hit' or 'miss', popcount._cache.cache_path)"
    )

    def run(first: str) -> list[str]:
        out = subprocess.run(
            [sys.executable, "-c", first + show],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    # (its kernels made with patterndb's when numba is loaded)
    mixed = run("import jitcheck.caller; ")
    alone = run("")
    assert mixed[0] == "miss" and alone == ["hit", mixed[1]]
    assert Path(mixed[1]).parent.name.startswith("numba-patterndb-")
