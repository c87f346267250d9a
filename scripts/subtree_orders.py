#!/usr/bin/env python
"""How many nodes the solving iteration of a 24-puzzle expands before its solution, for
several orders of the frontier's subtrees (one after another, as one thread would).

Each subtree is searched alone at the optimal length (the solving bound) and at the
two bounds before, so every order is judged on the same counts; the table gives, per
line, the solving iteration's nodes up to and including the first subtree that holds a
solution. `solver` is what the solver does (solver/search/subtree_order.py: s * g^3, s the
subtree's nodes at the bound before, g their growth from the bound before that); `s*g^k`
the same key with other powers (`biggest first` is k = 0). The last rows: the sum over
the lines, and the geometric mean of each order's share of the whole solving iteration.
--save DIR keeps each line's counts (DIR/lineN.npz), --load DIR reads them back instead of
searching, so other orders can be judged on them in seconds. Exits 1 if no subtree holds
a solution at the known length.

    python scripts/subtree_orders.py 38 40 25 32 44 --data-dir /work/tables5 --save /tmp/orders   # minutes
    python scripts/subtree_orders.py 38 40 25 32 44 --load /tmp/orders
"""
from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def per_subtree(problem, paths, first, bound: int, jobs: int) -> np.ndarray:
    """Result rows (subtrees.STATUS, EXPANDED, ...) of every subtree searched alone at bound."""
    from solver.search.parallel import run_chunk

    def one(i: int) -> np.ndarray:
        rows, _ = run_chunk(problem, paths, first, np.array([i]), bound, 0, np.zeros(1, np.int64))
        return rows[0]

    with ThreadPoolExecutor(jobs) as pool:
        return np.array(list(pool.map(one, range(len(paths)))))


def orders(before: np.ndarray, before2: np.ndarray, h: np.ndarray) -> dict[str, np.ndarray]:
    from solver.search.subtree_order import search_order
    from solver.search.subtrees import EXPANDED

    idx = np.arange(len(h))
    s, s_before = before[:, EXPANDED], before2[:, EXPANDED]
    return {
        "depth-first": idx,
        "biggest first": search_order(idx, s),
        "lowest h first": np.lexsort((idx, h)),
        "fastest growing": np.lexsort((idx, -(s + 1.0) / (s_before + 1.0))),
        "random": np.random.default_rng(1).permutation(len(h)),
        **{f"s*g^{k}": search_order(idx, s, s_before, power=k) for k in (1, 2, 4)},
        "solver": search_order(idx, s, s_before),
    }


def counts(line: int, args) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(solving bound, the result rows of every subtree at bounds B - 4, B - 2 and B, each
    subtree root's h) of a line: searched, or read from --load."""
    from solver.api import Options, make_plan, prepare
    from solver.batch import read_batch
    from solver.search.aot import kernels
    from solver.search.parallel import Problem

    if args.load:
        z = np.load(Path(args.load) / f"line{line}.npz")
        return int(z["bound"]), z["before2"], z["before"], z["last"], z["h"]
    e = {e.line - 2: e for e in read_batch(str(ROOT / "data" / "korf24_50.txt"))}[line]
    board, frame = prepare(e.board, "blank-first")
    plan = make_plan(frame, Options(algorithm="idastar", pattern=args.pattern, jobs=args.jobs,
                                    data_dir=Path(args.data_dir) if args.data_dir else None))
    tiles = frame.to_canonical(board).tiles.astype(np.int64)
    problem = Problem(tiles, frame.canonical_goal.tiles.astype(np.int64), plan.heuristic.H, board.shape.neighbours,
                      plan.machine)
    paths, first = problem.frontier()
    k = kernels()
    G = k.scratch_size(problem.H)
    h = np.empty(len(paths), dtype=np.int64)
    for i, path in enumerate(paths):  # the heuristic at each subtree's root
        t = tiles.copy()
        for a, b in zip(path[:-1], path[1:]):
            if b < 0:
                break
            t[a], t[b] = t[b], t[a]
        h[i] = k.h_full(t, np.argsort(t).astype(np.int64), problem.H, np.zeros(G, np.int64), np.zeros(G, np.int64))
    B = e.expected
    before2, before, last = (per_subtree(problem, paths, first, b, args.jobs) for b in (B - 4, B - 2, B))
    if args.save:
        Path(args.save).mkdir(parents=True, exist_ok=True)
        np.savez(Path(args.save) / f"line{line}.npz", bound=B, before2=before2, before=before, last=last, h=h)
    return B, before2, before, last, h


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lines", nargs="+", type=int, help="instances by line number (1-50)")
    ap.add_argument("--pattern", default="z6-6-6-6")  # one heuristic: the orders are compared on it
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--save", metavar="DIR", help="keep each line's counts in DIR/lineN.npz")
    ap.add_argument("--load", metavar="DIR", help="read each line's counts from DIR/lineN.npz instead of searching")
    args = ap.parse_args()

    from solver.search.moves import FOUND
    from solver.search.subtrees import EXPANDED, STATUS

    totals: dict[str, int] = {}
    shares: dict[str, float] = {}
    names = None
    for line in args.lines:
        B, before2, before, last, h = counts(line, args)
        found = last[:, STATUS] == FOUND
        if not found.any():
            print(f"line {line}: no subtree holds a solution of the known length {B}", file=sys.stderr)
            return 1
        whole = int(last[:, EXPANDED].sum())
        row = {}
        for name, order in orders(before, before2, h).items():
            k_first = np.flatnonzero(found[order])[0]
            row[name] = int(last[order[: k_first + 1], EXPANDED].sum())
            totals[name] = totals.get(name, 0) + row[name]
            shares[name] = shares.get(name, 0.0) + float(np.log(row[name] / whole))
        if names is None:
            names = list(row)
            print(f"{'line':>4} {'bound':>5} {'whole iteration':>16} " + " ".join(f"{n:>15}" for n in names))
        print(f"{line:>4} {B:>5} {whole:>16,} " + " ".join(f"{row[n]:>15,}" for n in names), flush=True)
    print(f"{'all':>4} {'':>5} {'':>16} " + " ".join(f"{totals[n]:>15,}" for n in names))
    print(f"{'gm':>4} {'':>5} {'share of whole':>16} "
          + " ".join(f"{np.exp(shares[n] / len(args.lines)):>15.4f}" for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
