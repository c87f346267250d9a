"""Why the solver has no dual lookups: scripts/dual_lookups.py over every 8-puzzle state."""
import subprocess
import sys


def test_dual_lookups_overestimate_only_off_the_blank_goal_cell():
    """The inverse permutation's lookup is a lower bound where the blank is on its goal cell
    and overestimates elsewhere (so it could only serve 1 node in n); every regular lookup
    is a lower bound (the script fails otherwise)."""
    r = subprocess.run([sys.executable, "scripts/dual_lookups.py"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if " on goal " in line or " off goal " in line]
    assert len(rows) == 6
    for row in rows:
        where, over = row[-5], int(row[-2].replace(",", ""))
        assert (over == 0) == (where == "on"), row
