"""A network step neuron by neuron: few frames, one per neuron, with the engine's numbers."""

from __future__ import annotations

import re

import pytest
from mathjax import mathjax_errors

from autograd_viz import MLP, Value
from autograd_viz.front.player import DEFAULT_MAX_FRAMES, AnimationTooLargeError
from autograd_viz.open.snapshot import snapshot
from autograd_viz.trace import TraceError, trace
from autograd_viz.view.network import NetworkError, count_neuron_steps, neuron_steps


def _loss(sizes: list[int], seed: int = 0, x=(1.0, -1.0)) -> Value:
    return (MLP(2, sizes, seed=seed)(list(x)) - 1.0) ** 2


def test_a_4_4_1_network_on_one_sample_is_25_frames_one_per_neuron():
    steps = neuron_steps(snapshot(_loss([4, 4, 1])))
    assert len(steps) == 25 <= 40
    names = [s.text.split(" = ")[0] for s in steps if s.phase == "forward"][1:10]
    assert names == [f"L{layer}.n{j}" for layer, n in ((1, 4), (2, 4), (3, 1))
                     for j in range(1, n + 1)]  # fmt: skip
    backward = [s for s in steps if s.phase == "backward"]
    assert backward[0].kind == "seed" and len(backward) == 13


def test_the_last_frame_has_exactly_the_gradients_of_backward():
    for sizes, seed in (([4, 4, 1], 0), ([4, 4, 1], 26), ([3, 1], 5)):
        loss = _loss(sizes, seed)
        final = neuron_steps(snapshot(loss))[-1].grads
        loss.backward()
        order = loss.topological_order()
        graph = snapshot(loss)
        expected = {i: v.grad for i, v in enumerate(order) if graph.nodes[i].role != "const"}
        assert dict(final) == expected


def test_a_16_16_1_network_animates_too():
    loss = _loss([16, 16, 1])
    assert len(trace(loss, max_nodes=5_000)) > 1900  # frames, one operation at a time
    steps = neuron_steps(snapshot(loss))
    assert len(steps) == count_neuron_steps(snapshot(loss)) == 73
    long = next(s for s in steps if s.text.startswith("L2.n1 ="))
    assert "… (16 terms)" in long.text and r"\ldots" in long.latex


def test_count_matches_every_phase():
    loss = _loss([4, 4, 1], seed=3)
    for phase in ("forward", "backward", "both"):
        assert count_neuron_steps(snapshot(loss), phase) == len(neuron_steps(snapshot(loss), phase))


def test_forward_frame_writes_the_neurons_sum_with_its_weights():
    neuron = MLP(2, [1], seed=0).layers[0].neurons[0]
    w1, w2 = (p.data for p in neuron.w)
    out = neuron([Value(1.0, label="x1"), Value(-1.0, label="x2")])
    step = neuron_steps(snapshot(out), "forward")[1]
    assert step.text == (
        f"L1.n1 = ReLU(w·x + b) = ReLU({w1:.4g} · 1 + {w2:.4g} · (−1) + 0) = "
        f"ReLU({w1 - w2:.4g}) = {w1 - w2:.4g}"
    )
    assert step.active == len(out.topological_order()) - 1 and step.edges


def test_backward_frame_sums_what_the_next_layer_sends_and_says_where_relu_blocks():
    loss = _loss([4, 4, 1], seed=0)  # the README's network: its output ReLU is closed
    steps = neuron_steps(snapshot(loss), "backward")
    out = next(s for s in steps if "ReLU′" in s.text and "blocked" in s.text)
    assert "−2 · 0 = 0 (blocked: z ≤ 0)" in out.text
    hidden = next(s for s in steps if "∂L2.n1" in s.text or "/∂L2.n1" in s.text)
    assert "Σ w·" in hidden.text and hidden.text.endswith("bias: 0")


def test_a_graph_without_neurons_is_refused_with_what_to_do():
    x = Value(2.0, label="x")
    with pytest.raises(NetworkError, match=r"root.animate\(\)"):
        neuron_steps(snapshot(x * x))


def test_animate_by_neuron_plays_a_network_step_whose_last_frame_is_backward():
    loss = _loss([4, 4, 1], seed=26)
    player = loss.animate(by="neuron")
    assert player.n_frames == 25 <= 40
    assert player.frames.options.collapse == "neuron"
    final = player.frames.steps[-1].grads
    loss.backward()
    assert [final[i] for i in sorted(final)] == [
        v.grad for i, v in enumerate(loss.topological_order()) if i in final
    ]
    assert "L1.n1 = ReLU(w·x + b)" in player.frame_html(2)
    player.phase = "backward"  # the same layout, the neuron steps of one phase
    assert player.n_frames == 13 and "seed" in player.frame_html(1)


def test_animate_by_neuron_refuses_another_collapse_and_an_unknown_by():
    loss = _loss([3, 1])
    with pytest.raises(TraceError, match="leave out collapse='layer'"):
        loss.animate(by="neuron", collapse="layer")
    with pytest.raises(TraceError, match="by must be 'operation'"):
        loss.animate(by="layer")


@pytest.mark.slow
def test_the_size_guards_advice_works_when_followed():
    """Issue 10 item 7: MLP(2, [16, 16, 1]) was refused with advice (collapse='neuron') that
    left the frame count unchanged. Every option the message offers must now succeed. (Since
    each step is a row of a table, 16-16-1's 1,914 steps fit; 32-32-1's 6,890 do not.)"""
    loss = _loss([32, 32, 1])
    with pytest.raises(AnimationTooLargeError) as refused, pytest.warns(UserWarning):
        loss.animate()  # (the drawing collapses by itself, and says so)
    advice = str(refused.value).split("saved in the notebook.", 1)[1]
    offered = re.findall(r"(\w+)='(\w+)'", advice)
    assert ("by", "neuron") in offered and ("collapse", "neuron") not in offered
    for key, value in offered:
        player = loss.animate(**{key: value})  # following the advice works
        assert player.n_frames <= DEFAULT_MAX_FRAMES
        player.close()


def test_every_neuron_frames_latex_typesets_in_mathjax(chromium, tmp_path):
    # long sums: "… (16 terms)"
    corpus = [s.latex for s in neuron_steps(snapshot(_loss([16, 16, 1])))]
    corpus += [s.latex for s in neuron_steps(snapshot(_loss([3, 1])))]
    tanh = (MLP(2, [2, 1], act="tanh", linear_output=True, seed=1)([0.5, -2.0]) - 1.0) ** 2
    corpus += [s.latex for s in neuron_steps(snapshot(tanh))]
    bad = mathjax_errors(chromium, tmp_path, corpus)
    assert not bad, bad


def test_a_neuron_step_writes_its_activation_and_names_as_the_trace_does():
    """One way to write an equation: a neuron's line takes its activation from the op table's
    row (σ, as the trace writes a sigmoid) and its names from the trace's naming (x_{1})."""
    net = MLP(2, [2, 1], act="sigmoid", seed=2)
    loss = (net([Value(0.5, label="x1"), Value(-2.0, label="x2")]) - 1.0) ** 2
    steps, fine = neuron_steps(snapshot(loss)), trace(loss)
    first = steps[1]
    assert first.text.startswith("L1.n1 = σ(w·x + b) = σ(0.")
    assert first.latex.startswith(r"\mathrm{L1.n1} = \sigma\left(w \cdot x + b\right) = ")
    assert any(s.text.split(" = ")[1].startswith("σ(") for s in fine if s.kind == "value")
    to_x1 = next(s for s in steps if s.phase == "backward" and s.text.startswith("∂out/∂x1 ="))
    assert r"{\partial x_{1}}" in to_x1.latex
    assert any(r"{\partial x_{1}}" in s.latex for s in fine)
    assert r"\mathrm{x1}" not in " ".join(s.latex for s in steps)
