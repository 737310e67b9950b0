"""Drawing and animation: everything a learner sees, none of what a learner reads. Its modules form
layers, each reading only the one below it (docs/architecture.md draws them), and nothing here is
imported by `autograd_viz` itself: `Value.draw()` and `Value.animate()` load `api` on first use,
the one documented import from the engine up into the viewers.
"""
