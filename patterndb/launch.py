"""The commands' entry point. A command's modules (numpy, click, the rest) take about a tenth
of a second to import: Ctrl-C then, or while click reads the arguments, ends the command as it
does later, with "interrupted" and exit status 130, not a traceback."""
from __future__ import annotations

import importlib
import sys


def launch(module: str) -> None:
    """Run the click command `main` of module (imported here, under the same Ctrl-C rule)."""
    try:
        import click

        command = importlib.import_module(module).main
    except KeyboardInterrupt:
        _interrupted()
    try:
        command.main(standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _interrupted()


def main() -> None:
    """The `pdb` command."""
    launch("patterndb.cli")


def _interrupted() -> None:
    sys.stderr.write("interrupted\n")
    sys.exit(130)
