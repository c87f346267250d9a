"""Real signals to a real `solver` process: Ctrl-C, SIGTERM, kill -9 with a checkpoint."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .instances import korf

SOLVER = [sys.executable, "-c", "from solver.cli import main; main()"]


def start(*args, **kw):
    return subprocess.Popen(
        [*SOLVER, "solve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        **kw,
    )


def wait_for(pred, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def wait_until_searching(proc, seconds=2.0):
    """Let the search itself run a while (startup excluded: 'using ...' is printed just before it;
    a first use may say before it that it builds the move-pruning machine)."""
    line = proc.stderr.readline()
    while line.startswith("building"):
        line = proc.stderr.readline()
    assert line.startswith("using idastar"), line
    time.sleep(seconds)
    assert proc.poll() is None, "the search ended before the signal"


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_within_a_second_with_a_valid_json_answer(sig, code):
    # Korf #3 with Manhattan: 241 M expansions, minutes; stopped after 2 s of search.
    p = start(korf(2)[0], "--goal", "blank-first", "-H", "manhattan", "-j", "2", "--json")
    wait_until_searching(p)
    t = time.monotonic()
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - t < 1.0, "took too long to stop"
    assert p.returncode == code, err
    d = json.loads(out)
    assert d["optimal"] is False and d["interrupted"] is True and 41 <= d["lower_bound"] <= 59
    assert d["nodes_expanded"] > 0 and d["reason"] == (
        "interrupted" if sig == signal.SIGINT else "terminated"
    )
    assert f"no solution is shorter than {d['lower_bound']} moves" in err


@pytest.mark.parametrize("group", [False, True], ids=["to-solver", "to-the-process-group"])
def test_ctrl_c_on_a_local_dask_cluster_stops_within_a_second(group):
    """With --scheduler local:2, Ctrl-C ends the search within a second, as the README says.
    Sent to the solver alone, and to its whole process group as a terminal's
    Ctrl-C is (the Dask worker processes get it too, and print nothing),
    once the iterations have gone out to the workers (Manhattan on Korf #3: minutes)."""
    p = start(
        korf(2)[0],
        "--goal",
        "blank-first",
        "-H",
        "manhattan",
        "--scheduler",
        "local:2",
        "--json",
        start_new_session=True,
    )
    seen = []
    # 18 M nodes done; 57 has begun on the workers
    while not (seen and seen[-1].startswith("bound 55:")):
        seen.append(p.stderr.readline())
        assert seen[-1], seen
    time.sleep(1.0)
    assert p.poll() is None, "the search ended before the signal"
    t = time.monotonic()
    if group:
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    took = time.monotonic() - t
    assert p.returncode == 130, err
    d = json.loads(out)
    assert d["interrupted"] is True and d["optimal"] is False and d["nodes_expanded"] > 0
    assert d["iterations"][-1]["bound"] > d["iterations"][0]["bound"], d["iterations"]
    assert took < 1.5, f"took {took:.2f} s to stop"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_ctrl_c_in_a_batch_cancels_the_queue_and_prints_what_finished(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text(f"{korf(1)[0]} 55\n{korf(2)[0]} 59\n{korf(2)[0]} 59\n{korf(2)[0]} 59\n")
    p = start("--file", str(f), "--goal", "blank-first", "-H", "manhattan", "-j", "2")
    # the header and #1 (6 M expansions; a fixed 4 s sleep was too short on a slow VM): the
    # #2s run for minutes
    first = [p.stdout.readline(), p.stdout.readline()]
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - t < 1.5
    assert p.returncode == 130, err
    rows = [ln.split() for ln in (first[1] + out).splitlines()]
    assert rows[0][:3] == ["1", "55", "55"]  # finished: printed
    assert all(r[-1] == "INTERRUPTED" for r in rows[1:])  # in progress: what they proved
    assert "not started" in err


def test_ctrl_c_in_a_one_at_a_time_batch_stops_the_board_in_progress_and_the_queue(tmp_path):
    """-j 1: the boards are solved one after another in the main thread (no pool)."""
    f = tmp_path / "b.txt"
    f.write_text(f"{korf(1)[0]} 55\n{korf(2)[0]} 59\n{korf(2)[0]} 59\n{korf(2)[0]} 59\n")
    p = start("--file", str(f), "--goal", "blank-first", "-H", "manhattan", "-j", "1")
    first = [
        p.stdout.readline(),
        p.stdout.readline(),
    ]  # the header and #1: #2 (about 1 s) has started
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - t < 1.5
    assert p.returncode == 130, err
    rows = [ln.split() for ln in (first[1] + out).splitlines()]
    assert rows[0][:3] == ["1", "55", "55"]
    # #2 is interrupted, or (on a loaded machine, where the signal can land between #1's row
    # and #2's start) never started; either way nothing after it ran
    stopped = rows[1:]
    assert len(stopped) <= 1 and all(r[-1] == "INTERRUPTED" for r in stopped), rows
    assert f"{3 - len(stopped)} boards not started" in err, err


def test_a_stop_landing_anywhere_in_a_board_s_start_is_neither_lost_nor_a_hang(monkeypatch):
    """A signal handler runs between any two bytecodes of the main thread: BatchStop.request
    made at every bytecode of BatchStop.solve (traced opcode by opcode, in a thread here) must
    neither wait forever (it took a lock solve may hold: a CI run's Ctrl-C test hung so) nor
    let the board run unstopped (the request finding the board not yet listed, and the board
    the reason not yet set)."""
    import threading

    from solver import batch

    bs = None
    code = batch.BatchStop.solve.__code__

    def fake_run(board, plan, control):
        assert not (bs.reason and not control.stop.requested), "the board started, its stop lost"
        return "stopped" if control.stop.requested else "ran"

    monkeypatch.setattr(batch, "run", fake_run)
    outcomes = set()
    for k in range(1, 200):
        bs, count, out = batch.BatchStop(), [0], []

        def local(frame, event, arg):
            if event == "opcode":
                count[0] += 1
                if count[0] == k:
                    bs.request("interrupted")
            return local

        def tracer(frame, event, arg):
            if frame.f_code is code:
                frame.f_trace_opcodes = True
                return local
            return None

        def go():
            sys.settrace(tracer)
            try:
                out.append(bs.solve(None, None))
            finally:
                sys.settrace(None)

        t = threading.Thread(target=go, daemon=True)
        t.start()
        t.join(5)
        assert not t.is_alive(), f"a stop at bytecode {k} of BatchStop.solve hung it"
        assert out and out[0] in (None, "stopped", "ran"), out
        outcomes.add(out[0])
        if count[0] < k:  # the stop came after solve's last bytecode: every place was tried
            break
    assert count[0] < k and outcomes == {None, "stopped", "ran"}, (k, outcomes)


def test_boards_not_started_after_ctrl_c_get_a_json_row(tmp_path):
    """--json: every board of the file gets a row, those never started one saying so."""
    f = tmp_path / "b.txt"
    f.write_text(f"{korf(1)[0]} 55\n{korf(2)[0]} 59\n{korf(2)[0]} 59\n# end\n{korf(2)[0]} 59\n")
    p = start("--file", str(f), "--goal", "blank-first", "-H", "manhattan", "-j", "1", "--json")
    first = p.stdout.readline()  # #1 done: #2 (minutes) has started or is about to
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    rows = [json.loads(x) for x in (first + out).splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 5] and rows[0]["length"] == 55
    assert all(r.get("status") == "not started" for r in rows[2:]) and rows[2]["expected"] == 59
    assert rows[1].get("interrupted") is True or rows[1].get("status") == "not started"


def test_kill_9_then_resume_gives_the_same_answer_and_node_count(tmp_path):
    ck = tmp_path / "korf6.ckpt"
    # Korf #6 with Manhattan: 7.5 M expansions (16.9 M with --prune 2); on one thread the order is
    # fixed, so counts are exact.
    args = [
        korf(5)[0],
        "--goal",
        "blank-first",
        "-H",
        "manhattan",
        "-j",
        "1",
        "--json",
        "--checkpoint",
        str(ck),
        "--checkpoint-every",
        "0",
    ]
    p = start(*args)

    def mid_iteration():
        try:
            s = json.loads(ck.read_text())["state"]
        except (OSError, ValueError):
            return False
        return s["subtrees_done"] is not None and s["subtrees_done"] > 10

    assert wait_for(mid_iteration), "no checkpoint inside a split iteration"
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    assert p.returncode == -signal.SIGKILL
    before = json.loads(ck.read_text())["state"]
    r = subprocess.run([*SOLVER, "solve", *args], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["length"] == 52 and d["optimal"] is True
    assert d["nodes_expanded"] == 7_531_254  # the uninterrupted serial count, exactly
    assert d["iterations"][len(before["iterations"])]["bound"] == before["bound"]
    assert not list(Path(tmp_path).glob("*.tmp*"))  # no temporary left behind


def test_ctrl_c_during_a_table_build_exits_130_and_keeps_nothing(tmp_path):
    """pdb build ended by Ctrl-C exits 130 with one line, as solver does (not click's 'Aborted!').
    The signal goes in during the first table's early levels, as soon as its progress shows
    (the progress is read from a file: its lines end in carriage returns). (A Ctrl-C during
    one big level of an 8-tile table waits for that level: seconds to a minute.)"""
    data, log = tmp_path / "data", tmp_path / "stderr.txt"
    with open(log, "w") as err:
        # (SIGINT as a terminal leaves it: a test run before this one may have left it ignored in
        # this process, and an ignored SIGINT is inherited, so the build never saw it)
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "patterndb.cli",
                "build",
                "--size",
                "4",
                "--pattern",
                "7-8",
                "--data-dir",
                str(data),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    deadline = time.monotonic() + 300
    while "depth" not in log.read_text():  # the build has begun
        assert p.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    t = time.monotonic()
    p.wait(timeout=120)
    seconds = time.monotonic() - t
    out = log.read_text()
    assert p.returncode == 130 and out.strip().splitlines()[-1] == "interrupted", out
    assert seconds < 10, seconds
    assert not list(data.glob("*.h5*"))


def test_a_reader_that_stops_reading_ends_the_batch_quietly(tmp_path):
    """`solver solve --file ... | head` ends quietly with 0."""
    f = tmp_path / "many.txt"
    f.write_text("1 2 3 4 5 6 7 8 _\n" * 20000)
    p = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "solve", "--file", str(f), "-j", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdout.readline().split()[0] == "line"
    p.stdout.close()  # as head does after its lines
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and "Traceback" not in err and "Error" not in err, err


def _bounded_7x7(*args):
    """A bounded search on a random 48-puzzle on one thread, once its first solution is in and its
    wider beams have run a while (a beam of 65,536 on 7x7 runs for tens of seconds)."""
    board = subprocess.run(
        [*SOLVER, "random", "--size", "7", "--seed", "4"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    p = start(board, "--anytime", "-j", "1", "-H", "linear-conflict", "--json", *args)
    assert wait_for(lambda: "length" in p.stderr.readline()), "no first solution"
    time.sleep(2)
    assert p.poll() is None, "the search ended before the signal"
    return p


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_bounded_search_on_7x7_stops_within_a_second_with_its_answer(sig, code):
    """Within a second, whatever kernel the beams and windows are in (Python runs a signal's
    handler in the main thread only, between kernels: they run in threads of their own). A
    second SIGTERM (`timeout` sends one to the command and one to its process group) asks
    again: the answer still comes."""
    p = _bounded_7x7()
    t = time.monotonic()
    p.send_signal(sig)
    if sig == signal.SIGTERM:
        time.sleep(0.05)  # (the first one handled)
        p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    assert time.monotonic() - t < 1.0, f"took {time.monotonic() - t:.1f} s to stop"
    assert p.returncode == code, err
    d = json.loads(out)
    assert d["ended"] == REASONS[sig] and d["length"] >= d["lower_bound"] > 0


def test_after_a_stop_a_second_sigterm_asks_again_and_a_second_ctrl_c_acts_as_usual():
    code = (
        "import os, signal, time\n"
        "from solver.cli.signals import stop_on_signals\n"
        "with stop_on_signals(lambda reason: print(reason, flush=True)):\n"
        "    os.kill(os.getpid(), signal.{}); time.sleep(0.2)\n"
        "    os.kill(os.getpid(), signal.{}); time.sleep(0.2)\n"
        "print('alive', flush=True)\n"
    )
    term = subprocess.run(
        [sys.executable, "-c", code.format("SIGTERM", "SIGTERM")], capture_output=True, text=True
    )
    assert (term.returncode, term.stdout) == (0, "terminated\nterminated\nalive\n"), term
    ctrl_c = subprocess.run(
        [sys.executable, "-c", code.format("SIGINT", "SIGINT")],
        capture_output=True,
        text=True,
        # (as a terminal starts it: a test runner's worker may ignore SIGINT, and its children too)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert ctrl_c.stdout == "interrupted\n" and "KeyboardInterrupt" in ctrl_c.stderr, ctrl_c


REASONS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}
