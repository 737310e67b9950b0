"""Names a learner can follow: one expression name per unlabelled value, everywhere."""

from __future__ import annotations

import re

from autograd_viz import MLP, Value, quiz
from autograd_viz.graph import snapshot
from autograd_viz.naming import MAX_LENGTH, expression_names
from autograd_viz.trace import derivation, node_names
from autograd_viz.viz.frames import Frames
from autograd_viz.viz.render import to_dot


def _issue_example() -> Value:
    a, b, c, d = (Value(x, label=n) for x, n in ((2.0, "a"), (-3.0, "b"), (1.0, "c"), (4.0, "d")))
    return ((a * b).tanh() + c.exp()) / d


def test_short_expressions_name_values_and_long_ones_are_numbered():
    names = node_names(_issue_example())
    assert names == ["a", "b", "a · b", "tanh(a · b)", "c", "exp(c)", "v6", "d", "d⁻¹", "v6 / d"]
    assert len("tanh(a · b) + exp(c)") > MAX_LENGTH  # why v6 is numbered


def test_the_same_names_in_derivation_drawing_player_and_quiz():
    f = _issue_example()
    text = derivation(f)
    assert "∂(v6 / d)/∂(a · b) = " in text and "tanh(a · b) = tanh(−6) = −1" in text
    # no numbered name where a short expression exists: only v6 (too long) is numbered
    assert set(re.findall(r"\bv\d+\b", text)) == {"v6"}
    dot = to_dot(f)
    for name in ("a · b", "tanh(a · b)", "exp(c)", "d⁻¹", "v6 / d"):
        assert f">{name}<" in dot, name
    frames = Frames(f)
    assert "tanh(a · b)" in frames.frame_svg(0) and frames.steps[2].text.startswith("tanh(a · b)")
    labels = [b.label for b in quiz(f).blanks]
    assert "∂(v6 / d)/∂(a · b)" in labels and "∂(v6 / d)/∂tanh(a · b)" in labels


def test_division_and_subtraction_read_as_written_and_the_reciprocal_is_explained_once():
    a, b = Value(6.0, label="a"), Value(4.0, label="b")
    assert node_names(a / b)[-1] == "a / b" and node_names(a - b)[-2:] == ["−b", "a + (−b)"]
    text = derivation(a / b + a / b, "forward")
    assert text.count("÷ b is × b⁻¹") == 1


def test_a_neurons_output_is_named_after_its_neuron():
    out = MLP(2, [2, 1], seed=0)([1.0, -1.0])
    names = node_names(out)
    assert names[-1] == "L2.n1" and "L1.n1" in names and "L1.n2" in names


def test_a_taken_name_is_not_given_twice():
    x = Value(2.0, label="x")
    names = [e.text for e in expression_names(snapshot(x * x + x * x))]
    assert names == ["x", "x · x", "v2", "out"]  # the output: `x · x + v2` is over 8 characters
    labelled = Value(1.0, label="x · x")  # a label wins, and keeps its name to itself
    assert node_names(labelled + x * x)[-2:] == ["v2", "out"]


def test_unlabelled_inputs_are_drawn_and_quizzed_with_their_gradients():
    # issue 18 item 6: `a = Value(2.0)` is an input (a letter), `x * 2`'s 2 a constant
    a, b = Value(2.0), Value(3.0)
    z = a * b + a
    z.backward()
    dot = to_dot(z)
    assert 'class="input"' in dot and 'class="const"' not in dot
    for name, grad in (("a", "4"), ("b", "2")):
        assert f">{name}</FONT></TD><TD>data " in dot and f"grad {grad}<" in dot
    labels = [blank.label for blank in quiz(z).blanks]
    assert "∂out/∂a" in labels and "∂out/∂b" in labels
    frames = Frames(z)
    assert frames.steps[0].text == "inputs: a = 2, b = 3"
    assert [n.role for n in snapshot(a * 2).nodes] == ["input", "const", "output"]
