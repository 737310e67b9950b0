"""Static forms of the animation, for printing, slides and places without widgets.

Three exports, all from the one layout of `autograd_viz.viz.frames.Frames`, and none needs
a kernel or the network:

* `filmstrip(root)` — chosen frames in a grid with each step's equation under it, as
  an HTML page (prints one frame per cell, never split across pages) or as one SVG.
* `save_html(root, "backprop.html")` — a standalone page with its own controls
  (First, Prev, Play/Pause, Next, Last, a step slider, speed, phase; keys ← → PageUp
  PageDown space Home End) and the last lines of the derivation above the current one. It
  is the one player (`viz/static/player.js`, as in the widget) over the SVG once plus, per
  step, only what changes (a row of the step table, `viz/steptable.py`), with KaTeX written
  in: no CDN, no kernel.
* `save_svg_animation(root, "backprop.svg")` — an animated SVG that plays by itself
  wherever SVG does (browsers, GitHub READMEs, HTML slides): the drawing once, plus one
  copy of each node or edge per change, each shown in its stretch of steps by a CSS
  keyframe animation, with each step's equation as a caption. This is the main
  animated export: it needs no extra package, stays sharp on a projector and its text
  stays searchable.
* `save_gif(root, "backprop.gif")` — the same frames as a looping GIF, for slide software
  that cannot play SVG (PowerPoint, Keynote, Google Slides). Rasterising SVG needs a
  renderer, so this one alone needs the optional `cairosvg` package.

`source` is a `Value` or a graph snapshot (traced and laid out here, with `phase` and
any drawing options, `autograd_viz.viz.options`) or an existing `Frames`. Every export
says the same caption as the widget (`Frames.caption`) and colours through the palette
(`autograd_viz.viz.palette`); the page's CSS and JavaScript are the package's
`viz/static/player.css`, `page.css` and the player module `player.js`.

Where each lives: `viz/filmstrip.py`, `viz/page.py` (the standalone page),
`viz/animation.py` (animated SVG and GIF), and what they share in `viz/compose.py`
(the frames for a source, the caption geometry). This module gathers them, and the printable
worksheet of `viz/worksheet.py` (`save_worksheet(root, "w.pdf")`, `key=True` for the answer key).
"""

from __future__ import annotations

from autograd_viz.viz.animation import ExportError, save_gif, save_svg_animation, svg_animation
from autograd_viz.viz.filmstrip import Filmstrip, filmstrip
from autograd_viz.viz.notebook_html import NotebookHTMLError, save_notebook_html
from autograd_viz.viz.page import save_html, standalone_html
from autograd_viz.viz.worksheet import Worksheet, WorksheetError, save_worksheet, worksheet

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
