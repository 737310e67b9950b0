"""A network drawn one box per layer (`collapse="layer"`) and animated: a layer's box shows a
neuron's value only once that neuron has computed it, and no two frames in a row are the same.
"""

from __future__ import annotations

import itertools

from autograd_viz import MLP, Value
from autograd_viz.core._numbers import format_number
from autograd_viz.frames import Frames


def _group(svg: str, key: str) -> str:
    """The SVG group of one node, by its id."""
    start = svg.index(f'<g id="{key}" ')
    return svg[start : svg.index("</g>", start)]


def _layer_net() -> Value:
    return (MLP(2, [3, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2


def test_layer_boxes_show_data_only_after_their_neurons_compute_it():
    L = _layer_net()
    order = L.topological_order()
    frames = Frames(L, collapse="layer")
    members = [i for i, v in enumerate(order) if v.tag is not None and v.tag.name.startswith("L1")]
    assert len(members) == 3
    box = "layer" + str(members[0])
    for k, step in enumerate(frames.steps):
        group = _group(frames.frame_svg(k), box)
        for i in members:
            shown = f">{format_number(order[i].data)}<" in group
            assert shown == (i in step.values), (k, i, step.text)
    first, last = _group(frames.frame_svg(0), box), _group(frames.frame_svg(len(frames) - 1), box)
    assert "pending" in first.split(">")[0]
    assert "backward" in last.split(">")[0]


def test_layer_animation_never_repeats_a_frame():
    frames = Frames(_layer_net(), collapse="layer")
    svgs = frames.frame_svgs()
    assert sum(a == b for a, b in itertools.pairwise(svgs)) == 0
