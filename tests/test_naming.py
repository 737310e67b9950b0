"""Names a learner can follow: one expression name per unlabelled value, everywhere."""

from __future__ import annotations

import re

from autograd_viz import MLP, Value, quiz
from autograd_viz.api import to_dot
from autograd_viz.core.naming import MAX_LENGTH, expression_names
from autograd_viz.frames import Frames
from autograd_viz.open.snapshot import snapshot
from autograd_viz.trace import derivation, node_names, trace


def _issue_example() -> Value:
    a, b, c, d = (Value(x, label=n) for x, n in ((2.0, "a"), (-3.0, "b"), (1.0, "c"), (4.0, "d")))
    return ((a * b).tanh() + c.exp()) / d


def test_short_expressions_name_values_and_long_ones_are_named_after_their_operation():
    names = node_names(_issue_example())
    assert names == [
        "a", "b", "a · b", "tanh(a · b)", "c", "exp(c)", "sum1", "d", "d⁻¹", "sum1 / d"
    ]  # fmt: skip
    assert len("tanh(a · b) + exp(c)") > MAX_LENGTH  # why the sum is called sum1


def test_the_same_names_in_derivation_drawing_player_and_quiz():
    f = _issue_example()
    text = derivation(f)
    assert "∂(sum1 / d)/∂(a · b) = " in text and "tanh(a · b) = tanh(−6) = −1" in text
    # issue 18 item 10: no numbered name at all; the long sum is named as a sum
    assert not re.findall(r"\bv\d+\b", text)
    assert "sum1 = tanh(a · b) + exp(c) = −1 + 2.718 = 1.718" in text
    dot = to_dot(f)
    for name in ("a · b", "tanh(a · b)", "exp(c)", "d⁻¹", "sum1", "sum1 / d"):
        assert f">{name}<" in dot, name
    frames = Frames(f)
    assert "tanh(a · b)" in frames.frame_svg(0) and frames.steps[2].text.startswith("tanh(a · b)")
    labels = [b.label for b in quiz(f).blanks]
    assert "∂(sum1 / d)/∂(a · b)" in labels and "∂(sum1 / d)/∂sum1" in labels


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
    assert names == ["x", "x · x", "prod2", "out"]  # the second product; `out`: over 8 characters
    labelled = Value(1.0, label="x · x")  # a label wins, and keeps its name to itself
    assert node_names(labelled + x * x)[-2:] == ["prod1", "out"]


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


def test_a_label_with_an_operator_in_it_is_parenthesised_where_it_is_used():
    # issue 18 item 10: label "x+y" gave `z = x+y · y`, which reads as x + (y · y)
    x, y = Value(2.0, label="x+y"), Value(3.0, label="y")
    z = x * y
    z.label = "z"
    text = derivation(z)
    assert "z = (x+y) · y = 2 · 3 = 6" in text and "∂z/∂(x+y) = y = 3" in text
    assert r"\left(\mathrm{x+y}\right) \cdot y" in trace(z)[1].latex
    spaced = Value(1.0, label="my loss")
    assert node_names((spaced**2).tanh())[-2] == "(my loss)²"
    plain = Value(1.0, label="L1.n1.w1")  # dots and digits are no operators
    assert node_names((plain * y).tanh())[-2] == "L1.n1.w1 · y"


def test_names_after_the_operation_count_every_operation_of_that_kind_and_skip_labels():
    x = Value(1.0, label="x")
    long = (x * 3 + x * 4 + x * 5).tanh()  # the second sum is too long to write out
    assert node_names(long)[-2:] == ["sum2", "out"]
    taken = Value(1.0, label="sum2")
    assert "sum3" in node_names((x * 3 + x * 4 + x * 5) * taken)
