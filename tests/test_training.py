"""Training you can watch: dead ReLUs found and marked, the view keeps up with the loop."""

from __future__ import annotations

import pytest

from autograd_viz import MLP
from autograd_viz.front.training import TrainingView, dead_neurons, draw_network

XS = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
YS = [0.0, 1.0, 1.0, 0.0]


def test_dead_neurons_are_relus_whose_input_is_never_positive():
    assert dead_neurons(MLP(2, [4, 4, 1], seed=24), XS) == ["L3.n1"]
    assert dead_neurons(MLP(2, [4, 4, 1], seed=0), XS) == ["L1.n2", "L2.n1", "L2.n2", "L2.n4",
                                                          "L3.n1"]  # fmt: skip
    assert dead_neurons(MLP(2, [4, 4, 1], seed=3), XS) == []
    assert dead_neurons(MLP(2, [4, 4, 1], act="tanh", seed=0), XS) == []  # tanh cannot die


def test_the_drawing_marks_dead_neurons_without_colour_and_explains_them():
    drawing = draw_network(MLP(2, [4, 4, 1], seed=24), XS, YS, sample=1)
    source = drawing.source
    marked = [line for line in source.splitlines() if 'class="neuron dead"' in line]
    assert len(marked) == 1 and "L3.n1" in marked[0] and "ReLU · dead" in marked[0]
    assert "dashed" in marked[0]  # the outline, not just the fill
    assert "dead ReLU: its input is ≤ 0 on all 4 samples" in source
    svg = drawing.svg()
    assert "ReLU · dead" in svg and "grad −2" in svg  # the loss sends −2 back at (0, 1)


def test_the_drawing_does_not_touch_the_models_gradients():
    model = MLP(2, [4, 4, 1], seed=26)
    draw_network(model, XS, YS, sample=3)
    assert all(p.grad == 0 for p in model.parameters())


def test_a_bad_sample_index_is_refused():
    with pytest.raises(IndexError, match=r"0\.\.3"):
        draw_network(MLP(2, [1], seed=0), XS, YS, sample=4)


@pytest.mark.slow
def test_the_view_counts_steps_and_redraws_on_schedule():
    model = MLP(2, [4, 4, 1], seed=26)
    view = TrainingView(model, XS, YS, steps=4, every=2, show=False)
    for step, loss in enumerate((0.4, 0.3, 0.2, 0.1), start=1):
        view.update(step, loss)
    assert view.losses == [0.4, 0.3, 0.2, 0.1]
    assert view.progress.value == 4 and view.progress.description == "step 4 of 4"
    plots = view.plots()
    assert plots.png.startswith(b"\x89PNG") and "loss so far" in repr(plots)
    with pytest.raises(ValueError, match="steps"):
        TrainingView(model, XS, YS, steps=0, show=False)


def test_the_readmes_first_network_learns():
    """The README's first network once had a dead output ReLU: loss 1 and all 37 gradients 0."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    seed = int(re.search(r"net = MLP\(2, \[4, 4, 1\], seed=(\d+)\)", readme)[1])
    assert "loss = (net([1.0, -1.0]) - 1.0) ** 2" in readme
    net = MLP(2, [4, 4, 1], seed=seed)
    loss = (net([1.0, -1.0]) - 1.0) ** 2
    loss.backward()
    assert sum(p.grad != 0 for p in net.parameters()) > 20
    for _ in range(20):
        loss = (net([1.0, -1.0]) - 1.0) ** 2
        net.zero_grad()
        loss.backward()
        for p in net.parameters():
            p.data -= 0.05 * p.grad
    assert ((net([1.0, -1.0]) - 1.0) ** 2).data < 1e-3


def test_notebook_07_saves_the_loss_curve_the_boundary_and_the_marked_dead_units():
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "notebooks" / "07_xor_network.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    plots = [o for o in outputs if "<Training plots" in str(o.get("data", {}).get("text/plain"))]
    assert len(plots) == 2 and all("image/png" in o["data"] for o in plots)  # loss + boundary
    svgs = ["".join(o["data"]["image/svg+xml"]) for o in outputs
            if "image/svg+xml" in o.get("data", {})]  # fmt: skip
    dead = [s for s in svgs if "ReLU · dead" in s and "dead ReLU: its input is" in s]
    assert len(dead) >= 2  # the dead seed-24 network, and seed 15 after training
    progress = [o for o in outputs if "IntProgress" in str(o.get("data", {}).get("text/plain"))]
    assert len(progress) == 2


@pytest.mark.parametrize(
    ("model", "xs", "message"),
    [
        (MLP(2, [4, 2], seed=0), XS, r"colours the plane by the model's one output .* this "
                                     r"model returns 2 values; give it one output"),
        (MLP(1, [4, 1], seed=0), [[0.0], [1.0]], r"this model takes 1 input; train a model "
                                                 r"with two inputs, e.g. MLP\(2, \[4, 4, 1\]\)"),
        (MLP(3, [4, 1], seed=0), [[0.0, 0.0, 0.0]], r"this model takes 3 inputs"),
        (lambda x: x[0] * 2.0, [[0.0]], r"every point in xs has two numbers \(x1, x2\); "
                                        r"xs\[0\] is \[0\.0\]"),
    ],
)  # fmt: skip
def test_a_model_the_view_cannot_picture_is_refused_before_anything_is_shown(model, xs, message):
    # these failed only when the plots were drawn: 'list' object has no attribute 'data',
    # IndexError: list index out of range, MLP expects 3 inputs, got 2
    with pytest.raises(ValueError, match=message):
        TrainingView(model, xs, [0.0] * len(xs), steps=2, show=False)


def test_a_bad_sample_is_refused_by_the_view_itself():
    with pytest.raises(IndexError, match=r"sample must be an index into xs \(0\.\.3\)"):
        TrainingView(MLP(2, [1], seed=0), XS, YS, steps=2, sample=4, show=False)
