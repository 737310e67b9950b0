"""graph: the snapshot is the engine's topological order as plain data, read once, never written."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from examples import sum_times_y

from autograd_viz import MLP, Parameter, Value
from autograd_viz.core.errors import GraphError
from autograd_viz.core.graph import Graph
from autograd_viz.open.snapshot import snapshot


def test_nodes_follow_the_engines_topological_order_with_operands_in_order():
    z = sum_times_y()
    g = snapshot(z)
    order = z.topological_order()
    assert [n.data for n in g.nodes] == [v.data for v in order]
    assert [n.index for n in g.nodes] == list(range(4))
    assert [n.operands for n in g.nodes] == [(), (), (0, 1), (2, 1)]
    assert [n.op for n in g.nodes] == ["", "", "+", "*"]
    assert [e.id for e in g.edges] == ["v0-op2-0", "v1-op2-1", "v2-op3-0", "v1-op3-1"]
    assert g.root is g.nodes[-1] and g.root.role == "output"


def test_a_repeated_operand_is_kept_twice():
    a = Value(3.0, label="a")
    g = snapshot(a * a)
    assert g.root.operands == (0, 0)
    assert g.local(1) == (3.0, 3.0)  # one share per operand occurrence, as backward() adds


def test_roles_tags_exponents_and_trainable_weights_travel_as_data():
    x = Value(2.0, label="x")
    g = snapshot((x**3) * 2 + Parameter(1.0, label="b"))
    assert [n.role for n in g.nodes] == ["input", "value", "const", "value", "param", "output"]
    assert g.nodes[1].exponent == 3.0 and g.nodes[3].exponent is None
    assert [n.trainable for n in g.nodes] == [False, False, False, False, True, False]
    out = MLP(2, [2, 1], seed=0)([1.0, 2.0])
    tags = [n.tag for n in snapshot(out).nodes if n.tag is not None]
    assert tags == ["L1.n1", "L1.n2", "L2.n1"]


def test_local_derivatives_come_from_the_engines_rule_and_never_touch_the_users_graph():
    x = Value(0.5, label="x")
    y = x.tanh() * x
    y.backward()
    before = [(v.data, v.grad) for v in y.topological_order()]
    g = snapshot(y)
    assert g.local(1) == (1 - math.tanh(0.5) ** 2,)
    assert g.nodes[2].local == (0.5, math.tanh(0.5))  # ∂y/∂tanh(x) = x, ∂y/∂x = tanh(x)
    assert g.nodes[2].sent == (0.5, math.tanh(0.5))  # one pass from y: its gradient is 1
    assert g.nodes[1].sent == (0.5 * (1 - math.tanh(0.5) ** 2),)
    assert g.once == (x.grad, 0.5, 1.0)  # bit for bit what backward() gave
    assert [(v.data, v.grad) for v in y.topological_order()] == before
    assert g.nodes[0].grad == x.grad  # as read


def test_a_graph_is_plain_numbers_with_no_callable_inside():
    import dataclasses

    g = snapshot(sum_times_y())
    held = [getattr(g, f.name) for f in dataclasses.fields(g)]
    held += [value for node in g.nodes for value in node]
    assert not [h for h in held if callable(h)]
    assert [n.local for n in g.nodes] == [(), (), (1.0, 1.0), (3.0, 5.0)]
    assert [n.sent for n in g.nodes] == [(), (), (3.0, 3.0), (3.0, 5.0)]
    assert g.once == (3.0, 8.0, 3.0, 1.0)


def test_with_grads_copies_instead_of_writing():
    g = snapshot(sum_times_y())
    h = g.with_grads({0: 7.0})
    assert h.nodes[0].grad == 7.0 and g.nodes[0].grad == 0.0
    assert h.nodes[1:] == g.nodes[1:]


@pytest.mark.slow
def test_a_million_step_chain_is_read_without_recursion():
    x = Value(1.0, label="x")
    y = x
    for _ in range(200_000):
        y = y + 1.0
    g = snapshot(y)
    assert len(g) == 400_001 and g.root.data == 200_001.0


def test_a_snapshot_passes_through_and_other_objects_are_refused_clearly():
    g = snapshot(sum_times_y())
    assert snapshot(g) is g and isinstance(g, Graph)
    with pytest.raises(GraphError, match=r"expected a Value .* got float"):
        snapshot(3.0)


def test_the_docstring_examples_hold():
    import doctest

    import autograd_viz.core.ops as ops
    import autograd_viz.open.snapshot as graph

    for module in (graph, ops):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


# ---- every viewer reads the user's graph exactly once ----------------------------------


@pytest.fixture
def reads(monkeypatch) -> Counter:
    """Count how the user's Values are read: `parents` per node, whole-graph walks."""
    counts: Counter = Counter()
    parents, order = Value.parents, Value.topological_order

    def counted_parents(v):
        counts["parents"] += 1
        return parents.fget(v)

    def counted_order(v):
        counts["topological_order"] += 1
        return order(v)

    monkeypatch.setattr(Value, "parents", property(counted_parents))
    monkeypatch.setattr(Value, "topological_order", counted_order)
    return counts


def _twenty_steps() -> Value:
    x, y = Value(2.0, label="x"), Value(-1.0, label="y")
    return (x * y + x).tanh() * y + x**2  # 8 values, 20 steps of forward and backward


def test_a_drawing_a_trace_and_a_20_step_animation_each_walk_the_graph_once(reads, tmp_path):
    from autograd_viz.api import draw
    from autograd_viz.export import save_html, svg_animation
    from autograd_viz.frames import Frames
    from autograd_viz.player import Player
    from autograd_viz.trace import trace

    root = _twenty_steps()
    n = 8
    walks = {
        "draw": lambda: draw(root).svg(),
        "trace": lambda: trace(root),
        "frames": lambda: Frames(root).frame_svgs(),
        "player": lambda: Player(root).close(),
        "svg_animation": lambda: svg_animation(root),
    }
    for name, run in walks.items():
        reads.clear()
        run()
        assert dict(reads) == {"parents": n}, name  # each node's operands read once
    assert len(Frames(_twenty_steps())) == 20
    reads.clear()
    save_html(root, tmp_path / "page.html", phase="backward")
    assert dict(reads) == {"parents": n}


# ---- issue 18 --------------------------------------------------------------------------

BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


@pytest.mark.parametrize("control", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_bidi_controls_in_a_label_cannot_reorder_the_page(control):
    from autograd_viz import quiz
    from autograd_viz.api import to_dot
    from autograd_viz.trace import derivation

    x, y = Value(2.0, label=f"x{control}1"), Value(3.0, label="y")
    z = x * y
    shown = [
        snapshot(z).nodes[0].label,
        derivation(z),
        to_dot(z),
        " ".join(b.label for b in quiz(z).blanks),
    ]
    for text in shown:
        assert control not in text and "x\ufffd1" in text


def _looped() -> Value:
    """z = x * 3 + 1, then `x._a = z`: x now depends on z, which depends on x."""
    x = Value(2.0, label="x")
    z = x * 3 + 1
    x._a, x._b = z, Value(1.0)
    return z


@pytest.mark.parametrize(
    "viewer", ["snapshot", "draw", "trace", "animate", "quiz", "deepcopy", "pickle"]
)
def test_a_cycle_written_into_our_value_is_a_graph_error_at_once(viewer):
    import copy
    import pickle

    from autograd_viz import quiz
    from autograd_viz.core.errors import CycleError
    from autograd_viz.trace import trace

    call = {
        "snapshot": snapshot,
        "draw": lambda z: z.draw(),
        "trace": trace,
        "animate": lambda z: z.animate(),
        "quiz": quiz,
        "deepcopy": copy.deepcopy,
        "pickle": pickle.dumps,
    }[viewer]
    z = _looped()
    with pytest.raises(CycleError, match=r"one of its own operands.*Build the expression again"):
        call(z)  # a walk that did not notice the cycle would never return (pytest's timeout)
    assert issubclass(CycleError, GraphError)  # what docs/errors.md promises


def _stale_blog() -> tuple[Value, Value]:
    """The notebook 09 pitfall: z = (x + y) · y, backward, then `x.data = 100`."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    s = x + y
    s.label = "s"
    z = s * y
    z.label = "z"
    z.backward()
    x.data = 100.0
    return x, z


STALE = r"out of date: s = x \+ y was computed as 5, but its operands now give 100 \+ 3 = 103"


@pytest.mark.parametrize("viewer", ["snapshot", "draw", "trace", "animate", "quiz"])
def test_a_stale_graph_is_refused_naming_the_value_and_what_to_run(viewer):
    from autograd_viz import quiz
    from autograd_viz.core.errors import StaleGraphError
    from autograd_viz.trace import trace

    call = {
        "snapshot": snapshot,
        "draw": lambda z: z.draw(),
        "trace": trace,
        "animate": lambda z: z.animate(),
        "quiz": lambda z: quiz(z, values=True),
    }[viewer]
    x, z = _stale_blog()
    with pytest.raises(StaleGraphError, match=STALE + r".*Run the forward pass again"):
        call(z)
    x.data = 2.0  # back as it was built: every viewer works again
    assert call(z) is not None


def test_a_stale_graph_whose_operands_now_have_no_value_says_so():
    from autograd_viz.core.errors import StaleGraphError

    w = Value(2.0, label="w")
    out = w.log() * 3
    w.data = -1.0
    with pytest.raises(StaleGraphError, match=r"log\(w\) was computed as 0.6931, .*log\(−1\)"):
        snapshot(out)


def test_a_current_graph_of_every_op_and_a_trained_network_pass_the_check():
    x, y = Value(0.7, label="x"), Value(1.3, label="y")
    every = (x + y) * y / x - x**2.5 + x**y + x.relu() + x.tanh() + x.sigmoid()
    every = every + x.exp() + y.log() + x.sin() + y.cos() - (-x).relu() + 2 / y
    assert len(snapshot(every)) > 30
    net = MLP(2, [4, 1], seed=0)
    loss = (net([1.0, -1.0]) - 1) ** 2
    loss.backward()
    assert snapshot(loss).root.data == loss.data
