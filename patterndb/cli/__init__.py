"""The `pdb` command (commands), its table-care commands (tables, plot), the options and
error handling shared with `solver` (common), and both commands' entry point (launch)."""

from ..lazy import lazy_exports

# The command's click group, imported on first use: the package stays light for the launcher.
__getattr__ = lazy_exports(__name__, {"main": ".commands"})
