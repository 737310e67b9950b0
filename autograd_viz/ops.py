"""The op table: one row per operation, saying how the viewers write and name it.

A row holds what a derivation needs in words and symbols — how the operation is written
(`s = x + y`), its local derivative as a formula (`∂z/∂s = y`, `∂t/∂x = 1 − t²`), its name
in prose ("the product") and as a subscript ("mul"), the symbol drawn in its graph node,
and whether it may name a neuron's activation. It holds no numbers: every number of a
local derivative comes from the engine's own backward rule (`Graph.contributions`), so a
derivation can never disagree with `backward()`.

Adding an operation to the package is the engine method plus one row here. An operation
without a row still traces: it is written as a function call (`sinh(x)`) and its local
derivatives are shown by number with a generic symbol (`∂y/∂x = 0.8776`), never with
another operation's formula.

    >>> describe("*").noun, describe("**3").short, describe("sinh").known
    ('the product', 'pow', False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autograd_viz._equations import (
    MINUS,
    PRODUCT,
    Eq,
    call,
    caret,
    latex_name,
    minus,
    negated,
    num,
    plus,
    power,
    reciprocal,
    times,
)

__all__ = ["OPS", "Args", "Local", "Op", "describe", "register"]

ONE = Eq("1", "1")

# A local derivative, written two ways: with the operands' names (`2x`) and, when it says
# more than the bare number, with their values (`2 · 3`); None: the number is shown alone.
Local = tuple[Eq, "Eq | None"]


@dataclass(frozen=True)
class Args:
    """What a row writes with: the operands and output as names and as numbers."""

    names: Sequence[Eq]  # the operands' names, in operand order
    numbers: Sequence[Eq]  # the operands' values, formatted
    values: Sequence[float]  # the operands' values
    out: Eq  # the output's name
    out_number: Eq
    out_value: float
    exponent: float | None  # the number of x**n
    digits: int


@dataclass(frozen=True)
class Op:
    """One operation as the viewers describe it.

    * `key`: the engine's op string ("+", "tanh"); "**n" stands for every `x ** number`.
    * `noun`: its name in prose, as in "∂z/∂y (via the product)"; `short`: as a subscript.
    * `forward(operands, args)`: the right-hand side of `out = ...`, given the operands as
      names or as numbers (the same function writes both).
    * `local(k, args)`: the local derivative ∂out/∂(operand k) as (with names, with
      numbers or None); None for the whole `local`: unknown, written `∂out/∂x`.
    * `activation`: the op may be a neuron's activation (a collapsed box names it).
    * `symbol`: drawn in the graph's operation node (default: the op string).
    * `reads`: the local derivative for one operand reads the others (`∂(a·b)/∂a = b`);
      False where it does not (`+`), so an animation does not light them up.
    """

    key: str
    noun: str
    short: str
    forward: Callable[[Sequence[Eq], Args], Eq]
    local: Callable[[int, Args], Local] | None
    activation: bool = False
    symbol: str | None = None
    reads: bool = True

    @property
    def known(self) -> bool:
        """False for the generic row of an operation the table does not know."""
        return self.local is not None

    def drawn(self, op: str) -> str:
        """The text of the operation node in a drawing."""
        return self.symbol or op


def _function(name: str, latex: str) -> Callable[[Sequence[Eq], Args], Eq]:
    return lambda xs, a: call(name, latex, *xs)


# ---- the rows ---------------------------------------------------------------------------


def _power_local(k: int, a: Args) -> Local:
    n = a.exponent
    if n == 0 or n == 1:  # x**0 is the constant 1 (slope 0, even at x = 0); x**1 has slope 1
        return num(n, a.digits), num(n, a.digits)
    coefficient = Eq(MINUS, "-") if n == -1 else num(n, a.digits)
    pw = power(a.names[0], n - 1, a.digits)
    if len(pw.text) == 1 or re.fullmatch(r"[A-Za-z][⁰¹²³⁴⁵⁶⁷⁸⁹⁻]*", pw.text):
        symbolic = Eq(coefficient.text + pw.text, coefficient.latex + pw.latex, PRODUCT)  # 3x²
    else:
        symbolic = times(num(n, a.digits), pw)
    return symbolic, times(num(n, a.digits), power(a.numbers[0], n - 1, a.digits))


def _caret_local(k: int, a: Args) -> Local:
    if k == 0:  # d(a^b)/da = b · a^(b − 1)
        b = a.values[1]
        symbolic = times(a.names[1], caret(a.names[0], minus(a.names[1], ONE)))
        return symbolic, times(a.numbers[1], caret(a.numbers[0], num(b - 1, a.digits)))
    symbolic = times(a.out, call("log", r"\log", a.names[0]))  # d(a^b)/db = a^b · log(a)
    return symbolic, times(a.out_number, call("log", r"\log", a.numbers[0]))


def _relu_local(k: int, a: Args) -> Local:
    x = a.names[0]
    return Eq(f"(1 if {x.text} > 0 else 0)", rf"\mathbb{{1}}[{x.latex} > 0]"), None


OPS: dict[str, Op] = {}


def register(op: Op) -> Op:
    """Add (or replace) a row; returns it. The table is keyed by the engine's op string."""
    if not isinstance(op, Op):
        raise TypeError(f"register() needs an Op row, got {type(op).__name__}")
    OPS[op.key] = op
    return op


for _row in (
    Op("+", "the sum", "add", lambda xs, a: plus(*xs), lambda k, a: (ONE, ONE), reads=False),
    Op("*", "the product", "mul", lambda xs, a: times(*xs),
       lambda k, a: (a.names[1 - k], a.numbers[1 - k]), symbol="×"),
    Op("**n", "the power", "pow", lambda xs, a: power(xs[0], a.exponent, a.digits), _power_local),
    Op("**", "the power", "pow", lambda xs, a: caret(*xs), _caret_local),
    Op("ReLU", "ReLU", "relu", _function("ReLU", r"\mathrm{ReLU}"), _relu_local, activation=True),
    Op("tanh", "tanh", "tanh", _function("tanh", r"\tanh"), lambda k, a: (
        minus(ONE, power(a.out, 2, a.digits)), minus(ONE, power(a.out_number, 2, a.digits))
    ), activation=True),
    Op("sigmoid", "σ", "sigmoid", _function("σ", r"\sigma"), lambda k, a: (
        times(a.out, minus(ONE, a.out)), times(a.out_number, minus(ONE, a.out_number))
    ), activation=True),
    Op("exp", "exp", "exp", _function("exp", r"\exp"),
       lambda k, a: (call("exp", r"\exp", a.names[0]), None)),
    Op("log", "log", "log", _function("log", r"\log"),
       lambda k, a: (reciprocal(a.names[0]), reciprocal(a.numbers[0]))),
    Op("sin", "sin", "sin", _function("sin", r"\sin"),
       lambda k, a: (call("cos", r"\cos", a.names[0]), call("cos", r"\cos", a.numbers[0]))),
    Op("cos", "cos", "cos", _function("cos", r"\cos"), lambda k, a: (
        negated(call("sin", r"\sin", a.names[0])), negated(call("sin", r"\sin", a.numbers[0]))
    )),
):  # fmt: skip
    register(_row)
del _row


def describe(op: str) -> Op:
    """The row for an engine op string: its own, "**n" for `x ** number`, else a generic
    row that writes the op as a function call and its derivatives by number.

    >>> describe("tanh").activation, describe("+").activation
    (True, False)
    """
    row = OPS.get(op)
    if row is not None and row.key != "**n":
        return row
    if op.startswith("**") and op != "**" and "**n" in OPS:
        return OPS["**n"]
    short = re.sub(r"\W+", "", op) or "op"
    return Op(op, op, short, _function(op, rf"\operatorname{{{_latex_op(op)}}}"), None)


def _latex_op(op: str) -> str:
    name = latex_name(op)
    return name[len(r"\mathrm{") : -1] if name.startswith(r"\mathrm{") else name
