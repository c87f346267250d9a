"""The `solver` command's entry point (patterndb.launch: Ctrl-C while it starts is one line)."""
from patterndb.launch import launch


def main() -> None:
    launch("solver.cli")
