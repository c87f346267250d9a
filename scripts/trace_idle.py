"""Where the workers of a traced search waited, iteration by iteration.

    python scripts/trace_idle.py traces/line37.jsonl [more traces]

For every split iteration of a trace (`solver solve BOARD --trace FILE`, or
`scripts/bench_korf24.py ... --trace-dir DIR`): its wall time, its chunks (kernel
calls, or Dask tasks), the workers' busy seconds, and their idle seconds in three
parts, summed over workers: before a worker's first chunk (head: submitting, a task's
trip to the worker), between its chunks (gaps: a chunk's cost beside its search), and
after its last chunk until the driver has every result (tail: the last chunks, and the
results' way back). A Dask chunk's times are taken on its worker (solver.trace).
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict


def report(path: str) -> list[str]:
    out = []
    started, chunks = None, []
    for line in open(path):
        r = json.loads(line)
        if "trace" in r:
            out.append(f"# {path}: {r.get('backend', '?')}, {r.get('jobs', '?')} jobs, frontier {r.get('frontier', '?')}")
            out.append(f"{'bound':>5} {'nodes':>9} {'wall s':>7} {'chunks':>6} {'workers':>7} {'busy':>7} "
                       f"{'head':>6} {'gaps':>6} {'ms/gap':>6} {'tail':>6}")
        elif "started" in r:
            started, chunks = r, []
        elif "chunk" in r:
            chunks.append(r)
        elif "iteration" in r and r["subtrees"] > 1 and started is not None:
            t0, t1 = started["t"], r["t"]
            by_worker = defaultdict(list)
            for c in chunks:
                by_worker[c["worker"]].append((c["start"], c["end"]))
            busy = head = gaps = tail = 0.0
            for spans in by_worker.values():
                spans.sort()
                busy += sum(e - s for s, e in spans)
                head += max(0.0, spans[0][0] - t0)
                tail += max(0.0, t1 - max(e for _, e in spans))
                gaps += sum(max(0.0, spans[i + 1][0] - spans[i][1]) for i in range(len(spans) - 1))
            between = max(1, len(chunks) - len(by_worker))
            out.append(f"{r['iteration']:>5} {r['expanded'] / 1e6:>8.1f}M {t1 - t0:>7.2f} {len(chunks):>6} "
                       f"{len(by_worker):>7} {busy:>7.2f} {head:>6.2f} {gaps:>6.2f} "
                       f"{gaps / between * 1e3:>6.1f} {tail:>6.2f}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+")
    for path in ap.parse_args().traces:
        print("\n".join(report(path)))


if __name__ == "__main__":
    main()
