"""The operations a learner's engine may spell, in the kit's terms.

A micrograd-style class names its operations as it likes (`"+"`, `"add"`, `"ReLU"`,
`"relu"`, `"**2"`). `canonical` maps a spelling to one name; from that name the kit knows
how the operation is spelt in its own engine and op table (`ENGINE_OPS`), what its rule
is called in a sentence (`RULE_NAMES`), which method of the learner's class made it
(`method_name`), and the right local derivatives: from the kit's own `Value`
(`table_partials`, the numbers of the op table's rules) or, for an operation it does not
know, measured by central differences on the learner's own forward method
(`numeric_partials`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from autograd_viz.engine import Value

__all__ = ["ENGINE_OPS", "RULE_NAMES", "canonical_op", "method_name", "numeric_partials",
           "op_of_method", "rerun", "table_partials", "table_value", "what_it_computes",
           "written"]  # fmt: skip

# How each operation the kit knows is spelt, and how to build it from the kit's own Value.
_SPELLINGS = {
    "+": "+", "add": "+", "__add__": "+",
    "*": "*", "mul": "*", "__mul__": "*",
    "-": "-", "sub": "-", "__sub__": "-",
    "/": "/", "div": "/", "truediv": "/", "__truediv__": "/",
    "**": "**", "pow": "**", "__pow__": "**",
    "relu": "relu", "tanh": "tanh", "exp": "exp", "log": "log", "ln": "log",
    "sigmoid": "sigmoid", "σ": "sigmoid", "neg": "neg", "__neg__": "neg",
    "sin": "sin", "cos": "cos",
}  # fmt: skip
_BUILD: dict[str, Callable[..., Value]] = {
    "+": lambda a, b: a + b,
    "*": lambda a, b: a * b,
    "-": lambda a, b: a - b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "relu": lambda a: a.relu(),
    "tanh": lambda a: a.tanh(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "sigmoid": lambda a: a.sigmoid(),
    "neg": lambda a: -a,
    "sin": lambda a: a.sin(),
    "cos": lambda a: a.cos(),
}
RULE_NAMES = {
    "+": "the sum rule",
    "*": "the product rule",
    "-": "the difference rule",
    "/": "the quotient rule",
    "**": "the power rule",
    "relu": "ReLU's rule",
    "tanh": "tanh's rule (1 − tanh²)",
    "exp": "exp's rule",
    "log": "log's rule (1/x)",
    "sigmoid": "the sigmoid rule σ(1 − σ)",
    "neg": "negation's rule",
    "sin": "sin's rule (cos)",
    "cos": "cos's rule (−sin)",
}
_METHODS = {
    "+": "__add__", "*": "__mul__", "-": "__sub__", "/": "__truediv__", "**": "__pow__",
    "relu": "relu", "tanh": "tanh", "exp": "exp", "log": "log", "sigmoid": "sigmoid",
    "neg": "__neg__", "sin": "sin", "cos": "cos",
}  # fmt: skip
_ARITY = {"+": 2, "*": 2, "-": 2, "/": 2, "**": 2, "neg": 1}


def canonical_op(op: str, n_operands: int) -> str | None:
    text = op.strip()
    if re.fullmatch(r"\*\*\s*\(?\s*[-+]?[0-9.]+(?:e[-+]?\d+)?\s*\)?", text) and n_operands == 1:
        return "**n"
    name = _SPELLINGS.get(text, _SPELLINGS.get(text.lower()))
    if name == "**" and n_operands == 1:
        return "**n"
    return name


def method_name(node: object, canonical: str | None) -> str:
    """The learner's method that made the node: `__mul__` from the closure's qualified name
    (`Value.__mul__.<locals>._backward`), else the usual name for the operation."""
    rule = getattr(node, "_backward", None)
    qualname = getattr(getattr(rule, "__func__", rule), "__qualname__", "")
    parts = qualname.split(".")
    if "<locals>" in parts:  # the method is just before the last <locals>
        owner = parts[len(parts) - 1 - parts[::-1].index("<locals>") - 1]
        if owner not in ("<lambda>", "__init__"):  # __init__'s is the do-nothing default
            return owner
    if canonical == "**n":
        return "__pow__"
    return _METHODS.get(canonical or "", "")


def op_of_method(method: str) -> str | None:
    """The operation a method of the usual name makes (`__mul__` -> "*"), else None."""
    return next((op for op, name in _METHODS.items() if name == method), None)


def _build(canonical: str, args: list[float], exponent: float | None) -> tuple[list, Value]:
    leaves = [Value(a) for a in args]
    if canonical == "**n":
        if exponent is None or len(leaves) != 1:
            raise TypeError("not x ** n")
        return leaves, leaves[0] ** exponent
    if len(leaves) != _ARITY.get(canonical, 1):
        raise TypeError("wrong number of operands")
    return leaves, _BUILD[canonical](*leaves)


def table_value(canonical: str | None, args: list[float], exponent: float | None) -> float | None:
    """The value the kit's own engine gives for the operation on `args`; None where the
    table has no row for it or the operation has no value there (log of 0)."""
    if canonical is None or (canonical not in _BUILD and canonical != "**n"):
        return None
    try:
        return _build(canonical, args, exponent)[1].data
    except (ArithmeticError, ValueError, TypeError):
        return None


def same(a: float, b: float) -> bool:
    """The forward values agree (a float engine's tanh may differ from ours in the last bits)."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))


def what_it_computes(
    data: float, args: list[float], exponent: float | None, skip: str | None
) -> tuple[str, bool] | None:
    """An operation the kit knows (not `skip`) that gives `data` from `args` — with the
    operands swapped if the bool says so — to say what a wrong forward line computes."""
    if len(args) == 2:
        tries = [("+", False), ("-", False), ("-", True), ("*", False), ("/", False),
                 ("/", True), ("**", False), ("**", True)]  # fmt: skip
    else:
        tries = [(op, False) for op in ("neg", "relu", "tanh", "exp", "log", "sigmoid", "sin",
                                        "cos")]  # fmt: skip
    for op, swapped in tries:
        if op == skip and not swapped:
            continue
        got = table_value(op, args[::-1] if swapped else args, exponent)
        if got is not None and same(got, data):
            return op, swapped
    return None


_WRITTEN = {"+": "{0} + {1}", "-": "{0} − {1}", "*": "{0} · {1}", "/": "{0} / {1}",
            "**": "{0}**{1}", "neg": "−{0}", "relu": "ReLU({0})"}  # fmt: skip


def written(canonical: str, names: list[str], exponent: float | None = None) -> str:
    """The operation written out with `names`: `x + y`, `tanh(x)`, `x**2`."""
    if canonical == "**n":
        return f"{names[0]}**{exponent:g}"
    return _WRITTEN.get(canonical, canonical + "({0})").format(*names)


def rerun(node: object, method: str, args: list[float], exponent: float | None) -> float | None:
    """The learner's own forward method run again on fresh values of their class; None where
    it cannot be (no such method, their constructor or method refuses)."""
    cls = type(node)
    if not method or not callable(getattr(cls, method, None)):
        return None
    try:
        fresh = [cls(v) for v in args]
        if exponent is not None and len(fresh) == 1:
            result = getattr(fresh[0], method)(exponent)
        else:
            result = getattr(fresh[0], method)(*fresh[1:])
        return float(result.data)
    except Exception:  # their code: it may refuse plain numbers
        return None


def table_partials(
    canonical: str | None, args: list[float], exponent: float | None, result: float | None = None
) -> list[float] | None:
    """∂out/∂(each operand position) from the kit's own engine; None where it has no row,
    or where the operation does not give the node's `result` (a `tanh` that is not tanh)."""
    if canonical is None:
        return None
    try:
        leaves = [Value(a) for a in args]
        if canonical == "**n":
            if exponent is None or len(leaves) != 1:
                return None
            out = leaves[0] ** exponent
        else:
            build = _BUILD[canonical]
            if len(leaves) != _ARITY.get(canonical, 1):
                return None
            out = build(*leaves)
        if result is not None and not math.isclose(out.data, result, rel_tol=1e-9, abs_tol=1e-12):
            return None
        out.backward()
    except (ArithmeticError, ValueError, TypeError):
        return None
    return [leaf.grad for leaf in leaves]


def numeric_partials(
    node: object, method: str, args: list[float], exponent: float | None, out: float
) -> list[float] | None:
    """∂out/∂(each operand position) by central differences on the learner's own forward
    method, re-run on fresh values of their class; None where it cannot be re-run."""
    cls = type(node)
    if not method or not callable(getattr(cls, method, None)):
        return None

    def forward(values: list[float]) -> float:
        fresh = [cls(v) for v in values]
        if exponent is not None and len(fresh) == 1:
            result = getattr(fresh[0], method)(exponent)
        else:
            result = getattr(fresh[0], method)(*fresh[1:])
        return float(result.data)

    try:
        if not math.isclose(forward(args), out, rel_tol=1e-9, abs_tol=1e-12):
            return None  # re-running does not reproduce the node: not the method we think
        partials = []
        for k, a in enumerate(args):
            h = 1e-6 * max(1.0, abs(a))
            up, down = list(args), list(args)
            up[k], down[k] = a + h, a - h
            partials.append((forward(up) - forward(down)) / (2 * h))
        return partials
    except Exception:  # their forward may refuse numbers, or fail near a kink: unchecked
        return None


# The engine's op string for each operation the kit knows (`**n` is spelt with its number).
ENGINE_OPS = {
    "+": "+", "*": "*", "**": "**", "relu": "ReLU", "tanh": "tanh", "exp": "exp",
    "log": "log", "sigmoid": "sigmoid", "sin": "sin", "cos": "cos",
}  # fmt: skip
