"""Typical wrong answers and other right answers to the lessons' code exercises, as code: each
notebook's exercise keeps a cell that runs its check on these
(`CodeExercise.try_answers(**lesson_answers.SIGMOID)`), and `tests/test_lesson_checks.py` runs the
same lists on the same checks (`lesson_checks`); every wrong answer must be refused, for the reason
named next to it, and every right answer, in whatever style, accepted. A wrong answer maps a
description to (code, words the verdict must contain). Here are those of methods a learner adds to
their own Value class (04's sigmoid, 08's division, 09's multiplication); those of functions over a
graph of Values live in `autograd_viz.course.graph_answers`, and those of code that computes with
plain numbers in `autograd_viz.course.number_answers`, all re-exported here."""

from __future__ import annotations

from autograd_viz.course.graph_answers import NEURON, TOPOLOGICAL_ORDER
from autograd_viz.course.number_answers import (
    BY_HAND_BACKWARD,
    CENTRAL_DIFFERENCE,
    CROSS_ENTROPY_GRAD,
    DUAL_DIV,
)

__all__ = [
    "BY_HAND_BACKWARD",
    "CENTRAL_DIFFERENCE",
    "CROSS_ENTROPY_GRAD",
    "DIV",
    "DUAL_DIV",
    "MUL",
    "NEURON",
    "SIGMOID",
    "TOPOLOGICAL_ORDER",
]


_RULE = "self.grad += out.data * (1 - out.data) * out.grad"


def _sigmoid(forward: str = "1 / (1 + math.exp(-self.data))", parents: str = "(self,)",
             rule: str = _RULE, more: str = "") -> str:  # fmt: skip
    return f"""def my_sigmoid(self):
    out = TinyValue({forward}, {parents}, "sigmoid")
    def _backward():
        {rule}
    out._backward = _backward{more}
    return out"""


SIGMOID = {  # 04: a sigmoid method for TinyValue
    "wrong": {
        "a node with no parents: TinyValue(s, (), 'sigmoid')": (
            _sigmoid(parents="()"),
            "does not lead back to x",
        ),
        "no * out.grad": (_sigmoid(rule="self.grad += out.data * (1 - out.data)"), "At x"),
        "= instead of +=": (
            _sigmoid(rule="self.grad = out.data * (1 - out.data) * out.grad"),
            "At x",
        ),
        "the rule from the input, a(1 − a)": (
            _sigmoid(rule="self.grad += self.data * (1 - self.data) * out.grad"),
            "At x",
        ),
        "calls backward() itself": (
            _sigmoid(more="\n    out.backward()"),
            "calls backward() itself",
        ),
        "e^(+a) in the forward value": (
            _sigmoid(forward="1 / (1 + math.exp(self.data))"),
            "the right value is",
        ),
        "returns the number": (
            "def my_sigmoid(self):\n    return 1 / (1 + math.exp(-self.data))",
            "not a node of your class",
        ),
    },
    "right": {
        "the rule from a saved s": """def my_sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = TinyValue(s, (self,), "sigmoid")
    def _backward():
        self.grad += s * (1 - s) * out.grad   # sigmoid' = s(1 - s)
    out._backward = _backward
    return out""",
        "built from exp and **": """def my_sigmoid(self):
    return (1 + (-self).exp()) ** -1""",
        "built from tanh": """def my_sigmoid(self):
    return (1 + (self * 0.5).tanh()) * 0.5""",
    },
}

_MUL = """def my_mul(self, other):
    other = other if isinstance(other, Tiny) else Tiny(other)
    out = Tiny(self.data * other.data, {parents}, "*")
    def _backward():
        {rule_self}
        {rule_other}
    out._backward = _backward
    return out"""


def _mul(parents: str = "(self, other)", rule_self: str = "self.grad += other.data * out.grad",
         rule_other: str = "other.grad += self.data * out.grad") -> str:  # fmt: skip
    return _MUL.format(parents=parents, rule_self=rule_self, rule_other=rule_other)


MUL = {  # 09: fix the = of Tiny's __mul__
    "wrong": {
        "= instead of += (the planted bug)": (
            _mul(
                rule_self="self.grad = other.data * out.grad",
                rule_other="other.grad = self.data * out.grad",
            ),
            "At t = 3",
        ),
        "the factors swapped": (
            _mul(
                rule_self="self.grad += self.data * out.grad",
                rule_other="other.grad += other.data * out.grad",
            ),
            "At x = 0.5, y = −1.5",
        ),
        "no * out.grad": (
            _mul(rule_self="self.grad += other.data", rule_other="other.grad += self.data"),
            "At x = 2, y = −0.25",
        ),
        "parents (self,) only": (_mul(parents="(self,)"), "does not lead back to"),
        "parents ()": (_mul(parents="()"), "does not lead back to x"),
        "only one of the two rules": (_mul(rule_self="pass"), "At x = 0.5, y = −1.5"),
        "the rules as out.data / operand (0 has no quotient)": (
            _mul(
                rule_self="self.grad += out.data / self.data * out.grad",
                rule_other="other.grad += out.data / other.data * out.grad",
            ),
            "ZeroDivisionError",
        ),
        "parents (self) without the comma": (_mul(parents="(self)"), "not a tuple of nodes"),
    },
    "right": {
        "parents in a set, as micrograd": _mul(parents="{self, other}"),
        "parents listed (other, self): the same product": _mul(parents="(other, self)"),
        "the rules through local names": """def my_mul(self, other):
    if not isinstance(other, Tiny):
        other = Tiny(other)
    a, b = self, other
    out = Tiny(a.data * b.data, (a, b), "*")
    def _backward():
        a.grad = a.grad + b.data * out.grad
        b.grad = b.grad + a.data * out.grad
    out._backward = _backward
    return out""",
    },
}

_HAND_DIV = """def my_truediv(self, other):
    other = other if isinstance(other, Tiny) else Tiny(other)
    out = Tiny(self.data / other.data, {parents}, "/")
    def _backward():
        {rule_self}
        {rule_other}
    out._backward = _backward
    return out"""


_B_RULE = "other.grad += -self.data / other.data**2 * out.grad"


def _div(parents: str = "(self, other)", rule_self: str = "self.grad += out.grad / other.data",
         rule_other: str = _B_RULE) -> str:  # fmt: skip
    return _HAND_DIV.format(parents=parents, rule_self=rule_self, rule_other=rule_other)


DIV = {  # 08: __truediv__ for Tiny
    "wrong": {
        "upside down: other * self**-1": (
            "def my_truediv(self, other):\n    return other * self**-1",
            "the right value is",
        ),
        "a quotient rule with the sign of the b rule lost": (
            _div(rule_other="other.grad += self.data / other.data**2 * out.grad"),
            "At x = 1.5, y = −0.5",
        ),
        "a quotient rule without * out.grad": (
            _div(
                rule_self="self.grad += 1 / other.data",
                rule_other="other.grad += -self.data / other.data**2",
            ),
            "At x = 2, y = 0.25",
        ),
        "a quotient rule with parents (self,) only": (
            _div(parents="(self,)"),
            "does not lead back to",
        ),
        "a quotient rule with = instead of +=": (
            _div(
                rule_self="self.grad = out.grad / other.data",
                rule_other="other.grad = -self.data / other.data**2 * out.grad",
            ),
            "At t = 0.75",
        ),
        "a quotient rule with its parents listed (other, self)": (
            _div(parents="(other, self)"),
            "lists its parents as (y, x)",
        ),
        "divides by the number other.data": (
            "def my_truediv(self, other):\n"
            "    other = other if isinstance(other, Tiny) else Tiny(other)\n"
            "    return self * (1 / other.data)",
            "does not lead back to y",
        ),
    },
    "right": {
        "the quotient rule by hand": _div(),
        "a reciprocal in brackets": "def my_truediv(self, other):\n    return self * (other**-1)",
        "a reciprocal of the upside-down quotient": (
            "def my_truediv(self, other):\n    return (other * self**-1) ** -1"
        ),
    },
}
