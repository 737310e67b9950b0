"""The engine at its edges: x ** n at 0, overflow, exotic exponents and labels, bools,
plain-maths mistakes, and copying or pickling graphs deeper than Python's recursion limit.

Every test here pins one rule stated in the docstring of `engine.Value` or in
docs/errors.md, and each failed before the fix it protects.
"""

from __future__ import annotations

import contextlib
import copy
import math
import pickle
import re
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch

from autograd_viz import MLP, Value


def _torch_grad(f, x0: float) -> tuple[float, float]:
    """PyTorch's value and gradient of f at x0, in float64: the oracle for edge values."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    y = f(x)
    y.backward()
    return y.item(), x.grad.item()


# ---- item 1: x ** n at x = 0 -----------------------------------------------------------


def test_polynomial_at_zero_backpropagates_the_derivative_where_it_exists():
    x = Value(0.0)
    p = sum(c * x**i for i, c in enumerate([1.0, 2.0, 3.0]))
    p.backward()
    assert p.data == 1
    assert x.grad == 2  # d/dx (1 + 2x + 3x²) at 0


@pytest.mark.parametrize("n", [0, 1, 2, 3, 0.5, 1.5, 1 / 3, 2.5])
def test_power_at_zero_has_pytorchs_derivative(n):
    x = Value(0.0)
    y = x**n
    y.backward()
    data, grad = _torch_grad(lambda t: t**n, 0.0)
    assert y.data == data
    assert x.grad == grad  # 0 where the derivative exists, inf for roots (√x at 0)


def test_square_root_at_zero_has_infinite_slope_not_a_crash():
    x = Value(0.0)
    (x**0.5).backward()
    assert x.grad == math.inf


def test_power_zero_is_constant_everywhere():
    for x0 in (-2.0, 0.0, 3.0, math.inf):
        x = Value(x0)
        (x**0).backward()
        assert x.grad == 0


# ---- item 9: one overflow rule, IEEE inf, forward and backward -------------------------

OVERFLOW_FORWARD = {
    "mul": (lambda: Value(1e200) * Value(1e200), math.inf),
    "add": (lambda: Value(1e308) + Value(1e308), math.inf),
    "square": (lambda: Value(1e200) ** 2, math.inf),
    "odd power of a negative": (lambda: Value(-1e200) ** 3, -math.inf),
    "even power of a negative": (lambda: Value(-1e200) ** 4, math.inf),
    "reciprocal of a tiny number": (lambda: 1 / Value(1e-320), math.inf),
    "reciprocal of a tiny negative": (lambda: 1 / Value(-1e-320), -math.inf),
    "value exponent": (lambda: Value(2.0) ** Value(2000.0), math.inf),
    "rpow": (lambda: 2 ** Value(2000.0), math.inf),
    "exp": (lambda: Value(1000.0).exp(), math.inf),
    "division": (lambda: Value(1e300) / Value(1e-300), math.inf),
}


@pytest.mark.parametrize("name", OVERFLOW_FORWARD)
def test_overflow_in_forward_gives_ieee_infinity(name):
    build, expected = OVERFLOW_FORWARD[name]
    assert build().data == expected


OVERFLOW_BACKWARD = {  # name: (our op, the same op in torch, x0)
    "reciprocal": (lambda v: 1 / v, lambda t: 1 / t, 1e-200),
    "reciprocal of a negative": (lambda v: 1 / v, lambda t: 1 / t, -1e-200),
    "inverse square": (lambda v: v**-2, lambda t: t**-2, 1e-160),
    "cube": (lambda v: v**3, lambda t: t**3, 1e160),
    "log": (lambda v: v.log(), lambda t: t.log(), 1e-320),
    "exp": (lambda v: v.exp(), lambda t: t.exp(), 1000.0),
    "rpow": (lambda v: 2**v, lambda t: 2**t, 1030.0),
    "value base": (lambda v: v ** Value(3.0), lambda t: t**3, 1e160),
}


@pytest.mark.parametrize("name", OVERFLOW_BACKWARD)
def test_overflow_in_backward_gives_pytorchs_infinity(name):
    ours, theirs, x0 = OVERFLOW_BACKWARD[name]
    x = Value(x0)
    y = ours(x)
    y.backward()
    data, grad = _torch_grad(theirs, x0)
    assert (y.data, x.grad) == (data, grad)
    assert math.isinf(x.grad)


def test_value_exponent_overflow_in_backward_is_infinite_for_both_operands():
    a, b = Value(2.0), Value(1030.0)
    (a**b).backward()
    assert a.grad == math.inf
    assert b.grad == math.inf


# ---- item 10: any real exponent ----------------------------------------------------------


@pytest.mark.parametrize(
    "exponent", [Fraction(1, 2), np.float64(0.5), np.float32(0.5), np.int64(2), 2, 0.5]
)
def test_any_real_number_works_as_an_exponent(exponent):
    x = Value(4.0)
    y = x**exponent
    y.backward()
    assert y.data == 4.0 ** float(exponent)
    assert x.grad == float(exponent) * 4.0 ** (float(exponent) - 1)
    assert y.op == f"**{float(exponent):g}"


# ---- item 11: labels checked once, in the engine ----------------------------------------


@pytest.mark.parametrize(("given", "kept"), [(5, "5"), (2.5, "2.5"), (None, ""), ("x", "x")])
def test_labels_are_text_whatever_number_was_given(given, kept):
    assert Value(2.0, label=given).label == kept
    v = Value(2.0)
    v.label = given
    assert v.label == kept


@pytest.mark.parametrize("bad", [["x"], b"x", Value(1.0), {"name": "x"}])
def test_a_label_that_is_not_text_is_refused_when_set(bad):
    with pytest.raises(TypeError, match=r"a label is text.*label='x'"):
        Value(2.0, label=bad)
    v = Value(2.0)
    with pytest.raises(TypeError, match=r"a label is text"):
        v.label = bad


# ---- item 13: bools are the numbers 1 and 0 ---------------------------------------------


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_bools_count_as_one_and_zero(flag):
    x = Value(3.0)
    y = x * flag
    y.backward()
    assert y.data == 3.0 * bool(flag)
    assert x.grad == float(bool(flag))
    assert Value(flag).data == float(bool(flag))
    assert type(Value(flag).data) is float
    assert (x**flag).data == 3.0 ** bool(flag)
    assert (flag + x).data == 3.0 + bool(flag)


def test_micrograd_style_relu_mask_backpropagates():
    for x0, slope in ((2.0, 1.0), (-2.0, 0.0)):
        x = Value(x0)
        (x * (x.data > 0)).backward()
        assert x.grad == slope


# ---- item 15: a Value meeting plain maths gets a hint, never a silent float -----------

PLAIN_MATHS = {
    "math.exp": (lambda x, y: math.exp(x), r"x\.exp\(\)"),
    "float": (lambda x, y: float(x), r"x\.data"),
    "int": (lambda x, y: int(x), r"x\.data"),
    "round": (lambda x, y: round(x, 2), r"round\(x\.data"),
    "abs": (lambda x, y: abs(x), r"x\.relu\(\) \+ \(-x\)\.relu\(\)"),
    "max": (lambda x, y: max(x, y), r"compare x\.data"),
    "greater than": (lambda x, y: x > 0, r"x\.data > 0"),
    "reflected": (lambda x, y: 0 < x, r"x\.data"),  # noqa: SIM300 - the reflected form
    "less or equal": (lambda x, y: x <= y, r"x\.data"),
    "sorted": (lambda x, y: sorted([x, y]), r"key=lambda v: v\.data"),
    "format spec": (lambda x, y: f"{x:.2f}", r"x\.data:\.2f"),
    "numpy float array": (lambda x, y: np.array([x, y], dtype=float), r"x\.data"),
}


@pytest.mark.parametrize("name", PLAIN_MATHS)
def test_plain_maths_on_a_value_says_what_to_write_instead(name):
    attempt, hint = PLAIN_MATHS[name]
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    with pytest.raises(TypeError, match=hint):
        attempt(x, y)


def test_values_keep_identity_equality_and_hashing():
    x, y = Value(2.0), Value(2.0)
    assert x == x and x != y
    assert len({x, y, x}) == 2
    assert x in [x] and y not in [x]
    assert f"{x}" == repr(x)


# ---- item 14: copy and pickle without recursion -----------------------------------------


def _chain(steps: int) -> tuple[Value, Value]:
    x = Value(0.5, label="x")
    v = x
    for _ in range(steps):
        v = (v * 1.0001).tanh()
    return x, v


def _assert_same_graph(original: Value, copied: Value) -> None:
    a, b = original.topological_order(), copied.topological_order()
    assert len(a) == len(b)
    assert not {id(v) for v in a} & {id(v) for v in b}
    for u, v in zip(a, b):
        assert (u.data, u.grad, u.label, u.op) == (v.data, v.grad, v.label, v.op)


def test_pickle_and_deepcopy_keep_shared_nodes_shared():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    z = (s * y) + s
    z.backward()
    for x2, s2, z2 in (
        pickle.loads(pickle.dumps((x, s, z))),
        copy.deepcopy((x, s, z)),
    ):
        order = z2.topological_order()
        assert order[0] is x2 and s2 in order
        assert z2.parents[1] is s2 and z2.parents[0].parents[0] is s2
        assert [v.data for v in order] == [v.data for v in z.topological_order()]
        x2.grad = 0.0
        z2.zero_grad()
        z2.backward()
        assert (x2.grad, z2.parents[0].parents[1].grad) == (4.0, 9.0)  # x: y + 1; y: s + y + 1
    assert x.grad == 4.0  # the original graph is untouched


def test_pickle_keeps_a_network_and_its_loss_connected():
    model = MLP(2, [3, 1], seed=1)
    loss = (model([1.0, -1.0]) - 1.0) ** 2
    model2, loss2 = pickle.loads(pickle.dumps((model, loss)))
    leaves = {id(v) for v in loss2.leaves()}
    assert all(id(p) in leaves for p in model2.parameters())
    loss2.backward()
    loss.backward()
    assert [p.grad for p in model2.parameters()] == [p.grad for p in model.parameters()]
    assert any(p.grad != 0 for p in model2.parameters())


def test_copy_is_shallow_and_shares_the_parents():
    x = Value(2.0)
    z = x * 3
    z2 = copy.copy(z)
    assert z2 is not z and z2.parents == z.parents and z2.data == z.data


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_deep_chain_copies_without_recursion(how):
    assert sys.getrecursionlimit() <= 10_000
    _, z = _chain(3_000)
    z.backward()
    z2 = pickle.loads(pickle.dumps(z)) if how == "pickle" else copy.deepcopy(z)
    _assert_same_graph(z, z2)


@contextlib.contextmanager
def _recursion_limit_above_here(frames: int):
    """Python's recursion limit set `frames` above the caller's stack depth (pytest's own
    frames included), restored after."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def test_a_chain_far_deeper_than_the_recursion_limit_pickles_deep_copies_and_backpropagates():
    """A chain 100 times deeper than the recursion limit allows: any step that recursed once
    per node (pickle, deepcopy, backward or leaves() on the copy) raises RecursionError. The
    same proof as a million steps under the default limit of 1000, in a second instead of a
    minute. (Python 3.12+ gives C code such as the pickler a fixed limit of its own, 10,000 at
    most: 40,001 nodes written one inside the other are past it too.)"""
    steps, frames = 20_000, 200
    x = Value(1.0, label="x")
    v = x
    for _ in range(steps):
        v = v * 1.0
    with _recursion_limit_above_here(frames):
        for how in (lambda: pickle.loads(pickle.dumps(v)), lambda: copy.deepcopy(v)):
            w = how()
            w.backward()
            leaf = next(w.leaves())
            assert leaf.label == "x" and leaf.grad == 1.0
            assert len(w.topological_order()) == steps * 2 + 1  # each step: x * 1.0 and the 1.0
            del w, leaf


# ---- docs/errors.md explains every error type the kit defines -------------------------


def test_every_error_type_the_kit_defines_is_explained_in_docs_errors():
    import importlib
    import pathlib
    import pkgutil

    import autograd_viz

    doc = (pathlib.Path(__file__).parents[1] / "docs" / "errors.md").read_text()
    defined = set()
    for info in pkgutil.walk_packages(autograd_viz.__path__, "autograd_viz."):
        if info.name.endswith(".wasm"):  # needs Pyodide's js module
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Exception) and obj.__module__ == info.name:
                defined.add(obj.__name__)
    assert {"GraphTooLargeError", "GradcheckError", "TraceError"} <= defined
    assert sorted(name for name in defined if f"`{name}`" not in doc) == []


def test_numpy_numbers_and_arrays_still_build_values():
    x = Value(3.0)
    assert (np.float64(2.0) * x).data == 6
    assert (np.int64(2) - x).data == -1
    assert (np.float64(2.0) ** x).data == 8
    assert (np.array([1.0, 2.0]) @ np.array([x, x])).data == 9  # object arrays call our ops
    assert np.exp(x).data == math.exp(3.0)  # numpy calls x.exp()


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("sqrt", "x ** 0.5"),
        ("item", "x.data"),
        ("abs", "x.relu() + (-x).relu()"),
        ("pow", "x ** n"),
    ],
)
def test_methods_people_expect_from_pytorch_name_what_to_write(name, instead):
    x = Value(4.0)
    assert not hasattr(x, name)  # still an AttributeError, so duck typing is not fooled
    with pytest.raises(AttributeError, match=re.escape(instead)):
        getattr(x, name)
