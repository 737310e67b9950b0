"""A scalar autograd engine, backpropagation in one small file, and the lesson a learner reads top
to bottom: a `Value` wraps a number and remembers its parents (in operand order) and the operation
that joined them; every operation is a forward method followed by its one local backward rule, and
`backward()` applies those rules in reverse topological order, so every node's gradient is complete
before it is passed on. Two choices differ from micrograd, both for speed: each backward rule is a
static method shared by every node of its operation (the lecture's `v._prev` and `v._backward()`
still work), not a new closure per node, so a node holds no reference cycle and a dropped graph is
freed at once by reference counting, with little for Python's cyclic garbage collector to walk; and
graph walks use an explicit stack, so a chain of a million operations needs no recursion. The
numeric rules (IEEE floats, errors only where the maths has no real answer) are stated on `Value`;
a number an operation meets becomes a `Constant`; how a Value behaves towards the rest of Python
(no silent float, input checks, copying and pickling) lives in `_value_protocols.py`, not here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TypeAlias

from autograd_viz._value_protocols import ValueProtocols, as_float, as_label, is_real

Number: TypeAlias = int | float
Operand: TypeAlias = "Value | int | float"


def _trig(f: Callable[[float], float], x: float) -> float:
    """sin or cos of x; nan at ±inf, as IEEE says (Python's math module raises there)."""
    return math.nan if math.isinf(x) else f(x)


def _power(x: float, n: float) -> float:
    """x ** n as IEEE arithmetic has it: ±inf where Python raises (too large, or 0 ** -n)."""
    try:
        return x**n
    except (OverflowError, ZeroDivisionError):
        odd = n.is_integer() and n % 2 == 1
        return math.copysign(math.inf, x) if odd else math.inf


class Value(ValueProtocols):
    """A number that remembers how it was computed, so gradients can flow back.

    The numeric rules, the same in forward and backward (tests pin each one):

    * Numbers are Python floats and follow IEEE arithmetic: nan and inf flow through
      (inf * 0 is nan), and a result too large for a float is ±inf, never an error —
      `Value(1e200) ** 2` is inf, `exp(1000)` is inf, and so is the slope of 1/x at
      x = 1e-200 (−inf), as in PyTorch.
    * `x ** n` at x = 0 has the true slope: 0 for n = 0 (a constant) and for n > 1,
      1 for n = 1, and inf for 0 < n < 1 (√x at 0), as in PyTorch.
    * Errors only where the maths has no real answer, with a message naming the
      operation and the operand: log of a value <= 0 (ValueError), division by zero
      and 0 to a negative power (ZeroDivisionError), a negative base to a fractional
      power or to a Value exponent (ValueError). An infinite or nan exponent is no
      fraction: `Value(-2) ** inf` is inf, as IEEE (and Python's floats) say.
    * Any real number can be an operand or exponent: int, float, Fraction, numpy
      scalars, and bools as 1 and 0 (`x * (x.data > 0)`).
    * A Value never turns silently into a plain number (that would cut the graph):
      `float(x)`, `math.exp(x)`, `x > 0`, `abs(x)` raise a TypeError saying what to
      write instead (`x.data`, `x.exp()`, ...), from `_value_protocols.py`.

    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y
    >>> z.backward()
    >>> x.grad, y.grad
    (3.0, 8.0)
    """

    __slots__ = ("data", "grad", "_label", "tag", "_op", "_rule", "_a", "_b", "_arg")

    def __init__(
        self,
        data: Number,
        _op: str = "",
        _rule: Callable[[Value], None] | None = None,
        _a: Value | None = None,
        _b: Value | None = None,
        *,
        label: str = "",
    ) -> None:
        if _op and _rule is None:  # Value(2.0, "x"): a label passed by position
            raise TypeError(f"pass the label by name: Value({data!r}, label={_op!r})")
        self.data = data if type(data) is float else as_float(data)
        self.grad = 0.0
        self._label = label if type(label) is str else as_label(label)
        self.tag = None  # free for tools: nn records the neuron that made a value
        self._op = _op
        self._rule = _rule  # the operation's local backward rule, shared by all its nodes
        # The operands, in order: every operation has one or two. Two slots rather
        # than a tuple keep a node to one object for the garbage collector to walk.
        self._a = _a
        self._b = _b
        self._arg: float | None = None  # a number exponent, for `**`

    @property
    def parents(self) -> tuple[Value, ...]:
        """The values this one was computed from, in operand order."""
        if self._b is not None:
            return (self._a, self._b)
        return () if self._a is None else (self._a,)

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The parents under the lecture's name (`for child in v._prev`), read-only."""
        return self.parents

    def _backward(self) -> None:
        """Send this node's gradient to its parents, as the lecture's `o._backward()`
        does: its operation's shared rule. A leaf has no parents, so it does nothing."""
        if self._rule is not None:
            self._rule(self)

    @property
    def label(self) -> str:
        """The name drawings and equations show ('' for none). Numbers become text."""
        return self._label

    @label.setter
    def label(self, label: str) -> None:
        self._label = label if type(label) is str else as_label(label)

    @property
    def op(self) -> str:
        """The operation that produced this value ('' for a leaf)."""
        return self._op

    @property
    def exponent(self) -> float | None:
        """The number exponent of a `**` with a number (`x**2` -> 2.0); None otherwise."""
        return self._arg

    def __repr__(self) -> str:
        name = f"label={self.label!r}, " if self.label else ""
        return f"Value({name}data={self.data:.4g}, grad={self.grad:.4g})"

    # ---- operations: forward, then the local backward rule ----------------------

    def __add__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else Constant(other)
        return Value(self.data + other.data, "+", Value._add_backward, self, other)

    @staticmethod
    def _add_backward(out: Value) -> None:
        a, b = out._a, out._b
        a.grad += out.grad  # d(a+b)/da = 1
        b.grad += out.grad  # d(a+b)/db = 1

    def __mul__(self, other: Operand) -> Value:
        other = other if isinstance(other, Value) else Constant(other)
        return Value(self.data * other.data, "*", Value._mul_backward, self, other)

    @staticmethod
    def _mul_backward(out: Value) -> None:
        a, b = out._a, out._b
        a.grad += b.data * out.grad  # d(a*b)/da = b
        b.grad += a.data * out.grad  # d(a*b)/db = a

    def __pow__(self, other: Operand) -> Value:
        if isinstance(other, Value):
            return self._pow_value(other)
        if not is_real(other):
            raise TypeError(f"** needs a number or a Value as exponent, got {type(other).__name__}")
        n = as_float(other)
        if self.data == 0 and n < 0:
            raise ZeroDivisionError(
                f"{self!r} ** {other}: zero cannot be raised to a negative power"
            )
        if self.data < 0 and math.isfinite(n) and not n.is_integer():  # ±inf, nan: IEEE's
            raise ValueError(
                f"{self!r} ** {other}: a negative base with a fractional exponent "
                "is not a real number"
            )
        out = Value(_power(self.data, n), f"**{n:g}", Value._pow_backward, self)
        out._arg = n
        return out

    @staticmethod
    def _pow_backward(out: Value) -> None:
        a, n = out._a, out._arg
        if n != 0:  # a**0 is the constant 1: slope 0, even at a = 0 (the formula says 0 * inf)
            a.grad += n * _power(a.data, n - 1) * out.grad  # d(a**n)/da = n * a**(n-1)

    def _pow_value(self, exponent: Value) -> Value:
        if self.data <= 0:
            raise ValueError(
                f"{self!r} ** Value: a Value exponent needs a positive base, because the "
                f"gradient with respect to the exponent is base**exponent * log(base)"
            )
        data = _power(self.data, exponent.data)
        return Value(data, "**", Value._pow_value_backward, self, exponent)

    @staticmethod
    def _pow_value_backward(out: Value) -> None:
        a, b = out._a, out._b
        a.grad += b.data * _power(a.data, b.data - 1) * out.grad  # d(a**b)/da = b * a**(b-1)
        b.grad += out.data * math.log(a.data) * out.grad  # d(a**b)/db = a**b * log(a)

    def relu(self) -> Value:
        data = 0.0 if self.data <= 0 else self.data  # keeps nan as nan, unlike max()
        return Value(data, "ReLU", Value._relu_backward, self)

    @staticmethod
    def _relu_backward(out: Value) -> None:
        a = out._a
        a.grad += (a.data > 0) * out.grad  # slope 1 where positive, 0 elsewhere (and at 0)

    def tanh(self) -> Value:
        return Value(math.tanh(self.data), "tanh", Value._tanh_backward, self)

    @staticmethod
    def _tanh_backward(out: Value) -> None:
        a = out._a
        a.grad += (1 - out.data**2) * out.grad  # d tanh(a)/da = 1 - tanh(a)**2

    def sin(self) -> Value:
        return Value(_trig(math.sin, self.data), "sin", Value._sin_backward, self)

    @staticmethod
    def _sin_backward(out: Value) -> None:
        a = out._a
        a.grad += _trig(math.cos, a.data) * out.grad  # d sin(a)/da = cos(a)

    def cos(self) -> Value:
        return Value(_trig(math.cos, self.data), "cos", Value._cos_backward, self)

    @staticmethod
    def _cos_backward(out: Value) -> None:
        a = out._a
        a.grad += -_trig(math.sin, a.data) * out.grad  # d cos(a)/da = -sin(a)

    def exp(self) -> Value:
        try:
            data = math.exp(self.data)
        except OverflowError:  # e ** 710 and above: too large for a float
            data = math.inf
        return Value(data, "exp", Value._exp_backward, self)

    @staticmethod
    def _exp_backward(out: Value) -> None:
        a = out._a
        a.grad += out.data * out.grad  # d exp(a)/da = exp(a)

    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"log({self!r}): log is defined only for values > 0")
        return Value(math.log(self.data), "log", Value._log_backward, self)

    @staticmethod
    def _log_backward(out: Value) -> None:
        a = out._a
        a.grad += out.grad / a.data  # d log(a)/da = 1/a

    def sigmoid(self) -> Value:
        x = self.data
        # two forms of 1/(1+e^-x), each safe from overflow on its own side
        data = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
        return Value(data, "sigmoid", Value._sigmoid_backward, self)

    @staticmethod
    def _sigmoid_backward(out: Value) -> None:
        a = out._a
        a.grad += out.data * (1 - out.data) * out.grad  # d s(a)/da = s(a) * (1 - s(a))

    # ---- derived operations: built from the ones above, as in the blog ----------

    def __neg__(self) -> Value:  # -a
        return self * -1

    def __sub__(self, other: Operand) -> Value:  # a - b
        return self + (-other)

    def __truediv__(self, other: Operand) -> Value:  # a / b
        other = other if isinstance(other, Value) else Constant(other)
        if other.data == 0:
            raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
        return self * other**-1

    def __radd__(self, other: Number) -> Value:  # 3 + a
        return self + other

    def __rmul__(self, other: Number) -> Value:  # 3 * a
        return self * other

    def __rsub__(self, other: Number) -> Value:  # 1 - a
        return Constant(other) + (-self)

    def __rtruediv__(self, other: Number) -> Value:  # 2 / a
        return Constant(other) / self

    def __rpow__(self, other: Number) -> Value:  # 2 ** a
        return Constant(other) ** self

    # ---- backpropagation ------------------------------------------------------

    def topological_order(self) -> list[Value]:
        """Every value this one depends on, each after all of its parents.

        Depth-first search with an explicit stack (no recursion limit); parents are
        visited in operand order, so the order is the same on every run.
        """
        order: list[Value] = []
        visited: set[Value] = set()
        stack: list[Value | None] = [self]
        while stack:
            node = stack.pop()
            if node is None:  # marker: the node below it has all its parents placed
                order.append(stack.pop())
            elif node not in visited:
                visited.add(node)
                stack += (node, None)
                if node._b is not None:  # push operands last-first, so the first pops first
                    stack.append(node._b)
                if node._a is not None:
                    stack.append(node._a)
        return order

    def backward(self) -> None:
        """Fill in `grad` for every value this one depends on.

        Gradients of intermediate values are recomputed on every call; leaves
        (inputs and parameters) *accumulate*, like PyTorch. So calling backward()
        twice without `zero_grad()` gives double the leaf gradients —
        the "forgot to zero the grads" pitfall, predictable rather than garbage.
        """
        order = self.topological_order()
        for node in order:
            if node._a is not None:
                node.grad = 0.0
        if self._a is not None:
            self.grad = 1.0  # dL/dL = 1
        else:
            self.grad += 1.0
        for node in reversed(order):
            if node._a is not None:
                node._rule(node)

    def zero_grad(self) -> None:
        """Set `grad` to 0 on this value and everything it depends on."""
        for node in self.topological_order():
            node.grad = 0.0

    def leaves(self) -> Iterator[Value]:
        """The inputs of this graph (values with no parents), in topological order."""
        return (node for node in self.topological_order() if node._a is None)

    # Drawing lives in its own modules. The one import from the engine up into the
    # viewers, documented: lazy, from one module, so `from autograd_viz import Value`
    # never loads graphviz or ipywidgets.
    def draw(self, **options):
        """Draw the computation graph ending here (see `autograd_viz.api.draw`)."""
        from autograd_viz import api

        return api.draw(self, **options)

    def animate(self, **options):
        """Step through the forward and backward pass (see `autograd_viz.front.player.Player`)."""
        from autograd_viz import api

        return api.animate(self, **options)


class Constant(Value):
    """A number written into an expression, like the 2 in `x * 2`, which the operation
    wraps so it meets only Values. Drawings show it by its number, with no gradient line;
    a Value you make yourself is an input, labelled or not."""

    __slots__ = ()
