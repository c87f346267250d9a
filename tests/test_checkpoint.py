"""Checkpoints are checked before they are believed: damage, forgery the search can see through,
wrong shapes, unwritable places. Each case is a real file and a real search."""

import json
import shutil

import pytest
from click.testing import CliRunner

from solver import solve
from solver.api import Control
from solver.cli.commands import main as solver_cli
from solver.ida.checkpoint import CheckpointError, digest
from solver.solution import SearchStopped

from .instances import korf

BOARD, LENGTH = korf(2)  # Korf #3, 59 moves


@pytest.fixture(scope="module")
def checkpoints(pdb_dir, tmp_path_factory):
    """(kw, the whole search, a checkpoint stopped inside a split iteration, a solved one)."""
    d = tmp_path_factory.mktemp("ck")
    kw = dict(goal="blank-first", pattern="5-5-5", data_dir=pdb_dir, jobs=1)
    whole = solve(BOARD, **kw, control=Control(split_nodes=0))
    mid = d / "mid.json"
    with pytest.raises(SearchStopped):
        solve(
            BOARD,
            **kw,
            max_nodes=whole.nodes_expanded // 2,
            control=Control(split_nodes=0, checkpoint=mid),
        )
    solved = d / "solved.json"
    solve(BOARD, **kw, checkpoint=solved)
    return kw, whole, json.loads(mid.read_text()), json.loads(solved.read_text())


def write(path, data, redigest=True):
    if redigest and isinstance(data, dict):
        data["digest"] = digest(data)
    path.write_text(json.dumps(data))
    return path


def resume(kw, path):
    return solve(BOARD, **kw, control=Control(split_nodes=0, checkpoint=path))


def test_a_flipped_bit_is_refused_as_damage(checkpoints, tmp_path):
    kw, _, mid, _ = checkpoints
    forged = json.loads(json.dumps(mid))
    forged["state"]["bound"] += 20  # 59 -> 79: a bound no search reached
    with pytest.raises(CheckpointError, match=r"damaged \(its digest"):
        resume(kw, write(tmp_path / "c.json", forged, redigest=False))


def test_a_forged_bound_with_a_new_digest_is_refused(checkpoints, tmp_path):
    kw, _, mid, _ = checkpoints
    for bump in (4, 20):
        forged = json.loads(json.dumps(mid))
        forged["state"]["bound"] += bump
        forged["state"]["done"] = forged["state"]["sizes"] = None  # look like a fresh iteration
        forged["state"]["subtrees"] = forged["state"]["subtrees_done"] = None
        forged["state"]["expanded"] = forged["state"]["generated"] = 0
        with pytest.raises(CheckpointError, match="inconsistent.*the bound is"):
            resume(kw, write(tmp_path / "c.json", forged))
    forged = json.loads(json.dumps(mid))
    forged["state"]["iterations"][0]["bound"] += 2  # the first bound is h(root)
    with pytest.raises(CheckpointError, match="iteration 1 has bound"):
        resume(kw, write(tmp_path / "c.json", forged))


def test_a_longer_stored_solution_is_refused(checkpoints, tmp_path):
    kw, _, _, solved = checkpoints
    forged = json.loads(json.dumps(solved))
    sol = forged["solution"]
    forged["solution"] = sol[:3] + [sol[2 - 1], sol[2]] + sol[3:]  # a back-and-forth pair: 61 moves
    with pytest.raises(CheckpointError, match="inconsistent.*61 moves found at bound 59"):
        resume(kw, write(tmp_path / "c.json", forged))
    forged["state"]["bound"] += 2
    forged["state"]["iterations"][-1]["bound"] += 2  # and its bound to match
    with pytest.raises(CheckpointError, match="inconsistent"):
        resume(kw, write(tmp_path / "c.json", forged))
    forged["state"]["iterations"][-2]["next_f"] += 2  # the chain too: only the replay can tell
    with pytest.raises(CheckpointError, match="visits a board twice"):
        resume(kw, write(tmp_path / "c.json", forged))


def test_an_honest_checkpoint_resumes_and_says_so(checkpoints, tmp_path):
    kw, whole, mid, solved = checkpoints
    logged = []
    path = write(tmp_path / "c.json", json.loads(json.dumps(mid)), redigest=False)
    sol = solve(BOARD, **kw, control=Control(split_nodes=0, checkpoint=path, log=logged.append))
    assert sol.length == LENGTH and sol.nodes_expanded == whole.nodes_expanded
    s = mid["state"]
    assert sol.resumed_from == {
        "path": str(path),
        "bound": s["bound"],
        "iterations": len(s["iterations"]),
        "subtrees_done": s["subtrees_done"],
        "subtrees": s["subtrees"],
        "solved": False,
        "pieces_done": 0,
    }
    assert sol.to_dict()["resumed_from"]["bound"] == s["bound"]
    assert logged == [
        f"resuming from checkpoint {path}: bound {s['bound']}, {s['subtrees_done']:,} of "
        f"{s['subtrees']:,} subtrees done ({len(s['iterations'])} iterations finished)"
    ]
    again = solve(BOARD, **kw, checkpoint=path)
    assert again.length == LENGTH and again.resumed_from["solved"] is True


WRONG_SHAPES = {
    "a list": [],
    "null": None,
    "search a list": {"version": 2, "search": []},
    "no state": "DROP state",
    "state a string": "SET state 'x'",
    "bound 2**70": "SET bound 2**70",
    "bound a string": "SET bound '59'",
    "iterations not a list": "SET iterations 3",
    "an iteration without fields": "SET iterations [{}]",
    "a changed subtree count": "SET subtrees 17",
    "done not base64": "SET done '***'",
    "sizes of another frontier": "SET sizes 'AAAAAAAAAAA='",
    "prior sizes of another frontier": "SET prior_sizes 'AAAAAAAAAAA='",
    "a negative count": "SET expanded -5",
    "solution of strings": "SET solution ['a']",
}


@pytest.mark.parametrize("case", WRONG_SHAPES)
def test_valid_json_of_the_wrong_shape_is_one_line_not_a_traceback(checkpoints, tmp_path, case):
    kw, _, mid, _ = checkpoints
    how = WRONG_SHAPES[case]
    data = json.loads(json.dumps(mid))
    if isinstance(how, str) and how.startswith("DROP"):
        del data[how.split()[1]]
    elif isinstance(how, str):
        _, key, value = how.split(" ", 2)
        (data if key in ("solution",) else data["state"] if key != "state" else data)[key] = eval(
            value
        )
    else:
        data = how
    path = write(tmp_path / "c.json", data)
    with pytest.raises(CheckpointError, match=f"checkpoint {path}"):
        resume(kw, path)
    r = CliRunner().invoke(
        solver_cli,
        [
            "solve",
            BOARD,
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5",
            "--data-dir",
            str(kw["data_dir"]),
            "--checkpoint",
            str(path),
            "-q",
        ],
    )
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and r.output.count("\n") <= 2, r.output


def test_a_checkpoint_in_a_missing_directory_is_refused_before_the_search(pdb_dir, tmp_path):
    path = tmp_path / "gone" / "c.json"
    r = CliRunner().invoke(
        solver_cli,
        [
            "solve",
            BOARD,
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5",
            "--data-dir",
            str(pdb_dir),
            "--checkpoint",
            str(path),
            "--json",
        ],
    )
    assert r.exit_code == 2 and f"cannot write checkpoint {path}: directory" in r.stderr
    assert json.loads(r.stdout)["exit_status"] == 2  # (with --json, the error is an object too)


def test_a_failing_save_warns_once_and_the_search_goes_on(pdb_dir, tmp_path):
    """The directory disappears during the search (as a full disk would fail the writes):
    one warning, the search finishes, and its answer is still optimal."""
    d = tmp_path / "ck"
    d.mkdir()
    logged = []

    class RemoveDirAfterFirstIteration:
        def iteration_started(self, *a):
            pass

        def subtrees_done(self, *a):
            pass

        def iteration_finished(self, state, it):
            shutil.rmtree(d, ignore_errors=True)

    sol = solve(
        BOARD,
        goal="blank-first",
        pattern="5-5-5",
        data_dir=pdb_dir,
        jobs=1,
        control=Control(
            split_nodes=0,
            checkpoint=d / "c.json",
            checkpoint_every=0,
            log=logged.append,
            listener=RemoveDirAfterFirstIteration(),
        ),
    )
    assert sol.length == LENGTH and sol.optimal
    assert len(logged) == 1 and logged[0].startswith(
        f"warning: cannot save checkpoint {d / 'c.json'}"
    )


def test_kept_pieces_are_checked_like_the_rest(checkpoints, tmp_path):
    """The finished pieces of unfinished subtrees (state.partial) are believed only for a
    subtree of this iteration not yet done, with as many flags as pieces, some done and some
    not, and a next f over the bound; a well-formed entry this cut does not have (one thread
    cuts nothing) is searched whole again, to the uninterrupted counts."""
    import base64

    import numpy as np

    kw, whole, mid, _ = checkpoints
    s = mid["state"]
    done = np.unpackbits(np.frombuffer(base64.b64decode(s["done"]), np.uint8))[
        : s["subtrees"]
    ].astype(bool)
    todo, finished = int(np.flatnonzero(~done)[0]), int(np.flatnonzero(done)[0])
    flags = lambda *bits: base64.b64encode(np.packbits(np.array(bits, bool)).tobytes()).decode()
    entry = {
        "pieces": 3,
        "digest": "0123456789abcdef",
        "done": flags(1, 0, 1),
        "expanded": 1000,
        "generated": 2500,
        "next_f": s["bound"] + 2,
    }
    cases = [
        ({str(finished): entry}, "inconsistent.*subtree .* which is done"),
        ({str(s["subtrees"]): entry}, "inconsistent.*not in this iteration"),
        ({str(todo): {**entry, "done": flags(1, 1, 1)}}, r"damaged.*3 of 3 pieces done"),
        ({str(todo): {**entry, "pieces": 9}}, r"damaged.*8 bits for 9 pieces"),
        ({str(todo): {**entry, "next_f": s["bound"]}}, "inconsistent.*at most the bound"),
        ({str(todo): {**entry, "digest": "no"}}, "damaged.*digest is 'no'"),
        ({"x": entry}, "damaged.*not a subtree's pieces"),
    ]
    for partial, message in cases:
        forged = json.loads(json.dumps(mid))
        forged["state"]["partial"] = partial
        with pytest.raises(CheckpointError, match=message):
            resume(kw, write(tmp_path / "c.json", forged))
    forged = json.loads(json.dumps(mid))
    forged["state"]["partial"] = {str(todo): entry}
    sol = resume(kw, write(tmp_path / "c.json", forged))
    assert sol.length == LENGTH and sol.nodes_expanded == whole.nodes_expanded
    assert sol.resumed_from["pieces_done"] == 2


def test_an_answer_from_a_checkpoint_says_its_counts_are_the_saved_searchs(tmp_path):
    args = ["solve", "5 1 3 4 9 2 7 8 0 6 11 12 13 10 14 15", "-H", "manhattan", "-j", "1"]
    args += ["--checkpoint", str(tmp_path / "c.ckpt")]
    first = CliRunner().invoke(solver_cli, args)
    assert first.exit_code == 0 and "this run" not in first.output, first.output
    again = CliRunner().invoke(solver_cli, args)
    assert again.exit_code == 0 and "answered from checkpoint" in again.output
    assert "generated over every run of the checkpoint" in again.output
    assert "s this run" in again.output
