"""The `solver` command: solve (cli_solve, cli_batch), and show, plot, distance, scramble, random,
compile (cli_tools), serve (cli_serve), on the helpers they share (cli_common)."""

from __future__ import annotations

import os

# These commands use no BLAS: one OpenBLAS thread saves 0.06 s of start-up (numpy's import
# starts its thread pool). Set before numpy is imported; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click

from .serve import serve
from .solve import solve
from .tools import compile_cmd, distance, plot_cmd, random_cmd, scramble_cmd, show


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="patterndb", prog_name="solver")
def main() -> None:
    """Solve sliding-tile puzzles optimally, or with the classic algorithms."""


for command in (solve, plot_cmd, show, distance, scramble_cmd, random_cmd, compile_cmd, serve):
    main.add_command(command)


if __name__ == "__main__":
    main()
