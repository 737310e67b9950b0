"""The operations a learner's engine may spell, in the kit's terms: `canonical_op` maps a spelling
(`"+"`, `"add"`, `"ReLU"`, `"**2"`) to its row of the op table (`autograd_viz.core.ops`), and
everything else is read off that row: the kit's own spelling (`engine_op`), the rule's name in a
sentence (`rule_name`), the learner's method that made it (`method_name`), and the right local
derivatives, from the kit's own `Value` (`table_partials`) or, for an operation the table does not
know, by central differences on the learner's forward method (`numeric_partials`). It keeps no list
of operations of its own, so a row added to the table is known here at once."""

from __future__ import annotations

import math
import re

from autograd_viz.core.ops import DERIVED, OPS, POWER_N, Op, row, rows
from autograd_viz.engine import Value

__all__ = ["canonical_op", "engine_op", "identify", "method_name", "numeric_partials",
           "op_of_method", "rerun", "rule_name", "table_partials", "table_value",
           "what_it_computes", "written"]  # fmt: skip


def _row(canonical: str | None) -> Op | None:
    """The table's row for a canonical name ("**n" included); None for none."""
    if canonical is None:
        return None
    return OPS.get(canonical) or DERIVED.get(canonical)


def canonical_op(op: str, n_operands: int) -> str | None:
    """The op table's key for another engine's spelling of an operation with `n_operands`
    operands ("relu" -> "ReLU", "**2" -> "**n"); None where no row spells it so."""
    text = op.strip()
    if re.fullmatch(r"\*\*\s*\(?\s*[-+]?[0-9.]+(?:e[-+]?\d+)?\s*\)?", text) and n_operands == 1:
        return POWER_N
    found = row(text)
    name = None if found is None else found.key
    if name == "**" and n_operands == 1:
        return POWER_N
    return name


def engine_op(canonical: str | None) -> str | None:
    """The kit's own engine's op string for a canonical name ("ReLU"); None for an operation
    it builds from others ("-") or does not know. `x ** number` is spelt with its number."""
    found = _row(canonical)
    return None if found is None or found.derived or found.key == POWER_N else found.key


def rule_name(canonical: str) -> str:
    """The operation's backward rule in a sentence ("the product rule")."""
    found = _row(canonical)
    return found.rule if found is not None else f"{canonical}'s rule"


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
    found = _row(canonical)
    return "" if found is None else found.method


def op_of_method(method: str) -> str | None:
    """The operation a method of the usual name makes (`__mul__` -> "*"), else None."""
    return next((r.key for r in rows() if r.key != POWER_N and r.method == method), None)


def _build(canonical: str, args: list[float], exponent: float | None) -> tuple[list, Value]:
    """The operation on fresh Values of the kit's own engine, made by the row's method."""
    found = _row(canonical)
    method = None if found is None else getattr(Value, found.method, None)
    if not callable(method):  # no row, or a row whose engine method is missing
        raise TypeError(f"the kit's Value cannot make {canonical!r}")
    leaves = [Value(a) for a in args]
    if canonical == POWER_N:
        if exponent is None or len(leaves) != 1:
            raise TypeError("not x ** n")
        return leaves, leaves[0] ** exponent
    if len(leaves) != found.arity:
        raise TypeError("wrong number of operands")
    return leaves, method(*leaves)


def table_value(canonical: str | None, args: list[float], exponent: float | None) -> float | None:
    """The value the kit's own engine gives for the operation on `args`; None where the
    table has no row for it or the operation has no value there (log of 0)."""
    if canonical is None:
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
    tries = []
    for r in rows():  # every operation of that many operands (both ways round, for two)
        if r.key != POWER_N and r.arity == len(args):
            tries += [(r.key, False), (r.key, True)] if r.arity == 2 else [(r.key, False)]
    for op, swapped in tries:
        if op == skip and not swapped:
            continue
        got = table_value(op, args[::-1] if swapped else args, exponent)
        if got is not None and same(got, data):
            return op, swapped
    return None


def written(canonical: str, names: list[str], exponent: float | None = None) -> str:
    """The operation written out with `names`: `x + y`, `tanh(x)`, `x**2`."""
    found = _row(canonical)
    form = canonical + "({0})" if found is None else found.written
    return form.format(*names, n=f"{exponent:g}" if exponent is not None else "")


def rerun(node: object, method: str, args: list[float], exponent: float | None) -> float | None:
    """The learner's own forward method run again on fresh values of their class; None where
    it cannot be (no such method, their constructor or method refuses)."""
    if not method or not callable(getattr(type(node), method, None)):
        return None
    try:
        return _forward(type(node), method, args, exponent)
    except Exception:  # their code: it may refuse plain numbers
        return None


def _forward(cls: type, method: str, values: list[float], exponent: float | None) -> float:
    """`method` of the learner's class on fresh values made from `values` (`x ** exponent`
    where the exponent is a plain number), as a float."""
    fresh = [cls(v) for v in values]
    if exponent is not None and len(fresh) == 1:
        result = getattr(fresh[0], method)(exponent)
    else:
        result = getattr(fresh[0], method)(*fresh[1:])
    return float(result.data)


def table_partials(
    canonical: str | None, args: list[float], exponent: float | None, result: float | None = None
) -> list[float] | None:
    """∂out/∂(each operand position) from the kit's own engine; None where it has no row,
    or where the operation does not give the node's `result` (a `tanh` that is not tanh)."""
    if canonical is None:
        return None
    try:
        leaves, out = _build(canonical, args, exponent)
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
    if not method or not callable(getattr(type(node), method, None)):
        return None

    def forward(values: list[float]) -> float:
        return _forward(type(node), method, values, exponent)

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


def _fits(got: list[float] | None, want: tuple[float, ...]) -> bool:
    return got is not None and len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))


def identify(
    node: object, args: list[float], out: float, local: tuple[float, ...] | None
) -> str | None:
    """The operation that made a node stored with no `_op`, spelt as the table keys it
    ("*", "tanh", "**3"); None where nothing says which.

    In order: the method its `_backward` closure was defined in (`Value.__mul__.<locals>`);
    else the one operation of the table that gives `out` from `args` and whose local
    derivatives are the node's stored `local` grads (a microgpt-style node); else the one
    operation that gives `out` at all (its stored local grads, if wrong, are then judged
    against that operation's by the check). A power `x ** n` is told by its closure's
    number, or by n = local · x / out where no operation of the table fits (relu(x) = x
    is a relu, not x ** 1). Where two operations fit equally, None: the kit does not
    guess."""
    owner = method_name(node, None)
    if owner:
        name = canonical_op(owner, len(args))
        if name == POWER_N:
            return "**"  # the reader takes the exponent from the closure (`_exponent`)
        if name is not None:
            return name
    by_value, by_both = [], []
    for r in rows():
        if r.key == POWER_N or r.arity != len(args):
            continue
        if not _fits([v] if (v := table_value(r.key, args, None)) is not None else None, (out,)):
            continue
        by_value.append(r.key)
        if local is not None and _fits(table_partials(r.key, args, None, out), local):
            by_both.append(r.key)
    if not by_both and local is not None and len(args) == 1 and len(local) == 1 and out != 0:
        n = local[0] * args[0] / out  # x ** n has local n · x ** (n - 1) = n · out / x
        if math.isfinite(n):
            n = float(round(n)) if abs(n - round(n)) < 1e-9 else n
            if _fits(table_partials(POWER_N, args, n, out), local):
                by_both.append(f"**{n!r}")
    if len(by_both) == 1:
        return by_both[0]
    if not by_both and len(by_value) == 1:
        return by_value[0]
    return None
