"""`python -m solver.cli`: the command, as its entry point runs it."""

from .launch import main

main()
