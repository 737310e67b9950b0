"""A learner's own engine, judged only by what is true: forward bugs named as forward bugs,
a missing operator as missing (with advice that works when pasted in), a backward() that
never returns stopped with a clear error, and their backward() run once per call."""

from __future__ import annotations

import own_engines as oe
import pytest

import autograd_viz
from autograd_viz.foreign import NumberOutOfRangeError, read_graph

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
