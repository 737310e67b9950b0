"""The filmstrip: chosen frames in a grid with each step's equation under it, as a
printable HTML page (one frame per cell, never split across pages) or as one SVG."""

from __future__ import annotations

import html
import operator
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from autograd_viz.core._checks import as_count
from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.exports.compose import Captions, frame_size, nested, renamed
from autograd_viz.view.frames import Frames, Source, frames_of
from autograd_viz.view.palette import var

__all__ = ["Filmstrip", "filmstrip"]


class Filmstrip:
    """Chosen frames in a grid, each with its step's equation: `.html()`, `.svg()`,
    `.save(path)` (.html or .svg); shows inline in Jupyter."""

    def __init__(self, frames: Frames, indices: Sequence[int], columns: int) -> None:
        self.frames = frames
        self.indices = list(indices)
        self.columns = columns

    def html(self, *, full_page: bool = True) -> str:
        """An HTML grid of the frames with their equations (a whole page, or a fragment)."""
        figures = "".join(
            '<figure class="avz-cell">'
            f'<div class="avz-graph">{renamed(self.frames.frame_svg(k))}</div>'
            f'<figcaption><span class="avz-step">{html.escape(self.frames.caption(k).text)}'
            f"</span><br>{html.escape(self.frames.steps[k].text)}</figcaption></figure>"
            for k in self.indices
        )
        style = (
            f".avz-strip{{display:grid;grid-template-columns:repeat({self.columns},minmax(0,1fr));"
            "gap:14px;font-family:Arial,Helvetica,sans-serif}"
            f".avz-cell{{margin:0;padding:6px;border:1px solid {var('border')};break-inside:avoid;"
            "page-break-inside:avoid}"
            ".avz-graph svg{width:100%;height:auto}"
            ".avz-cell figcaption{font-size:13px;line-height:1.4;margin-top:4px}"
            f".avz-step{{color:{var('muted')};font-size:11px}}"
            "@page{margin:12mm}"
            "@media print{.avz-strip{-webkit-print-color-adjust:exact;print-color-adjust:exact}}"
        )
        body = f'<style>{style}</style><div class="avz-strip">{figures}</div>'
        if not full_page:
            return body
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>Backpropagation, step by step</title></head><body>{body}</body></html>"
        )

    def svg(self, *, caption_size: float = 11) -> str:
        """One SVG: the frames in a grid, each with its equation underneath."""
        width, height = frame_size(self.frames.base_svg)
        captions = Captions(self.frames, self.indices, width, caption_size)
        cell_h = height + captions.height + 4
        cell_w = width + 16
        rows = -(-len(self.indices) // self.columns)
        cols = min(self.columns, len(self.indices))
        parts = []
        for n, k in enumerate(self.indices):
            x0, y0 = (n % self.columns) * cell_w + 8, (n // self.columns) * cell_h + 8
            frame = nested(renamed(self.frames.frame_svg(k)), x0, y0, width, height)
            parts.append(frame + captions.svg(k, x0, y0 + height))
        total_w, total_h = cols * cell_w, rows * cell_h
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:g}pt" '
            f'height="{total_h:g}pt" viewBox="0 0 {total_w:g} {total_h:g}" '
            f'font-family="Arial, Helvetica, sans-serif" font-size="{caption_size:g}">'
            f'<rect width="100%" height="100%" fill="white"/>{"".join(parts)}</svg>\n'
        )

    def save(self, path: str | Path) -> Path:
        """Write the filmstrip to `path`: .html (a printable page) or .svg."""
        path = output_path(path, "Filmstrip.save")
        suffix = path.suffix.lower()
        if suffix == ".html":
            write_output(path, self.html())
        elif suffix == ".svg":
            write_output(path, self.svg())
        else:
            raise ValueError(
                f"cannot save a filmstrip as {suffix or 'a file without a suffix'!r}: "
                "use a path ending in .html or .svg"
            )
        return path

    def _repr_html_(self) -> str:
        return self.html(full_page=False)

    def __repr__(self) -> str:
        return f"<Filmstrip of {len(self.indices)} frames in {self.columns} columns>"


def filmstrip(
    source: Source,
    steps: Sequence[int] | None = None,
    *,
    columns: int = 3,
    phase: str | None = None,
    **draw_options: Any,
) -> Filmstrip:
    """A grid of frames with their equations, for printing and slides.

    `steps`: the frame indices to show (default: all); negative indices count from the end.

    >>> from autograd_viz import Value

    >>> from autograd_viz.open.snapshot import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> strip = filmstrip(snapshot((x + y) * y), steps=[0, 2, -1])
    >>> strip.indices
    [0, 2, 8]
    """
    count = as_count(columns)
    if count is None:
        raise ValueError(f"columns must be a positive whole number, got {columns!r}")
    columns = count
    chosen = None if steps is None else _step_list(steps)  # before the work
    frames = frames_of(source, phase, draw_options)
    n = len(frames)
    indices = []
    for k in range(n) if chosen is None else chosen:
        if not -n <= k < n:
            raise IndexError(f"step {k!r} does not exist; frames are 0..{n - 1} (or -{n}..-1)")
        indices.append(k % n)
    return Filmstrip(frames, indices, columns)


def _step_list(steps: object) -> list[int]:
    """`steps` as a list of whole numbers (numpy's too), or a TypeError saying what to pass."""
    usage = "steps is a list of frame indices, e.g. steps=[0, 2, -1], or None (all frames)"
    if isinstance(steps, (str, bytes)):
        raise TypeError(f"{usage}; got the string {steps!r}")
    if not isinstance(steps, Iterable):
        one = f"; for one frame, steps=[{steps!r}]" if isinstance(steps, int) else ""
        raise TypeError(f"{usage}; got {type(steps).__name__}: {steps!r}{one}")
    chosen = []
    for k in steps:
        try:  # bools are no frame numbers, though Python counts them as 1 and 0
            chosen.append(None if isinstance(k, (bool, float)) else operator.index(k))
        except TypeError:
            chosen.append(None)
        if chosen[-1] is None:
            raise TypeError(f"{usage}; got {k!r} in {steps!r}")
    if not chosen:
        raise ValueError("steps is empty: pass the frame indices to show, or None for all")
    return chosen
