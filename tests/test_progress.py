"""Build progress lines: honest early estimates, nothing past the last level."""

import io

from patterndb.build.progress import LevelProgress


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
    # 800 K left at 66.7 K/s since the first level (from the start: 132 s)
    assert lines[-1].endswith("ETA ~  12s")
    assert not any("depth  4" in ln for ln in lines)


def test_redrawn_lines_fit_the_terminal(monkeypatch):
    """The build and status lines fit an 80-column terminal (a wrapped line leaves a stale
    copy per redraw)."""
    from patterndb.build.progress import fit

    monkeypatch.setenv("COLUMNS", "40")
    out = io.StringIO()  # (no terminal behind it: the width comes from COLUMNS)
    assert fit("x" * 39, out) == "x" * 39
    cut = fit("y" * 100, out)
    assert len(cut) == 39 and cut.endswith("...")
    monkeypatch.setenv("COLUMNS", "80")
    clock = Clock()
    bar = LevelProgress("5x5 tiles 0,17-19,22-24", 127_512_000, out, clock)
    bar.tty = True
    clock.t = 1.0
    bar.level(1, 10, 9)
    clock.t = 90.0
    bar.level(25, 97_123_456, 20_123_456)
    drawn = out.getvalue().split("\r")[-1].replace("\x1b[K", "")
    assert len(drawn) < 80 and drawn.startswith(
        "5x5 tiles 0,17-19,22-24: depth 25, 97.12 M of 127.51 M"
    ), drawn
