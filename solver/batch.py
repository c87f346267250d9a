"""Batch files: one board per line, '#' comments, an optional expected length last.

Boards are solved on a thread pool (the search kernels release the GIL), so
both cores work while sharing one copy of the tables.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator

from patterndb import Board, BoardError, parse_board

from .api import Options, Plan, make_plan, prepare, run
from .solution import Solution


@dataclass
class Entry:
    line: int
    board: Board
    expected: int | None


def _parse_line(text: str, rows: int | None, cols: int | None) -> tuple[Board, int | None]:
    tokens = text.split()
    try:
        return parse_board(text, rows, cols), None
    except BoardError as first:
        if len(tokens) > 1 and tokens[-1].isdigit():
            try:
                return parse_board(" ".join(tokens[:-1]), rows, cols), int(tokens[-1])
            except BoardError:
                pass
        raise first


def read_batch(path: str, rows: int | None = None, cols: int | None = None) -> list[Entry]:
    entries = []
    with open(path) as f:
        for i, raw in enumerate(f, 1):
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            try:
                board, expected = _parse_line(text, rows, cols)
            except BoardError as e:
                raise BoardError(f"{path}:{i}: {e}") from None
            entries.append(Entry(i, board, expected))
    if not entries:
        raise BoardError(f"{path} holds no boards")
    return entries


def solve_batch(entries: list[Entry], goal: str, opts: Options, log: Callable[[str], None],
                workers: int | None = None, plans: dict[str, Plan] | None = None) -> Iterator[tuple[Entry, Solution]]:
    """Solve every entry, yielding results in input order as they are ready.

    plans: ready plans by frame key (made here for frames not in it)."""
    plans = {} if plans is None else plans
    jobs = []
    for e in entries:
        try:
            board, frame = prepare(e.board, goal)
        except BoardError as err:
            raise BoardError(f"line {e.line}: {err}") from None
        if frame.key not in plans:
            plans[frame.key] = make_plan(frame, opts, log)
        jobs.append((e, board, plans[frame.key]))
    workers = workers or min(len(jobs), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        futures = [pool.submit(run, board, plan) for _, board, plan in jobs]
        for (e, _, _), fut in zip(jobs, futures):
            yield e, fut.result()
