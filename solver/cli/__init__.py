"""The `solver` command: solve (one board, a batch, bounded), show, plot, distance,
scramble, random, compile and serve, on the helpers they share (common, signals)."""

from patterndb.lazy import lazy_exports

# The command's click group, imported on first use: the package stays light for the launcher.
__getattr__ = lazy_exports(__name__, {"main": ".commands"})
