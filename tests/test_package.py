"""The project as a package: a wheel built from the checkout, installed into a fresh virtual
environment outside it, works on its own. Its tables go to the user's data directory (there is
no data/ beside an installed package), and it finds compiled kernels by their key.

The wheel is built as `pip wheel .` builds it (setuptools from the package index, in an
isolated environment); the fresh environment then takes the installed dependencies (numpy,
numba, h5py, click) from the test's own environment through a .pth file, and the project
itself only from the wheel."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin directory, environment for its commands, home) of a fresh venv holding only the wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--quiet",
            "--disable-pip-version-check",
            "-w",
            str(dist),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    wheels = list(dist.glob("patterndb-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--disable-pip-version-check",
            str(wheels[0]),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    home = tmp / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in ("PATTERNDB_DATA", "PATTERNDB_AOT", "XDG_DATA_HOME", "XDG_CACHE_HOME", "PYTHONPATH")
    }
    env |= {"HOME": str(home), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"}
    return venv / "bin", env, home


def run(installed, *args, env=None):
    bindir, base, home = installed
    return subprocess.run(
        [str(bindir / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        cwd=home,
        env=base | (env or {}),
        timeout=600,
    )


def test_the_wheel_runs_outside_the_checkout_and_keeps_tables_in_the_users_data_directory(
    installed,
):
    bindir, _, home = installed
    where = run(
        installed,
        "python",
        "-c",
        "import patterndb, solver; print(patterndb.__file__, solver.__file__)",
    )
    assert (
        where.returncode == 0 and str(ROOT) not in where.stdout and "site-packages" in where.stdout
    ), where
    r = run(installed, "pdb", "build", "--size", "3", "--quiet")
    assert r.returncode == 0, r.stderr
    data = home / ".local" / "share" / "patterndb"
    assert [p.name for p in data.glob("exact-*.h5")], list(home.rglob("*"))
    listed = run(installed, "pdb", "list")
    assert (
        listed.returncode == 0 and f"tables in {data} (the user's data directory)" in listed.stderr
    ), listed
    assert "exact" in listed.stdout
    solved = run(installed, "solver", "solve", "8672543_1")
    assert solved.returncode == 0 and solved.stdout.startswith("length: 31  optimal"), solved
    other = home / "xdg"
    r = run(installed, "pdb", "build", "--size", "3", "--quiet", env={"XDG_DATA_HOME": str(other)})
    # the platform's variable
    assert r.returncode == 0 and list((other / "patterndb").glob("exact-*.h5")), r.stderr
    assert (
        run(installed, "pdb", "--version").stdout.split()[-1] == __import__("patterndb").__version__
    )


def test_the_installed_package_serves_its_page(installed):
    """The page's files travel in the wheel (package data), and the page answers from the installed package."""
    code = (
        "import json, subprocess, sys, time, urllib.request\n"
        "p = subprocess.Popen(['solver', 'serve', '--port', '0'], stderr=subprocess.PIPE, text=True)\n"
        "url = p.stderr.readline().split()[1]\n"
        "try:\n"
        "    page = urllib.request.urlopen(url, timeout=30).read().decode()\n"
        "    script = urllib.request.urlopen(url + 'static/app.js', timeout=30).read().decode()\n"
        "    print('solve' in page and 'getReader' in script, url)\n"
        "finally:\n"
        "    p.terminate()\n"
    )
    served = run(installed, "python", "-c", code)
    assert served.returncode == 0 and served.stdout.startswith("True http://127.0.0.1:"), served


def test_the_installed_package_finds_compiled_kernels_by_their_key(installed):
    """The key is over the sources, not where they lie: kernels compiled for this checkout serve
    the same sources installed elsewhere (here through PATTERNDB_AOT)."""
    from solver.search import aot

    aot.kernels()
    if not aot.origin.startswith("aot"):
        pytest.skip("this checkout's kernels are not compiled (scripts/setup.sh compiles them)")
    so = Path(aot.origin.split(maxsplit=1)[1])
    r = run(installed, "solver", "compile", "--check", env={"PATTERNDB_AOT": str(so.parent)})
    assert r.returncode == 0 and r.stdout.startswith(f"aot {so}"), r.stdout + r.stderr
    r = run(installed, "solver", "compile", "--check")  # its own place: none compiled there yet
    assert r.returncode == 3 and r.stdout.startswith("jit"), r.stdout + r.stderr


@pytest.mark.slow
def test_solver_compile_in_the_installed_package(installed):
    """About a minute and a half on 2 cores: the wheel compiles its own kernels and uses them."""
    r = run(installed, "solver", "compile")
    assert r.returncode == 0, r.stderr
    r = run(installed, "solver", "compile", "--check")
    assert r.returncode == 0 and r.stdout.startswith("aot"), r.stdout + r.stderr
    solved = run(installed, "solver", "solve", "8672543_1", "--json")
    assert solved.returncode == 0 and '"kernels": "aot"' in solved.stdout, solved


def test_a_checkout_keeps_its_tables_in_its_own_data_directory(monkeypatch):
    """Run from the source checkout (no $PATTERNDB_DATA), tables go to its data/."""
    from pathlib import Path

    from patterndb.files.datadir import ENV_VAR, checkout_data_dir, data_dir_and_source

    root = Path(__file__).resolve().parent.parent
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert checkout_data_dir() == root / "data"
    assert data_dir_and_source(None)[0] == root / "data"
