"""What a Dask task costs beside its work, on a LocalCluster here (needs the cluster extra).

    python scripts/dask_overhead.py [--workers 2] [--tasks 300] [--rounds 2]

Prints, per round: the milliseconds per result of collecting finished tasks one by one
(`future.result()`, the DaskBackend before 2026-11-26) and as they end
(`as_completed(with_results=True)`, now); and the milliseconds per task beyond 10 ms of
work for a plain task, and for one that starts a thread watching a Dask Event through
the scheduler (how running tasks were stopped before; now each worker reads its own
task states: solver.cluster._Running).
"""
from __future__ import annotations

import argparse
import logging
import threading
import time

WORK = 0.01  # seconds of work in each timed task


def _busy() -> None:
    t = time.perf_counter()
    while time.perf_counter() - t < WORK:
        pass


def small(i: int):
    import numpy as np
    return np.zeros((5, 5), np.int64), np.zeros(300, np.int64), i


def plain(i: int, name: str) -> int:
    _busy()
    return i


def watched(i: int, name: str) -> int:
    import distributed
    event, done = distributed.Event(name, distributed.get_client()), threading.Event()

    def watch() -> None:
        try:
            while not done.is_set():
                if event.wait(0.1):
                    return
        except Exception:  # (the cluster closing under a last watcher)
            return
    threading.Thread(target=watch, daemon=True).start()
    _busy()
    done.set()
    return i


def main() -> None:
    import distributed

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tasks", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    n = args.tasks
    with distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster) as client:
        client.submit(plain, 0, "warm-up").result()
        print(f"{args.workers} workers, {n} tasks a measurement")
        for r in range(args.rounds):
            for mode in ("one by one", "as they end"):
                futures = [client.submit(small, i, pure=False) for i in range(n)]
                distributed.wait(futures)
                t = time.perf_counter()
                if mode == "one by one":
                    for f in distributed.as_completed(futures):
                        f.result()
                else:
                    for _ in distributed.as_completed(futures, with_results=True):
                        pass
                print(f"round {r + 1}: results {mode:<12} {(time.perf_counter() - t) / n * 1e3:6.2f} ms a result")
            for fn in (plain, watched):
                t = time.perf_counter()
                futures = [client.submit(fn, i, f"overhead-{r}", pure=False, priority=-i) for i in range(n)]
                for _ in distributed.as_completed(futures, with_results=True):
                    pass
                beyond = (time.perf_counter() - t) * args.workers / n - WORK
                print(f"round {r + 1}: {fn.__name__ + ' tasks':<20} {beyond * 1e3:6.2f} ms a task "
                      f"beyond its {WORK * 1e3:.0f} ms of work")


if __name__ == "__main__":
    main()
