"""What every export shares: frames with their captions placed in one SVG document (the
filmstrip's grid, the animated SVG, the GIF's pictures) — one caption geometry (`Captions`):
the caption line the players show (`Frames.caption`), then the step's equation wrapped to the
frame's width.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from autograd_viz.view.palette import COLORS

if TYPE_CHECKING:  # annotations only
    from autograd_viz.view.frames import Frames

__all__ = ["Captions", "frame_size", "nested", "renamed", "wrap"]


def frame_size(svg: str) -> tuple[float, float]:
    """The width and height (in pt) of a graphviz SVG."""
    m = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if not m:
        raise ValueError("the frame SVG has no width/height in pt; was it made by graphviz?")
    return float(m.group(1)), float(m.group(2))


def wrap(text: str, width: int) -> list[str]:
    """Break an equation into lines of about `width` characters, at its spaces."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return [*lines, current]


class Captions:
    """The caption geometry under a frame, one for every SVG export: the grey caption
    line, then the step's equation wrapped to the frame's width. `height` is the room
    the tallest caption of the chosen frames needs."""

    def __init__(self, frames: Frames, indices: Sequence[int], width: float, size: float) -> None:
        self.frames = frames
        self.line = size * 1.4
        chars = max(20, int(width / (size * 0.55)))
        self.lines = {k: wrap(frames.steps[k].text, chars) for k in indices}
        self.height = self.line * (1 + max(len(c) for c in self.lines.values())) + 8

    def svg(self, k: int, x: float, top: float) -> str:
        """SVG text lines under frame k, whose picture ends at `top`."""
        grey = f' fill="{COLORS["muted"]}"'  # an SVG attribute: a literal colour
        texts = [self.frames.caption(k).text, *self.lines[k]]
        return "".join(
            f'<text x="{x:g}" y="{top + self.line * (i + 1):g}"{grey if i == 0 else ""}>'
            f"{html.escape(t, quote=False)}</text>"
            for i, t in enumerate(texts)
        )


def nested(svg: str, x: float, y: float, width: float, height: float) -> str:
    """A frame's SVG placed at (x, y) inside a larger SVG whose units are pt."""
    svg = re.sub(
        r'width="[\d.]+pt" height="[\d.]+pt"',
        f'x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}"',
        svg,
        count=1,
    )
    return svg.strip()


def renamed(markup: str) -> str:
    """Copies of one drawing in one document: ids become data-avz (ids must stay unique)."""
    return markup.replace(' id="', ' data-avz="')
