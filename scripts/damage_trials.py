#!/usr/bin/env python
"""Damage tables in place and check that no damaged table yields a wrong answer called optimal.

Each trial takes a copy of one table of a pattern (in a scratch directory, so the real tables
are never touched), makes sure the copy is checked and remembered as whole, then damages it in
place as a bad copy or a stray write would, with its size, inode and mtime put back: a bit
flipped, a 4 KB block overwritten with random bytes, or one entry's stored value raised by one.
Then it solves a board with those tables (`solver solve --json`, a fresh process) and sorts
the outcome: the right optimal answer, a one-line error with exit status 3, or a WRONG answer
called optimal (or anything else: a traceback, another status). Then it puts the bytes back.

    python scripts/damage_trials.py --trials 200 --seed 1 --data-dir data \\
        --case "4x4 best" --case "4x4 7-8" --case "5x5 z6-6-6-6" --case "5x5 6-6-6-6"

A case is "RxC PATTERN": the 15-puzzle's are solved on Korf's first board (57 moves), the
24-puzzle's on Korf & Felner's line 40 (82 moves), both with the blank-first goal; their
tables must be built in --data-dir. Prints a table of trials by case, kind and outcome, and
exits 1 if any answer was wrong.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BOARDS = {
    (4, 4): ("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", 57),
    (5, 5): ("2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23", 82),
}
KINDS = ("bit flip", "block overwritten", "value raised by one")


def solver_command() -> list[str]:
    script = Path(sys.executable).parent / "solver"
    return [str(script)] if script.exists() else [sys.executable, "-m", "solver.cli"]


def tables_of(shape: tuple[int, int], pattern: str, data_dir: Path) -> list[Path]:
    """The files a pattern's search reads (its groups' tables), from the data directory."""
    from patterndb import Frame, Shape, make_goal
    from patterndb.files.catalog import pattern_path
    from patterndb.puzzle.patterns import parse_partition

    frame = Frame.for_goal(make_goal(Shape(*shape), "blank-first"))
    paths = [pattern_path(data_dir, frame, g) for g in parse_partition(pattern, frame)]
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise SystemExit(
            f"error: {pattern} on {shape[0]}x{shape[1]} is not built in {data_dir}: "
            f"pdb build --rows {shape[0]} --cols {shape[1]} --goal blank-first --pattern {pattern}"
        )
    return paths


def damage(path: Path, kind: str, rng: np.random.Generator) -> tuple[int, bytes]:
    """Damage path's table in place, its size, inode and mtime kept; (offset, the old bytes)."""
    import h5py  # (the file as HDF5 alone: the same script damages tables of any version)

    with h5py.File(path, "r") as f:
        ds = f["table"]
        start, size = int(ds.id.get_offset()), int(ds.shape[0])
        encoding = ds.attrs.get("encoding", b"byte")
    encoding = encoding.decode() if isinstance(encoding, bytes) else str(encoding)
    st = path.stat()
    with open(path, "r+b") as f:
        if kind == "block overwritten":
            offset = start + int(rng.integers(0, max(1, size - 4096)))
            length = min(4096, start + size - offset)
            f.seek(offset)
            old = f.read(length)
            new = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
        else:
            offset = start + int(rng.integers(0, size))
            f.seek(offset)
            old = f.read(1)
            if kind == "bit flip":
                new = bytes([old[0] ^ (1 << int(rng.integers(0, 8)))])
            else:  # one stored value raised by one: a 4-bit entry (either nibble), else the byte
                byte = old[0]
                if encoding != "byte":  # a 4-bit table, plain or zero-aware
                    shift = 4 * int(rng.integers(0, 2))
                    nibble = (byte >> shift) & 15
                    if nibble == 15:
                        shift, nibble = 4 - shift, (byte >> (4 - shift)) & 15
                    new = bytes([(byte & ~(15 << shift) & 255) | (min(nibble + 1, 15) << shift)])
                else:
                    new = bytes([min(byte + 1, 255)])
        f.seek(offset)
        f.write(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return offset, old


def restore(path: Path, offset: int, old: bytes) -> None:
    st = path.stat()
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(old)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def solve(shape, pattern: str, scratch: Path) -> tuple[str, str]:
    """(outcome, detail) of one solve with the scratch tables."""
    board, length = BOARDS[shape]
    r = subprocess.run(
        [
            *solver_command(),
            "solve",
            board,
            "--goal",
            "blank-first",
            "--pattern",
            pattern,
            "--json",
            "-j",
            "1",
            "--data-dir",
            str(scratch),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    if r.returncode == 3 and len(errors) == 1 and "Traceback" not in r.stderr:
        return "refused (exit 3)", errors[0]
    if r.returncode == 0:
        out = json.loads(r.stdout.splitlines()[-1])
        if out["optimal"] and out["length"] == length:
            return "right answer", ""
        if out["optimal"]:
            return "WRONG optimal", f"length {out['length']}, not {length}"
    return "OTHER", f"exit {r.returncode}: {r.stderr.strip()[-300:]}"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--trials",
        type=int,
        default=200,
        help="trials in all, spread over the cases and kinds [200]",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--data-dir", required=True, help="where the cases' tables are built (never written)"
    )
    ap.add_argument(
        "--case",
        action="append",
        required=True,
        metavar="'RxC PATTERN'",
        help="a board shape and a pattern, e.g. '4x4 best' (repeat)",
    )
    ap.add_argument(
        "--scratch", default=None, help="where the copies go (default: a temporary directory)"
    )
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    cases = []
    for c in args.case:
        dims, _, pattern = c.partition(" ")
        shape = tuple(int(x) for x in dims.split("x"))
        if shape not in BOARDS or not pattern:
            ap.error(f"--case {c!r}: give '4x4 PATTERN' or '5x5 PATTERN'")
        cases.append((shape, pattern, tables_of(shape, pattern, Path(args.data_dir))))
    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="damage-"))
    scratch.mkdir(parents=True, exist_ok=True)
    for _, _, paths in cases:
        for p in paths:
            if not (scratch / p.name).exists():
                shutil.copyfile(p, scratch / p.name)
    # each copy checked in full once and remembered, the machine built
    for shape, pattern, _ in cases:
        outcome, detail = solve(shape, pattern, scratch)
        if outcome != "right answer":
            raise SystemExit(
                f"error: the undamaged {pattern} does not solve its board: {outcome} {detail}"
            )
    tally: dict = collections.Counter()
    wrong = []
    for t in range(args.trials):
        shape, pattern, paths = cases[t % len(cases)]
        kind = KINDS[(t // len(cases)) % len(KINDS)]
        path = scratch / paths[int(rng.integers(0, len(paths)))].name
        offset, old = damage(path, kind, rng)
        try:
            outcome, detail = solve(shape, pattern, scratch)
        finally:
            restore(path, offset, old)
        tally[(f"{shape[0]}x{shape[1]} {pattern}", kind, outcome)] += 1
        if outcome in ("WRONG optimal", "OTHER"):
            wrong.append(f"trial {t}: {path.name} {kind} at byte {offset:,}: {outcome} {detail}")
    outcomes = ("right answer", "refused (exit 3)", "WRONG optimal", "OTHER")
    print(f"{'case':18} {'kind':22} " + " ".join(f"{o:>17}" for o in outcomes))
    for case in dict.fromkeys(k[0] for k in tally):
        for kind in KINDS:
            print(
                f"{case:18} {kind:22} "
                + " ".join(f"{tally[(case, kind, o)]:>17}" for o in outcomes)
            )
    totals = [sum(v for k, v in tally.items() if k[2] == o) for o in outcomes]
    print(
        f"{'all':18} {'':22} "
        + " ".join(f"{n:>17}" for n in totals)
        + f"   ({args.trials} trials, seed {args.seed})"
    )
    for w in wrong:
        print(w, file=sys.stderr)
    if args.scratch is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
