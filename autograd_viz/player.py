"""The public `Player(root)`: the player widget of a Value's graph (of any engine), opened here
once — the size counted first, a learner's backward() run once — and played by
`autograd_viz.front.player.Player`, which takes only a graph opened already (this module also
keeps the old `autograd_viz.player` names importing)."""

from __future__ import annotations

from typing import Any

from autograd_viz.front import player as _player
from autograd_viz.front.player import *  # noqa: F403
from autograd_viz.front.player import __all__  # noqa: F401
from autograd_viz.open.door import open_graph
from autograd_viz.view.options import DrawOptions


class Player(_player.Player):
    """`Player(root, phase="both", *, speed, projector, max_frames, history, **draw_options)`:
    `root` is a Value of any engine or a graph snapshot; the options are those of
    `autograd_viz.front.player.Player`.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y; z.label = "z"
    >>> player = Player(z)              # or: z.animate()
    >>> player.n_frames, player.step    # steps count from 1, as in the caption
    (9, 1)
    """

    def __init__(self, root: object, phase: str = "both", **options: Any) -> None:
        most = options.get("max_nodes", DrawOptions.max_nodes)
        # a snapshot passes as is; a learner's engine is checked, so a wrong rule is said
        graph = open_graph(root, caller="Player", max_nodes=most, check=True)
        super().__init__(graph, phase, **options)
