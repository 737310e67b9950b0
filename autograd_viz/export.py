"""Static forms of the animation, for printing, slides and places without widgets, gathered in one
module: `filmstrip` (`exports/filmstrip.py`), `save_html` (the standalone page, `front/page.py`),
`save_svg_animation` and `save_gif` (`exports/animation.py`) and the printable `save_worksheet`
(`exports/worksheet.py`) take a `Value` or a graph snapshot (the animations also an existing
`Frames`), draw from one layout and say the same caption as the widget (`Frames.caption`);
`save_notebook_html` (`exports/notebook_html.py`) writes a whole notebook. None needs a kernel or
the network to be viewed."""

from __future__ import annotations

from autograd_viz.exports.animation import ExportError, save_gif, save_svg_animation, svg_animation
from autograd_viz.exports.filmstrip import Filmstrip, filmstrip
from autograd_viz.exports.notebook_html import NotebookHTMLError, save_notebook_html
from autograd_viz.exports.worksheet import Worksheet, WorksheetError, save_worksheet, worksheet
from autograd_viz.front.page import save_html, standalone_html

__all__ = [
    "ExportError",
    "Filmstrip",
    "NotebookHTMLError",
    "Worksheet",
    "WorksheetError",
    "filmstrip",
    "save_gif",
    "save_html",
    "save_notebook_html",
    "save_svg_animation",
    "save_worksheet",
    "standalone_html",
    "svg_animation",
    "worksheet",
]
