"""What a table file's attributes say: its encoding, its size in bytes, whether it was built
for what a search needs. Plain functions of the attribute dict (no file access), shared by the
reader (store), the checks (integrity) and the mapping (mapping)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..build.nibbles import ENCODING
from ..build.zeroaware import ENCODING as REGIONS
from ..build.zeroaware import layout
from ..errors import TableError

FORMAT_VERSION = 1
REQUIRED = (
    "format_version",
    "entries",
    "checksum_crc32",
    "kind",
    "rows",
    "cols",
    "goal",
    "histogram",
)


def plain(v: Any) -> Any:
    """An attribute as plain Python (str, list, int or float), as JSON and comparisons want it."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


def is_packed(attrs: dict[str, Any]) -> bool:
    """Is the table in 4 bits an entry (patterndb.build.nibbles)?"""
    return attrs.get("encoding") == ENCODING


def is_zero_aware(attrs: dict[str, Any]) -> bool:
    """Is the table zero-aware (patterndb.build.zeroaware: codes, and region bits where flagged)?"""
    return attrs.get("encoding") == REGIONS


def stored_size(attrs: dict[str, Any]) -> int:
    """Bytes of the dataset: an entry each, two entries a byte when packed, or zero-aware's layout."""
    entries = int(attrs["entries"])
    if is_zero_aware(attrs):
        return layout(
            entries, int(attrs["flagged"]), int(attrs["region_bytes"]), int(attrs["prefix_at"]) < 0
        )[2]
    return (entries + 1) // 2 if is_packed(attrs) else entries


def check_attrs(path: Path, attrs: dict[str, Any], expect: dict[str, Any]) -> None:
    """TableError unless every attribute of expect has that value (the board, goal, group...)."""
    for k, want in expect.items():
        got, wanted = plain(np.asarray(attrs.get(k))), plain(np.asarray(want))
        if got != wanted:  # (said as plain values: an array's repr is no message)
            raise TableError(f"{path} was built for {k} {_said(got)}, not {_said(wanted)}")


def _said(value: Any) -> str:
    """An attribute's value as a message says it: a list of numbers as 1,2,4; text as itself."""
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
