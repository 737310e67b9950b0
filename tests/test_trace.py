"""trace: the blog's derivations line for line, what each step touches and reveals, number
formatting, and — on random graphs — gradients identical to the engine's backward()."""

from __future__ import annotations

import math
import re
import unicodedata

import pytest
from examples import sum_times_y
from hypothesis import given, settings
from hypothesis import strategies as st
from mathjax import mathjax_errors
from op_cases import expressions

from autograd_viz import MLP, Value
from autograd_viz.engine import Constant
from autograd_viz.open.snapshot import snapshot
from autograd_viz.trace import (
    Step,
    TraceError,
    derivation,
    format_number,
    node_names,
    trace,
)


def _named(value: Value, label: str) -> Value:
    value.label = label
    return value


def _texts(root: Value, phase: str = "both") -> list[str]:
    return [step.text for step in trace(root, phase)]


# ---- the blog's worked examples, line for line --------------------------------------


def test_sum_times_y_matches_the_blog_line_for_line():
    assert _texts(sum_times_y()) == [
        "inputs: x = 2, y = 3",
        "s = x + y = 2 + 3 = 5",
        "z = s · y = 5 · 3 = 15",
        "∂z/∂z = 1",
        "∂z/∂s = y = 3",
        "ȳ via the product = s = 5",
        "∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3",
        "ȳ via the sum = ∂z/∂s · ∂s/∂y = 3 · 1 = 3",
        "∂z/∂y = 5 + 3 = 8",
    ]


def test_sum_times_y_steps_say_what_they_touch():
    steps = trace(sum_times_y())  # topological order: x=0, y=1, s=2, z=3
    table = [(s.phase, s.kind, s.nodes, s.edges, s.active) for s in steps]
    assert table == [
        ("forward", "value", (0, 1), (), 0),
        ("forward", "value", (2, 0, 1), ("v0-op2-0", "v1-op2-1", "op2-v2"), 2),
        ("forward", "value", (3, 2, 1), ("v2-op3-0", "v1-op3-1", "op3-v3"), 3),
        ("backward", "seed", (3,), (), 3),
        ("backward", "local", (2, 3, 1), ("op3-v3", "v2-op3-0"), 2),
        ("backward", "local", (1, 3, 2), ("op3-v3", "v1-op3-1"), 1),
        ("backward", "contribution", (0, 2), ("op2-v2", "v0-op2-0"), 0),
        ("backward", "contribution", (1, 2), ("op2-v2", "v1-op2-1"), 1),
        ("backward", "accumulate", (1, 3, 2), ("v1-op3-1", "v1-op2-1"), 1),
    ]
    assert [s.index for s in steps] == list(range(len(steps)))


def test_values_and_grads_appear_only_once_computed():
    steps = trace(sum_times_y())
    assert [dict(s.values) for s in steps[:3]] == [
        {0: 2, 1: 3},
        {0: 2, 1: 3, 2: 5},
        {0: 2, 1: 3, 2: 5, 3: 15},
    ]
    assert all(dict(s.values) == {0: 2, 1: 3, 2: 5, 3: 15} for s in steps[3:])
    assert [dict(s.grads) for s in steps] == [
        {}, {}, {},
        {3: 1},
        {3: 1, 2: 3},
        {3: 1, 2: 3},  # y has two uses: its gradient is not complete yet
        {3: 1, 2: 3, 0: 3},
        {3: 1, 2: 3, 0: 3},
        {3: 1, 2: 3, 0: 3, 1: 8},
    ]  # fmt: skip


def test_square_of_ab_plus_c_at_2_3_1_names_unlabelled_values_by_their_expression():
    a, b, c = Value(2.0, label="a"), Value(3.0, label="b"), Value(1.0, label="c")
    assert _texts(_named((a * b + c) ** 2, "L")) == [
        "inputs: a = 2, b = 3, c = 1",
        "a · b = 2 · 3 = 6",
        "a · b + c = 6 + 1 = 7",
        "L = (a · b + c)² = 7² = 49",
        "∂L/∂L = 1",
        "∂L/∂(a · b + c) = 2 · (a · b + c) = 2 · 7 = 14",
        "∂L/∂(a · b) = ∂L/∂(a · b + c) · ∂(a · b + c)/∂(a · b) = 14 · 1 = 14",
        "∂L/∂c = ∂L/∂(a · b + c) · ∂(a · b + c)/∂c = 14 · 1 = 14",
        "∂L/∂a = ∂L/∂(a · b) · ∂(a · b)/∂a = 14 · b = 14 · 3 = 42",
        "∂L/∂b = ∂L/∂(a · b) · ∂(a · b)/∂b = 14 · a = 14 · 2 = 28",
    ]


def test_a_name_that_would_be_long_is_named_after_its_operation_and_a_division_is_said_once():
    a, b, c, d = (Value(x, label=n) for x, n in ((2.0, "a"), (-3.0, "b"), (1.0, "c"), (4.0, "d")))
    texts = _texts(_named(((a * b).tanh() + c.exp()) / d, "f"), "forward")
    assert texts[1:] == [
        "a · b = 2 · (−3) = −6",
        "tanh(a · b) = tanh(−6) = −1",
        "exp(c) = exp(1) = 2.718",
        "sum1 = tanh(a · b) + exp(c) = −1 + 2.718 = 1.718",  # 20 characters: the first sum
        "d⁻¹ = 4⁻¹ = 0.25   (÷ d is × d⁻¹: a / b is computed as a · b⁻¹)",
        "f = sum1 · d⁻¹ = 1.718 · 0.25 = 0.4296",
    ]
    assert node_names(((a * b) / d).exp())[-2:] == ["a · b / d", "out"]  # the output: `out`


def test_square_of_ab_plus_c_at_2_minus3_10_with_d_and_e_named():
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    d = _named(a * b, "d")
    e = _named(d + c, "e")
    L = _named(e**2, "L")
    assert _texts(L) == [
        "inputs: a = 2, b = −3, c = 10",
        "d = a · b = 2 · (−3) = −6",
        "e = d + c = −6 + 10 = 4",
        "L = e² = 4² = 16",
        "∂L/∂L = 1",
        "∂L/∂e = 2e = 2 · 4 = 8",
        "∂L/∂d = ∂L/∂e · ∂e/∂d = 8 · 1 = 8",
        "∂L/∂c = ∂L/∂e · ∂e/∂c = 8 · 1 = 8",
        "∂L/∂a = ∂L/∂d · ∂d/∂a = 8 · b = 8 · (−3) = −24",
        "∂L/∂b = ∂L/∂d · ∂d/∂b = 8 · a = 8 · 2 = 16",
    ]
    assert trace(L)[1].latex == r"d = a \cdot b = 2 \cdot \left(-3\right) = -6"
    assert trace(L)[5].latex == r"\frac{\partial L}{\partial e} = 2e = 2 \cdot 4 = 8"


def test_two_d_with_b_used_twice_accumulates_sum_then_product():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = _named(a * b, "c")
    d = _named(c + b, "d")
    L = _named(2 * d, "L")  # the 2 is a constant: shown by value, no gradient line
    assert _texts(L) == [
        "inputs: a = 2, b = 3",
        "c = a · b = 2 · 3 = 6",
        "d = c + b = 6 + 3 = 9",
        "L = d · 2 = 9 · 2 = 18",
        "∂L/∂L = 1",
        "∂L/∂d = 2",
        "∂L/∂c = ∂L/∂d · ∂d/∂c = 2 · 1 = 2",
        "b\u0304 via the sum = ∂L/∂d · ∂d/∂b = 2 · 1 = 2",
        "∂L/∂a = ∂L/∂c · ∂c/∂a = 2 · b = 2 · 3 = 6",
        "b\u0304 via the product = ∂L/∂c · ∂c/∂b = 2 · a = 2 · 2 = 4",
        "∂L/∂b = 2 + 4 = 6",
    ]
    final = trace(L)[-1].grads
    assert (final[0], final[1]) == (6, 6)
    assert 4 not in final  # the constant 2 (index 4) gets no gradient


def test_adjoint_notation_gives_local_partials_then_contributions():
    assert _texts_adjoint(sum_times_y()) == _nfc(
        [
            "z̄ = ∂z/∂z = 1",
            "∂(s · y)/∂s = y = 3",
            "∂(s · y)/∂y = s = 5",
            "s̄ = z̄ · ∂(s · y)/∂s = 1 · 3 = 3",
            "ȳ_mul = z̄ · ∂(s · y)/∂y = 1 · 5 = 5",
            "∂s/∂x = 1",
            "∂s/∂y = 1",
            "x̄ = s̄ · ∂s/∂x = 3 · 1 = 3",
            "ȳ_add = s̄ · ∂s/∂y = 3 · 1 = 3",
            "ȳ = ȳ_mul + ȳ_add = 5 + 3 = 8",
        ]
    )
    steps = trace(sum_times_y(), "backward", notation="adjoint")
    assert [s.kind for s in steps] == ["seed"] + ["local"] * 2 + ["contribution"] * 2 + [
        "local"
    ] * 2 + ["contribution"] * 2 + ["accumulate"]
    assert steps[-1].latex == (r"\bar{y} = \bar{y}_{\text{mul}} + \bar{y}_{\text{add}} = 5 + 3 = 8")
    assert dict(steps[2].grads) == {3: 1}  # local partials reveal no gradient
    assert dict(steps[3].grads) == {3: 1, 2: 3}


def _texts_adjoint(root: Value) -> list[str]:
    """Backward texts in adjoint notation, checked to be NFC (ȳ as one character)."""
    texts = [step.text for step in trace(root, "backward", notation="adjoint")]
    assert all(unicodedata.is_normalized("NFC", t) for t in texts)
    return texts


def _nfc(texts: list[str]) -> list[str]:
    return [unicodedata.normalize("NFC", t) for t in texts]


def test_adjoint_notation_overlines_longer_names_and_numbers_repeated_operands():
    a = Value(2.0, label="a")
    b = a * a
    texts = _texts_adjoint(_named(b * 3, "out"))
    assert texts[0] == "o\u0305u\u0305t\u0305 = ∂out/∂out = 1"
    assert "∂(a · a)/∂a (operand 2) = a = 2" in texts
    # the root's own operation: its local partial is written with the operation, not ∂out
    assert "∂(a · a · 3)/∂(a · a) = 3" in texts
    out_share = "a\u0305·\u0305a\u0305 = o\u0305u\u0305t\u0305 · ∂(a · a · 3)/∂(a · a) = 1 · 3 = 3"
    assert out_share in texts
    assert texts[-1] == unicodedata.normalize("NFC", "ā = ā_mul1 + ā_mul2 = 6 + 6 = 12")


def test_unknown_notation_is_refused():
    with pytest.raises(TraceError, match="notation must be 'blog' or 'adjoint'"):
        trace(sum_times_y(), notation="leibniz")


# ---- every operation ---------------------------------------------------------------


def test_every_operation_is_written_forward_and_backward():
    x, w = Value(0.5, label="x"), Value(-1.5, label="w")
    cases = {
        "tanh": (x.tanh(), "y = tanh(x) = tanh(0.5) = 0.4621",
                 "∂y/∂x = 1 − y² = 1 − 0.4621² = 0.7864"),
        "exp": (x.exp(), "y = exp(x) = exp(0.5) = 1.649", "∂y/∂x = exp(x) = 1.649"),
        "log": (x.log(), "y = log(x) = log(0.5) = −0.6931", "∂y/∂x = 1/x = 1/0.5 = 2"),
        "sigmoid": (x.sigmoid(), "y = σ(x) = σ(0.5) = 0.6225",
                    "∂y/∂x = y · (1 − y) = 0.6225 · (1 − 0.6225) = 0.235"),
        "relu+": (x.relu(), "y = ReLU(x) = ReLU(0.5) = 0.5", "∂y/∂x = (1 if x > 0 else 0) = 1"),
        "relu-": (w.relu(), "y = ReLU(w) = ReLU(−1.5) = 0", "∂y/∂w = (1 if w > 0 else 0) = 0"),
        "cube": (w**3, "y = w³ = (−1.5)³ = −3.375", "∂y/∂w = 3w² = 3 · (−1.5)² = 6.75"),
        "inverse": (w**-1, "y = w⁻¹ = (−1.5)⁻¹ = −0.6667   (÷ w is × w⁻¹: a / b is computed "
                    "as a · b⁻¹)",
                    "∂y/∂w = −w⁻² = −1 · (−1.5)⁻² = −0.4444"),
        "sqrt": (x**0.5, "y = x^0.5 = 0.5^0.5 = 0.7071",
                 "∂y/∂x = 0.5 · x^(−0.5) = 0.5 · 0.5^(−0.5) = 0.7071"),
        "first power": (x**1, "y = x = 0.5", "∂y/∂x = 1"),
    }  # fmt: skip
    for name, (y, forward, backward) in cases.items():
        texts = _texts(_named(y, "y"))
        assert texts[1] == forward, name
        assert texts[3] == backward, name


def test_value_exponent_differentiates_base_and_exponent():
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    texts = _texts(_named(a**b, "p"))
    assert texts[1:] == [
        "p = a^b = 2^3 = 8",
        "∂p/∂p = 1",
        "∂p/∂a = b · a^(b − 1) = 3 · 2^2 = 12",
        "∂p/∂b = p · log(a) = 8 · log(2) = 5.545",
    ]


def test_value_used_twice_by_one_operation_names_each_operand():
    a = Value(2.0, label="a")
    assert _texts(a * a, "backward") == [
        "∂(a · a)/∂(a · a) = 1",
        "ā via the product, operand 1 = a = 2",
        "ā via the product, operand 2 = a = 2",
        "∂(a · a)/∂a = 2 + 2 = 4",
    ]


def test_two_operations_of_one_kind_are_told_apart_by_name():
    x = Value(1.0, label="x")
    p = _named(x * 2, "p")
    q = _named(x * 3, "q")
    texts = _texts(_named(p + q, "r"), "backward")
    assert "x\u0304 via the product q = ∂r/∂q · ∂q/∂x = 1 · 3 = 3" in texts
    assert "x\u0304 via the product p = ∂r/∂p · ∂p/∂x = 1 · 2 = 2" in texts
    assert texts[-1] == "∂r/∂x = 3 + 2 = 5"


def test_subtraction_and_division_show_their_blog_expansions():
    a, b = Value(6.0, label="a"), Value(4.0, label="b")
    texts = _texts(_named(a - b, "d"), "forward")
    assert texts[1:] == ["−b = b · (−1) = 4 · (−1) = −4", "d = a + (−b) = 6 + (−4) = 2"]
    texts = _texts(_named(a / b, "q"), "forward")
    assert texts[1:] == [
        "b⁻¹ = 4⁻¹ = 0.25   (÷ b is × b⁻¹: a / b is computed as a · b⁻¹)",
        "q = a · b⁻¹ = 6 · 0.25 = 1.5",
    ]


# ---- phases, names, constants ------------------------------------------------------


def test_backward_phase_alone_starts_from_all_values_known():
    steps = trace(sum_times_y(), "backward")
    assert steps[0].kind == "seed" and steps[0].index == 0
    assert all(s.phase == "backward" for s in steps)
    assert dict(steps[0].values) == {0: 2, 1: 3, 2: 5, 3: 15}


def test_forward_phase_alone_has_no_gradients():
    steps = trace(sum_times_y(), "forward")
    assert [s.kind for s in steps] == ["value"] * 3
    assert all(len(s.grads) == 0 for s in steps)


def test_parameters_are_listed_apart_from_inputs():
    model = MLP(2, [1], seed=0)
    out = model([1.0, -2.0])
    first = trace(out, "forward")[0].text
    assert first.startswith("inputs: x1 = 1, x2 = −2; parameters: L1.n1.b = 0, L1.n1.w1 = ")


def test_a_network_lists_a_few_parameters_in_natural_order_then_counts_them():
    model = MLP(2, [4, 4, 1], seed=0)
    first = trace(model([1.0, -2.0]), "forward")[0].text
    params = first.split("parameters: ")[1]
    assert params.startswith("L1.n1.b = 0, L1.n1.w1 = ")
    assert params.endswith(", … (37 in all)") and params.count("=") == 6


def test_numbers_the_engine_wraps_are_constants_and_values_you_make_are_inputs():
    x = Value(3.0, label="x")
    y = x * 2 + Value(1.0)  # the 2 is wrapped by `*`; Value(1.0) is the learner's own
    roles = [n.role for n in snapshot(y).nodes]
    assert roles == ["input", "const", "value", "input", "output"]
    assert node_names(y) == ["x", "2", "x · 2", "a", "out"]
    grads = trace(y)[-1].grads
    assert set(grads) == {0, 2, 3, 4}


def test_unlabelled_inputs_are_named_a_b_in_order_of_use_and_get_their_gradients():
    # issue 18 item 6: micrograd users never label; their inputs must not vanish
    a, b = Value(2.0), Value(3.0)
    z = a * b + a
    z.backward()
    g = snapshot(z)
    assert [n.role for n in g.nodes] == ["input", "input", "value", "output"]
    assert node_names(z) == ["a", "b", "a · b", "out"]
    assert trace(z)[0].text == "inputs: a = 2, b = 3"
    last = trace(z)[-1]
    assert (last.grads[0], last.grads[1]) == (a.grad, b.grad) == (4.0, 2.0)
    assert "∂out/∂b = ∂out/∂(a · b) · ∂(a · b)/∂b = 1 · a = 1 · 2 = 2" in derivation(z)
    # a letter someone already uses as a label is skipped
    c = Value(1.0, label="a")
    assert node_names(Value(5.0) * c)[:2] == ["b", "a"]


def test_a_leaf_root_is_an_input_with_a_seed():
    x = Value(4.0, label="x")
    assert _texts(x) == ["inputs: x = 4", "∂x/∂x = 1"]
    assert _texts(Value(4.0)) == ["inputs: v0 = 4", "∂v0/∂v0 = 1"]


def test_only_constant_leaves_are_shown_with_the_first_operation():
    y = Constant(2.0) * 3  # numbers only: nothing to list as inputs
    steps = trace(y)
    assert steps[0].text == "2 · 3 = 6"
    assert dict(steps[0].values) == {0: 2, 1: 3, 2: 6}


def test_latex_names_use_subscripts_and_escape_the_rest():
    x1 = Value(1.0, label="x1")
    odd = Value(2.0, label="w_{b}#1")
    step = trace(_named(x1 * odd, "out"), "forward")[1]
    assert step.latex == r"\mathrm{out} = x_{1} \cdot \mathrm{w\_\{b\}\#1} = 1 \cdot 2 = 2"
    assert step.text == "out = x1 · w_{b}#1 = 1 · 2 = 2"


def test_derivation_prints_one_step_per_line():
    assert derivation(sum_times_y(), "forward") == (
        "inputs: x = 2, y = 3\ns = x + y = 2 + 3 = 5\nz = s · y = 5 · 3 = 15"
    )


def test_step_is_frozen_plain_data():
    step = trace(sum_times_y())[0]
    assert isinstance(step, Step)
    with pytest.raises(AttributeError):
        step.text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        step.values[0] = 1.0  # type: ignore[index]
    assert str(step) == step.text


def test_trace_does_not_touch_the_graph():
    z = sum_times_y()
    trace(z)
    assert all(v.grad == 0 for v in z.topological_order())


# ---- numbers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (2.0, "2"), (-6.0, "−6"), (0.5, "0.5"), (2 / 3, "0.6667"), (-0.0, "0"), (12345.0, "12345"),
        (123.456, "123.5"), (1.5e-7, "1.5e−7"), (2.5e20, "2.5e20"), (math.inf, "∞"),
        (-math.inf, "−∞"), (math.nan, "nan"), (3, "3"),
    ],
)  # fmt: skip
def test_format_number_is_compact(x, text):
    assert format_number(x) == text


def test_format_number_digits_sets_significant_digits():
    assert format_number(math.pi, 2) == "3.1"
    assert format_number(math.pi, 6) == "3.14159"


def test_digits_option_reaches_the_equations():
    x = Value(1.0, label="x")
    assert (
        trace(_named(x.tanh(), "t"), "forward", digits=2)[1].text == "t = tanh(x) = tanh(1) = 0.76"
    )


# ---- errors --------------------------------------------------------------------------


def test_non_value_root_is_refused_clearly():
    with pytest.raises(TraceError, match="needs a Value, got float"):
        trace(3.0)  # type: ignore[arg-type]


def test_unknown_phase_is_refused_with_the_choices():
    with pytest.raises(TraceError, match="'forward', 'backward', 'both'; got 'sideways'"):
        trace(sum_times_y(), "sideways")


def test_bad_digits_is_refused():
    with pytest.raises(TraceError, match="digits"):
        trace(sum_times_y(), digits=0)


def _sinh(x: Value) -> Value:
    """An operation added outside the engine and the op table, with its own backward rule."""

    def rule(out: Value) -> None:
        (a,) = out.parents
        a.grad += math.cosh(a.data) * out.grad

    return Value(math.sinh(x.data), "sinh", rule, x)


def test_an_operation_missing_from_the_table_is_traced_by_number_never_another_formula():
    x = Value(1.0, label="x")
    y = _sinh(x)
    assert _texts(y) == [
        "inputs: x = 1",
        "sinh(x) = sinh(1) = 1.175",
        "∂sinh(x)/∂sinh(x) = 1",
        "∂sinh(x)/∂x = 1.543",  # cosh(1), from the op's own rule; no formula is claimed
    ]
    z = _named(_sinh(x) + _sinh(x), "z")  # shared: "via" names need the unknown op's short name
    texts = _texts(z, "backward")
    assert texts[-1] == "∂z/∂x = 1.543 + 1.543 = 3.086"
    # the second sinh(x): the name is taken, so it is named after its op
    assert any(t.startswith("x\u0304 via sinh sinh2 = ") for t in texts)
    z.backward()
    assert trace(z)[-1].grads[0] == x.grad


def test_infinite_local_gradient_is_shown_as_the_engine_computes_it():
    x = Value(0.0, label="x")
    y = x**0.5
    assert _texts(y, "backward")[-1] == "∂(x^0.5)/∂x = 0.5 · x^(−0.5) = 0.5 · 0^(−0.5) = ∞"


def test_a_backward_rule_that_raises_is_explained_not_a_deep_crash():
    x = Value(0.0, label="x")

    def rule(out: Value) -> None:
        (a,) = out.parents
        a.grad += out.grad / a.data  # no value at 0

    y = Value(0.0, "odd", rule, x)
    with pytest.raises(
        TraceError, match=r"local derivative of odd\(x\) = odd\(0\) has no finite value at x = 0"
    ):
        trace(y)


# ---- agreement with the engine, on random graphs -------------------------------------


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(expressions(), st.sampled_from(["blog", "adjoint"]))
def test_final_gradients_equal_the_engine_exactly(root, notation):
    order = root.topological_order()
    steps = trace(root, notation=notation)
    root.backward()
    final = steps[-1]
    roles = [n.role for n in snapshot(root).nodes]
    for i, node in enumerate(order):
        assert _same(final.values[i], node.data)
        if roles[i] == "const":
            assert i not in final.grads
        else:
            assert _same(final.grads[i], node.grad), (i, node)


@settings(max_examples=100, deadline=None)
@given(expressions())
def test_every_value_and_gradient_is_revealed_once_and_never_changes(root):
    steps = trace(root)
    seen_values: dict[int, float] = {}
    seen_grads: dict[int, float] = {}
    for step in steps:
        assert set(seen_values) <= set(step.values)
        assert set(seen_grads) <= set(step.grads)
        seen_values.update(step.values)
        seen_grads.update(step.grads)
        assert step.active in step.nodes
        edge = re.compile(r"^(v\d+-op\d+-[01]|op\d+-v\d+)$")
        assert all(edge.match(e) for e in step.edges)
        assert step.latex.count("{") == step.latex.count("}")
    n_forward = sum(1 for s in steps if s.phase == "forward")
    assert [s.phase for s in steps] == ["forward"] * n_forward + ["backward"] * (
        len(steps) - n_forward
    )


@pytest.mark.slow
def test_a_long_chain_traces_without_recursion_or_quadratic_memory():
    x = Value(0.5, label="x")
    y = x
    for _ in range(20_000):
        y = y * 1.0001 + 0.0001
    steps = trace(y, max_nodes=100_000)  # past the readable size on purpose
    assert (
        len(steps) == 1 + 40_000 + 1 + 40_000
    )  # inputs, ops; seed, one line per non-constant edge
    y.backward()
    assert steps[-1].grads[0] == x.grad


# ---- the LaTeX really typesets ----------------------------------------------------------


def _latex_corpus() -> list[str]:
    x, w = Value(0.5, label="x"), Value(-1.5, label="w_1")
    odd = Value(2.0, label="my {odd} #label\\ & 50% ~x^2 $5 ∑é")
    y = (x * w).tanh() + x**0.5 + x / w + (x - w).relu() + x.exp().log() + x.sigmoid()
    y = y + x**w + (x**3) * (w**-1) + odd * x * x + 1e-7 * x + 2**x
    y.label = "loss"
    return [s.latex for n in ("blog", "adjoint") for s in trace(y, notation=n)]


def test_every_latex_form_typesets_in_mathjax_without_errors(chromium, tmp_path):
    bad = mathjax_errors(chromium, tmp_path, _latex_corpus())
    assert not bad, bad


def test_the_docstring_examples_hold():
    import doctest

    import autograd_viz.trace as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


# ---- one notation: ∂z/∂v is always the total -------------------------------------------


def test_a_line_written_as_dz_dv_always_states_the_total():
    """The course's notation: ∂z/∂v is z's total derivative with respect to v. A line that
    begins `∂z/∂y =` ends with y's final gradient (8, never the product's 5); one of several
    contributions is written `ȳ via the product`; in adjoint notation the root's own
    operation writes its local partials with the operation, `∂(s · y)/∂s`, not `∂z/∂s`."""
    z = sum_times_y()
    z.backward()
    grads = {v.label: v.grad for v in z.topological_order()}
    blog = [s.text for s in trace(z, "backward")]
    totals = [t for t in blog if t.startswith("∂z/∂")]
    assert len(totals) == 4  # z, s, x and the sum for y
    for text in totals:
        name = text[len("∂z/∂") :].split(" ", 1)[0]
        assert float(text.rsplit(" = ", 1)[1]) == grads[name], text
    assert [t for t in blog if " via " in t] == [
        "ȳ via the product = s = 5",
        "ȳ via the sum = ∂z/∂s · ∂s/∂y = 3 · 1 = 3",
    ]
    adjoint = trace(z, "backward", notation="adjoint")
    local = [s.text for s in adjoint if s.kind == "local"]
    assert local[:2] == ["∂(s · y)/∂s = y = 3", "∂(s · y)/∂y = s = 5"]
    assert not any("∂z/∂" in s.text for s in adjoint if s.kind != "seed")


def test_backward_twice_the_derivation_says_what_grad_holds_where_it_differs():
    # issue 18 item 7: the derivation is one pass (3 and 8); .grad holds 6 and 16
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.backward()
    assert "holds" not in derivation(z)
    z.backward()
    lines = derivation(z, "backward").splitlines()
    note = "backward() ran again without zero_grad()"
    assert lines[3].endswith(f"= 3 · 1 = 3   (x.grad holds 6: {note})")
    assert lines[-1] == f"∂out/∂y = 5 + 3 = 8   (y.grad holds 16: {note})"
    assert sum("holds" in line for line in lines) == 2  # only the two leaves, once each
    adjoint = derivation(z, "backward", notation="adjoint")
    assert "(x.grad holds 6:" in adjoint and "(y.grad holds 16:" in adjoint
    assert trace(z)[-1].grads[1] == 8  # the steps still animate one pass
