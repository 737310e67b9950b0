"""Engines a learner writes: the blog's micrograd-style class, and the same class with one
classic bug planted in it.

`BlogValue` is written the way the blog (and every micrograd follower) writes it: operands
in a `set` called `_prev`, the operation in `_op`, a `_backward` closure per node that
accumulates with `+=`, a `label`, and a recursive topological sort in `backward()`. Each
bug variant overrides exactly one method, so a test names the bug by naming the class.
The tests use these to check that the kit reads, draws, steps through and checks a
foreign engine; they are never imported by the package.
"""

from __future__ import annotations

import math


class _Core:
    """The blog's Value without reflected operations (`2 * x` needs `__rmul__`)."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"{type(self).__name__}(data={self.data})"

    def _wrap(self, other):
        return other if isinstance(other, _Core) else type(self)(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only int/float powers"
        out = type(self)(self.data**other, (self,), f"**{other}")

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        return self * other**-1

    def relu(self):
        out = type(self)(0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = type(self)(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = type(self)(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = type(self)(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += (1 / self.data) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = type(self)(s, (self,), "sigmoid")

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


class BlogValue(_Core):
    """The blog's Value, complete and correct."""

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return other + (-self)

    def __rtruediv__(self, other):
        return other * self**-1


# ---- the classic bugs, one per class ---------------------------------------------------


class AssignInsteadOfAdd(BlogValue):
    """`=` instead of `+=` in `__add__`'s rule: a value used twice keeps only its last share."""

    def __add__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = 1.0 * out.grad
            other.grad = 1.0 * out.grad

        out._backward = _backward
        return out


class SwappedMul(BlogValue):
    """`__mul__`'s rule sends each operand its own value instead of the other factor."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += self.data * out.grad
            other.grad += other.data * out.grad

        out._backward = _backward
        return out


class TanhOfInput(BlogValue):
    """tanh's derivative written as 1 - x**2 (the input) instead of 1 - t**2 (the output)."""

    def tanh(self):
        x = self.data
        t = math.tanh(x)
        out = type(self)(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - x**2) * out.grad

        out._backward = _backward
        return out


class ForgotOutGrad(BlogValue):
    """`__mul__`'s rule forgets the chain rule's `out.grad` factor."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data
            other.grad += self.data

        out._backward = _backward
        return out


class VisitsTwice(BlogValue):
    """A recursive topological sort with no `visited` set: a shared node runs its rule twice."""

    def backward(self):
        topo = []

        def build_topo(v):
            for child in v._prev:
                build_topo(child)
            topo.append(v)

        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


class SubtractingAdd(BlogValue):
    """A forward bug: `__add__` computes `self.data - other.data` (its backward rule is right)."""

    def __add__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data - other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out


class MulMarkedPlus(BlogValue):
    """A correct `__mul__` that marks its output `_op='+'`."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "+")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


class NoRmul(_Core):
    """No `__rmul__`: `2 * x` raises TypeError."""

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return other + (-self)


class NoRsub(_Core):
    """No `__rsub__`: `1 - x` raises TypeError."""

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other


class TinyValue:
    """Notebook 04's class: operands in order in a tuple called `parents`, the op in `op`."""

    def __init__(self, data, parents=(), op=""):
        self.data = data
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self._backward = lambda: None

    def __add__(self, other):
        out = TinyValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = TinyValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __sub__(self, other):  # a primitive here, so operand order matters
        out = TinyValue(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad

        out._backward = _backward
        return out


# ---- the blog's worked examples, built with any micrograd-style class ------------------


def _named(v, label):
    v.label = label
    return v


def sum_times_y(cls):
    """z = (x + y)·y at x = 2, y = 3: z = 15, ∂z/∂x = 3, ∂z/∂y = 8."""
    x, y = _named(cls(2.0), "x"), _named(cls(3.0), "y")
    s = _named(x + y, "s")
    return _named(s * y, "z")


def square_of_ab_plus_c(cls, a=2.0, b=3.0, c=1.0):
    """L = (a·b + c)²: at 2, 3, 1 L = 49, grads 42, 28, 14; at 2, −3, 10 L = 16, −24, 16, 8."""
    a, b, c = _named(cls(a), "a"), _named(cls(b), "b"), _named(cls(c), "c")
    d = _named(a * b, "d")
    e = _named(d + c, "e")
    return _named(e**2, "L")


def b_used_twice(cls):
    """c = a·b, d = c + b, L = 2·d at a = 2, b = 3: L = 18, ∂L/∂a = 6, ∂L/∂b = 6."""
    a, b = _named(cls(2.0), "a"), _named(cls(3.0), "b")
    c = _named(a * b, "c")
    d = _named(c + b, "d")
    return _named(2 * d, "L")


def neuron(cls):
    """The blog's tanh neuron: o = tanh(x1·w1 + x2·w2 + b) = 0.7071; ∂o/∂x1 = −1.5, ∂o/∂w1 = 1."""
    x1, x2 = _named(cls(2.0), "x1"), _named(cls(0.0), "x2")
    w1, w2 = _named(cls(-3.0), "w1"), _named(cls(1.0), "w2")
    b = _named(cls(6.8813735870195432), "b")
    n = _named(x1 * w1 + x2 * w2 + b, "n")
    return _named(n.tanh(), "o")


def by_label(root):
    """Every labelled value of a micrograd-style graph, by its label."""
    seen, stack, found = set(), [root], {}
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if getattr(v, "label", ""):
            found[v.label] = v
        stack.extend(getattr(v, "_prev", getattr(v, "parents", ())))
    return found


# ---- helpers the tests of other engines share ----------------------------------------------


class NoClosures:
    """Operands in a set and a backward rule that is no closure: the order is lost."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(children), op, label
        self._backward = lambda: None

    def __sub__(self, other):
        return NoClosures(self.data - other.data, (self, other), "-")

    def __add__(self, other):
        return NoClosures(self.data + other.data, (self, other), "+")


def grads(root):
    """Every grad of the graph as (label, type, repr): byte-level, not approximately."""
    return sorted(
        (v.label if hasattr(v, "label") else "", type(v.grad).__name__, repr(v.grad), id(v))
        for v in nodes(root)
    )


def nodes(root):
    """Every node of the graph behind `root` (ours or another engine's), each once."""
    seen, stack, out = set(), [root], []
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
            stack.extend(getattr(v, "_prev", getattr(v, "parents", ())))
    return out


# ---- engines of other shapes ------------------------------------------------------------------


class MicroGPTValue:
    """Karpathy's microgpt Value (2026): each node stores its local gradients instead of a
    closure (`_local_grads`); no `_op`, no `_backward`, no label; backward() does
    `child.grad += local_grad * v.grad` in reverse topological order."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children
        self._local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, MicroGPTValue) else type(self)(other)
        return type(self)(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, MicroGPTValue) else type(self)(other)
        return type(self)(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        return type(self)(self.data**other, (self,), (other * self.data ** (other - 1),))

    def log(self):
        return type(self)(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return type(self)(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return type(self)(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._children:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad += local_grad * v.grad


def nodes_of_micro(root):
    """Every node of a microgpt graph, each once."""
    seen, stack, out = set(), [root], []
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
            stack.extend(v._children)
    return out


class MicroGPTSwappedMul(MicroGPTValue):
    """microgpt's `__mul__` storing each operand its own value as local grad (swapped)."""

    __slots__ = ()

    def __mul__(self, other):
        other = other if isinstance(other, MicroGPTValue) else type(self)(other)
        return type(self)(self.data * other.data, (self, other), (self.data, other.data))


class MicroGPTAssigns(MicroGPTValue):
    """microgpt's backward() with `=` where `+=` belongs: a value used twice keeps one share."""

    __slots__ = ()

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._children:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad = local_grad * v.grad


class NoOpValue(BlogValue):
    """The blog's Value that never stores its operation: `_prev` and closures, no `_op`."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self.label = label


class ChildrenValue:
    """Operands in order in a tuple called `children`, the operation in `op`."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self.children, self.op, self.label = data, 0.0, children, op, label
        self._backward = lambda: None

    def __add__(self, other):
        out = ChildrenValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = ChildrenValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v.children:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


class AssignInMul(BlogValue):
    """`=` instead of `+=` in `__mul__`'s rule: right on any graph where no value is reused."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad

        out._backward = _backward
        return out


class NeverSeeds(BlogValue):
    """backward() without `self.grad = 1.0`: every gradient stays 0."""

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        for node in reversed(topo):
            node._backward()


class MulTimesOutData(BlogValue):
    """`__mul__`'s rule sends `self` `other.data * out.data` (the output's value, not its
    gradient); `other` gets the right share."""

    def __mul__(self, other):
        other = self._wrap(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.data
            other.grad += self.data * out.grad

        out._backward = _backward
        return out
