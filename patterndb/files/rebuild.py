"""Proofs by building again, for the tables no local check can prove: `pdb verify --full`.

A group table's values are not consistent over its abstract states as stored (a
plain table keeps a placement's minimum over the blank's regions, a zero-aware
one caps each region at 2 above it: both break consistency at honest states;
patterndb.build.proof says more), so the proof that a group table or a move-pruning
machine is right is the builder itself, which the tests check against a plain
breadth-first search: build it again from the file's attributes and compare
byte for byte. An exact table is proven in one pass instead (patterndb.build.proof).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from ..build.movefsm import build
from ..build.proof import prove_exact
from ..errors import TableError
from ..puzzle.board import Board
from ..puzzle.frame import Frame
from ..puzzle.geometry import Shape
from .catalog import pattern_data

LAYOUT = (
    "encoding",
    "entries",
    "flag_code",
    "region_bytes",
    "prefix_at",
    "regions_at",
)  # how the bytes decode


def prove_group(
    path: Path, table: np.ndarray, attrs: dict[str, Any], progress: bool = False
) -> str:
    """How a group table was proven right (one line): built again from its attributes'
    board, goal and tiles, and compared byte for byte; TableError if it differs."""
    shape = Shape(int(attrs["rows"]), int(attrs["cols"]))
    frame = Frame.for_goal(
        Board(shape, np.array([int(t) for t in str(attrs["goal"]).split()], dtype=np.int64))
    )
    if str(frame.canonical_goal) != str(attrs["goal"]):
        raise TableError(f"{path} was not built in a canonical frame (goal {attrs['goal']!r})")
    tiles = tuple(int(t) for t in attrs["tiles"])
    start = time.perf_counter()
    data, built = pattern_data(frame, tiles, progress, packed=attrs.get("encoding") != "byte")
    differs = [k for k in LAYOUT if str(built.get(k)) != str(attrs.get(k))]
    if differs:
        raise TableError(
            f"{path} is not the table of tiles {built['tiles_label']}: built again, its "
            f"{', '.join(differs)} differ"
        )
    if data.size != table.size or not np.array_equal(data, table):
        wrong = int(np.count_nonzero(data != table)) if data.size == table.size else -1
        raise TableError(
            f"{path} is not the table of tiles {built['tiles_label']}: built again, "
            + (
                f"{wrong:,} of its {table.size:,} bytes differ"
                if wrong >= 0
                else "its size differs"
            )
        )
    return f"built again in {time.perf_counter() - start:.1f}s: all {table.size:,} bytes equal"


def prove_machine(path: Path, machine: Any, attrs: dict[str, Any]) -> str:
    """How a move-pruning machine was proven right (one line): built again and compared; a
    forged machine that prunes more would lose optimal solutions. TableError if it differs."""
    shape = Shape(int(attrs["rows"]), int(attrs["cols"]))
    start = time.perf_counter()
    again = build(shape, machine.depth)
    if not (
        np.array_equal(again.transitions, machine.transitions)
        and np.array_equal(again.start, machine.start)
    ):
        raise TableError(
            f"{path} is not the {shape} move-pruning machine of depth {machine.depth}: "
            "built again, it differs"
        )
    return f"built again in {time.perf_counter() - start:.1f}s: equal"


def prove(path: Path, table: np.ndarray, attrs: dict[str, Any], progress: bool = False) -> str:
    """prove_exact or prove_group, by the table's kind."""
    if attrs.get("kind") == "exact":
        return prove_exact(path, table, attrs)
    return prove_group(path, table, attrs, progress)
