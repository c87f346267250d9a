"""A solution played back: the boards on the way, as an animated SVG or in a terminal.

The SVG needs nothing to make or to view (a browser plays it): each tile is a group
moved by one SMIL animateTransform through its cell in every frame, a linear slide
between consecutive frames, with the last frame held for a moment before it repeats.
A GIF (one frame a board, the goal held longer) needs Pillow, which the [plot] extra
brings with matplotlib; it is imported only for a GIF.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import escape

from patterndb import Board, BoardError
from patterndb.puzzle.geometry import DIRECTIONS

CELL = 56  # pixels a cell
GAP = 3  # pixels between tiles
HOLD = 4  # frames' worth of time the goal stays before the animation repeats


def frames(board: Board, directions: str) -> list[Board]:
    """The board after each of the blank's moves (U D L R), the start first; BoardError
    for a move off the board or a letter that is not a direction."""
    out = [board]
    for i, d in enumerate(directions.upper()):
        if d not in DIRECTIONS:
            raise BoardError(f"move {i + 1} is {d!r}: moves are the blank's U, D, L and R")
        dst = int(board.shape.neighbours[out[-1].blank, DIRECTIONS.index(d)])
        if dst < 0:
            raise BoardError(f"move {i + 1} ({d}) takes the blank off the board")
        out.append(out[-1].move_blank(dst))
    return out


def svg(boards: list[Board], seconds_per_move: float = 0.35, title: str = "") -> str:
    """An animated SVG of the boards in turn (one frame a board)."""
    shape = boards[0].shape
    width, height = shape.cols * CELL + GAP, shape.rows * CELL + GAP
    steps = len(boards) - 1
    duration = max(steps + HOLD, 1) * seconds_per_move
    times = [i / (steps + HOLD) for i in range(steps + 1)] + [1.0]
    key_times = ";".join(f"{t:.6f}" for t in times)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f"<title>{escape(title or f'{shape} board, {steps} moves')}</title>",
        f'<rect width="{width}" height="{height}" fill="#3b3b3b"/>',
    ]
    positions = [b.positions() for b in boards]
    for tile in range(1, shape.n):
        cells = [int(p[tile]) for p in positions]
        xy = [((c % shape.cols) * CELL + GAP, (c // shape.cols) * CELL + GAP) for c in cells]
        values = ";".join(f"{x},{y}" for x, y in xy + [xy[-1]])
        x0, y0 = xy[0]
        size = CELL - GAP
        parts.append(
            f'<g transform="translate({x0},{y0})">'
            f'<rect width="{size}" height="{size}" rx="6" fill="#e8c07d" stroke="#8a6a32"/>'
            f'<text x="{size / 2}" y="{size / 2}" font-size="{size * 0.45:.0f}" text-anchor="middle" '
            f'dominant-baseline="central" fill="#2b2b2b">{tile}</text>'
            f'<animateTransform attributeName="transform" type="translate" values="{values}" '
            f'keyTimes="{key_times}" dur="{duration:.3f}s" calcMode="linear" repeatCount="indefinite"/>'
            "</g>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def gif(boards: list[Board], out, seconds_per_move: float = 0.35) -> int:
    """Write an animated GIF of the boards to out (a path or a binary file); returns its frames."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise BoardError(
            "a GIF needs Pillow (pip install -e '.[plot]'); an .svg needs nothing"
        ) from None
    shape = boards[0].shape
    size = CELL - GAP
    try:
        font = ImageFont.load_default(size=int(size * 0.45))
    except TypeError:  # Pillow before 10.1: one small bitmap font
        font = ImageFont.load_default()
    images = []
    for b in boards:
        img = Image.new("RGB", (shape.cols * CELL + GAP, shape.rows * CELL + GAP), "#3b3b3b")
        draw = ImageDraw.Draw(img)
        for cell, tile in enumerate(b.tiles):
            if tile == 0:
                continue
            x, y = (cell % shape.cols) * CELL + GAP, (cell // shape.cols) * CELL + GAP
            draw.rounded_rectangle(
                (x, y, x + size, y + size), radius=6, fill="#e8c07d", outline="#8a6a32"
            )
            draw.text(
                (x + size / 2, y + size / 2), str(int(tile)), fill="#2b2b2b", font=font, anchor="mm"
            )
        images.append(img.convert("P", palette=Image.Palette.ADAPTIVE))
    ms = max(int(seconds_per_move * 1000), 20)
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        loop=0,
        duration=[ms] * (len(images) - 1) + [ms * HOLD],
        disposal=1,
    )
    return len(images)


def terminal_frames(boards: list[Board], directions: str) -> Iterator[str]:
    """Each board as text with the move that led to it, for a terminal to show in turn."""
    for i, b in enumerate(boards):
        head = (
            "start"
            if i == 0
            else f"move {i} of {len(boards) - 1}: blank {directions[i - 1].upper()}"
        )
        yield f"{head}\n{b.grid()}\n"
