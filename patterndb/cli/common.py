"""Click options and error handling shared by the `pdb` and `solver` commands.

Errors a user can cause become one line on stderr ("error: ...") and exit
status 2 (bad input) or 3 (a table missing, damaged, or impossible to
build there), never a traceback.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ..errors import PuzzleError, TableError
from ..files.datadir import ENV_VAR
from ..puzzle.board import GOAL_NAMES
from ..puzzle.geometry import Shape

TABLE_EXIT = 3  # a table is missing, damaged, or cannot be built where asked


class UserError(click.ClickException):
    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


INTERRUPTED_EXIT = 130  # 128 + SIGINT, as a shell reports a process that SIGINT ended


def guarded(fn: Callable) -> Callable:
    """Turn PuzzleError into a one-line message and exit status (2, or 3 for tables); Ctrl-C
    (where the command does not stop on it itself) into exit 130; a reader that closed our
    output (`| head`) into a quiet exit 0."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TableError as e:
            raise UserError(str(e), TABLE_EXIT) from None
        except PuzzleError as e:
            raise UserError(str(e), 2) from None
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(INTERRUPTED_EXIT)
        except BrokenPipeError:
            # (the exit's flush must not fail too)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)

    return wrapper


def shape_options(fn: Callable) -> Callable:
    fn = click.option("--cols", type=click.IntRange(2, 7), help="Board columns (2 to 7).")(fn)
    fn = click.option("--rows", type=click.IntRange(2, 7), help="Board rows (2 to 7).")(fn)
    fn = click.option(
        "--size",
        type=click.IntRange(2, 7),
        help="Square board side (3 = 8-puzzle, 4 = 15-puzzle, up to 7).",
    )(fn)
    return fn


def goal_option(fn: Callable) -> Callable:
    return click.option(
        "--goal",
        default="blank-last",
        show_default=True,
        help=f"Goal board: {' or '.join(GOAL_NAMES)}, or an explicit board.",
    )(fn)


def _data_dir(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    if value is not None and not value.strip():  # (Path("") is the current directory)
        raise click.BadParameter("it is empty: name a directory (. for this one)")
    if value is None:
        return None
    path = Path(value)
    parent = path.expanduser().absolute().parent
    if not path.exists() and not parent.exists():  # (a typo: it would be made, parents and all)
        raise click.BadParameter(f"{value} does not exist, nor does {parent}: is it mistyped?")
    return path


class FiniteFloatRange(click.FloatRange):
    """A FloatRange that refuses nan and inf: nan passes every comparison of a range, and a
    time or ratio of inf is a typo's, not a wish."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return rv


def data_dir_option(fn: Callable) -> Callable:
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False),
        default=None,
        callback=_data_dir,
        help=f"Directory of built tables [default: ${ENV_VAR}, else data/ of a checkout, else the user's "
        "data directory; pdb list says which].",
    )(fn)


def resolve_shape(
    size: int | None, rows: int | None, cols: int | None, required: bool = True
) -> Shape | None:
    if size is not None and (rows is not None or cols is not None):
        raise click.UsageError("give --size or --rows/--cols, not both")
    if size is not None:
        return Shape(size, size)
    if rows is not None and cols is not None:
        return Shape(rows, cols)
    if rows is not None or cols is not None:
        raise click.UsageError(f"give --{'cols' if cols is None else 'rows'} too (or --size)")
    if required:
        raise click.UsageError("give the board size: --size N or --rows R --cols C")
    return None
