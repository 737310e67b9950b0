"""A collapsed layer animates in Chromium like any value (issue 10 item 2): grey and
showing "?" before its neurons compute, orange once they have values, blue once their
gradients are final — the colours the browser really paints, not just the classes."""

from __future__ import annotations

import pytest

from autograd_viz import MLP
from autograd_viz.frames import Frames
from autograd_viz.view.collapse import collapse_view
from autograd_viz.view.palette import COLORS

pytestmark = pytest.mark.browser


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


_PAINTED = """(box) => Array.from(document.querySelectorAll("svg.avz-frame")).map((svg) => {
  const g = svg.querySelector("#" + box);
  const cells = Array.from(g.querySelectorAll("text[id$='-data']")).map((t) => t.textContent);
  return [getComputedStyle(g.querySelector(".avz-shape")).fill, cells];
})"""


def test_a_layer_box_is_painted_pending_then_forward_then_backward(page):
    loss = (MLP(2, [3, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    frames = Frames(loss, collapse="layer")
    layer = collapse_view(frames.graph, "layer").boxes[0]  # the first hidden layer
    box, members = layer.key, layer.members
    first_forward = next(k for k, s in enumerate(frames.steps) if members[0] in s.values)
    shown = [0, first_forward, len(frames) - 1]
    body = "".join(f"<div>{frames.frame_svg(k)}</div>" for k in shown)
    page.page.set_content(f"<!doctype html><html><body>{body}</body></html>")
    (start, start_cells), (mid, mid_cells), (end, end_cells) = page.page.evaluate(_PAINTED, box)
    assert start == _rgb(COLORS["pending"]) and set(start_cells) == {"?"}
    assert mid == _rgb(COLORS["forward"]) and mid_cells[0] != "?"
    assert end == _rgb(COLORS["backward"]) and "?" not in end_cells
    assert len(start_cells) == len(members) == 3
