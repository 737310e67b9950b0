"""Property tests: random expression DAGs (with reused nodes) against an independent oracle.

The oracle evaluates the same program with plain `math` on floats and takes central
differences, so it shares no code with the engine. Programs keep every operand away
from kinks and singularities (relu near 0, log and division near 0, huge exp), so
finite differences are accurate and the tests never flake.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from autograd_viz import Value

UNARY_OPS = ["relu", "tanh", "exp", "log", "sigmoid", "square", "cube", "neg", "recip", "sqrt"]
BINARY_OPS = ["add", "sub", "mul", "div", "pow"]


def _float_op(op: str, a: float, b: float | None = None) -> float:
    return {
        "relu": lambda: max(a, 0.0),
        "tanh": lambda: math.tanh(a),
        "exp": lambda: math.exp(a),
        "log": lambda: math.log(a),
        "sigmoid": lambda: 1 / (1 + math.exp(-a)),
        "square": lambda: a * a,
        "cube": lambda: a * a * a,
        "neg": lambda: -a,
        "recip": lambda: 1 / a,
        "sqrt": lambda: math.sqrt(a),
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "pow": lambda: math.pow(a, b),
    }[op]()


def _value_op(op: str, a: Value, b: Value | None = None) -> Value:
    return {
        "relu": lambda: a.relu(),
        "tanh": lambda: a.tanh(),
        "exp": lambda: a.exp(),
        "log": lambda: a.log(),
        "sigmoid": lambda: a.sigmoid(),
        "square": lambda: a**2,
        "cube": lambda: a**3,
        "neg": lambda: -a,
        "recip": lambda: 1 / a,
        "sqrt": lambda: a**0.5,
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "pow": lambda: a**b,
    }[op]()


def _safe(op: str, a: float, b: float | None) -> bool:
    """Is this operation smooth and tame at (a, b), with room for a finite-difference step?"""
    if op == "relu":
        return abs(a) > 0.1
    if op in ("log", "sqrt"):
        return a > 0.1
    if op == "recip":
        return abs(a) > 0.1
    if op == "exp":
        return a < 4
    if op == "div":
        return abs(b) > 0.1
    if op == "pow":
        return 0.1 < a < 10 and abs(b) < 3
    return True


@st.composite
def programs(draw):
    """A random DAG: leaves, then ops whose operands are any earlier node (so nodes get reused)."""
    leaves = draw(
        st.lists(st.floats(-2, 2).filter(lambda v: abs(v) > 0.05), min_size=1, max_size=4)
    )
    values = list(leaves)
    steps = []
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(UNARY_OPS + BINARY_OPS))
        i = draw(st.integers(0, len(values) - 1))
        j = draw(st.integers(0, len(values) - 1)) if op in BINARY_OPS else None
        a, b = values[i], (values[j] if j is not None else None)
        if not _safe(op, a, b):
            continue
        result = _float_op(op, a, b)
        if not abs(result) < 50:
            continue
        values.append(result)
        steps.append((op, i, j))
    return leaves, steps


def _run(leaves: list, steps, apply) -> float | Value:
    """Replay a program on leaves with `apply` (`_float_op` or `_value_op`); the last result."""
    values = list(leaves)
    for op, i, j in steps:
        values.append(apply(op, values[i], values[j] if j is not None else None))
    return values[-1]


@settings(max_examples=300, deadline=None)
@given(programs())
def test_random_dag_gradients_match_central_differences(program):
    leaves, steps = program
    xs = [Value(v) for v in leaves]
    out = _run(xs, steps, _value_op)
    expected = _run(leaves, steps, _float_op)
    assert out.data == expected or math.isclose(out.data, expected, rel_tol=1e-12, abs_tol=1e-12)
    out.backward()
    h = 1e-6
    for k in range(len(leaves)):
        up, down = list(leaves), list(leaves)
        up[k] += h
        down[k] -= h
        numeric = (_run(up, steps, _float_op) - _run(down, steps, _float_op)) / (2 * h)
        assert abs(xs[k].grad - numeric) <= 1e-4 * max(1.0, abs(numeric)), (k, xs[k].grad, numeric)


@settings(max_examples=100, deadline=None)
@given(programs())
def test_second_backward_exactly_doubles_every_leaf_grad(program):
    leaves, steps = program
    xs = [Value(v) for v in leaves]
    out = _run(xs, steps, _value_op)
    out.backward()
    first = [x.grad for x in xs]
    out.backward()
    # bit-exact for a single contribution; a leaf reached by several paths adds
    # them in a different order the second time, so allow the last few bits to differ
    for x, g in zip(xs, first):
        assert math.isclose(x.grad, 2 * g, rel_tol=1e-12, abs_tol=1e-300)
