"""Property tests: random expression DAGs (with reused nodes) against an independent oracle.

The oracle evaluates the same program with plain `math` on floats and takes central
differences, and sympy differentiates every operation exactly, so neither shares code
with the engine. The operations and the random graphs come from tests/op_cases.py. Programs
keep every operand away from kinks and singularities (relu near 0, log and division near
0, huge exp), so finite differences are accurate and the tests never flake.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import BY_NAME, CASES, programs

from autograd_viz import Value
from autograd_viz.core.ops import OPS, describe
from autograd_viz.open.snapshot import snapshot


@settings(max_examples=300, deadline=None)
@given(programs())
def test_random_dag_gradients_match_central_differences(program):
    xs, out = program.build()
    expected = program.floats()
    assert out.data == expected or math.isclose(out.data, expected, rel_tol=1e-12, abs_tol=1e-12)
    out.backward()
    h = 1e-6
    for k in range(len(xs)):
        up, down = list(program.leaves), list(program.leaves)
        up[k] += h
        down[k] -= h
        numeric = (program.floats(up) - program.floats(down)) / (2 * h)
        assert abs(xs[k].grad - numeric) <= 1e-4 * max(1.0, abs(numeric)), (k, xs[k].grad, numeric)


@settings(max_examples=100, deadline=None)
@given(programs())
def test_second_backward_exactly_doubles_every_leaf_grad(program):
    xs, out = program.build()
    out.backward()
    first = [x.grad for x in xs]
    out.backward()
    # bit-exact for a single contribution; a leaf reached by several paths adds
    # them in a different order the second time, so allow the last few bits to differ
    for x, g in zip(xs, first):
        assert math.isclose(x.grad, 2 * g, rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@settings(max_examples=25, deadline=None)
@given(a=st.floats(-3, 3), b=st.floats(-3, 3))
def test_every_operation_differentiates_like_sympy(case, a, b):
    sympy = pytest.importorskip("sympy")
    args = (a,) if case.arity == 1 else (a, b)
    if not case.tame(*args) or (case.name == "pow" and not 0.1 < a < 10):
        return
    xs = [Value(v, label=f"x{k}") for k, v in enumerate(args)]
    out = case.value(*xs)
    out.backward()
    symbols = sympy.symbols(f"a0:{case.arity}", real=True)
    expr = case.sympy(*symbols)
    at = dict(zip(symbols, args))
    assert math.isclose(out.data, float(expr.subs(at)), rel_tol=1e-9, abs_tol=1e-12)
    for x, s in zip(xs, symbols):
        want = float(sympy.diff(expr, s).subs(at))
        assert math.isclose(x.grad, want, rel_tol=1e-9, abs_tol=1e-12), (x, want)


def test_every_row_of_the_op_table_has_a_case_and_every_case_a_row():
    produced = {}
    for case in CASES:
        args = [Value(1.5, label="a"), Value(0.5, label="b")][: case.arity]
        node = snapshot(case.value(*args)).root
        produced[case.name] = node.op
        assert describe(node.op).known, f"{case.name} leaves op {node.op!r}, which has no row"
        family = "**n" if node.exponent is not None else node.op
        assert family == case.op, case.name
    assert set(OPS) <= {c.op for c in CASES}, set(OPS) - {c.op for c in CASES}
    assert BY_NAME["sin"].op == "sin" and BY_NAME["cos"].op == "cos"
