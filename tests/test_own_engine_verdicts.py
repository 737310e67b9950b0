"""A learner's own engine, judged only by what is true: forward bugs named as forward bugs,
a missing operator as missing (with advice that works when pasted in), a backward() that
never returns stopped with a clear error, and their backward() run once per call."""

from __future__ import annotations

import html
import signal
import sys
import threading
from typing import ClassVar

import own_engines as oe
import pytest

import autograd_viz
from autograd_viz.core.errors import BackwardTimeoutError, CodeTimeoutError
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT
from autograd_viz.open.engines.read import NumberOutOfRangeError, read_graph

# ---- numbers a node may hold ------------------------------------------------------------------


def test_a_node_holding_bools_is_read_as_one_and_zero_like_our_value():
    x, y = oe.BlogValue(True), oe.BlogValue(3.0)
    z = x * y
    z.backward()
    graph = read_graph(z)
    assert graph.data == (1.0, 3.0, 3.0)
    assert graph.grads == (3.0, 1.0, 1.0)
    assert "data ?" not in autograd_viz.draw(z, check=False).source


def test_a_node_holding_an_int_too_large_for_a_float_says_so():
    z = oe.BlogValue(10**400) * oe.BlogValue(1)
    with pytest.raises(NumberOutOfRangeError, match="a whole number of 401 digits, too large"):
        read_graph(z)
    with pytest.raises(NumberOutOfRangeError, match=r"the largest is about 1\.8e308"):
        autograd_viz.draw(z)


# ---- a missing operator: its own verdict, with a fix that works when pasted in ------------------

# The blog's class as a learner may have it: `+`, `*` (taking plain numbers), their reflected
# forms and tanh; no `__neg__`, `__sub__`, `__truediv__` or `__pow__` at all.
WRAPPING = """
class Blog:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self.grad, self._backward = data, 0.0, lambda: None
        self._prev, self._op, self.label = set(_children), _op, label

    def __add__(self, other):
        other = other if isinstance(other, Blog) else Blog(other)
        out = Blog(self.data + other.data, (self, other), "+")
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Blog) else Blog(other)
        out = Blog(self.data * other.data, (self, other), "*")
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo, visited = [], set()
        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
"""

# An earlier stage of the blog: operands must be Values (no wrapping), no reflected methods,
# and a `__pow__`.
BARE = """
class Blog:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data, self.grad, self._backward = data, 0.0, lambda: None
        self._prev, self._op, self.label = set(_children), _op, label

    def __add__(self, other):
        out = Blog(self.data + other.data, (self, other), "+")
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Blog(self.data * other.data, (self, other), "*")
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, n):
        out = Blog(self.data**n, (self,), f"**{n}")
        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
"""

_PROBED = {  # expression, value at x = 1.5, slope there
    "__radd__": (lambda x: 2 + x, 3.5, 1.0),
    "__rmul__": (lambda x: 2 * x, 3.0, 2.0),
    "__rsub__": (lambda x: 2 - x, 0.5, -1.0),
    "__rtruediv__": (lambda x: 2 / x, 2 / 1.5, -2 / 1.5**2),
}


def _define(source):
    namespace = {"__name__": "learner"}
    exec(source, namespace)  # a notebook cell defining the class
    return namespace["Blog"]


def _pasted(source, fixes):
    """The class's source with each offered `def` pasted at the end of its body, as is."""
    return source + "".join(f"\n    {fix}\n" for fix in fixes)


@pytest.mark.parametrize(("source", "missing"), [
    (WRAPPING, {"__rsub__", "__rtruediv__"}),
    (BARE, {"__radd__", "__rmul__", "__rsub__", "__rtruediv__"}),
])  # fmt: skip
def test_a_missing_operator_is_its_own_verdict_and_its_fix_works_when_pasted_in(source, missing):
    Blog = _define(source)
    x, y = Blog(2.0, label="x"), Blog(3.0, label="y")
    report = autograd_viz.check_engine(x * y + x)
    assert report.ok, str(report)  # every operation the class has is right
    assert {r.method for r in report.rules if r.status == "missing"} == missing
    assert "first wrong" not in str(report)
    fixes = {}
    for finding in report.missing:
        expression = {"__radd__": "2 + x", "__rmul__": "2 * x", "__rsub__": "2 - x",
                      "__rtruediv__": "2 / x"}[finding.method]  # fmt: skip
        assert finding.message.startswith(f"`{expression}` raises TypeError (your class has no")
        if "add `def" in finding.message:
            fixes[finding.method] = finding.message.split("add `", 1)[1].split("`", 1)[0]
    assert "other + (-self)" not in "".join(fixes.values())  # it needs a __neg__ they lack
    Fixed = _define(_pasted(source, fixes.values()))
    for method in fixes:
        build, value, slope = _PROBED[method]
        x = Fixed(1.5)
        out = build(x)
        out.backward()  # their own backward(), on their own class with the fix pasted in
        assert out.data == pytest.approx(value) and x.grad == pytest.approx(slope), method
    if source is BARE:  # `C(other) + ...` forms: only __add__, __mul__ and the constructor
        assert set(fixes) == missing
    else:  # no __pow__ and no division: nothing to build `2 / x` from, and it says so
        assert set(fixes) == {"__rsub__"}
        [division] = [f for f in report.missing if f.method == "__rtruediv__"]
        assert "no one-line `__rtruediv__` works with its methods as they are" in division.message
        assert "for ** or pow(): 'Blog' and 'int'" in division.message


# ---- a backward() that never returns, and one run of it per call --------------------------------


class LoopsForever(oe.BlogValue):
    """A topological sort whose `while` never ends (the node list is never shortened)."""

    def backward(self):
        todo = [self]
        while todo:  # forgot todo.pop()
            pass


class RuleLoopsForever(oe.BlogValue):
    """`__mul__`'s `_backward` loops forever; backward() itself is the blog's."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            while out.grad:
                pass

        out._backward = _backward
        return out


def _grads_of(root):
    return [(v.label, v.grad) for v in oe.by_label(root).values()]


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (lambda z: autograd_viz.check_engine(z, timeout=0.3), "check_engine"),
        (lambda z: autograd_viz.draw(z, check=True, timeout=0.3), "draw"),
        (lambda z: autograd_viz.animate(z, timeout=0.3), "animate"),
    ],
)
def test_a_backward_that_never_returns_is_stopped_with_where_it_was(call, where):
    z = oe.sum_times_y(LoopsForever)
    before = _grads_of(z)
    with pytest.raises(BackwardTimeoutError) as caught:
        call(z)  # stopped, not forever (a hang fails on pytest's timeout)
    message = str(caught.value)
    assert message.startswith("your backward() did not return within 0.3 s (timeout=0.3)")
    assert "it was still running in `backward` (test_own_engine_verdicts.py, line" in message
    assert "a `while` whose condition never changes" in message
    assert "Every grad is as it was" in message
    assert _grads_of(z) == before
    assert all(not isinstance(v._backward, type(None)) for v in oe.by_label(z).values())
    assert not any("_Recorder" in type(v._backward).__name__ for v in oe.by_label(z).values())


def test_a_backward_rule_that_never_returns_names_its_node_and_method():
    z = oe.sum_times_y(RuleLoopsForever)
    with pytest.raises(BackwardTimeoutError) as caught:
        autograd_viz.check_engine(z, timeout=0.3)
    message = str(caught.value)
    assert "in `_backward` (test_own_engine_verdicts.py, line" in message
    assert "inside the `_backward` of z (made by your `__mul__`)" in message
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left behind
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


class ReadLoopsForever(oe.BlogValue):
    """The blog's class whose `data` is a property that loops for ever once `looping` is set:
    their code runs as the kit reads the graph, before any backward()."""

    looping = False

    @property
    def data(self):
        while type(self).looping:
            pass
        return self.__dict__["data"]

    @data.setter
    def data(self, value):
        self.__dict__["data"] = value


@pytest.mark.parametrize(
    ("call", "caller"),
    [
        (lambda z: autograd_viz.check_engine(z, timeout=0.3), "check_engine()"),
        (lambda z: autograd_viz.draw(z, timeout=0.3), "draw()"),
    ],
    ids=["check_engine", "draw"],
)
def test_reading_a_graph_whose_class_loops_for_ever_is_stopped_too(call, caller):
    z = oe.sum_times_y(ReadLoopsForever)
    ReadLoopsForever.looping = True
    try:
        with pytest.raises(CodeTimeoutError) as caught:
            call(z)  # the old door read their `data` with no time limit: a hung kernel
    finally:
        ReadLoopsForever.looping = False
    assert str(caught.value).startswith(
        f"Reading your graph for {caller} did not return within 0.3 s (timeout=0.3): it was "
        "still running in `data` (test_own_engine_verdicts.py, line "
    )
    assert autograd_viz.check_engine(z, timeout=0.3).ok  # and the kernel carries on


def test_the_time_limit_also_holds_off_the_main_thread():
    """Where no interval timer can be used (another thread, Pyodide), a trace function
    watches the clock instead."""
    z = oe.sum_times_y(LoopsForever)
    caught = []

    def run():
        try:
            autograd_viz.check_engine(z, timeout=0.3)
        except BackwardTimeoutError as err:
            caught.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    assert caught and "did not return within 0.3 s" in str(caught[0])


def test_their_backward_gets_a_few_seconds_by_default_and_timeout_must_be_positive():
    assert DEFAULT_TIMEOUT == 5.0
    z = oe.sum_times_y(oe.BlogValue)
    with pytest.raises(ValueError, match="timeout must be a number of seconds > 0 and at mos"):
        autograd_viz.check_engine(z, timeout=0)


@pytest.mark.parametrize("timeout", [float("inf"), 1e308, 1e10])
def test_a_timeout_too_long_for_the_timer_is_refused_before_their_code_runs(timeout):
    # the interval timer raised a bare OverflowError ("timestamp out of range") for these
    z = oe.sum_times_y(oe.BlogValue)
    with pytest.raises(ValueError, match=r"at most 3600, got .*; e.g. timeout=5"):
        autograd_viz.check_engine(z, timeout=timeout)


class CountsBackward(oe.BlogValue):
    """The blog's class, counting how often its backward() runs."""

    calls = 0

    def backward(self):
        type(self).calls += 1
        super().backward()


@pytest.mark.parametrize(
    "call",
    [
        autograd_viz.check_engine,
        lambda z: autograd_viz.draw(z, check=True),
        autograd_viz.draw,  # the graph holds gradients: checked by default
        autograd_viz.animate,
        lambda z: autograd_viz.animate(z, check=False),
    ],
)
def test_their_backward_runs_once_per_call(call):
    z = oe.square_of_ab_plus_c(CountsBackward)
    z.backward()
    CountsBackward.calls = 0
    call(z)
    assert CountsBackward.calls == 1


# ---- a forward bug is reported as one, and never drawn as a true equation -----------------------


def _xyz(cls, op):
    x, y = cls(2.0, label="x"), cls(3.0, label="y")
    z = op(x, y)
    z.label = "z"
    z.backward()
    return z


def test_a_forward_bug_is_reported_as_one_not_blamed_on_the_backward_rule():
    z = _xyz(oe.SubtractingAdd, lambda x, y: x + y)
    report = autograd_viz.check_engine(z)
    first = report.first_wrong
    assert (first.phase, first.node, first.method) == ("forward", 2, "__add__")
    assert first.message == "your `__add__` gave z = −1, but x + y = 2 + 3 = 5"
    assert (
        first.hint == "−1 is x − y: check the line of `__add__` that computes the new value's data"
    )
    assert (first.sent, first.right) == (-1.0, 5.0)
    assert not report.ok
    # its backward rule is the sum rule's, right for `+`: no finding says otherwise
    assert not [f for f in report.findings if f.phase == "backward" and f.node is not None]
    assert "operands swapped" not in str(report)
    row = next(r for r in report.rules if r.method == "__add__")
    assert (row.status, row.how, row.detail) == ("wrong", "op table", first.message)


def test_a_right_method_with_the_wrong_op_mark_is_reported_not_drawn_as_that_op():
    z = _xyz(oe.MulMarkedPlus, lambda x, y: x * y)
    report = autograd_viz.check_engine(z)
    assert not report.ok  # was: every rule right, drawn as x + y = 2 + 3 = 6
    first = report.first_wrong
    assert first.message == "your `__mul__` gave z = 6, but marked it '+': x + y = 2 + 3 = 5"
    assert first.hint == (
        "6 is x · y, as `__mul__` should give: mark the new value '*' (its `_op`), not '+'"
    )
    # the backward rule is judged against the product it computes: right
    assert not [f for f in report.findings if f.phase == "backward"]


@pytest.mark.parametrize(
    ("cls", "op", "forward", "said"),
    [
        (oe.SubtractingAdd, lambda x, y: x + y, "z = __add__(x, y) = __add__(2, 3) = −1",
         "your `__add__` gave z = −1, but x + y = 2 + 3 = 5"),
        (oe.MulMarkedPlus, lambda x, y: x * y, "z = __mul__(x, y) = __mul__(2, 3) = 6",
         "your `__mul__` gave z = 6, but marked it '+': x + y = 2 + 3 = 5"),
    ],
)  # fmt: skip
def test_no_viewer_shows_the_false_equation_and_the_player_flags_the_step(cls, op, forward, said):
    from autograd_viz.frames import Frames
    from autograd_viz.open.door import open_graph
    from autograd_viz.trace import trace

    z = _xyz(cls, op)
    texts = [s.text for s in trace(open_graph(z, caller="test", check=False))]
    assert texts[1] == forward  # a call of their method: true as written
    assert not any("x + y = 2 + 3" in t for t in texts)
    frames = Frames(open_graph(z, caller="test", check=True))
    assert frames.caption(1).text == f"step 2 of {len(frames)} — forward pass · ✗ {said}"
    assert frames.steps[1].text.startswith(f"{forward}   ✗ {said} — ")
    player = autograd_viz.animate(z)
    assert html.escape(f"✗ {said}") in player.frame_html(2)  # the caption of step 2
    drawing = autograd_viz.draw(z)
    assert "first wrong value: " + said.replace("'", "&#39;") in drawing.source
    assert "label=<! __" in drawing.source  # the op node is marked
    unchecked = autograd_viz.draw(z, check=False).source
    assert "✗ " + said.replace("'", "&#39;") in unchecked  # said even without the check


def test_a_stale_graph_of_their_engine_is_called_stale_not_a_forward_bug():
    z = _xyz(oe.BlogValue, lambda x, y: x + y)
    oe.by_label(z)["x"].data = 100.0
    first = autograd_viz.check_engine(z).first_wrong
    assert first.phase == "forward"
    assert first.message == "z = 5 no longer follows from its operands: x + y = 100 + 3 = 103 now"
    assert "run the cells that build the expression again" in first.hint


@pytest.mark.parametrize("example", [oe.sum_times_y, oe.square_of_ab_plus_c, oe.b_used_twice,
                                     oe.neuron])  # fmt: skip
def test_a_correct_engine_has_no_forward_problem(example):
    from autograd_viz.open.engines.replay import foreign_snapshot

    z = example(oe.BlogValue)
    assert foreign_snapshot(z, check=False).forward == ()
    assert autograd_viz.check_engine(z).ok


def test_the_time_limit_leaves_someone_elses_timer_running():
    rang = []
    handler = signal.signal(signal.SIGALRM, lambda *_: rang.append(1))
    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        with pytest.raises(BackwardTimeoutError, match=r"within 0\.3 s"):
            autograd_viz.check_engine(oe.sum_times_y(LoopsForever), timeout=0.3)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < left <= 30 and not rang  # theirs, untouched: the clock was watched instead
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)


# ---- a method of theirs that calls itself for ever ----------------------------------------------


class RsubCallsItself(oe.BlogValue):
    """`2 - x` written as `other - self`: Python sends it straight back to `__rsub__`."""

    depth_allowed: ClassVar[list[int]] = []

    def __rsub__(self, other):
        frame, depth = sys._getframe(), 0
        while frame is not None:
            depth, frame = depth + 1, frame.f_back
        RsubCallsItself.depth_allowed.append(sys.getrecursionlimit() - depth)
        return other - self


def test_a_method_that_recurses_for_ever_is_stopped_a_few_calls_deep():
    """In the browser edition WebAssembly's stack runs out long before Python's limit of 1000
    and that kills the kernel (notebook 04 hung the lite test), so the probes of their class
    allow only 100 more levels: RecursionError, reported as their method's fault."""
    RsubCallsItself.depth_allowed.clear()
    x, y = RsubCallsItself(2.0, label="x"), RsubCallsItself(3.0, label="y")
    z = (x + y) * y
    report = autograd_viz.check_engine(z)
    assert RsubCallsItself.depth_allowed, "the probe of `2 - x` never called __rsub__"
    assert max(RsubCallsItself.depth_allowed) <= 100, max(RsubCallsItself.depth_allowed)
    assert sys.getrecursionlimit() == 1000 or sys.getrecursionlimit() > 100  # put back
    assert "RecursionError" in str(report) and "__rsub__" in str(report)
