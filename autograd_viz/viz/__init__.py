"""Drawing and animation: everything a learner sees, none of what a learner reads.

The layers, each reading only the one below it:

* `layout` — the renderer seam: DOT in, SVG/PNG/PDF out (graphviz's `dot`).
* `dot`, `svg`, `collapse` — DOT text, the finished SVG, and which values a collapsed
  drawing hides.
* `render` — `draw(root)`: one picture of a graph.
* `frames` — every step of a trace as a frame of one layout.
* `player`, `export` — the widget, and the widget-free forms: `page` (the standalone
  page), `animation` (animated SVG, GIF), `filmstrip`, sharing `compose` (the frames for
  a source, the caption geometry).

Nothing here is imported by `autograd_viz` itself: `Value.draw()` and `Value.animate()`
load it on first use.
"""
