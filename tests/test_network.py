"""A network step neuron by neuron: few frames, one per neuron, with the engine's numbers."""

from __future__ import annotations

import pytest

from autograd_viz import MLP, Value
from autograd_viz.graph import snapshot
from autograd_viz.trace import trace
from autograd_viz.viz.network import NetworkError, count_neuron_steps, neuron_steps


def _loss(sizes: list[int], seed: int = 0, x=(1.0, -1.0)) -> Value:
    return (MLP(2, sizes, seed=seed)(list(x)) - 1.0) ** 2


def test_a_4_4_1_network_on_one_sample_is_25_frames_one_per_neuron():
    steps = neuron_steps(_loss([4, 4, 1]))
    assert len(steps) == 25 <= 40
    names = [s.text.split(" = ")[0] for s in steps if s.phase == "forward"][1:10]
    assert names == [f"L{layer}.n{j}" for layer, n in ((1, 4), (2, 4), (3, 1))
                     for j in range(1, n + 1)]  # fmt: skip
    backward = [s for s in steps if s.phase == "backward"]
    assert backward[0].kind == "seed" and len(backward) == 13


def test_the_last_frame_has_exactly_the_gradients_of_backward():
    for sizes, seed in (([4, 4, 1], 0), ([4, 4, 1], 26), ([3, 1], 5)):
        loss = _loss(sizes, seed)
        final = neuron_steps(loss)[-1].grads
        loss.backward()
        order = loss.topological_order()
        graph = snapshot(loss)
        expected = {i: v.grad for i, v in enumerate(order) if graph.nodes[i].role != "const"}
        assert dict(final) == expected


def test_a_16_16_1_network_animates_too():
    loss = _loss([16, 16, 1])
    assert len(trace(loss)) > 1900  # frames, one operation at a time
    steps = neuron_steps(loss)
    assert len(steps) == count_neuron_steps(loss) == 73
    long = next(s for s in steps if s.text.startswith("L2.n1 ="))
    assert "… (16 terms)" in long.text and r"\ldots" in long.latex


def test_count_matches_every_phase():
    loss = _loss([4, 4, 1], seed=3)
    for phase in ("forward", "backward", "both"):
        assert count_neuron_steps(loss, phase) == len(neuron_steps(loss, phase))


def test_forward_frame_writes_the_neurons_sum_with_its_weights():
    neuron = MLP(2, [1], seed=0).layers[0].neurons[0]
    w1, w2 = (p.data for p in neuron.w)
    out = neuron([Value(1.0, label="x1"), Value(-1.0, label="x2")])
    step = neuron_steps(out, "forward")[1]
    assert step.text == (
        f"L1.n1 = ReLU(w·x + b) = ReLU({w1:.4g} · 1 + {w2:.4g} · (−1) + 0) = "
        f"ReLU({w1 - w2:.4g}) = {w1 - w2:.4g}"
    )
    assert step.active == len(out.topological_order()) - 1 and step.edges


def test_backward_frame_sums_what_the_next_layer_sends_and_says_where_relu_blocks():
    loss = _loss([4, 4, 1], seed=0)  # the README's network: its output ReLU is closed
    steps = neuron_steps(loss, "backward")
    out = next(s for s in steps if "ReLU′" in s.text and "blocked" in s.text)
    assert "−2 · 0 = 0 (blocked: z ≤ 0)" in out.text
    hidden = next(s for s in steps if "∂L2.n1" in s.text or "/∂L2.n1" in s.text)
    assert "Σ w·" in hidden.text and hidden.text.endswith("bias: 0")


def test_a_graph_without_neurons_is_refused_with_what_to_do():
    x = Value(2.0, label="x")
    with pytest.raises(NetworkError, match=r"root.animate\(\)"):
        neuron_steps(x * x)
