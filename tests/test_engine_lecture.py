"""The code of Karpathy's micrograd lecture, typed as in the video, on our `Value`.

The lecture reads `v._prev` (its `trace`/`draw_dot` and `build_topo`) and calls
`o._backward()` node by node; a learner following it with `from autograd_viz import Value`
must get what the video shows, and the same gradients as our `backward()`.
"""

from __future__ import annotations

import math

import pytest

from autograd_viz import Value


def trace(root):
    """The lecture's `trace`: every node and edge, in sets (recursive, as typed)."""
    nodes, edges = set(), set()

    def build(v):
        if v not in nodes:
            nodes.add(v)
            for child in v._prev:
                edges.add((child, v))
                build(child)

    build(root)
    return nodes, edges


class _Dot:
    """Stands in for graphviz.Digraph: records what `draw_dot` asks for."""

    def __init__(self):
        self.nodes, self.edges = {}, set()

    def node(self, name, label, shape=None):
        self.nodes[name] = label

    def edge(self, a, b):
        self.edges.add((a, b))


def draw_dot(root):
    """The lecture's `draw_dot`, with the Digraph swapped for a recorder."""
    dot = _Dot()
    nodes, edges = trace(root)
    for n in nodes:
        uid = str(id(n))
        label = "{ %s | data %.4f | grad %.4f }" % (n.label, n.data, n.grad)  # noqa: UP031
        dot.node(name=uid, label=label)
        if n._op:
            dot.node(name=uid + n._op, label=n._op)
            dot.edge(uid + n._op, uid)
    for n1, n2 in edges:
        dot.edge(str(id(n1)), str(id(n2)) + n2._op)
    return dot


def build_topo(root):
    """The lecture's `build_topo` (recursive, as typed)."""
    topo, visited = [], set()

    def build(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build(child)
            topo.append(v)

    build(root)
    return topo


def neuron():
    """The lecture's neuron: o = tanh(x1·w1 + x2·w2 + b), labelled as in the video."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o, dict(x1=x1, x2=x2, w1=w1, w2=w2, b=b, x1w1=x1w1, x2w2=x2w2, s=x1w1x2w2, n=n)


def test_prev_holds_the_parents_in_operand_order_and_a_leaf_has_none():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = x * y
    assert z._prev == (x, y)
    assert (y + x)._prev == (y, x)
    assert x._prev == ()
    assert set(z._prev) == {x, y}  # what the lecture prints as a set
    assert (x * x)._prev == (x, x)


def test_prev_is_read_only():
    z = Value(2.0) * Value(3.0)
    with pytest.raises(AttributeError):
        z._prev = ()


def test_the_lecture_draw_dot_walks_our_graph():
    o, v = neuron()
    dot = draw_dot(o)
    values = [v[k] for k in ("x1", "x2", "w1", "w2", "b", "x1w1", "x2w2", "s", "n")] + [o]
    assert {str(id(n)) for n in values} <= set(dot.nodes)
    assert len(dot.nodes) == 10 + 5  # ten values, five operation circles (2 *, 2 +, tanh)
    assert (str(id(v["x1"])), str(id(v["x1w1"])) + "*") in dot.edges
    assert (str(id(v["n"])), str(id(o)) + "tanh") in dot.edges
    assert dot.nodes[str(id(o))] == f"{{ o | data {o.data:.4f} | grad 0.0000 }}"


def test_manual_backward_calls_node_by_node_give_the_lecture_numbers():
    o, v = neuron()
    o.grad = 1.0
    o._backward()  # the video's cells, one call each, in its order
    v["n"]._backward()
    v["b"]._backward()  # a leaf: does nothing
    v["s"]._backward()
    v["x2w2"]._backward()
    v["x1w1"]._backward()
    got = {k: round(v[k].grad, 4) for k in ("x1", "x2", "w1", "w2", "b", "n")}
    assert got == {"x1": -1.5, "x2": 0.5, "w1": 1.0, "w2": 0.0, "b": 0.5, "n": 0.5}


def test_reverse_topological_backward_calls_reproduce_backward():
    o, _ = neuron()
    manual = build_topo(o)
    o.grad = 1.0
    for node in reversed(manual):
        node._backward()
    by_hand = [n.grad for n in manual]

    o2, _ = neuron()
    o2.backward()
    assert by_hand == [n.grad for n in build_topo(o2)]


def test_manual_backward_accumulates_into_a_reused_value():
    a = Value(-2.0, label="a")
    b = Value(3.0, label="b")
    d, e = a * b, a + b
    f = d * e
    topo = build_topo(f)
    assert len(topo) == 5  # a and b once each, however often they are used
    f.grad = 1.0
    for node in reversed(topo):
        node._backward()
    assert (a.grad, b.grad) == (-3.0, -8.0)  # the lecture's numbers

    x = Value(3.0, label="x")
    y = x + x  # the lecture's "a + a" bug: the fix makes this 2
    y.grad = 1.0
    y._backward()
    assert x.grad == 2.0


def test_a_leaf_backward_changes_nothing():
    x = Value(2.0)
    x.grad = 5.0
    x._backward()
    assert x.grad == 5.0


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x**3,
        lambda x: (x * 2).exp() / (x + 1),
        lambda x: x.sin() * x.cos() - x.relu() + x.log() + x.sigmoid(),
        lambda x: 2**x,
    ],
)
def test_every_rule_runs_by_hand_as_backward_runs_it(make):
    x = Value(1.5)
    out = make(x)
    out.grad = 1.0
    for node in reversed(build_topo(out)):
        node._backward()
    by_hand = x.grad
    x.grad = 0.0
    make(x).backward()
    assert math.isclose(by_hand, x.grad, rel_tol=0, abs_tol=0)
