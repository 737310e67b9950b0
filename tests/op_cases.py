"""The operations under test, once: every test that loops over operations reads this table.

Each `Case` says how to apply one operation to Values and to plain floats, its sympy
expression (the independent oracle for derivatives), where it is smooth enough for a
finite-difference check, and which engine op string it leaves in the graph. `programs()`
is the one random-graph strategy: a random DAG over these cases (operands reused, and
numbers written into the expression as constants), replayable on Values or floats.

Adding an operation to the package: add its `Case` here (the third of the three edits in
docs/architecture.md, after the engine method and the `autograd_viz.core.ops` row), and the sympy,
finite-difference, trace-equals-engine, render and frames tests all pick it up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from autograd_viz import Parameter, Value


@dataclass(frozen=True)
class Case:
    name: str
    arity: int
    value: Callable  # on Values (and a number for the second operand, where allowed)
    float: Callable  # the same on plain floats, computed independently of the engine
    sympy: Callable  # the same on sympy symbols
    tame: Callable  # tame(a, b): smooth here, with room for a finite-difference step
    op: str  # the engine op string it leaves on the result ("**n": any number exponent)


def _sympy():
    import sympy

    return sympy


CASES: tuple[Case, ...] = (
    Case("add", 2, lambda a, b: a + b, lambda a, b: a + b, lambda a, b: a + b,
         lambda a, b: True, "+"),
    Case("sub", 2, lambda a, b: a - b, lambda a, b: a - b, lambda a, b: a - b,
         lambda a, b: True, "+"),
    Case("mul", 2, lambda a, b: a * b, lambda a, b: a * b, lambda a, b: a * b,
         lambda a, b: True, "*"),
    Case("div", 2, lambda a, b: a / b, lambda a, b: a / b, lambda a, b: a / b,
         lambda a, b: abs(b) > 0.1, "*"),
    Case("pow", 2, lambda a, b: a**b, math.pow, lambda a, b: a**b,
         lambda a, b: 0.1 < a < 10 and abs(b) < 3, "**"),
    Case("neg", 1, lambda a: -a, lambda a: -a, lambda a: -a, lambda a: True, "*"),
    Case("square", 1, lambda a: a**2, lambda a: a * a, lambda a: a**2, lambda a: True, "**n"),
    Case("cube", 1, lambda a: a**3, lambda a: a * a * a, lambda a: a**3, lambda a: True, "**n"),
    Case("recip", 1, lambda a: a**-1, lambda a: 1 / a, lambda a: 1 / a,
         lambda a: abs(a) > 0.1, "**n"),
    Case("sqrt", 1, lambda a: a**0.5, math.sqrt, lambda a: _sympy().sqrt(a),
         lambda a: a > 0.1, "**n"),
    Case("relu", 1, Value.relu, lambda a: max(a, 0.0),
         lambda a: _sympy().Piecewise((a, a > 0), (0, True)), lambda a: abs(a) > 0.1, "ReLU"),
    Case("tanh", 1, Value.tanh, math.tanh, lambda a: _sympy().tanh(a), lambda a: True, "tanh"),
    Case("sigmoid", 1, Value.sigmoid, lambda a: 1 / (1 + math.exp(-a)),
         lambda a: 1 / (1 + _sympy().exp(-a)), lambda a: abs(a) < 30, "sigmoid"),
    Case("exp", 1, Value.exp, math.exp, lambda a: _sympy().exp(a), lambda a: a < 4, "exp"),
    Case("log", 1, Value.log, math.log, lambda a: _sympy().log(a), lambda a: a > 0.1, "log"),
    Case("sin", 1, Value.sin, math.sin, lambda a: _sympy().sin(a), lambda a: True, "sin"),
    Case("cos", 1, Value.cos, math.cos, lambda a: _sympy().cos(a), lambda a: True, "cos"),
)  # fmt: skip
BY_NAME = {c.name: c for c in CASES}


def _tame(case: Case, a: float, b: float | None) -> bool:
    return case.tame(a) if case.arity == 1 else case.tame(a, b)


@dataclass(frozen=True)
class Program:
    """A random expression: leaf values, then steps (case name, operand i, operand j or a
    number constant, label?) whose operands are earlier nodes."""

    leaves: tuple[float, ...]
    steps: tuple[tuple[str, int, int | float | None, bool], ...]
    trainable: tuple[bool, ...] = ()  # which leaves are nn Parameters (weights)

    def floats(self, leaves: list[float] | None = None) -> float:
        """The result computed on plain floats (optionally at other leaf values)."""
        values = list(self.leaves if leaves is None else leaves)
        for name, i, j, _ in self.steps:
            case = BY_NAME[name]
            b = values[j] if isinstance(j, int) else j
            values.append(case.float(values[i]) if case.arity == 1 else case.float(values[i], b))
        return values[-1]

    def build(self) -> tuple[list[Value], Value]:
        """The leaves (labelled x0, x1, ...; weights w0, ...) and the result, as Values."""
        weights = self.trainable or (False,) * len(self.leaves)
        leaves = [
            Parameter(v, label=f"w{k}") if w else Value(v, label=f"x{k}")
            for k, (v, w) in enumerate(zip(self.leaves, weights))
        ]
        values: list[Value] = list(leaves)
        for name, i, j, labelled in self.steps:
            case = BY_NAME[name]
            b = values[j] if isinstance(j, int) else j
            out = case.value(values[i]) if case.arity == 1 else case.value(values[i], b)
            if labelled:
                out.label = f"n{len(values)}"
            values.append(out)
        return leaves, values[-1]


@st.composite
def programs(draw, cases: tuple[Case, ...] = CASES, max_steps: int = 12) -> Program:
    """The one random-graph strategy: a DAG over `cases`, every operand kept tame (away
    from kinks and singularities) and every value of moderate size."""
    leaves = draw(
        st.lists(st.floats(-2, 2).filter(lambda v: abs(v) > 0.05), min_size=1, max_size=4)
    )
    values = list(leaves)
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        case = draw(st.sampled_from(cases))
        i = draw(st.integers(0, len(values) - 1))
        j: int | float | None = None
        b = None
        if case.arity == 2:
            if case.name != "pow" and draw(st.booleans()):  # a number in the expression
                j = b = draw(st.floats(-3, 3).filter(lambda v: abs(v) > 0.1))
            else:
                j = draw(st.integers(0, len(values) - 1))
                b = values[j]
        if not _tame(case, values[i], b):
            continue
        result = case.float(values[i]) if case.arity == 1 else case.float(values[i], b)
        if not abs(result) < 50:
            continue
        values.append(result)
        steps.append((case.name, i, j, draw(st.booleans())))
    if not steps:  # at least one operation
        steps.append(("mul", 0, 1.5, False))
    trainable = tuple(draw(st.booleans()) and k > 0 for k in range(len(leaves)))
    return Program(tuple(leaves), tuple(steps), trainable)


def expressions(**kwargs) -> st.SearchStrategy[Value]:
    """The same strategy, giving the result Value of each program."""
    return programs(**kwargs).map(lambda p: p.build()[1])
