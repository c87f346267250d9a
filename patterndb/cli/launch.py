"""The commands' entry point. A command's modules (numpy, click, numba, the rest) take a while to
import: Ctrl-C then, or while click reads the arguments, ends the command as it does later, with
"interrupted" and exit status 130, not a traceback.

A Ctrl-C that lands inside a compiled extension's import does not always reach us as
KeyboardInterrupt: numba's `_dispatcher`, for one, turns it into "ImportError: numba._devicearray
failed to import". So the launcher notes each SIGINT as it arrives, and an error that escapes the
command after one is reported as the interruption it is."""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any

_sigint_seen = False


def launch(module: str) -> None:
    """Run the click command `main` of module (imported here, under the same Ctrl-C rule)."""
    _note_sigints()
    try:
        _run(module)
    except Exception:
        if _sigint_seen:  # (a Ctrl-C that became another error on its way: module docstring)
            _interrupted()
        raise


def _run(module: str) -> None:
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
    launch("patterndb.cli.commands")


def _note_sigints() -> None:
    """Python's own Ctrl-C handler, noting that it ran (left alone where SIGINT is ignored or
    someone else's, as in a background job)."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return

    def noting(signum: int, frame: Any) -> None:
        global _sigint_seen
        _sigint_seen = True
        sys.unraisablehook = (
            _quiet  # the command is going down: a half-made object's __del__ need not say so
        )
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, noting)


def _quiet(unraisable: Any) -> None:
    """Say nothing of an error in a destructor (llvmlite's, when Ctrl-C cut its constructor short)."""


def _interrupted() -> None:
    sys.stderr.write("interrupted\n")
    sys.exit(130)
