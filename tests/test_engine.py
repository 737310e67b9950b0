"""The Value engine: the blog's worked examples exactly, every op against sympy,
random graphs against central differences, deep graphs, and every error message."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from autograd_viz import Value

# ---- the blog's worked examples, exactly ------------------------------------------


def test_sum_times_y_gives_3_and_8():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.backward()
    assert z.data == 15
    assert x.grad == 3
    assert y.grad == 8  # 5 through the product, 3 through the sum


def test_square_of_ab_plus_c_at_2_3_1():
    a, b, c = Value(2.0), Value(3.0), Value(1.0)
    L = (a * b + c) ** 2
    L.backward()
    assert (L.data, a.grad, b.grad, c.grad) == (49, 42, 28, 14)


def test_square_of_ab_plus_c_at_2_minus3_10():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = a * b
    e = d + c
    L = e**2
    L.backward()
    assert (d.data, e.data, L.data) == (-6, 4, 16)
    assert (e.grad, d.grad, c.grad, a.grad, b.grad) == (8, 8, 8, -24, 16)


def test_b_reached_by_two_paths_sums_both():
    a, b = Value(2.0), Value(3.0)
    c = a * b
    d = c + b
    L = 2 * d
    L.backward()
    assert (c.data, d.data, L.data) == (6, 9, 18)
    assert a.grad == 6  # 2 · b
    assert b.grad == 6  # 2 · a from the product + 2 from the sum


def test_reused_leaf_accumulates_from_both_operands():
    a = Value(3.0)
    (a + a).backward()
    assert a.grad == 2
    b = Value(3.0)
    (b * b).backward()
    assert b.grad == 6


# ---- every op against sympy's exact derivative ------------------------------------

X, Y = sp.symbols("x y")

UNARY = {
    "relu": (lambda v: v.relu(), sp.Piecewise((X, X > 0), (0, True)), [-2.5, -0.3, 0.4, 1.7, 3.0]),
    "tanh": (lambda v: v.tanh(), sp.tanh(X), [-2.0, -0.5, 0.0, 0.3, 1.9]),
    "exp": (lambda v: v.exp(), sp.exp(X), [-3.0, -0.1, 0.0, 0.7, 2.2]),
    "log": (lambda v: v.log(), sp.log(X), [0.05, 0.5, 1.0, 2.5, 40.0]),
    "sigmoid": (lambda v: v.sigmoid(), 1 / (1 + sp.exp(-X)), [-30.0, -1.2, 0.0, 0.8, 30.0]),
    "neg": (lambda v: -v, -X, [-2.0, 0.0, 1.5]),
    "square": (lambda v: v**2, X**2, [-2.0, 0.0, 1.5]),
    "cube": (lambda v: v**3, X**3, [-1.3, 0.4, 2.0]),
    "reciprocal": (lambda v: v**-1, 1 / X, [-2.0, -0.25, 0.5, 3.0]),
    "sqrt": (lambda v: v**0.5, sp.sqrt(X), [0.01, 0.3, 4.0, 9.5]),
    "rsub": (lambda v: 1 - v, 1 - X, [-2.0, 0.5]),
    "rdiv": (lambda v: 2 / v, 2 / X, [-2.0, 0.5, 4.0]),
    "radd": (lambda v: 3 + v, 3 + X, [-2.0, 0.5]),
    "rmul": (lambda v: 3 * v, 3 * X, [-2.0, 0.5]),
    "rpow": (lambda v: 2**v, 2**X, [-2.0, 0.0, 1.5]),
}

BINARY = {
    "add": (lambda a, b: a + b, X + Y),
    "sub": (lambda a, b: a - b, X - Y),
    "mul": (lambda a, b: a * b, X * Y),
    "div": (lambda a, b: a / b, X / Y),
    "pow": (lambda a, b: a**b, X**Y),
}
BINARY_POINTS = [(0.5, 1.5), (2.0, -3.0), (3.0, 0.25), (1.7, 2.0), (0.1, -0.7)]


@pytest.mark.parametrize("name", UNARY)
def test_unary_op_matches_sympy_derivative(name):
    op, expr, points = UNARY[name]
    derivative = sp.lambdify(X, sp.diff(expr, X), "math")
    value = sp.lambdify(X, expr, "math")
    for x0 in points:
        x = Value(x0)
        out = op(x)
        out.backward()
        assert out.data == pytest.approx(float(value(x0)), rel=1e-12, abs=1e-15)
        assert x.grad == pytest.approx(float(derivative(x0)), rel=1e-12, abs=1e-15), (name, x0)


@pytest.mark.parametrize("name", BINARY)
def test_binary_op_matches_sympy_derivative(name):
    op, expr = BINARY[name]
    dx = sp.lambdify((X, Y), sp.diff(expr, X), "math")
    dy = sp.lambdify((X, Y), sp.diff(expr, Y), "math")
    for x0, y0 in BINARY_POINTS:
        a, b = Value(x0), Value(y0)
        out = op(a, b)
        out.backward()
        assert a.grad == pytest.approx(float(dx(x0, y0)), rel=1e-12, abs=1e-15), (name, x0, y0)
        assert b.grad == pytest.approx(float(dy(x0, y0)), rel=1e-12, abs=1e-15), (name, x0, y0)


def test_relu_slope_at_zero_is_zero_by_convention():
    x = Value(0.0)
    x.relu().backward()
    assert x.grad == 0


def test_reflected_ops_give_the_expected_values():
    v = Value(4.0)
    assert (1 - v).data == -3
    assert (2 / v).data == 0.5
    assert (3 + v).data == 7
    assert (3 * v).data == 12
    assert (2**v).data == 16
    assert (v - 1).data == 3
    assert (v / 2).data == 2
    assert (-v).data == -4


# ---- structure and determinism ------------------------------------------------------


def test_parents_are_kept_in_operand_order():
    x, y = Value(1.0, label="x"), Value(2.0, label="y")
    assert (x * y).parents == (x, y)
    assert (y * x).parents == (y, x)
    assert (x + x).parents == (x, x)
    assert x.relu().parents == (x,)
    assert x.parents == ()
    assert (x * y).op == "*"
    assert (x**2).op == "**2"
    assert (x / y).parents[1].op == "**-1"


def test_topological_order_puts_every_node_after_its_parents():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    z = s * y
    order = z.topological_order()
    assert order == [x, y, s, z]
    position = {id(v): i for i, v in enumerate(order)}
    for v in order:
        assert all(position[id(p)] < position[id(v)] for p in v.parents)


_DETERMINISM_SCRIPT = """
from autograd_viz import Value
a, b, c = Value(0.1, label="a"), Value(0.7, label="b"), Value(-1.3, label="c")
terms = [(a * b).tanh(), (b + c) ** 2, (a / b).exp(), (c * c).sigmoid(), b.log()]
L = sum(terms) * a + b
L.backward()
print([(v.label, v.op, v.data.hex(), v.grad.hex()) for v in L.topological_order()])
"""


def test_same_expression_gives_identical_order_and_bits_in_every_process():
    outputs = {
        subprocess.run(
            [sys.executable, "-c", _DETERMINISM_SCRIPT],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_importing_value_loads_no_drawing_libraries():
    code = (
        "import sys; from autograd_viz import Value; "
        "print(sorted(m for m in ('graphviz', 'ipywidgets', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---- deep graphs: no recursion ------------------------------------------------------


@pytest.mark.slow
def test_million_step_chain_backpropagates_at_default_recursion_limit():
    assert sys.getrecursionlimit() <= 10_000
    x = Value(1.0, label="x")
    v = x
    for _ in range(1_000_000):
        v = v * 1.0
    v.backward()
    assert x.grad == 1.0


def test_builtin_sum_of_many_values():
    xs = [Value(float(i)) for i in range(20_000)]
    total = sum(xs)
    total.backward()
    assert total.data == sum(range(20_000))
    assert all(x.grad == 1 for x in xs)


# ---- backward twice, zero_grad ------------------------------------------------------


def test_second_backward_doubles_leaf_grads_and_recomputes_interior():
    x, y = Value(2.0), Value(3.0)
    s = x + y
    z = s * y
    z.backward()
    assert (x.grad, y.grad, s.grad, z.grad) == (3, 8, 3, 1)
    z.backward()
    assert (x.grad, y.grad) == (6, 16)  # leaves accumulate: exactly double
    assert (s.grad, z.grad) == (3, 1)  # interior values are recomputed, not garbage


def test_zero_grad_on_a_graph_resets_every_node():
    x, y = Value(2.0), Value(3.0)
    z = (x + y) * y
    z.backward()
    z.zero_grad()
    assert [v.grad for v in z.topological_order()] == [0, 0, 0, 0]
    z.backward()
    assert (x.grad, y.grad) == (3, 8)


def test_backward_on_a_leaf_seeds_it():
    x = Value(5.0)
    x.backward()
    assert x.grad == 1


# ---- inputs and errors --------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "type_name"), [("3", "str"), (None, "NoneType"), ([1], "list"), (1j, "complex")]
)
def test_non_numbers_are_refused_with_a_type_error_naming_the_type(bad, type_name):
    with pytest.raises(TypeError, match=rf"needs a real number .*got {type_name}"):
        Value(bad)


def test_label_passed_by_position_is_refused_with_the_fix():
    with pytest.raises(TypeError, match=r"pass the label by name: Value\(2.0, label='x'\)"):
        Value(2.0, "x")


def test_string_error_suggests_converting():
    with pytest.raises(TypeError, match=r"Value\(float\('3'\)\)"):
        Value("3")


@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(1.5), np.int64(3), 7, 2.5])
def test_numpy_scalars_and_python_numbers_are_accepted(scalar):
    v = Value(scalar)
    assert type(v.data) is float
    assert v.data == float(scalar)


@pytest.mark.parametrize("x0", [0.0, -1.0])
def test_log_of_non_positive_value_names_the_operand(x0):
    with pytest.raises(
        ValueError,
        match=r"log\(Value\(data=.*\)\): log is defined only for values > 0",
    ):
        Value(x0).log()


def test_zero_to_a_negative_power_is_a_zero_division_error():
    with pytest.raises(
        ZeroDivisionError, match=r"\*\* -1: zero cannot be raised to a negative power"
    ):
        Value(0.0) ** -1


def test_division_by_a_zero_value_names_both_operands():
    with pytest.raises(
        ZeroDivisionError, match=r"division by zero: Value\(data=1.*\) / Value\(data=0"
    ):
        Value(1.0) / Value(0.0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        Value(1.0) / 0


def test_negative_base_with_fractional_exponent_is_refused():
    with pytest.raises(ValueError, match="not a real number"):
        Value(-8.0) ** (1 / 3)


def test_value_exponent_needs_positive_base():
    with pytest.raises(ValueError, match="needs a positive base"):
        Value(-2.0) ** Value(2.0)


def test_bad_exponent_type_is_a_type_error():
    with pytest.raises(TypeError, match="exponent"):
        Value(2.0) ** "2"


def test_nan_and_inf_follow_ieee_arithmetic():
    nan, inf = Value(math.nan), Value(math.inf)
    assert math.isnan((nan + 1).data)
    assert math.isnan(nan.relu().data)  # relu keeps nan visible instead of hiding it as 0
    assert (inf * 2).data == math.inf
    assert math.isnan((inf * 0).data)
    x = Value(math.inf)
    y = x * 0.0
    y.backward()
    assert x.grad == 0.0  # d(x·0)/dx = 0, even at inf
    assert math.isnan(y.data)


def test_repr_shows_label_data_and_grad():
    assert repr(Value(2.0, label="x")) == "Value(label='x', data=2, grad=0)"
    assert repr(Value(0.125)) == "Value(data=0.125, grad=0)"
