"""The View: what a learner sees, as data — one layout of the graph (`render`, `dot`, `layout`),
the frames and the step table the one player plays, the quiz's blanks, ask-the-graph's answers,
the palette and the drawing options. Nothing here is imported by `autograd_viz` itself:
`Value.draw()` and `Value.animate()` load `autograd_viz.api` on first use.
"""
