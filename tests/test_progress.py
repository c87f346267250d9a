"""Build progress lines: honest early estimates, nothing past the last level."""
import io

from patterndb.progress import LevelProgress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_no_absurd_eta_early_and_no_level_past_the_maximum():
    clock, out = Clock(), io.StringIO()
    bar = LevelProgress("t", 1_000_000, out, clock)
    clock.t = 30.0  # the first level took 30 s: compiling the kernels
    bar.level(1, 10, 9)
    clock.t = 31.5
    bar.level(2, 100_010, 100_000)  # 100 K states in 1.5 s after the first level
    clock.t = 33.0
    bar.level(3, 200_010, 100_000)
    clock.t = 34.5
    bar.level(4, 200_010, 0)  # nothing new: past the table's maximum
    lines = out.getvalue().splitlines()
    assert "ETA ?" in lines[0]
    assert lines[-1].endswith("ETA ~  12s")  # 800 K left at 66.7 K/s since the first level (from the start: 132 s)
    assert not any("depth  4" in ln for ln in lines)
