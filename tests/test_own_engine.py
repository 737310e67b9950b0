"""A learner's own engine: read, stepped through and checked — against micrograd from PyPI and
against the blog's class written in tests/own_engines.py, never only against our Value."""

from __future__ import annotations

import math
import os

import own_engines as oe
import pytest

from autograd_viz.engine_check import check_engine
from autograd_viz.foreign import NotAGraphError, read_graph
from autograd_viz.own_engine import run_backward

if os.environ.get("CI"):  # CI installs the test extra: a missing peer is a broken setup
    import micrograd.engine as mg
else:
    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")

ENGINES = {"micrograd": lambda: mg.Value, "blog": lambda: oe.BlogValue}


def _grads(root):
    """Every grad of the graph as (label, type, repr): byte-level, not approximately."""
    return sorted(
        (v.label if hasattr(v, "label") else "", type(v.grad).__name__, repr(v.grad), id(v))
        for v in _all(root)
    )


def _all(root):
    seen, stack, out = set(), [root], []
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
            stack.extend(getattr(v, "_prev", getattr(v, "parents", ())))
    return out


# ---- reading: any micrograd-style object is a graph ------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_set_operands_come_out_in_expression_order(engine):
    g = read_graph(oe.sum_times_y(ENGINES[engine]()))
    assert g.labels == ("x", "y", "s", "z")
    assert g.operands == ((), (), (0, 1), (2, 1))  # s = x + y, z = s · y
    assert g.ops == ("", "", "+", "*")
    assert g.data == (2, 3, 5, 15)
    assert g.note == ""


def test_a_times_a_kept_once_in_micrographs_set_is_read_as_two_operands():
    a = mg.Value(3.0)
    g = read_graph(a * a)
    assert g.operands == ((), (0, 0))


def test_reflected_multiplication_reads_as_the_engine_builds_it():
    g = read_graph(oe.b_used_twice(mg.Value))  # L = 2 * d runs d.__rmul__(2), i.e. d * 2
    assert g.labels[-1] == "L"
    assert g.data[g.operands[-1][0]] == 9 and g.data[g.operands[-1][1]] == 2
    assert g.operands[-1][0] == g.labels.index("d")


def test_power_exponent_is_read_from_the_op_text():
    g = read_graph(oe.square_of_ab_plus_c(mg.Value))
    assert g.ops[-1] == "**2" and g.exponents[-1] == 2.0


def test_tuple_operands_keep_their_order():
    x, y = oe.TinyValue(2.0), oe.TinyValue(3.0)
    g = read_graph(y - x)
    assert [g.data[i] for i in g.operands[-1]] == [3.0, 2.0]
    assert g.ops[-1] == "-"


class _NoClosures:
    """Operands in a set and a backward rule that is no closure: the order is lost."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(children), op, label
        self._backward = lambda: None

    def __sub__(self, other):
        return _NoClosures(self.data - other.data, (self, other), "-")

    def __add__(self, other):
        return _NoClosures(self.data + other.data, (self, other), "+")


def test_order_lost_in_a_set_is_recovered_from_the_forward_value():
    big, small = _NoClosures(7.0, label="big"), _NoClosures(2.0, label="small")
    g = read_graph(small - big)  # -5: only small, big reproduces it
    assert [g.labels[i] for i in g.operands[-1]] == ["small", "big"]
    assert g.note == ""


def test_order_that_cannot_be_recovered_is_sorted_and_said_in_the_caption():
    orders = set()
    for _ in range(50):  # fresh objects, fresh ids: a set would iterate in varying orders
        q, p = _NoClosures(1.0, label="q"), _NoClosures(2.0, label="p")
        g = read_graph(q + p)
        orders.add(tuple(g.labels))
    assert orders == {("p", "q", "")}
    assert g.unordered == (2,)
    assert g.note == "operand order of 1 operation unknown (operands kept in a set): shown sorted"


def test_a_cycle_is_refused_with_a_message():
    a = oe.BlogValue(1.0, label="a")
    b = a + 1
    a._prev = {b}
    with pytest.raises(NotAGraphError, match="one of its own operands"):
        read_graph(b)


def _torch_tensor():
    torch = pytest.importorskip("torch")
    return torch.tensor(2.0, requires_grad=True)


@pytest.mark.parametrize(
    ("make", "kind", "extra"),
    [
        (lambda: 2.5, "a float", "A plain number has no graph"),
        (lambda: {"data": 1.0, "grad": 0.0, "_prev": set()}, "a dict", "attributes, not keys"),
        (_torch_tensor, "a torch.Tensor", "has `data`, `grad` but not the rest"),
    ],
)
def test_non_graphs_get_an_error_naming_the_attributes_looked_for(make, kind, extra):
    with pytest.raises(NotAGraphError) as err:
        read_graph(make())
    text = str(err.value)
    assert text.startswith(kind)
    assert "`data` and `grad`" in text
    assert "`_prev`, `_children`, `parents`, `_parents`, `prev`" in text
    assert extra in text


def test_a_non_number_in_data_is_refused():
    with pytest.raises(NotAGraphError, match="its `data` is a str"):
        read_graph(oe.BlogValue("2"))


# ---- their backward pass, step by step, and the graph left as it was -------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("backward_first", [False, True])
def test_running_their_backward_leaves_every_grad_byte_identical(engine, backward_first):
    z = oe.square_of_ab_plus_c(ENGINES[engine]())
    if backward_first:
        z.backward()
    before = _grads(z)
    rules = [(id(v), v._backward) for v in _all(z)]
    run = run_backward(read_graph(z))
    assert _grads(z) == before
    assert [(id(v), v._backward) for v in _all(z)] == rules
    assert run.grads[-1] == 1 and run.grads[:3] == (42, 28, 14)


@pytest.mark.parametrize("engine", ENGINES)
def test_their_calls_are_recorded_with_what_each_sent(engine):
    g = read_graph(oe.sum_times_y(ENGINES[engine]()))
    run = run_backward(g)
    assert run.order == "your backward()"
    ops = [(g.labels[c.node], c.out_grad, c.sent) for c in run.calls if g.operands[c.node]]
    assert ops == [("z", 1, {2: 3, 1: 5}), ("s", 3, {0: 3, 1: 3})]
    assert run.grads == (3, 8, 3, 1)


def test_a_class_without_backward_is_stepped_in_the_kits_order():
    x, y = oe.TinyValue(2.0), oe.TinyValue(3.0)
    g = read_graph((x + y) * y)
    run = run_backward(g)
    assert run.order == "the kit's order"
    assert run.note == "your class has no backward() method"
    assert run.grads == (3, 8, 3, 1)
    assert (x.grad, y.grad) == (0.0, 0.0)


def test_a_backward_that_raises_is_reported_and_stepped_in_the_kits_order():
    class Broken(oe.BlogValue):
        def backward(self):
            raise RuntimeError("oops")

    z = oe.sum_times_y(Broken)
    run = run_backward(read_graph(z))
    assert run.note == "your backward() raised RuntimeError: oops"
    assert run.grads == (3, 8, 3, 1)


# ---- check_engine: right, wrong, unchecked, and the first wrong node -------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "example",
    [
        oe.sum_times_y,
        oe.square_of_ab_plus_c,
        lambda cls: oe.square_of_ab_plus_c(cls, 2.0, -3.0, 10.0),
        oe.b_used_twice,
    ],
)
def test_correct_engines_pass_on_the_blogs_examples(engine, example):
    root = example(ENGINES[engine]())
    before = _grads(root)
    report = check_engine(root)
    assert report.ok, str(report)
    assert report.first_wrong is None
    assert {r.status for r in report.rules} == {"right"}
    assert _grads(root) == before


class _Primitives(oe.BlogValue):
    """Subtraction and division as operations of their own, with their own rules."""

    def __sub__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad += -out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data / other.data, (self, other), "/")

        def _backward():
            self.grad += out.grad / other.data
            other.grad += -self.data / other.data**2 * out.grad

        out._backward = _backward
        return out


def _every_op(cls):
    x, y = cls(0.7, label="x"), cls(1.3, label="y")
    return ((x * y).tanh() + (x - y).exp() / y + (y**3).log() + x.sigmoid() - y.relu()) * 2


OPERATIONS = ("__add__", "__mul__", "__sub__", "__truediv__", "__pow__", "tanh", "exp", "log",
              "sigmoid", "relu")  # fmt: skip


def test_every_known_operation_is_checked_against_the_op_table():
    report = check_engine(_every_op(_Primitives))
    assert report.ok, str(report)
    rows = {r.method: r for r in report.rules}
    assert {m: (rows[m].status, rows[m].how) for m in OPERATIONS} == dict.fromkeys(
        OPERATIONS, ("right", "op table")
    )


def test_every_operation_is_checked_by_central_differences_where_the_table_does_not_apply():
    root = _every_op(_Primitives)
    for v in _all(root):
        if v._op:
            v._op = f"my{v._op}"  # names the op table does not know
    report = check_engine(root)
    assert report.ok, str(report)
    rows = {r.method: r for r in report.rules}
    assert {m: (rows[m].status, rows[m].how) for m in OPERATIONS} == dict.fromkeys(
        OPERATIONS, ("right", "central differences")
    )


def test_central_differences_catch_a_wrong_rule_the_table_cannot_name():
    class WrongDivision(_Primitives):
        def __truediv__(self, other):
            out = super().__truediv__(other)
            out._op = "divide"
            a, b = self, self._wrap(other)

            def _backward():
                a.grad += out.grad / b.data
                b.grad += a.data / b.data**2 * out.grad  # the sign is lost

            out._backward = _backward
            return out

    x, y = WrongDivision(3.0, label="x"), WrongDivision(2.0, label="y")
    first = check_engine(x / y).first_wrong
    assert first.message == "your `__truediv__` sent 0.75 to y; central differences give −0.75"


def test_an_operation_the_kit_does_not_know_is_checked_by_central_differences():
    class WithSinh(oe.BlogValue):
        def sinh(self):
            out = type(self)(math.sinh(self.data), (self,), "sinh")

            def _backward():
                self.grad += math.cosh(self.data) * out.grad

            out._backward = _backward
            return out

    report = check_engine(WithSinh(0.4, label="x").sinh() * 3)
    row = next(r for r in report.rules if r.method == "sinh")
    assert (row.status, row.how) == ("right", "central differences")


def test_an_operation_that_cannot_be_rerun_is_unchecked():
    x = oe.BlogValue(0.4, label="x")
    out = oe.BlogValue(math.sin(0.4), (x,), "mystery")
    out._backward = lambda: None
    report = check_engine(out)
    row = next(r for r in report.rules if r.op == "mystery")
    assert row.status == "unchecked"


@pytest.mark.parametrize(
    ("make", "node", "message", "hint"),
    [
        pytest.param(
            lambda: oe.square_of_ab_plus_c(oe.SwappedMul),
            "d",
            "your `__mul__` sent 28 to a; the product rule gives 42",
            "it sent what the other operand should get: operands swapped in the rule?",
            id="swapped-mul",
        ),
        pytest.param(
            lambda: oe.square_of_ab_plus_c(oe.ForgotOutGrad),
            "d",
            "your `__mul__` sent 3 to a; the product rule gives 42",
            "it left out the chain rule's factor out.grad (here 14)",
            id="forgot-out-grad",
        ),
        pytest.param(
            lambda: oe.neuron(oe.TanhOfInput),
            "o",
            "your `tanh` sent 0.2232 to n; tanh's rule (1 − tanh²) gives 0.5",
            "it used the input (1 − x²) where the rule needs the output t = tanh(x): 1 − t²",
            id="tanh-of-input",
        ),
    ],
)
def test_a_planted_bug_is_pinpointed_at_its_node(make, node, message, hint):
    root = make()
    before = _grads(root)
    report = check_engine(root)
    assert not report.ok
    first = report.first_wrong
    assert (first.name, first.message, first.hint) == (node, message, hint)
    assert report.graph.labels[first.node] == node
    assert _grads(root) == before


def test_assignment_instead_of_accumulation_is_caught_on_a_reused_leaf():
    a = oe.AssignInsteadOfAdd(3.0, label="a")
    b = a + a
    b.label = "b"
    first = check_engine(b).first_wrong
    assert first.name == "b"
    assert (
        first.message
        == "your `__add__` sent 1 to a; the sum rule gives 2 (a is used 2 times: 1 + 1)"
    )
    assert first.hint == "it replaced the gradient instead of adding to it: `=` where `+=` belongs"


def test_assignment_instead_of_accumulation_is_caught_where_a_value_is_used_again():
    a, c = oe.AssignInsteadOfAdd(3.0, label="a"), oe.AssignInsteadOfAdd(2.0, label="c")
    e = a + c
    e.label = "e"
    f = e + a
    f.label = "f"
    report = check_engine(f)
    assert report.first_wrong.name == "e"  # f ran first and gave a 1; e then overwrote it
    assert report.first_wrong.message == "your `__add__` sent 0 to a; the sum rule gives 1"
    assert report.run.grads[report.graph.labels.index("a")] == 1  # the learner's number: wrong


def test_a_sort_that_visits_a_node_twice_is_named():
    V = oe.VisitsTwice
    a, b, c = V(2.0, label="a"), V(3.0, label="b"), V(1.0, label="c")
    d = a * b
    d.label = "d"
    e = d + c
    e.label = "e"
    f = e * d
    f.label = "f"
    report = check_engine(f)
    first = report.first_wrong
    assert first.name == "d"
    assert first.message == (
        "your backward() ran d's `_backward` twice, so it sent its gradient twice"
    )
    assert "visited" in first.hint
    assert {r.status for r in report.rules} == {"right"}  # every rule is right; the order is not


@pytest.mark.parametrize(
    ("cls", "method", "expression"),
    [(oe.NoRmul, "__rmul__", "2 * x"), (oe.NoRsub, "__rsub__", "2 - x")],
)
def test_a_missing_reflected_method_is_named(cls, method, expression):
    report = check_engine(cls(2.0, label="a") * cls(3.0, label="b"))
    finding = next(f for f in report.missing if f.method == method)
    assert finding.message.startswith(f"`{expression}` raises TypeError")
    assert f"your class has no `{method}`" in finding.message
    assert f"add `def {method}(self, other): return" in finding.message
    assert next(r for r in report.rules if r.method == method).status == "missing"
    assert report.ok  # missing is its own verdict: every rule the class has is right


def test_a_wrong_reflected_method_is_named():
    class BadRsub(oe.BlogValue):
        def __rsub__(self, other):
            return self - other

    report = check_engine(BadRsub(2.0) * BadRsub(3.0))
    assert [f.message for f in report.findings] == [
        "`2 - x` at x = 1.5 gave −0.5; it should be 0.5"
    ]


def test_the_report_prints_each_rule_and_the_first_wrong_node():
    text = str(check_engine(oe.square_of_ab_plus_c(oe.SwappedMul)))
    assert "__mul__       wrong      op table" in text
    assert "__add__       right" in text
    assert "first wrong: your `__mul__` sent 28 to a; the product rule gives 42" in text


def test_check_engine_points_our_own_value_elsewhere():
    from autograd_viz import Value

    with pytest.raises(TypeError, match="checks your own engine"):
        check_engine(Value(1.0) * 2)


# ---- the snapshot: their graph through the same door as ours -----------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_the_derivation_of_their_graph_is_the_blogs(engine):
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import derivation

    root = oe.b_used_twice(ENGINES[engine]())
    before = _grads(root)
    text = derivation(foreign_snapshot(root), "backward").splitlines()
    assert text[0] == "∂L/∂L = 1"
    assert text[-3:] == [
        "∂L/∂a = ∂L/∂c · ∂c/∂a = 2 · b = 2 · 3 = 6",
        "b\u0304 via the product = ∂L/∂c · ∂c/∂b = 2 · a = 2 · 2 = 4",
        "∂L/∂b = 2 + 4 = 6",
    ]
    assert _grads(root) == before


def test_the_derivation_shows_the_numbers_their_rule_produced():
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import derivation

    text = derivation(foreign_snapshot(oe.square_of_ab_plus_c(oe.ForgotOutGrad)), "backward")
    assert (
        "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 3   ✗ your `__mul__` sent 3 to a; the "
        "product rule gives 42 — it left out the chain rule's factor out.grad (here 14)"
    ) in text.splitlines()
    assert "∂L/∂b = ∂L/∂d · ∂d/∂b = 14 · a = 14 · 2 = 2" in text.splitlines()


def test_a_correct_engine_has_no_flags_in_its_derivation():
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import derivation

    assert "✗" not in derivation(foreign_snapshot(oe.square_of_ab_plus_c(mg.Value)))


def test_a_times_a_shares_what_their_rule_sent_between_both_operands():
    from autograd_viz.own_engine import foreign_snapshot

    a = mg.Value(3.0)
    g = foreign_snapshot(a * a)
    assert g.nodes[-1].operands == (0, 0)
    assert g.contributions(1, 1.0) == (3.0, 3.0)
    assert a.grad == 0


# ---- gradcheck on their engine ---------------------------------------------------------------


def test_gradcheck_checks_micrograds_engine_with_the_blogs_numbers():
    from autograd_viz import gradcheck

    report = gradcheck(
        lambda a, b, c: (a * b + c) ** 2, {"a": 2.0, "b": 3.0, "c": 1.0}, engine=mg.Value
    )
    assert report.ok
    assert [r.analytic for r in report.rows] == [42, 28, 14]


def test_gradcheck_catches_a_planted_bug_in_their_engine():
    from autograd_viz import gradcheck

    report = gradcheck(lambda a, b: (a * b + 1) ** 2, {"a": 2.0, "b": 3.0}, engine=oe.SwappedMul)
    assert not report.ok
    assert report["a"].analytic == 28 and report["a"].numeric == pytest.approx(42)


def test_gradcheck_with_an_engine_refuses_a_result_that_is_no_graph():
    from autograd_viz import gradcheck

    with pytest.raises(TypeError, match="f must return a value of Value, got float"):
        gradcheck(lambda a: 3.0, [1.0], engine=mg.Value)


# ---- drawn and animated: the Done-when examples with micrograd from PyPI -----------------------

BLOG_EXAMPLES = {
    "z=(x+y)y": (oe.sum_times_y, ("z", 15), {"x": 3, "y": 8}),
    "L=(ab+c)^2 at 2,3,1": (oe.square_of_ab_plus_c, ("L", 49), {"a": 42, "b": 28, "c": 14}),
    "L=(ab+c)^2 at 2,-3,10": (
        lambda cls: oe.square_of_ab_plus_c(cls, 2.0, -3.0, 10.0),
        ("L", 16),
        {"a": -24, "b": 16, "c": 8},
    ),
    "L=2(ab+b)": (oe.b_used_twice, ("L", 18), {"a": 6, "b": 6}),
}


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_graph_draws_with_label_data_and_grad(example):
    import autograd_viz

    make, (out, value), grads = BLOG_EXAMPLES[example]
    root = make(mg.Value)
    root.backward()
    before = _grads(root)
    drawing = autograd_viz.draw(root)
    for name, grad in [(out, 1), *grads.items()]:
        node = next(line for line in drawing.source.splitlines() if f">{name}</FONT>" in line)
        assert f"grad {grad}".replace("-", "−") in node, node
    assert f"data {value}" in drawing.source
    assert "wrong" not in drawing.source
    svg = drawing.svg()  # laid out by the real `dot`
    assert svg.count('class="node') >= len(grads) + 1
    assert _grads(root) == before


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_graph_animates_forward_and_backward_with_the_blogs_numbers(example):
    import autograd_viz

    make, (_, value), grads = BLOG_EXAMPLES[example]
    root = make(mg.Value)
    root.backward()
    before = _grads(root)
    player = autograd_viz.animate(root)
    try:
        names = [n.name for n in player.graph.nodes]
        forward = [s for s in player.steps if s.phase == "forward"]
        assert forward[-1].text.endswith(f"= {value}")
        final = player.steps[-1].grads
        assert {names[i]: g for i, g in final.items() if names[i] in grads} == grads
        player.step = player.n_frames  # the last frame is drawn from the same numbers
        assert _grads(root) == before
    finally:
        player.close()
    assert _grads(root) == before


def test_a_fresh_micrograd_graph_animates_without_backward_having_run():
    import autograd_viz

    root = oe.sum_times_y(mg.Value)
    player = autograd_viz.animate(root, phase="backward")
    try:
        final = player.steps[-1].grads
        assert (final[0], final[1]) == (3, 8)
        assert (root.grad, by := oe.by_label(root)["y"].grad) == (0, 0), by
    finally:
        player.close()


def test_the_drawing_marks_the_first_wrong_node_and_says_why():
    import autograd_viz

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    assert "wrong" not in autograd_viz.draw(root).source  # no gradients yet: nothing to check
    assert "wrong" in autograd_viz.draw(root, check=True).source
    root.backward()  # the learner's numbers: now the drawing checks them by itself
    drawing = autograd_viz.draw(root)
    marked = [line for line in drawing.source.splitlines() if 'class="op wrong"' in line]
    assert len(marked) == 1 and marked[0].startswith("op2 ")  # d = a * b
    assert 'style="filled,dashed"' in marked[0] and "label=<! ×>" in marked[0]  # not colour only
    assert "first wrong gradient: your `__mul__` sent 28 to a; the product rule gives 42" in (
        drawing.source
    )
    assert '<g id="op2" class="node op wrong">' in drawing.svg()


def test_the_player_says_where_their_rule_goes_wrong():
    import autograd_viz

    player = autograd_viz.animate(oe.neuron(oe.TanhOfInput), phase="backward")
    try:
        flagged = [s for s in player.steps if "✗" in s.text]
        assert len(flagged) == 1
        assert flagged[0].text.startswith("∂o/∂n = 1 − o² = 1 − 0.7071² = 0.2232   ✗ your `tanh`")
    finally:
        player.close()


def test_a_guessed_operand_order_is_said_in_the_caption():
    import autograd_viz

    drawing = autograd_viz.draw(_NoClosures(1.0, label="q") + _NoClosures(2.0, label="p"))
    assert "operand order of 1 operation unknown (operands kept in a set): shown sorted" in (
        drawing.source
    )


def test_drawing_needs_no_widgets_and_import_stays_light():
    import subprocess
    import sys

    code = (
        "import sys; import autograd_viz; "
        "assert 'ipywidgets' not in sys.modules and 'autograd_viz.own_engine' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_drawing_a_non_graph_names_the_attributes_looked_for():
    import autograd_viz

    with pytest.raises(NotAGraphError, match="`_prev`, `_children`, `parents`"):
        autograd_viz.draw({"data": 1.0})


# ---- large and deep graphs: refused before the work, no recursion limit -------------------------


class _CountsBackward(oe.BlogValue):
    calls = 0

    def backward(self):
        type(self).calls += 1
        super().backward()


def _sum_of(cls, n):
    total = cls(0.0)
    for i in range(1, n):
        term = cls(float(i))
        term.label = f"x{i}"
        total = total + term
    return total


def test_a_graph_too_large_to_draw_is_refused_before_their_backward_runs():
    import autograd_viz
    from autograd_viz.viz.render import GraphTooLargeError

    root = _sum_of(_CountsBackward, 400)  # 799 values, over draw()'s default 500
    root.backward()
    _CountsBackward.calls = 0
    with pytest.raises(GraphTooLargeError):
        autograd_viz.draw(root)
    assert _CountsBackward.calls == 0


def test_a_graph_too_large_to_animate_is_refused_unchecked_and_left_as_it_was():
    import autograd_viz
    from autograd_viz.viz.player import PlayerError
    from autograd_viz.viz.render import GraphTooLargeError

    root = _sum_of(_CountsBackward, 400)
    before = _grads(root)
    with pytest.raises((PlayerError, GraphTooLargeError)):
        autograd_viz.animate(root)
    assert _grads(root) == before


def test_a_chain_too_deep_for_their_recursive_sort_is_stepped_in_the_kits_order():
    root = _sum_of(mg.Value, 2000)  # micrograd's recursive topological sort overflows
    with pytest.raises(RecursionError):
        root.backward()
    for v in _all(root):
        v.grad = 0
    run = run_backward(read_graph(root))
    assert run.order == "the kit's order"
    assert run.note == "your backward() hit Python's recursion limit"
    assert set(run.grads) == {1.0}  # every term of a sum gets gradient 1
    assert {v.grad for v in _all(root)} == {0}


class _RightToLeft(oe.BlogValue):
    """A valid topological sort that visits operands last-first: another order than ours."""

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in sorted(v._prev, key=lambda c: c.label, reverse=True):
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


def test_the_player_follows_the_order_their_backward_ran():
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import trace

    a, b, c, d = (_RightToLeft(float(k), label=n) for k, n in zip(range(1, 5), "abcd"))
    p, q = a * b, c * d
    p.label, q.label = "p", "q"
    L = p + q
    L.label = "L"
    g = foreign_snapshot(L)
    names = [n.name for n in g.nodes]
    assert names.index("p") < names.index("q")  # ours would visit q first, backwards
    order = [names[s.active] for s in trace(g, "backward") if s.kind != "seed"]
    assert [names[i] for i in g.backward_order] == ["L", "p", "q"]  # ours: L, q, p
    assert order == ["p", "q", "a", "b", "c", "d"]  # p's operands first, as theirs ran p first


def test_an_invalid_order_falls_back_to_ours():
    from autograd_viz.own_engine import foreign_snapshot

    V = oe.VisitsTwice
    a, b, c = V(2.0, label="a"), V(3.0, label="b"), V(1.0, label="c")
    d = a * b
    e = d + c
    f = e * d
    assert foreign_snapshot(f).backward_order is None


# ---- in a real browser: the standalone page of a learner's buggy graph -----------------------


def test_the_standalone_page_shows_their_numbers_and_where_they_go_wrong_in_chromium(
    chromium, tmp_path
):
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import trace
    from autograd_viz.viz.export import save_html

    graph = foreign_snapshot(oe.square_of_ab_plus_c(oe.SwappedMul))
    steps = trace(graph)
    flagged = next(k for k, s in enumerate(steps) if "✗" in s.text)
    path = save_html(graph, tmp_path / "mine.html")
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(path.as_uri())
        page.locator(".avz-slider").fill(str(flagged + 1))  # the slider counts from 1
        equation = page.locator(".avz-eq").get_attribute("data-text")
        assert equation.startswith(
            "∂L/∂a = ∂L/∂d · ∂d/∂a = 14 · b = 14 · 3 = 28   ✗ your `__mul__`"
        )
        assert "the product rule gives 42" in equation
        caption = page.text_content(".avz-caption")
        assert caption.endswith("· ✗ your `__mul__` sent 28 to a; the product rule gives 42")
        marked = page.evaluate("() => document.querySelector('.avz-graph g.node.wrong').id")
        assert marked == "op2"  # the first wrong node, marked in the page's picture too
        page.keyboard.press("End")  # the learner's final numbers, not the right ones
        assert page.text_content("#v0-grad") == "grad 28"  # a
        assert page.text_content("#v1-grad") == "grad 42"  # b
        assert not errors, errors
    finally:
        page.close()


# ---- every usual spelling, and the same picture as ours ---------------------------------------


def _engine_spelt(operands_name, op_name, label_name, container):
    """A micrograd-style class keeping its operands, op and label under the given names."""

    class Spelt:
        def __init__(self, data, children=(), op="", label=""):
            self.data, self.grad = data, 0.0
            setattr(self, operands_name, container(children))
            setattr(self, op_name, op)
            setattr(self, label_name, label)
            self._backward = lambda: None

        def __add__(self, other):
            out = Spelt(self.data + other.data, (self, other), "+")

            def _backward():
                self.grad += out.grad
                other.grad += out.grad

            out._backward = _backward
            return out

        def __mul__(self, other):
            out = Spelt(self.data * other.data, (self, other), "*")

            def _backward():
                self.grad += other.data * out.grad
                other.grad += self.data * out.grad

            out._backward = _backward
            return out

    return Spelt


@pytest.mark.parametrize("operands", ["_prev", "_children", "parents", "_parents", "prev"])
@pytest.mark.parametrize(("op", "label"), [("_op", "label"), ("op", "name")])
@pytest.mark.parametrize("container", [set, tuple, list])
def test_every_usual_spelling_reads_as_the_same_graph(operands, op, label, container):
    from autograd_viz.own_engine import foreign_snapshot
    from autograd_viz.trace import derivation

    cls = _engine_spelt(operands, op, label, container)
    x, y = cls(2.0, label="x"), cls(3.0, label="y")
    s = x + y
    setattr(s, label, "s")
    z = s * y
    setattr(z, label, "z")
    g = read_graph(z)
    assert (g.labels, g.operands, g.ops) == (
        ("x", "y", "s", "z"),
        ((), (), (0, 1), (2, 1)),
        ("", "", "+", "*"),
    )
    assert derivation(foreign_snapshot(z)).splitlines()[-1] == "∂z/∂y = 5 + 3 = 8"


@pytest.mark.parametrize("example", BLOG_EXAMPLES)
def test_micrographs_drawing_is_byte_identical_to_ours_on_every_build(example):
    import autograd_viz
    from autograd_viz import Value

    make = BLOG_EXAMPLES[example][0]
    ours = make(Value)
    ours.backward()
    want = autograd_viz.draw(ours).source
    for _ in range(20):  # new objects, new ids: a set iterates in another order each time
        theirs = make(mg.Value)
        theirs.backward()
        assert autograd_viz.draw(theirs).source == want


def test_a_rule_that_raises_is_named_at_its_node():
    class Typo(oe.BlogValue):
        def __mul__(self, other):
            out = super().__mul__(other)

            def _backward():
                self.grad += otherr.data * out.grad  # noqa: F821 — the learner's typo

            out._backward = _backward
            return out

    root = oe.square_of_ab_plus_c(Typo)
    before = _grads(root)
    report = check_engine(root)
    assert report.run.note.startswith("your backward() raised NameError")
    first = report.first_wrong
    assert (first.name, first.message) == (
        "d",
        "your `__mul__`'s `_backward` raised NameError: name 'otherr' is not defined",
    )
    assert _grads(root) == before


def test_the_top_level_draw_of_our_value_is_value_draw():
    from examples import sum_times_y as ours

    import autograd_viz

    z = ours()
    z.backward()
    assert autograd_viz.draw(z, font_size=16).source == z.draw(font_size=16).source


# ---- every viewer takes their graph directly: the snapshot is the one door --------------------


def test_trace_frames_and_every_export_take_a_micrograd_graph(tmp_path):
    from autograd_viz.trace import derivation
    from autograd_viz.viz.export import filmstrip, save_gif, save_html, save_svg_animation
    from autograd_viz.viz.frames import Frames

    root = oe.sum_times_y(mg.Value)
    root.backward()
    before = _grads(root)
    assert derivation(root, "backward").splitlines()[-1] == "∂z/∂y = 5 + 3 = 8"
    frames = Frames(root)
    assert len(frames) == 9 and frames.steps[-1].grads[1] == 8
    assert save_html(root, tmp_path / "z.html").stat().st_size > 0
    assert save_svg_animation(root, tmp_path / "z.svg").stat().st_size > 0
    assert save_gif(root, tmp_path / "z.gif").read_bytes()[:6] == b"GIF89a"
    assert filmstrip(root) is not None
    assert _grads(root) == before


def test_a_player_made_directly_from_their_graph_shows_their_numbers():
    from autograd_viz.viz.player import Player

    root = oe.b_used_twice(mg.Value)
    player = Player(root, phase="backward")
    try:
        names = [n.name for n in player.graph.nodes]
        final = player.steps[-1].grads
        assert (final[names.index("a")], final[names.index("b")]) == (6, 6)
    finally:
        player.close()


def test_every_frame_of_a_checked_graph_marks_the_first_wrong_node():
    from autograd_viz.viz.frames import Frames

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    root.backward()
    frames = Frames(root)
    assert '<g id="op2" class="node op wrong">' in frames.base_svg
    assert all('id="op2" class="node op wrong' in frames.frame_svg(k) for k in range(len(frames)))
    flagged = [s.text for s in frames.steps if "✗" in s.text]
    assert flagged and "your `__mul__` sent 28 to a" in flagged[0]


def _viewers():
    from autograd_viz.trace import trace
    from autograd_viz.viz.export import save_html
    from autograd_viz.viz.frames import Frames
    from autograd_viz.viz.player import Player
    from autograd_viz.viz.quiz import Quiz
    from autograd_viz.viz.render import to_dot

    return {
        "trace": trace,
        "to_dot": to_dot,
        "Frames": Frames,
        "Player": Player,
        "Quiz": Quiz,
        "save_html": lambda root: save_html(root, "never-written.html"),
    }


@pytest.mark.parametrize("viewer", ["trace", "to_dot", "Frames", "Player", "Quiz", "save_html"])
@pytest.mark.parametrize("thing", [2.5, {"data": 1.0, "grad": 0.0}], ids=["float", "dict"])
def test_every_viewer_says_what_it_looks_for_in_a_non_graph(viewer, thing):
    with pytest.raises((TypeError, ValueError)) as err:
        _viewers()[viewer](thing)
    assert "`data` and `grad` and its operands under one of `_prev`, `_children`" in str(err.value)


def test_the_steps_caption_says_where_their_rule_goes_wrong():
    from autograd_viz.viz.frames import Frames

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    root.backward()
    frames = Frames(root)
    flagged = [k for k, s in enumerate(frames.steps) if s.flag]
    assert len(flagged) == 1
    assert frames.caption(flagged[0]).text.endswith(
        "backward pass · ✗ your `__mul__` sent 28 to a; the product rule gives 42"
    )
    assert "✗" not in frames.steps[flagged[0]].latex  # the maths stays maths
    assert all("✗" not in frames.caption(k).text for k in range(len(frames)) if k != flagged[0])


def test_a_learners_label_cannot_inject_markup_into_the_players_caption():
    from autograd_viz.viz.player import Player

    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    oe.by_label(root)["a"].label = "<b>a</b>"
    root.backward()
    player = Player(root, phase="backward")
    try:
        k = next(i for i, s in enumerate(player.steps) if s.flag)
        page = player.frame_html(k + 1)
        assert "sent 28 to &lt;b&gt;a&lt;/b&gt;" in page and "<b>a</b>" not in page
    finally:
        player.close()


def test_a_graph_with_no_labels_at_all_shows_every_leaf_with_its_gradient():
    import autograd_viz
    from autograd_viz.trace import derivation

    x, y = mg.Value(2.0), mg.Value(3.0)  # micrograd's Value has no labels
    z = (x + y) * y
    z.backward()
    text = derivation(z, "backward").splitlines()
    z_ = "out"  # the output: its expression, (a + b) · b, is too long to start every line
    assert text[-1] == f"∂{z_}/∂b = 5 + 3 = 8"  # y, used twice; unlabelled inputs are a, b, …
    assert f"∂{z_}/∂a = ∂{z_}/∂(a + b) · ∂(a + b)/∂a = 3 · 1 = 3" in text
    drawing = autograd_viz.draw(z).source
    assert "grad 3" in drawing and "grad 8" in drawing
