"""The `solver` command's entry point (patterndb.cli.launch: Ctrl-C while it starts is one line)."""

from patterndb.cli.launch import launch


def main() -> None:
    launch("solver.cli.commands")
