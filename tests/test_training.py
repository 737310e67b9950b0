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


def test_a_network_of_too_many_neurons_is_refused_before_its_graph_is_read(monkeypatch):
    """One box per neuron: MLP(2, [256, 256, 1]) needs 513 boxes, over max_nodes=500. It was
    refused only by the drawing, after a snapshot of its ~200,000 values and their whole
    derivation (22.8 s here); the neurons are counted first now, and nothing is read."""
    import autograd_viz.front.training as training
    from autograd_viz.core.errors import GraphTooLargeError

    def no_read(*args, **kwargs):
        raise AssertionError("the graph was read before the count refused it")

    monkeypatch.setattr(training, "snapshot", no_read)
    with pytest.raises(GraphTooLargeError, match=r"more than 500 neurons .*collapse='layer'"):
        draw_network(MLP(2, [256, 256, 1], seed=0), [[0, 0], [1, 1]], [0, 0])


def test_draw_with_one_box_per_neuron_counts_the_neurons_before_the_read(monkeypatch):
    """`draw(loss, collapse="neuron")` and `animate(..., collapse="neuron")` count the neurons
    at the door too; a drawing by layer (one box each) is still let through."""
    import autograd_viz.open.door as door
    from autograd_viz import animate, draw
    from autograd_viz.core.errors import GraphTooLargeError

    loss = MLP(2, [32, 32, 1], seed=0)([1.0, 2.0])  # 65 neurons
    read = door.snapshot
    monkeypatch.setattr(door, "snapshot", lambda *a, **k: pytest.fail("read before the count"))
    for call in (draw, lambda r, **o: animate(r, widgets=False, **o)):
        with pytest.raises(GraphTooLargeError, match="more than 60 neurons"):
            call(loss, collapse="neuron", max_nodes=60)
    monkeypatch.setattr(door, "snapshot", read)
    assert "layer" in draw(loss, collapse="layer", max_nodes=60).source


@pytest.mark.parametrize("seed", range(6))
def test_the_drawn_gradients_are_the_derivations_bit_for_bit(seed):
    """The drawing takes each value's gradient from the one backward pass the snapshot ran,
    not from a second derivation of the whole graph; the numbers are the same, and a
    constant (the target) still shows none."""
    from autograd_viz.core.derive import derive
    from autograd_viz.front.training import _mark_dead, squared_error
    from autograd_viz.open.snapshot import snapshot
    from autograd_viz.view.options import DrawOptions
    from autograd_viz.view.render import drawing

    xs, ys = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 0]
    model = MLP(2, [4, 4, 1], seed=seed)
    for _ in range(3):  # a model mid-training: its own .grad fields hold old gradients
        loss = sum(squared_error(model([float(v) for v in x]), t) for x, t in zip(xs, ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
    for sample in range(4):
        graph = snapshot(squared_error(model([float(v) for v in xs[sample]]), ys[sample]))
        graph = graph.with_grads(derive(graph, "backward")[-1].grads)
        want = drawing(graph, DrawOptions.of(collapse="neuron", show_grad=True)).source
        want = _mark_dead(want, graph, set(dead_neurons(model, xs)), len(xs))
        assert draw_network(model, xs, ys, sample=sample).source == want
