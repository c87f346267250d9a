"""The `solver` command's entry point. The command's modules (numpy, click, the rest) take about
a tenth of a second to import: Ctrl-C then, or while click reads the arguments, ends the
command as it does later, with "interrupted" and exit status 130, not a traceback."""
from __future__ import annotations

import sys


def main() -> None:
    try:
        import click

        from .cli import main as command
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


def _interrupted() -> None:
    sys.stderr.write("interrupted\n")
    sys.exit(130)
