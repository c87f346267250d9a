"""The Dask backend on a real LocalCluster of two worker processes (CI runs it: the path must not rot)."""

import json
import os
import signal
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from patterndb import Shape, make_goal, scramble  # noqa: E402
from solver import solve  # noqa: E402
from solver.api import Control, Options, make_plan, prepare, run  # noqa: E402
from solver.cluster.client import Cluster  # noqa: E402
from solver.ida.trace import read_trace  # noqa: E402

from .instances import korf  # noqa: E402
from .naive import replay  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with Cluster("local:2") as c:
        yield c


def solve_on(
    cluster, board, goal, split_nodes=0, listener=None, nearby_seconds=0.0, trace=None, **opts
):
    """Every split iteration on the cluster unless nearby_seconds says otherwise (by default
    a small one runs on this machine's threads, and these boards are small)."""
    b, frame = prepare(board, goal)
    plan = make_plan(frame, Options(algorithm="idastar", **opts))
    return run(
        b,
        plan,
        Control(
            backend=cluster.backend(plan, nearby_seconds),
            split_nodes=split_nodes,
            listener=listener,
            trace=trace,
        ),
    )


def chunk_workers(trace):
    """{bound: the set of who searched its chunks ('ida-N' threads here, 'dask-...' workers)}."""
    out = {}
    for r in read_trace(trace):
        if "chunk" in r:
            out.setdefault(r["bound"], set()).add(r["worker"].split("-")[0])
    return out


@pytest.mark.parametrize("i", [0, 2, 3])
def test_same_answers_and_counts_as_the_threads(cluster, pdb_dir, i):
    board, want = korf(i)
    d = solve_on(cluster, board, "blank-first", pattern="5-5-5", data_dir=pdb_dir)
    t = solve(
        board,
        "blank-first",
        pattern="5-5-5",
        data_dir=pdb_dir,
        jobs=1,
        control=Control(split_nodes=0),
    )
    assert d.length == t.length == want and d.optimal
    strip = lambda its: [(x["bound"], x["expanded"], x["generated"]) for x in its[:-1]]
    assert strip(d.iterations) == strip(t.iterations)  # complete iterations count the same nodes


def test_small_iterations_here_big_ones_on_the_cluster(cluster):
    """The default split: unsplit iterations must not go to the workers (they index their own frontier)."""
    board, want = korf(1)  # 6 M expansions with Manhattan
    serial = solve(board, "blank-first", heuristic="manhattan", jobs=1)
    d = solve_on(
        cluster, board, "blank-first", split_nodes=Control().split_nodes, heuristic="manhattan"
    )
    assert d.length == serial.length == want
    assert [it["subtrees"] for it in d.iterations][0] == 1 and d.iterations[-1]["subtrees"] > 1
    strip = lambda its: [(x["bound"], x["expanded"]) for x in its[:-1]]
    assert strip(d.iterations) == strip(serial.iterations)


def test_iterations_expected_small_run_on_the_threads_here_the_rest_on_the_cluster(
    cluster, tmp_path
):
    """nearby_seconds: a split iteration expected to take at most that on this machine's threads
    runs on them. With a threshold of a nanosecond only the first split iteration (nothing
    expected yet: split_nodes 0) qualifies; with 0 none does. The counts are the serial ones."""
    board, want = korf(1)  # 6 M expansions with Manhattan
    serial = solve(board, "blank-first", heuristic="manhattan", jobs=1)
    strip = lambda its: [(x["bound"], x["expanded"]) for x in its[:-1]]
    for nearby, first_on in ((1e-9, {"ida"}), (0.0, {"dask"})):
        trace = tmp_path / f"{nearby}.jsonl"
        d = solve_on(
            cluster, board, "blank-first", heuristic="manhattan", nearby_seconds=nearby, trace=trace
        )
        assert d.length == serial.length == want and strip(d.iterations) == strip(serial.iterations)
        workers = chunk_workers(trace)
        bounds = sorted(workers)
        assert workers[bounds[0]] == first_on and all(workers[b] == {"dask"} for b in bounds[1:]), (
            workers
        )


def test_5x5_scramble(cluster, rng):
    b = scramble(make_goal(Shape(5, 5), "blank-last"), 30, rng)
    # (depth 18, the default: minutes to build; 12: a second)
    d = solve_on(cluster, str(b), "blank-last", heuristic="linear-conflict", prune=12)
    assert d.length == solve(b, heuristic="linear-conflict", jobs=1, prune=12).length


def test_a_worker_killed_mid_iteration_loses_only_its_tasks(cluster):
    """kill -9 one worker process during a split iteration: Dask reruns its tasks, the answer stands."""
    board, want = korf(1)  # 6 M expansions with Manhattan
    serial = solve(board, "blank-first", heuristic="manhattan", jobs=1)
    pids = list(cluster.client.run(os.getpid).values())

    class KillMidIteration:
        """Kills a worker at the driver's first look at a split iteration with subtrees both
        done and left (a fixed delay instead raced the search on a fast host)."""

        killed = None

        def iteration_started(self, bound, subtrees, estimate):
            pass

        def subtrees_done(self, state, done, total, elapsed):
            if self.killed is None and 0 < done < total and state.iterations:
                os.kill(pids[0], signal.SIGKILL)
                self.killed = (done, total)

        def iteration_finished(self, state, it):
            pass

    killer = KillMidIteration()
    d = solve_on(cluster, board, "blank-first", heuristic="manhattan", listener=killer)
    assert killer.killed is not None, "the worker was not killed during a split iteration"
    assert d.length == serial.length == want
    strip = lambda its: [(x["bound"], x["expanded"]) for x in its[:-1]]
    assert strip(d.iterations) == strip(serial.iterations)
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def test_a_result_lost_after_it_was_fetched_still_counts(cluster, monkeypatch):
    """The race a CI run lost: a worker dies just after the client has fetched a task's result,
    and the future reads "lost" when the collector looks at it. The result in hand is the
    task's; the search goes on with it. Here the worker is killed at that very moment."""
    board, want = korf(1)
    serial = solve(board, "blank-first", heuristic="manhattan", jobs=1)
    client, killed = cluster.client, []

    class LoseTheFirstResult(distributed.as_completed):
        def __next__(self):
            f, out = super().__next__()
            if not killed and not isinstance(out, BaseException):
                (holder,) = client.who_has([f])[f.key]
                pid = client.run(os.getpid, workers=[holder])[holder]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                # Dask runs the task again at once: the status reads "lost" for milliseconds only.
                t = time.monotonic()
                while f.status == "finished" and time.monotonic() - t < 30:
                    time.sleep(0.0005)
                assert f.status == "lost", f.status
            return f, out

    monkeypatch.setattr(distributed, "as_completed", LoseTheFirstResult)
    d = solve_on(cluster, board, "blank-first", heuristic="manhattan")
    assert killed and d.length == serial.length == want
    strip = lambda its: [(x["bound"], x["expanded"]) for x in its[:-1]]
    assert strip(d.iterations) == strip(serial.iterations)
    client.wait_for_workers(2, timeout=60)


@pytest.mark.parametrize("address", ["local:2", "local:1x2"])
def test_cli_batch_on_a_local_cluster(pdb_dir, tmp_path, address):
    """Two single-threaded worker processes, and one process whose two threads run tasks side by
    side (they share its tables: dask_tasks._problem)."""
    from click.testing import CliRunner

    from solver.cli.commands import main

    f = tmp_path / "b.txt"
    f.write_text("".join("{} {}\n".format(*korf(i)) for i in (0, 3)))
    r = CliRunner().invoke(
        main,
        [
            "solve",
            "--file",
            str(f),
            "--goal",
            "blank-first",
            "--pattern",
            "5-5-5",
            "--scheduler",
            address,
            "--data-dir",
            str(pdb_dir),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "2 of 2 boards solved" in r.stderr and "all 2 expected lengths met" in r.stderr


def test_a_bounded_search_proves_its_bound_on_the_cluster(cluster, pdb_dir):
    """--within / --anytime with --scheduler: the IDA* that proves the lower bound sends its
    iterations to the workers (every split one here), and the answer is the serial one's."""
    from solver.bounded.anytime import solve_bounded

    board, want = korf(2)
    b, frame = prepare(board, "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", pattern="5-5-5", data_dir=pdb_dir))
    backend = cluster.backend(plan, 0.0)
    sent = []
    start = backend.start
    backend.start = lambda *a, **k: (sent.append(a[4]), start(*a, **k))[
        1
    ]  # (the bound of each iteration sent)
    res = solve_bounded(
        b, plan, None, Control(backend=backend, split_nodes=0), weights=(), widths=(64,)
    )
    assert res.optimal and res.solution.length == res.lower_bound == want and sent
    assert replay(tuple(b.tiles.tolist()), res.solution.moves, 4, 4) == tuple(
        plan.frame.goal.tiles.tolist()
    )


def test_cli_within_on_a_local_cluster(pdb_dir, tmp_path):
    from click.testing import CliRunner

    from solver.cli.commands import main

    f = tmp_path / "b.txt"
    f.write_text("".join("{} {}\n".format(*korf(i)) for i in (0, 3)))
    common = [
        "--goal",
        "blank-first",
        "--pattern",
        "5-5-5",
        "--scheduler",
        "local:2",
        "--data-dir",
        str(pdb_dir),
    ]
    r = CliRunner().invoke(main, ["solve", "--file", str(f), "--within", "1.05", *common])
    assert r.exit_code == 0, r.output
    assert "2 of 2 boards answered within 5%" in r.stderr and "MISMATCH" not in r.output
    board, want = korf(0)
    r = CliRunner().invoke(main, ["solve", board, "--anytime", "--json", *common])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["optimal"] and out["length"] == out["lower_bound"] == want


def test_local_n_is_n_threads_in_about_sqrt_n_processes():
    from solver.cluster.client import check_address, local_layout

    assert [local_layout(n) for n in (1, 2, 4, 7, 8, 16, 64)] == [
        (1, 1),
        (2, 1),
        (2, 2),
        (7, 1),
        (4, 2),
        (4, 4),
        (8, 8),
    ]
    assert check_address("local:2") == (2, 1) and check_address("local:4") == (2, 2)
    assert check_address("local:2x1") == (2, 1) and check_address("local:1x2") == (1, 2)
    assert check_address("tcp://127.0.0.1:8786") is None


@pytest.mark.parametrize(
    "address",
    [
        "garbage",
        "http://127.0.0.1:8787",
        "local:0",
        "local:x",
        "tcp://host-without-port",
        "local:0x2",
        "local:2x0",
        "local:2x2x1",
        "local:x2",
        "local:-2",
        "local:²",
        f"local:{4 * (os.cpu_count() or 1) + 1}",
        f"local:{2 * (os.cpu_count() or 1) + 1}x2",
    ],
)
def test_a_bad_scheduler_address_is_one_line_at_once(address):
    """Each is one line, at once; more than 4 workers a core is refused (local:64 on 2 cores
    starves its own scheduler)."""
    import time

    from click.testing import CliRunner

    from solver.cli.commands import main

    t = time.monotonic()
    r = CliRunner().invoke(main, ["solve", "12345678_", "--scheduler", address])
    assert r.exit_code == 2 and time.monotonic() - t < 5
    assert r.output.startswith("error:") and len(r.output.splitlines()) == 1, r.output


def test_an_unreachable_scheduler_is_one_line_within_its_timeout():
    import socket
    import time

    from click.testing import CliRunner

    from solver.cli.commands import main

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = time.monotonic()
    r = CliRunner().invoke(
        main,
        [
            "solve",
            "12345678_",
            "--algorithm",
            "idastar",
            "-H",
            "manhattan",
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
            "--cluster-timeout",
            "2",
        ],
    )
    # the cluster failed, not the input
    assert r.exit_code == 5 and time.monotonic() - t < 15, r.output
    assert "cannot reach a Dask scheduler" in r.output and "Traceback" not in r.output
    batch = CliRunner().invoke(
        main,
        [
            "solve",
            "--file",
            "data/korf100.txt",
            "--goal",
            "blank-first",
            "-H",
            "manhattan",
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
            "--cluster-timeout",
            "2",
        ],
    )
    assert batch.exit_code == 5 and "cannot reach a Dask scheduler" in batch.output, batch.output
    # a bound asked for
    for where in (["12345678_"], ["--file", "data/korf100.txt", "--goal", "blank-first"]):
        r = CliRunner().invoke(
            main,
            [
                "solve",
                *where,
                "-H",
                "manhattan",
                "--within",
                "1.1",
                "--scheduler",
                f"tcp://127.0.0.1:{port}",
                "--cluster-timeout",
                "2",
            ],
        )
        assert r.exit_code == 5 and "cannot reach a Dask scheduler" in r.output, r.output


def _invoke_scheduler(address, timeout="20"):
    import time

    from click.testing import CliRunner

    from solver.cli.commands import main

    t = time.monotonic()
    r = CliRunner().invoke(
        main,
        [
            "solve",
            "12345678_",
            "--algorithm",
            "idastar",
            "-H",
            "manhattan",
            "--scheduler",
            address,
            "--cluster-timeout",
            timeout,
        ],
    )
    return r, time.monotonic() - t


@pytest.mark.parametrize(
    "greeting", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n", b"SSH-2.0-OpenSSH_9.6\r\n", b""]
)
def test_a_service_that_is_not_a_scheduler_is_one_line_within_seconds(greeting):
    """A dashboard port (HTTP: says nothing until asked), a service that answers something else,
    one that hangs up at once: each is one line within seconds. A real listener."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    conns = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conns.append(conn)
            if greeting is not None:
                conn.sendall(greeting)
                if greeting == b"":
                    conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        r, seconds = _invoke_scheduler(f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
        for c in conns:
            c.close()
    assert r.exit_code == 5 and seconds < 12, r.output
    last = r.output.splitlines()[-1]
    assert (
        last.startswith("error:")
        and "is not a Dask scheduler" in last
        and "Traceback" not in r.output
    ), r.output


def test_a_scheduler_without_workers_says_so_and_gives_up_at_the_timeout():
    """It says what it waits for, and --cluster-timeout bounds the connection and the wait
    together."""
    with distributed.LocalCluster(
        n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None
    ) as lc:
        r, seconds = _invoke_scheduler(lc.scheduler_address, timeout="5")
    assert r.exit_code == 5 and seconds < 10, r.output
    assert "waiting for workers (0 connected" in r.output
    assert r.output.splitlines()[-1].startswith("error: no worker joined the Dask scheduler"), (
        r.output
    )


def test_a_running_task_stops_when_it_is_cancelled(cluster):
    """Dask cannot stop a running task: a stopped iteration's running tasks held their
    workers for seconds, into the next board's first iteration. The client cancels them and
    each worker stops its cancelled tasks (solver.cluster.tasks._Running); here one task searches a
    whole iteration of about 10^8 nodes (Korf #1, Manhattan, 2 below its length), is
    cancelled after half a second, and a task sent to the same worker then runs at once."""
    import time

    from solver.cluster.tasks import run_task

    board, want = korf(0)
    b, frame = prepare(board, "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", heuristic="manhattan"))
    tiles = tuple(int(t) for t in frame.to_canonical(b).tiles)
    paths, first = np.array([[tiles.index(0)]], dtype=np.int64), np.zeros(1, dtype=np.int64)
    worker = sorted(cluster.client.nthreads())[0]
    spec = cluster.backend(plan).spec
    future = cluster.client.submit(
        run_task, spec, tiles, paths, first, want - 2, 0, pure=False, workers=[worker]
    )
    time.sleep(0.5)
    assert not future.done()
    t = time.monotonic()
    cluster.client.cancel([future])
    quick = cluster.client.submit(
        run_task, spec, tiles, paths, first, 0, 0, pure=False, workers=[worker]
    )
    res, _, _, seconds, _ = quick.result(timeout=10)
    # (uncancelled, the first task runs for a minute)
    assert time.monotonic() - t < 2, time.monotonic() - t
    assert len(res) == 1 and seconds < 1


@pytest.mark.parametrize(
    "bounded,lost", [([], "2 boards not solved"), (["--anytime"], "2 boards not answered")]
)
def test_a_lost_scheduler_ends_the_batch_with_the_finished_rows(tmp_path, bounded, lost):
    """A scheduler that goes away ends the batch with what it finished, in one line. A
    real scheduler process, killed (SIGKILL) once the first board's row is printed: the
    row stands, one line says what was lost, exit status 5, within seconds of the client's
    --cluster-timeout; the same for a batch answered with a proven bound."""
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    dask = str(Path(sys.executable).parent / "dask")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet
    )
    worker = subprocess.Popen(
        [dask, "worker", address, "--nthreads", "1", "--no-dashboard"], **quiet
    )
    f = tmp_path / "b.txt"
    quick = scramble(make_goal(Shape(4, 4), "blank-first"), 16, np.random.default_rng(5))
    f.write_text(f"{quick}\n" + "".join(korf(i)[0] + "\n" for i in (0, 2)))  # long with Manhattan
    try:
        p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "solver.cli",
                "solve",
                "--file",
                str(f),
                "--goal",
                "blank-first",
                "--heuristic",
                "manhattan",
                "--scheduler",
                address,
                "--cluster-timeout",
                "3",
                *bounded,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        header, first = p.stdout.readline(), p.stdout.readline()
        assert first.split()[0] == "1", header + first + p.stderr.read()
        time.sleep(1.0)  # into the second board's search
        scheduler.kill()
        killed = time.monotonic()
        out, err = p.communicate(timeout=120)
        seconds = time.monotonic() - killed
    finally:
        for proc in (scheduler, worker):
            proc.kill()
            proc.wait()
    assert p.returncode == 5, err
    assert out == "" and "Traceback" not in err, out + err
    assert (
        err.splitlines()[-1]
        == f"error: lost the Dask scheduler at {address}: the search cannot go on; {lost}"
    ), err
    assert seconds < 30, seconds


def test_a_connection_closed_while_asking_for_the_workers_is_a_lost_scheduler():
    """A scheduler killed just as an iteration began: the question for the workers' threads
    met a closed connection (Dask's CommClosedError, an OSError) while the client still read
    "running", and the batch ended with a traceback and exit 1 instead of its lost-scheduler
    line. It is the lost scheduler's ClusterError now, as a closed connection is in the
    collector of results."""
    from distributed.comm.core import CommClosedError

    from solver.cluster.tasks import DaskBackend
    from solver.solution import ClusterError

    class Client:
        status = "running"

        def __init__(self) -> None:
            self.scheduler = type("Scheduler", (), {"address": "tcp://127.0.0.1:1"})()
            self.closed = False

        def nthreads(self) -> dict:
            if self.closed:
                raise CommClosedError("in <TCP (closed) ConnectionPool.ncores>: Stream is closed")
            return {"w": 2}

    client = Client()
    backend = DaskBackend(client, spec=None)
    assert backend.jobs == 2
    client.closed = True
    with pytest.raises(ClusterError, match="lost the Dask scheduler"):
        backend._threads()
