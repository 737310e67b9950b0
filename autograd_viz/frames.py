"""The public `Frames(root)`: the frames of a Value's graph (of any engine), opened here once —
the size counted first, a learner's backward() run once — then traced and laid out by
`autograd_viz.view.frames.Frames`, which every player and export shows and which takes only a
graph opened already (this module also keeps the old `autograd_viz.frames` names importing)."""

from __future__ import annotations

from typing import Any

from autograd_viz.open.door import open_graph
from autograd_viz.view import frames as _frames
from autograd_viz.view.frames import *  # noqa: F403
from autograd_viz.view.frames import __all__  # noqa: F401
from autograd_viz.view.options import DrawOptions


class Frames(_frames.Frames):
    """`Frames(root, phase="both", digits=4, notation="blog", **draw_options)`: `root` is a
    Value of any engine or a graph snapshot; see `autograd_viz.view.frames.Frames`.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> frames = Frames((x + y) * y)
    >>> frames.caption(0).text
    'step 1 of 9 — forward pass'
    """

    def __init__(self, root: object, phase: str = "both", **options: Any) -> None:
        most = options.get("max_nodes", DrawOptions.max_nodes)
        # a snapshot passes as is; a learner's engine is checked, so a wrong rule is said
        graph = open_graph(root, caller="Frames", max_nodes=most, check=True)
        super().__init__(graph, phase, **options)
