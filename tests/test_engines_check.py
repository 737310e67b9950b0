"""The engine check (`autograd_viz.open.engines.check`, through `autograd_viz.check_engine`):
each rule right, wrong or unchecked, and the first wrong node, said so a learner can act."""

from __future__ import annotations

import math
import os

import own_engines as oe
import pytest

from autograd_viz import check_engine

if os.environ.get("CI"):  # CI installs the test extra: a missing peer is a broken setup
    import micrograd.engine as mg
else:
    mg = pytest.importorskip("micrograd.engine", reason="pip install micrograd==0.1.0")

ENGINES = {"micrograd": lambda: mg.Value, "blog": lambda: oe.BlogValue}


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
    before = oe.grads(root)
    report = check_engine(root)
    assert report.ok, str(report)
    assert report.first_wrong is None
    assert {r.status for r in report.rules} == {"right"}
    assert oe.grads(root) == before


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
    for v in oe.nodes(root):
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
    before = oe.grads(root)
    report = check_engine(root)
    assert not report.ok
    first = report.first_wrong
    assert (first.name, first.message, first.hint) == (node, message, hint)
    assert report.graph.labels[first.node] == node
    assert oe.grads(root) == before


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
