"""Drawing and animation: everything a learner sees, none of what a learner reads.

The layers, each reading only the one below it:

* `layout` — the renderer seam: DOT in, SVG/PNG/PDF out (graphviz's `dot`).
* `dot`, `svg`, `collapse` — DOT text, the finished SVG, and which values a collapsed
  drawing hides.
* `api` — `autograd_viz.draw` / `animate` / `quiz`: options checked once, the graph opened
  once (`autograd_viz.door`), the snapshot handed down; `mark` — a learner's first wrong
  node, marked where the caller asks.
* `render` — `draw(root)`: one picture of a graph.
* `frames` — every step of a trace as a frame of one layout.
* `player`, `export` — the widget, and the widget-free forms: `page` (the standalone
  page), `animation` (animated SVG, GIF), `filmstrip`, sharing `compose` (the frames for
  a source, the caption geometry).

Nothing here is imported by `autograd_viz` itself: `Value.draw()` and `Value.animate()`
load `api` on first use (the one documented import from the engine up into the viewers).
"""
