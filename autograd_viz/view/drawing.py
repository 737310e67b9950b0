"""A drawn computation graph as a person meets it: `Drawing` holds the DOT, lays it out once on
first use (`autograd_viz.view.layout`: the graph's cost is bounded before anything is shown), shows
inline in Jupyter as SVG (a graph too wide for the output column scrolls sideways instead of
shrinking its text below 10 px), and saves to .svg, .png or .pdf, written all or nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from autograd_viz.core._checks import is_number
from autograd_viz.core.outpath import output_path, write_output
from autograd_viz.view import layout
from autograd_viz.view.layout import GraphvizNotFoundError
from autograd_viz.view.svg import MIN_FIT_TEXT, fitted_text_px

__all__ = ["COLUMN_PX", "Drawing"]

COLUMN_PX = 1000  # CSS px: about a notebook's output column, which shrinks a wider picture


class Drawing:
    """A drawn computation graph: shows inline in Jupyter, `.source` is the DOT, `.svg()`
    the picture, `.save("graph.png")` writes a file (.svg, .png or .pdf).

    >>> from autograd_viz import Value
    >>> from autograd_viz.api import draw
    >>> x = Value(2.0, label="x")
    >>> d = draw(x * x)
    >>> d.source.count("->")
    3
    """

    def __init__(
        self, source: str, caption: str | None = None, timeout: float = 120, summary: str = ""
    ) -> None:
        layout.bounded(source)  # a graph too costly to lay out is refused now, not when shown
        self.source = source
        self.caption = caption
        self.summary = summary
        self.timeout = timeout
        self._svg: str | None = None

    def svg(self) -> str:
        """The SVG text (rendered by `dot` on first use, then cached)."""
        if self._svg is None:
            self._svg = layout.svg_from_dot(self.source, timeout=self.timeout)
        return self._svg

    def save(self, path: str | os.PathLike, *, dpi: float = 144) -> Path:
        """Write the drawing to `path`; the suffix picks the format (.svg, .png, .pdf).

        `dpi` sets the resolution of a PNG. Returns the path written.
        """
        path = output_path(path, "Drawing.save")
        if not is_number(dpi, (int, float)) or not 10 <= dpi <= 1200:
            raise ValueError(  # dot took 30 s over dpi=-1 and wrote a picture anyway
                f"dpi is the PNG's dots per inch, from 10 to 1200 (144 by default; 300 for "
                f"print), got {dpi!r}"
            )
        suffix = path.suffix.lower()
        if suffix == ".svg":
            write_output(path, self.svg())
        elif suffix in (".png", ".pdf"):
            extra = (f"-Gdpi={dpi:g}",) if suffix == ".png" else ()
            write_output(
                path, layout.run_dot(self.source, suffix[1:], timeout=self.timeout, extra=extra)
            )
        else:
            raise ValueError(
                f"cannot save a drawing as {suffix or 'a file without a suffix'!r}: "
                "use a path ending in .svg, .png or .pdf"
            )
        return path

    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        try:
            svg = self.svg()
        except GraphvizNotFoundError as err:  # show the fix, not a formatter traceback
            return {"text/plain": f"{err}"}
        bundle = {"image/svg+xml": svg, "text/plain": repr(self)}
        if fitted_text_px(svg, COLUMN_PX) < MIN_FIT_TEXT:
            # A notebook would shrink it to the column, its text below 10 px: keep its size
            # in a box that scrolls sideways, and say so. Frontends prefer HTML to SVG.
            bundle["text/html"] = (
                '<div class="avz-wide-drawing" style="overflow-x: auto; max-width: 100%">'
                '<div style="font-size: 0.9em; margin: 0 0 4px">⇆ A wide graph: scroll it '
                "sideways (Shift + mouse wheel).</div>"
                f'<div style="width: max-content">{svg}</div></div>'
            )
        return bundle

    def __repr__(self) -> str:
        what = f" of {self.summary}" if self.summary else ""
        return f"<Drawing{what}: .source is the DOT, .svg() the picture>"
