"""PyTorch's own graph in the player, in real JupyterLab and Chromium: `animate(tz)` of a tensor
shows PyTorch's Functions (MulBackward0, AddBackward0) as the operation nodes and steps through
the backward pass in the order PyTorch's engine ran it (hooks on one real backward()), with the
numbers PyTorch computed and the note where PyTorch works differently from our engine."""

from __future__ import annotations

import pytest
from player_page import demo_notebook, read_player, wait_for_step

pytest.importorskip("torch")

pytestmark = pytest.mark.browser

PLAYER = ".jp-OutputArea .avz-player"
SOURCE = """\
import torch
import autograd_viz
tx = torch.tensor(2.0, requires_grad=True)
ty = torch.tensor(3.0, requires_grad=True)
ta = tx * tx
tb = ty * ty
tz = tb + ta
player = autograd_viz.animate(tz, names={"x": tx, "y": ty, "a": ta, "b": tb, "z": tz})
player
"""


def _expected_backward() -> tuple[list[str], list[str]]:
    """The backward steps the kit writes for the same tensors in this process, and for the same
    expression built from our Value. PyTorch's engine runs the Function made last first (b's
    MulBackward0, then a's), our backward() the reverse of its topological order (a, then b)."""
    import torch

    from autograd_viz import Value
    from autograd_viz.open.door import open_graph
    from autograd_viz.trace import trace

    tx = torch.tensor(2.0, requires_grad=True)
    ty = torch.tensor(3.0, requires_grad=True)
    ta, tb = tx * tx, ty * ty
    tz = tb + ta
    graph = open_graph(tz, caller="test", names={"x": tx, "y": ty, "a": ta, "b": tb, "z": tz})
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    a, b = x * x, y * y
    a.label, b.label = "a", "b"
    z = b + a
    z.label = "z"
    return ([s.text for s in trace(graph, phase="backward")],
            [s.text for s in trace(z, phase="backward")])  # fmt: skip


def test_the_player_steps_pytorchs_graph_in_its_own_order_in_jupyterlab(jupyterlab, page):
    p = page.page
    jupyterlab.open_notebook(p, "torch_player.ipynb", demo_notebook(SOURCE))
    jupyterlab.run_all(p, "torch_player.ipynb", f"{PLAYER}[data-step]")
    first = wait_for_step(p, 1, PLAYER)
    n = int(first.caption.split(" of ")[1].split()[0])
    labels = p.locator(f"{PLAYER} .avz-graph g.node text").all_text_contents()
    assert "MulBackward0" in labels and "AddBackward0" in labels, labels

    root = p.locator(PLAYER).first
    root.locator("button.avz-phase[data-phase='backward']").click()
    shown = [wait_for_step(p, 1, PLAYER).equation]
    back_n = int(read_player(p, PLAYER).caption.split(" of ")[1].split()[0])
    for step in range(2, back_n + 1):
        root.locator("button.avz-next").click()
        shown.append(wait_for_step(p, step, PLAYER).equation)
    expected, ours = _expected_backward()
    assert shown == expected
    totals = [eq.split("   ")[0] for eq in shown if eq.startswith(("∂z/∂x =", "∂z/∂y ="))]
    assert totals == ["∂z/∂y = 3 + 3 = 6", "∂z/∂x = 2 + 2 = 4"]  # y's Function ran first
    assert [eq for eq in ours if eq.startswith(("∂z/∂x =", "∂z/∂y ="))] == [
        "∂z/∂x = 2 + 2 = 4", "∂z/∂y = 3 + 3 = 6"]  # our engine: x first  # fmt: skip
    assert "(PyTorch adds 3 + 3 = 6 in its engine, then calls y's AccumulateGrad once)" in (
        shown[-4]
    )
    assert n > back_n  # the forward pass came first in "both"
    p.locator(PLAYER).first.screenshot(path=str(jupyterlab.root / "torch_player.png"))
    assert page.foreign_requests() == []
    assert not [e for e in page.console_errors if "Error" in e], page.console_errors


def test_the_player_steps_a_graph_of_small_tensors_element_by_element(opened, page, tmp_path):
    """sum(tanh(x·w + b)) on tensors of three numbers, in the kernel-free player in Chromium:
    each step's equation is the trace's, typeset; a tensor's grad cell reads `grad ?` until
    the step that completes it, then PyTorch's gradient as a vector."""
    import torch

    from autograd_viz.open.door import open_graph
    from autograd_viz.trace import trace

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=torch.float64)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, dtype=torch.float64)
    b = torch.tensor(0.5, requires_grad=True, dtype=torch.float64)
    L = (x * w + b).tanh().sum()
    graph = open_graph(L, caller="Frames", names={"x": x, "w": w, "b": b, "L": L})
    expected = [s.text for s in trace(graph)]
    p = opened(graph)
    root = p.locator(".avz-player").first
    x_grad = root.locator(".avz-graph text#v0-grad")
    shown, x_cells = [], []
    for step in range(1, len(expected) + 1):
        if step > 1:
            root.locator("button.avz-next").click()
        state = wait_for_step(p, step)
        assert state.typeset, step
        shown.append(state.equation)
        x_cells.append(x_grad.text_content())
    assert shown == expected
    done = next(k for k, text in enumerate(shown) if text.startswith("∂L/∂x = "))
    assert x_cells[done - 1] == "grad ?"
    assert x_cells[done] == "grad [0.21, −0.1807, 1.808e−5]"
    assert "⊙" in shown[done] and "Σ" in next(t for t in shown if t.startswith("∂L/∂b = "))
    root.screenshot(path=str(tmp_path / "tensor_player.png"))
    assert not [e for e in page.console_errors if "Error" in e], page.console_errors
