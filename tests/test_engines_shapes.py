"""Engines of other shapes, read truly: microgpt's stored local gradients, a class with no
`_op`, operands under `children`; and the bugs a drawn graph may hide — `=` where `+=`
belongs, a backward() that never seeds the output — named by `check_engine` whatever the
graph, with a guess at the cause only where the numbers support it."""

from __future__ import annotations

import own_engines as oe
import pytest

import autograd_viz
from autograd_viz import check_engine, quiz
from autograd_viz.open.engines.read import read_graph
from autograd_viz.trace import TraceError, derivation, trace


def _final_grads(root) -> dict[int, float]:
    """Every gradient the derivation reaches, by topological index."""
    return dict(trace(root, "backward")[-1].grads)


def _micro(cls):
    """out = (a·b + b)·a at a = 2, b = 3: ∂out/∂a = 9 + 6 = 15, ∂out/∂b = 2 + 4 = 6."""
    a, b = cls(2.0), cls(3.0)
    return a, b, (a * b + b) * a


# ---- 1. microgpt: local gradients stored, no closures -----------------------------------------


def test_microgpt_derivation_and_player_show_the_engines_own_numbers():
    a, b, out = _micro(oe.MicroGPTValue)
    out.backward()
    assert (a.grad, b.grad) == (15.0, 6.0)  # the engine itself
    text = derivation(out, "backward")
    assert "∂out/∂a = 9 + 6 = 15" in text  # was "∂out/∂a = 0 + 0 = 0"
    assert "∂out/∂b = 2 + 4 = 6" in text
    assert "a · b + b = 6 + 3 = 9" in derivation(out, "forward")  # was "((a, b), b) = ..."
    graph = read_graph(out)
    grads = _final_grads(out)
    assert [grads[i] for i in range(len(graph))] == [15.0, 6.0, 2.0, 2.0, 1.0]
    assert graph.ops == ("", "", "*", "+", "*")  # identified from data and local grads
    assert "no `_op`" in graph.note
    from autograd_viz.frames import Frames  # what the player steps through

    assert Frames(out, "backward").steps[-1].grads == {4: 1.0, 3: 2.0, 2: 2.0, 0: 15.0, 1: 6.0}


def test_microgpt_powers_logs_and_division_are_read_from_the_stored_local_grads():
    x = oe.MicroGPTValue(1.5)
    y = oe.MicroGPTValue(-2.5)
    out = (x**3).log() + x / y + y.exp() + x.relu()  # relu(1.5) = 1.5: a relu, not x ** 1
    out.backward()
    got = _final_grads(out)
    graph = read_graph(out)
    ix, iy = graph.nodes.index(x), graph.nodes.index(y)
    assert got[ix] == pytest.approx(x.grad) and got[iy] == pytest.approx(y.grad)
    assert x.grad == pytest.approx(3 / 1.5 + 1 / -2.5 + 1)  # d/dx (3 ln x + x/y + x), x > 0
    assert {"**3.0", "log", "exp", "ReLU"} <= set(graph.ops)
    assert "(a, b)" not in derivation(out)


def test_microgpt_check_engine_checks_the_stored_local_grads_it_names_its_rows():
    *_, out = _micro(oe.MicroGPTValue)
    report = check_engine(out)
    assert report.ok, str(report)
    rows = {r.method: (r.status, r.how) for r in report.rules}
    assert rows["__mul__"] == ("right", "op table") and rows["__add__"] == ("right", "op table")
    assert {p.op for p in report.probes if p.status == "right"} >= {"x * x", "x + x", "x ** 3"}


def test_microgpt_with_swapped_local_grads_is_named_at_its_node():
    *_, out = _micro(oe.MicroGPTSwappedMul)
    report = check_engine(out)  # was: "every checked rule gives the right gradients"
    assert not report.ok
    first = report.first_wrong
    assert first.message == (
        "your `__mul__` stored the local gradients (2, 3) in a · b; the product rule gives (3, 2)"
    )
    assert first.hint == "each operand got the other's local gradient: the two are swapped"


def test_microgpt_backward_that_assigns_instead_of_adding_is_named():
    *_, out = _micro(oe.MicroGPTAssigns)
    report = check_engine(out)
    assert not report.ok
    assert report.first_wrong.message.startswith("your backward() left b.grad = 4; the local")
    assert "`=` where `+=` belongs" in report.first_wrong.hint
    out.backward()
    assert "∂out/∂b = 2 + 4 = 6   (your backward() leaves b.grad = 4)" in derivation(out)
    # a graph with no value used twice hides it; the probe of backward() does not
    x, w = oe.MicroGPTAssigns(2.0), oe.MicroGPTAssigns(-3.0)
    alone = check_engine(x * w + oe.MicroGPTAssigns(1.0))
    assert not alone.ok
    assert any("x * y + x" in f.message and "`+=`" in f.hint for f in alone.findings)


class _Bare:
    """Nodes with stored local gradients and nothing else: no method the kit can try."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0, children, local_grads

    backward = oe.MicroGPTValue.backward


def test_a_check_that_could_check_nothing_is_no_all_clear():
    a, b = _Bare(2.0), _Bare(3.0)
    out = _Bare(7.0, (a, b), (0.3, 0.7))  # 7 from 2 and 3: no operation the kit knows
    report = check_engine(out)
    assert not report.checked_any
    assert not report.ok  # was True
    assert "every checked rule gives the right gradients" not in str(report)
    assert "nothing could be checked" in str(report)
    assert "op(a, b) = op(2, 3) = 7" in derivation(out, "forward")


class _LocalsAndDefault:
    """Stored local gradients, and the blog's do-nothing `_backward` from `__init__`."""

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads
        self._backward = lambda: None

    def __mul__(self, other):
        return _LocalsAndDefault(self.data * other.data, (self, other), (other.data, self.data))

    backward = oe.MicroGPTValue.backward


def test_stored_local_grads_count_when_the_backward_closure_is_the_do_nothing_default():
    x, y = _LocalsAndDefault(2.0), _LocalsAndDefault(3.0)
    z = x * y
    assert "∂(a · b)/∂a = b = 3\n∂(a · b)/∂b = a = 2" in derivation(z, "backward")
    assert check_engine(z).ok


def test_a_never_seeded_microgpt_graph_names_an_expression_grad_in_parentheses():
    class NoSeed(oe.MicroGPTValue):
        __slots__ = ()

        def backward(self):
            self.grad = 0  # the loop below, without `self.grad = 1`
            oe.MicroGPTValue.backward(self)
            for v in oe.nodes_of_micro(self):
                v.grad = 0

    *_, out = _micro(NoSeed)
    text = derivation(out, "backward")
    assert "(your backward() leaves (a · b + b).grad = 0)" in text
    assert check_engine(out).first_wrong.phase == "seed"


# ---- 2. no `_op`; operands under `children` -----------------------------------------------------


def test_an_engine_with_no_op_is_written_with_the_operation_its_method_makes():
    o = oe.neuron(oe.NoOpValue)
    o.backward()
    text = derivation(o)
    assert "x1 · w1 = 2 · (−3) = −6" in text  # was "(x1, w1) = (2, −3) = −6"
    assert "o = tanh(n) = tanh(0.8814) = 0.7071" in text
    assert "(x1, w1)" not in text
    assert check_engine(o).ok
    q = quiz(o)
    hints = [q.hint(blank.label) for blank in q.blanks]
    assert not any("by 's" in h or " 's " in h for h in hints)
    assert any("The product sends each input" in h for h in hints)


class _Averages(oe.NoOpValue):
    def avg(self, other):
        out = type(self)((self.data + other.data) / 2, (self, other))

        def _backward():
            self.grad += 0.5 * out.grad
            other.grad += 0.5 * out.grad

        out._backward = _backward
        return out


def test_an_operation_with_no_op_that_nothing_identifies_is_a_call_of_its_method():
    a, b = _Averages(2.0, label="a"), _Averages(3.0, label="b")
    z = a.avg(b) * a
    z.label = "z"
    graph = read_graph(z)
    assert "store the operation in `_op`" in graph.note
    assert "avg(a, b) = avg(2, 3) = 2.5" in derivation(z, "forward")
    row = next(r for r in check_engine(z).rules if r.method == "avg")
    assert (row.status, row.how) == ("right", "central differences")


def test_operands_under_children_with_the_op_under_op_are_read():
    z = oe.sum_times_y(oe.ChildrenValue)
    z.backward()
    graph = read_graph(z)  # was: NotAGraphError listing names without `children`
    assert graph.ops == ("", "", "+", "*")
    assert "∂z/∂y = 5 + 3 = 8" in derivation(z)
    assert check_engine(z).first_wrong is None


# ---- 3. `=` instead of `+=`, on a graph that reuses no value ------------------------------------


@pytest.mark.parametrize("cls", [oe.AssignInMul, oe.AssignInsteadOfAdd], ids=["mul", "add"])
def test_assigning_instead_of_adding_is_named_on_the_lectures_neuron(cls):
    o = oe.neuron(cls)  # no value used twice: the numbers happen to be right here
    report = check_engine(o)
    assert not report.ok  # was: "every checked rule gives the right gradients"
    method = "__mul__" if cls is oe.AssignInMul else "__add__"
    found = [f for f in report.findings if f.method == method]
    assert found and "`=` where `+=` belongs" in found[0].hint
    assert ("x * x" if method == "__mul__" else "x + x") in found[0].message


# ---- 4. a backward() that never seeds the output ----------------------------------------------


def test_a_backward_that_never_seeds_the_root_is_named_everywhere():
    z = oe.sum_times_y(oe.NeverSeeds)
    z.backward()
    labels = oe.by_label(z)
    assert labels["y"].grad == 0 and z.grad == 0
    report = check_engine(z)
    assert not report.ok  # was: "every checked rule gives the right gradients"
    assert report.first_wrong.phase == "seed"
    assert "never seeds" in report.first_wrong.message
    assert "`self.grad = 1.0`" in report.first_wrong.hint
    text = derivation(z)
    assert "∂z/∂z = 1   ✗ after your backward(), z.grad is 0" in text
    assert "∂z/∂y = 5 + 3 = 8   (your backward() leaves y.grad = 0)" in text
    q = quiz(z)
    q.submit("∂z/∂y", "0")
    assert "check_engine(z) names where" in q.feedback  # and it does, above


# ---- 5. a guess only where the numbers support it -----------------------------------------------


def test_a_rule_times_out_data_is_not_guessed_to_be_swapped_operands():
    x, y = oe.MulTimesOutData(2.0, label="x"), oe.MulTimesOutData(1.0, label="y")
    z = x * y
    z.label = "z"
    z.backward()
    first = check_engine(z).first_wrong
    assert first.message == "your `__mul__` sent 2 to x; the product rule gives 1"
    assert "swapped" not in first.hint  # y got its right share: no swap
    assert "out.data" in first.hint and "out.grad" in first.hint


def test_swapped_operands_are_still_guessed_where_both_operands_say_so():
    root = oe.square_of_ab_plus_c(oe.SwappedMul)
    assert "swapped" in check_engine(root).first_wrong.hint


# ---- 6. a picture runs their code once; probing is check_engine's alone --------------------------


class _CountsRules(oe.BlogValue):
    calls = 0

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            type(self).calls += 1  # a learner's print() in a rule
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


@pytest.mark.parametrize(
    "picture",
    [autograd_viz.draw, lambda z: autograd_viz.draw(z, check=True), derivation],
    ids=["draw", "draw-checked", "derivation"],
)
def test_a_picture_runs_each_rule_of_theirs_once(picture):
    z = oe.sum_times_y(_CountsRules)  # one product
    z.backward()
    _CountsRules.calls = 0
    picture(z)
    assert _CountsRules.calls == 1  # was 7 here: the probes of 2 * x, 2 / x, ... in every picture


# ---- 7. an engine whose rules the kit cannot see ------------------------------------------------


class ForwardOnly:
    """A learner's class before its backward pass is written: operands and ops, no rules."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, children, op, label

    def __add__(self, other):
        return ForwardOnly(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        return ForwardOnly(self.data * other.data, (self, other), "*")


class RulesAsMethods:
    """One subclass per operation, each with its rule as a method `_back` (no `_backward`),
    and a backward() that calls them: right gradients the kit has no way to watch."""

    def __init__(self, data, parents=(), label=""):
        self.data, self.grad, self.parents, self.label = data, 0.0, parents, label

    def __add__(self, other):
        return _Sum(self, other)

    def __mul__(self, other):
        return _Product(self, other)

    def _back(self):
        pass

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            v, placed = stack.pop()
            if placed:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack += [(v, True)] + [(p, False) for p in v.parents]
        self.grad = 1.0
        for v in reversed(order):
            v._back()


class _Sum(RulesAsMethods):
    def __init__(self, a, b):
        super().__init__(a.data + b.data, (a, b))

    def _back(self):
        for p in self.parents:
            p.grad += self.grad


class _Product(RulesAsMethods):
    def __init__(self, a, b):
        super().__init__(a.data * b.data, (a, b))

    def _back(self):
        a, b = self.parents
        a.grad += b.data * self.grad
        b.grad += a.data * self.grad


def _unseen(cls):
    x, y = cls(2.0, label="x"), cls(3.0, label="y")
    return x, y, (x + y) * y


def _showing_a_backward_pass():
    from autograd_viz import api, export
    from autograd_viz.frames import Frames
    from autograd_viz.player import Player

    return {
        "trace": trace,
        "derivation": derivation,
        "animate": autograd_viz.animate,
        "animate, widget-free": lambda z: autograd_viz.animate(z, widgets=False),
        "Player": Player,
        "Frames": Frames,
        "filmstrip": export.filmstrip,
        "standalone_html": export.standalone_html,
        "ask_table": api.ask_table,
    }


@pytest.mark.parametrize("cls", [ForwardOnly, RulesAsMethods])
@pytest.mark.parametrize("viewer", list(_showing_a_backward_pass()))
def test_a_backward_pass_whose_rules_the_kit_cannot_see_is_refused_not_shown_as_zeros(cls, viewer):
    # before: every share 0, in equations such as "∂out/∂(x + y) = y = 3 = 0"
    *_, z = _unseen(cls)
    with pytest.raises(TraceError) as err:
        _showing_a_backward_pass()[viewer](z)
    said = str(err.value)
    assert said.startswith("the backward pass of your graph cannot be shown: no operation's "
                           "output has a `_backward`")  # fmt: skip
    changed = "your backward() changed the gradients another way"
    assert (changed in said) is (cls is RulesAsMethods), said
    assert "trace(root, 'forward')" in said


@pytest.mark.parametrize("cls", [ForwardOnly, RulesAsMethods])
def test_what_needs_no_rule_of_theirs_still_works_on_such_an_engine(cls):
    x, y, z = _unseen(cls)
    assert [s.text for s in trace(z, "forward")] == [
        "inputs: x = 2, y = 3", "x + y = 2 + 3 = 5", "out = (x + y) · y = 5 · 3 = 15",
    ]  # fmt: skip
    q = quiz(z)  # graded by the op table, not by their rules
    assert q.submit("∂out/∂y", "8") and not q.submit("∂out/∂x", "8")
    if cls is RulesAsMethods:
        z.backward()  # their own backward(): the drawing shows the grads it left
        assert (x.grad, y.grad) == (3.0, 8.0)
        source = autograd_viz.draw(z).source
        assert "grad 3<" in source and "grad 8<" in source
    else:
        assert "grad ?<" in autograd_viz.draw(z).source  # no backward pass has run


def test_a_backward_that_calls_no_rule_of_its_graph_is_still_shown_as_it_ran():
    # their rules exist, their backward() calls none: the zeros are what their engine did
    class NeverCalls(oe.BlogValue):
        def backward(self):
            self.grad = 1.0

    *_, z = _unseen(NeverCalls)
    assert trace(z, "backward")[-1].text == "∂out/∂y = 0 + 0 = 0"
