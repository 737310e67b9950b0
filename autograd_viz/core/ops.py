"""The op table: one row per operation, the one place the kit describes an operation, so no other
module keeps a list of its own. A row says how a derivation writes and names it (`s = x + y`, its
local derivative as a formula, "the product", "mul", the symbol drawn in its node, whether it may
be a neuron's activation and the slope a neuron step shows) and what other readers need (the
`Value` method and number of operands, other engines' spellings, its rule in a sentence); `derived`
rows name operations the engine builds from others (`a − b`) that another engine's node may carry.
A row holds no numbers: every local derivative's number comes from the engine's own backward rule,
so a derivation can never disagree with `backward()`, and an operation without a row still traces,
written as a function call with its derivatives shown by number, never with another operation's
formula (docs/architecture.md: where to add an operation).

    >>> describe("*").noun, describe("**3").short, describe("sinh").known
    ('the product', 'pow', False)
    >>> row("relu").key, row("__truediv__").rule, activations()
    ('ReLU', 'the quotient rule', ('relu', 'tanh', 'sigmoid'))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autograd_viz.core._equations import (
    MINUS,
    POWER,
    PRODUCT,
    Eq,
    call,
    caret,
    latex_name,
    minus,
    negated,
    num,
    par,
    plus,
    power,
    reciprocal,
    times,
)

__all__ = ["DERIVED", "OPS", "POWER_N", "Args", "Local", "Op", "activation_row", "activations",
           "describe", "register", "row", "rows"]  # fmt: skip

ONE = Eq("1", "1")
POWER_N = "**n"  # the key of every `x ** number` (the engine's op string is "**2", "**0.5")

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

    What the other readers need (each has a default where one fits):

    * `method`: the `Value` method that makes it (`__mul__`, `tanh`; default: `key`). An
      activation's method is the name `nn` takes, `act="tanh"`; another engine's operation
      is re-built with it on the kit's own Value to check their numbers.
    * `arity`: how many operands it takes (1 or 2; `x ** number` has 1).
    * `aliases`: spellings another engine may use besides `key`, `method` and `short`
      (any case): `"truediv"` for "/", `"ln"` for "log".
    * `rule`: its backward rule in a sentence (default "<noun>'s rule").
    * `written`: how a message writes it in plain text, `{0}`/`{1}` the operands
      (default `key({0})`).
    * `slope`: an activation's local slope in a neuron step, `{z}` the pre-activation's
      value (`ReLU′({z})`, `(1 − tanh²)`); `blocked`: why the gradient stops where that slope
      is 0 (`z ≤ 0`), "" to say nothing.
    * `derived`: the engine builds it from other operations (`a − b`), so none of its nodes
      carries this op; the row is for another engine's node (PyTorch's `SubBackward0`).
    """

    key: str
    noun: str
    short: str
    forward: Callable[[Sequence[Eq], Args], Eq]
    local: Callable[[int, Args], Local] | None
    activation: bool = False
    symbol: str | None = None
    reads: bool = True
    method: str = ""
    arity: int = 1
    aliases: tuple[str, ...] = ()
    rule: str = ""
    written: str = ""
    slope: str = ""
    blocked: str = ""
    derived: bool = False

    def __post_init__(self) -> None:  # the defaults that depend on other fields
        if not self.method:
            object.__setattr__(self, "method", self.key)
        if not self.rule:
            object.__setattr__(self, "rule", f"{self.noun}'s rule")
        if not self.written:
            object.__setattr__(self, "written", self.key + "({0})")

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every name another engine may give it (compared in lower case)."""
        names = (self.key, self.method, self.short, *self.aliases)
        return tuple(dict.fromkeys(n.lower() for n in names))

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


def _quotient(xs: Sequence[Eq], a: Args) -> Eq:
    top, b = par(xs[0], PRODUCT), par(xs[1], POWER)  # (a + b) / c, a / (b · c)
    return Eq(f"{top.text} / {b.text}", rf"\frac{{{xs[0].latex}}}{{{xs[1].latex}}}", PRODUCT)


def _difference_local(k: int, a: Args) -> Local:  # a − b (and −a): 1 for a, −1 for b
    if k == 0 and len(a.names) == 2:
        return ONE, ONE
    return num(-1, a.digits), num(-1, a.digits)


def _quotient_local(k: int, a: Args) -> Local:  # ∂(a / b)/∂a = 1/b, ∂(a / b)/∂b = −a/b²
    if k == 0:
        return reciprocal(a.names[1]), reciprocal(a.numbers[1])
    symbolic = _quotient([a.names[0], power(a.names[1], 2, a.digits)], a)
    numbers = _quotient([a.numbers[0], power(a.numbers[1], 2, a.digits)], a)
    return negated(symbolic), negated(numbers)


OPS: dict[str, Op] = {}  # the engine's op strings ("**n" for every x ** number)
DERIVED: dict[str, Op] = {}  # operations the engine builds from others, for other engines


def register(op: Op) -> Op:
    """Add (or replace) a row; returns it. The table is keyed by the engine's op string
    (a `derived` row by its own name: "-", "/", "neg")."""
    if not isinstance(op, Op):
        raise TypeError(f"register() needs an Op row, got {type(op).__name__}")
    (DERIVED if op.derived else OPS)[op.key] = op
    return op


for _row in (
    Op("+", "the sum", "add", lambda xs, a: plus(*xs), lambda k, a: (ONE, ONE), reads=False,
       method="__add__", arity=2, aliases=("AddBackward0",), rule="the sum rule",
       written="{0} + {1}"),
    Op("*", "the product", "mul", lambda xs, a: times(*xs),
       lambda k, a: (a.names[1 - k], a.numbers[1 - k]), symbol="×",
       method="__mul__", arity=2, aliases=("MulBackward0", "MulBackward1"), rule="the product rule",
       written="{0} · {1}"),
    Op(POWER_N, "the power", "pow", lambda xs, a: power(xs[0], a.exponent, a.digits),
       _power_local, method="__pow__", rule="the power rule", written="{0}**{n}"),
    Op("**", "the power", "pow", lambda xs, a: caret(*xs), _caret_local,
       method="__pow__", arity=2, aliases=("PowBackward0", "PowBackward1"), rule="the power rule",
       written="{0}**{1}"),
    Op("ReLU", "ReLU", "relu", _function("ReLU", r"\mathrm{ReLU}"), _relu_local, activation=True,
       method="relu", aliases=("ReluBackward0",), slope="ReLU′({z})", blocked="z ≤ 0"),
    Op("tanh", "tanh", "tanh", _function("tanh", r"\tanh"), lambda k, a: (
        minus(ONE, power(a.out, 2, a.digits)), minus(ONE, power(a.out_number, 2, a.digits))
    ), activation=True, aliases=("TanhBackward0",), rule="tanh's rule (1 − tanh²)",
       slope="(1 − tanh²)"),
    Op("sigmoid", "σ", "sigmoid", _function("σ", r"\sigma"), lambda k, a: (
        times(a.out, minus(ONE, a.out)), times(a.out_number, minus(ONE, a.out_number))
    ), activation=True, aliases=("σ", "SigmoidBackward0"), rule="the sigmoid rule σ(1 − σ)",
       slope="σ(1 − σ)"),
    Op("exp", "exp", "exp", _function("exp", r"\exp"),
       lambda k, a: (call("exp", r"\exp", a.names[0]), None), aliases=("ExpBackward0",)),
    Op("log", "log", "log", _function("log", r"\log"),
       lambda k, a: (reciprocal(a.names[0]), reciprocal(a.numbers[0])),
       aliases=("ln", "LogBackward0"), rule="log's rule (1/x)"),
    Op("sin", "sin", "sin", _function("sin", r"\sin"),
       lambda k, a: (call("cos", r"\cos", a.names[0]), call("cos", r"\cos", a.numbers[0])),
       aliases=("SinBackward0",), rule="sin's rule (cos)"),
    Op("cos", "cos", "cos", _function("cos", r"\cos"), lambda k, a: (
        negated(call("sin", r"\sin", a.names[0])), negated(call("sin", r"\sin", a.numbers[0]))
    ), aliases=("CosBackward0",), rule="cos's rule (−sin)"),
    # built from the rows above by our engine; another engine may make them one node
    Op("-", "the difference", "sub", lambda xs, a: minus(*xs), _difference_local, reads=False,
       derived=True, method="__sub__", arity=2, aliases=("SubBackward0",),
       rule="the difference rule", written="{0} − {1}"),
    Op("/", "the quotient", "div", _quotient, _quotient_local, derived=True,
       method="__truediv__", arity=2, aliases=("truediv", "DivBackward0", "DivBackward1"),
       rule="the quotient rule", written="{0} / {1}"),
    Op("neg", "the negation", "neg", lambda xs, a: negated(xs[0]), _difference_local,
       reads=False, derived=True, method="__neg__", aliases=("NegBackward0",),
       rule="negation's rule", written="−{0}"),
):  # fmt: skip
    register(_row)
del _row


def describe(op: str) -> Op:
    """The row for an engine op string: its own, "**n" for `x ** number`, a derived row for
    another engine's node that carries one ("-", "/", "neg": PyTorch's SubBackward0), else a
    generic row that writes the op as a function call and its derivatives by number.

    >>> describe("tanh").activation, describe("+").activation
    (True, False)
    """
    found = OPS.get(op) or DERIVED.get(op)  # a derived row: another engine's `a − b` node
    if found is not None and found.key != POWER_N:
        return found
    if op.startswith("**") and op != "**" and POWER_N in OPS:
        return OPS[POWER_N]
    short = re.sub(r"\W+", "", op) or "op"
    return Op(op, op, short, _function(op, rf"\operatorname{{{_latex_op(op)}}}"), None)


def _latex_op(op: str) -> str:
    name = latex_name(op)
    return name[len(r"\mathrm{") : -1] if name.startswith(r"\mathrm{") else name


def rows() -> list[Op]:
    """Every row, the engine's first, then the derived ones (read at call time, so a row
    registered later is seen)."""
    return [*OPS.values(), *DERIVED.values()]


def row(spelling: str) -> Op | None:
    """The row another engine means by `spelling` ("+", "add", "__add__", "ReLU", "relu"),
    in any case; None if no row has that spelling. `x ** number` is `POWER_N`'s row, which
    no spelling names ("pow" is the power of two operands).

    >>> row("__mul__").key, row("Tanh").key, row("softsign")
    ('*', 'tanh', None)
    """
    table = (*OPS.values(), *DERIVED.values())
    if table != _spelt[0]:  # the table changed (a row registered or removed): index it again
        index: dict[str, Op] = {}
        for r in table:
            for name in r.spellings if r.key != POWER_N else ():
                index.setdefault(name, r)
        _spelt[:] = [table, index]
    return _spelt[1].get(spelling.lower())


# The spelling index of the table as it was last read: (its rows, spelling -> row). Other
# engines' graphs ask once per node, so it is built once, not per question.
_spelt: list = [(), {}]


def activations() -> tuple[str, ...]:
    """The names `nn` takes as `act=`: the methods of the activation rows, in table order."""
    return tuple(r.method for r in OPS.values() if r.activation)


def activation_row(act: str) -> Op | None:
    """The activation row whose method is `act` ("relu" -> the ReLU row); None if none."""
    for r in OPS.values():  # a plain loop: nn asks on every neuron's call
        if r.method == act and r.activation:
            return r
    return None
