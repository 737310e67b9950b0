"""The checks behind the lessons' code exercises, in one place the notebooks and tests share, so
`tests/` can try typical wrong answers (`autograd_viz.lesson_answers`) on the very check a learner
meets; those of code that computes with plain numbers live in `autograd_viz.course.number_checks`,
re-exported here. Each check uses several cases (two different operands, an upstream gradient other
than 1, a computed input, a value used twice, where the task has them) and asks what the learner's
code does by running it (`autograd_viz.core._watch`), never by searching its text. Whatever a check
needs (a softmax, a class) is its own or is looked up when it runs, never a notebook global the
learner may have rebound.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

from autograd_viz.core._watch import touched_grads, watching
from autograd_viz.course._verdict import Verdict, raised
from autograd_viz.course.class_checks import on
from autograd_viz.course.number_checks import (
    by_hand_backward_check,
    central_difference_check,
    cross_entropy_grad_check,
    dual_div_check,
)
from autograd_viz.engine import Value

__all__ = [
    "DIV_GRAPHS",
    "MUL_GRAPHS",
    "SIGMOID_GRAPHS",
    "by_hand_backward_check",
    "central_difference_check",
    "cross_entropy_grad_check",
    "dual_div_check",
    "neuron_check",
    "topological_order_check",
]


def _sigmoid(a: float) -> float:
    return 1 / (1 + math.exp(-a))


def _sigmoid_of_square(x: object) -> object:
    y = x * x  # z = σ(y)·y with y = x·x: y is computed, and used twice
    return y.sigmoid() * y


# ---- 04: a sigmoid method; 08: division; 09: multiplication (method_check graphs) -----------

SIGMOID_GRAPHS = (
    on(lambda x: x.sigmoid(), _sigmoid, x=0.5),
    on(lambda x: x.sigmoid() * x, lambda x: x * _sigmoid(x), x=-2.0),
    on(lambda x, y: (x * y).sigmoid() * 3, lambda x, y: 3 * _sigmoid(x * y), x=1.5, y=-0.5),
    on(_sigmoid_of_square, lambda x: _sigmoid(x * x) * x * x, x=0.5),
    on(lambda x: x.sigmoid() * x, lambda x: x * _sigmoid(x), x=3.0),
)
"""σ alone, σ(x)·x (x used twice, upstream x), σ(x·y)·3 (computed input, upstream 3) and
σ(y)·y with y = x·x (the graph where a sigmoid with no parents gives 0.5622 for 0.6237)."""

MUL_GRAPHS = (
    on(lambda x, y: x * y, x=0.5, y=-1.5),
    on(lambda x, y: x * y * 3, x=2.0, y=-0.25),
    on(lambda x, y: (x + 1) * y, x=0.5, y=-1.5),
    on(lambda x, y: x * (y + 2), x=-0.75, y=0.5),
    on(lambda t: t * t + t, t=3.0),
    on(lambda x, y: (x * y) * (x + y), x=1.5, y=-2.0),
    on(lambda x, y: x * y + y, x=0.0, y=2.5),
)
"""x·y (two different operands), x·y·3 (upstream 3), (x + 1)·y and x·(y + 2) (a computed
operand on each side), t·t + t (a value used twice), (x·y)·(x + y) and x·y + y at x = 0."""

DIV_GRAPHS = (
    on(lambda x, y: x / y, x=1.5, y=-0.5),
    on(lambda x, y: x / y * 3, x=2.0, y=0.25),
    on(lambda x, y: (x + 1) / (y * y), x=0.5, y=-1.5),
    on(lambda t: t / t, t=0.75),
    on(lambda t: (t + 1) / t + t / 4, t=0.5),
    on(lambda t: (t + 1) / t + t / 4, t=-1.5),
)
"""x/y (two operands), x/y·3 (upstream 3), (x + 1)/(y·y) (computed operands), t/t (a value
used twice: the slope is 0) and (t + 1)/t + t/4 (a number divisor)."""


# ---- 05: a topological order without recursion -------------------------------------------


def _name(v: Value) -> str:
    return v.label or f"{v.data:g}"


def _topo_graphs() -> list[tuple[str, Value]]:
    def named(v: Value, label: str) -> Value:
        v.label = label
        return v

    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    c = named(a * b, "c")
    d = named(c + b, "d")
    example = named(2 * d, "L")
    e_a = Value(2.0, label="a")
    reused = named(e_a + named(e_a * e_a, "a·a"), "e")
    q = Value(1.5, label="q")
    left = named(named(q * 2, "q·2") + q, "r")
    q2 = Value(1.5, label="q")
    right = named(q2 + named(q2 * 2, "q·2"), "r")
    x1, w1, x2, w2 = (Value(v, label=n) for v, n in [(2, "x1"), (-3, "w1"), (0, "x2"), (1, "w2")])
    neuron = named((x1 * w1 + x2 * w2 + Value(6.88, label="b")).tanh(), "o")
    deep = Value(1.0, label="x")
    for _ in range(3_000):
        deep = deep * 1.0
    return [
        ("L = 2·(a·b + b)", example),
        ("e = a + a·a", reused),
        ("r = q·2 + q", left),
        ("r = q + q·2", right),
        ("o = tanh(x1·w1 + x2·w2 + b)", neuron),
        ("a single value", Value(4.0, label="v")),
        ("a 3,000-step chain", deep),
    ]


def topological_order_check(topo: Callable, name: str = "my_topological_order") -> Verdict:
    """Grade topo(root) on seven graphs: every node once, each after its parents, root last,
    with no recursion (watched as it runs: raising the recursion limit does not hide it) and
    without the engine's own `topological_order()`."""
    limit = sys.getrecursionlimit()
    try:
        for what, root in _topo_graphs():
            verdict = _topo_on(topo, name, what, root)
            if verdict is not None:
                return verdict
    finally:
        sys.setrecursionlimit(limit)  # theirs may have raised it
    return Verdict(
        True,
        f"Your `{name}` places every node after its parents on seven graphs, 3,000 deep too, "
        "without recursion.",
    )


def _topo_on(topo: Callable, name: str, what: str, root: Value) -> Verdict | None:
    try:
        with watching() as seen:
            order = topo(root)
    except RecursionError:
        return Verdict(
            False,
            f"On {what} it hit Python's recursion limit.",
            "keep the nodes still to visit on a list (a stack) instead of calling the function "
            "again.",
        )
    except Exception as err:
        return raised(name, err, f"on {what}")
    if seen.called(Value.topological_order):
        return Verdict(
            False,
            f"On {what} it uses the engine's own topological_order().",
            "write the loop yourself: a list as a stack, and a visited set.",
        )
    if seen.recursion is not None:
        fn, depth = seen.recursion
        return Verdict(
            False,
            f"On {what} your `{fn}` calls itself ({depth} calls deep): that is recursion, "
            "which a long chain takes past Python's limit.",
            "keep the nodes still to visit on a list (a stack) instead of calling the function "
            "again.",
        )
    if not isinstance(order, list):
        return Verdict(
            False, f"On {what} it returned {type(order).__name__}, not a list of Values."
        )
    place = {id(v): i for i, v in enumerate(order)}
    if len(place) < len(order):
        return Verdict(False, f"On {what} it lists a node twice: a visited set places each once.")
    nodes = root.topological_order()
    if len(order) != len(nodes) or any(id(v) not in place for v in nodes):
        return Verdict(
            False,
            f"On {what} it lists {len(order)} nodes; the graph has {len(nodes)}: every node, "
            "each once.",
        )
    for v in order:
        for p in v.parents:
            if place[id(p)] > place[id(v)]:
                return Verdict(
                    False,
                    f"On {what} it places {_name(v)} before its parent {_name(p)}: a node goes "
                    "after all of its parents.",
                )
    if order[-1] is not root:
        return Verdict(False, f"On {what} the root is not last.")
    return None


# ---- 07: a neuron ----------------------------------------------------------------------------

_NEURONS = (
    ([0.5, -1.0], [1.0, 0.0], 0.25),
    ([0.8, 0.6], [1.0, 1.0], -0.2),
    ([-0.7, 0.4], [1.0, 0.5], 0.1),
    ([1.5, -0.5, 2.0], [0.2, 1.0, 0.5], 0.3),
)


def neuron_check(f: Callable, name: str = "my_neuron") -> Verdict:
    """Grade f(w, x, b) = ReLU(w·x + b) on four neurons (one with its ReLU closed), then on
    one whose inputs are computed from a leaf t and are the same value twice, under an
    upstream gradient of 2.5: the output, then every gradient."""
    for wn, xn, bn in _NEURONS:
        w = [Value(v, label=f"w{i}") for i, v in enumerate(wn, 1)]
        x = [Value(v, label=f"x{i}") for i, v in enumerate(xn, 1)]
        b = Value(bn, label="b")
        where = "w = ({}), x = ({}), b = {:g}".format(
            ", ".join(f"{v:g}" for v in wn), ", ".join(f"{v:g}" for v in xn), bn
        )
        out = _neuron_out(f, name, where, w, x, b)
        if isinstance(out, Verdict):
            return out
        u = sum(wi * xi for wi, xi in zip(wn, xn)) + bn
        want = max(0.0, u)
        if abs(out.data - want) > 1e-9:
            why = (
                f"w·x + b = {u:g} is negative there, and ReLU turns it into 0"
                if u < 0
                else f"w·x + b = {u:g} there"
            )
            return Verdict(
                False,
                f"At {where} your `{name}` gives {out.data:.4g}; ReLU(w·x + b) = {want:g} ({why}).",
            )
        out.backward()
        gate = 1.0 if u > 0 else 0.0  # the ReLU's slope: 1 while open, 0 when closed
        rules = (
            [(f"w{i}", leaf, xv * gate) for i, (leaf, xv) in enumerate(zip(w, xn), 1)]
            + [(f"x{i}", leaf, wv * gate) for i, (leaf, wv) in enumerate(zip(x, wn), 1)]
            + [("b", b, gate)]
        )
        reached = {id(v) for v in out.topological_order()}
        for label, leaf, g in rules:
            if abs(leaf.grad - g) > 1e-9:
                cut = ""
                if id(leaf) not in reached and not any(id(v) in reached for v in w + x):
                    cut = " (0: a .data inside cuts the graph there)"
                elif id(leaf) not in reached:
                    cut = f" (0: {label} is not in your graph; every pair wi·xi belongs in the sum)"
                return Verdict(
                    False,
                    f"At {where} your graph gives d out/d{label} = {leaf.grad:g}{cut}; the rule "
                    f"gives {g:g}.",
                )
    return _neuron_in_context(f, name)


def _neuron_out(f: Callable, name: str, where: str, w: list, x: list, b: Value) -> Value | Verdict:
    try:
        with watching() as seen:
            out = f(w, x, b)
    except Exception as err:
        return raised(name, err, where)
    if not isinstance(out, Value):
        return Verdict(
            False,
            f"At {where} your `{name}` returned {type(out).__name__}, not a Value: build it from "
            "the Values so that backward() can reach them.",
        )
    touched = touched_grads(seen, Value.backward, out.topological_order())
    if touched:
        return Verdict(
            False,
            f"At {where} your `{name}` {touched}.",
            "return the neuron's output and let the caller run backward(), once.",
        )
    return out


def _neuron_in_context(f: Callable, name: str) -> Verdict:
    t = Value(0.5, label="t")
    shared = t * 2 + 1  # computed from t, and given as both inputs
    w = [Value(0.75, label="w1"), Value(-0.25, label="w2")]
    b = Value(0.5, label="b")
    where = "x = (u, u) with u = 2t + 1 at t = 0.5, w = (0.75, −0.25), b = 0.5, times 2.5"
    out = _neuron_out(f, name, where, w, [shared, shared], b)
    if isinstance(out, Verdict):
        return out
    (out * 2.5).backward()
    want = 2.5 * (0.75 - 0.25) * 2  # ReLU open (w·x + b = 1.5): ∂/∂t = 2.5·(w1 + w2)·2
    if abs(out.data - 1.5) > 1e-9 or abs(t.grad - want) > 1e-9:
        return Verdict(
            False,
            f"At {where}: your graph gives out = {out.data:g} and ∂/∂t = {t.grad:g}; the neuron "
            f"gives 1.5 and {want:g} (u feeds both inputs, so both weights count).",
            "add wi * xi for every pair, even when two inputs are the same Value.",
        )
    return Verdict(
        True,
        f"Your `{name}` gives ReLU(w·x + b) and the right gradient for every weight, input and "
        "bias, on four neurons (one with its ReLU closed) and on computed, shared inputs.",
    )
