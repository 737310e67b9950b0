"""Does each value of a learner's graph follow from the operation it is marked with? Their
`__add__` giving 2 + 3 = −1 is a forward bug, a wrong `_op` mark, or a graph changed after it was
built (their method gives the right value today): `forward_checks` finds such nodes with the op
table's numbers, and `forward_problems` says which it is and what to do, before any of their
backward code runs, so no picture writes a false equation.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograd_viz.core._numbers import format_number
from autograd_viz.open.engines.ops import (
    canonical_op,
    engine_op,
    method_name,
    op_of_method,
    rerun,
    same,
    table_value,
    what_it_computes,
    written,
)
from autograd_viz.open.engines.read import ForeignGraph

__all__ = ["ForwardProblem", "forward_checks", "forward_problems"]


@dataclass(frozen=True)
class ForwardProblem:
    """A node whose value does not follow from the operation it is marked with (`+` giving
    2 + 3 = −1): a forward bug in the learner's method, a wrong `_op`, or a stale graph.

    `method` made it; `right` is what the operation gives; `rule_op` is the operation its
    backward rule is judged against (the one it computes, when only the mark is wrong);
    `stale`: their method gives the right value today, so an operand changed afterwards.
    """

    node: int
    method: str
    message: str
    hint: str
    right: float
    rule_op: str | None
    stale: bool = False


def forward_checks(graph: ForeignGraph) -> dict[int, tuple]:
    """The nodes whose value differs from what their operation gives, with what is known
    about each: (operation, right value, method, what it computes instead, re-run value)."""
    found = {}
    for i, operands in enumerate(graph.operands):
        if not operands:
            continue
        canonical = canonical_op(graph.ops[i], len(operands))
        args = [graph.data[p] for p in operands]
        right = table_value(canonical, args, graph.exponents[i])
        if right is None or same(right, graph.data[i]):
            continue  # an operation the kit does not know is written as a call: no claim
        method = method_name(graph.nodes[i], canonical)
        computes = what_it_computes(graph.data[i], args, graph.exponents[i], canonical)
        again = rerun(graph.nodes[i], method, args, graph.exponents[i])
        found[i] = (canonical, right, method, computes, again)
    return found


def forward_problems(
    graph: ForeignGraph, checks: dict[int, tuple], names: list[str]
) -> tuple[ForwardProblem, ...]:
    """What to say about each node whose value does not follow from its operation."""
    out = []
    for i, (canonical, right, method, computes, again) in checks.items():
        operands = graph.operands[i]
        names_ = [names[p] for p in operands]
        numbers = [format_number(graph.data[p]) for p in operands]
        exponent = graph.exponents[i]
        claim = (
            f"{written(canonical, names_, exponent)} = "
            f"{written(canonical, numbers, exponent)} = {format_number(right)}"
        )
        value = f"{names[i]} = {format_number(graph.data[i])}"
        mark = graph.ops[i].strip()
        op_of = op_of_method(method)
        if computes is not None:
            op, swapped = computes
            shown = written(op, names_[::-1] if swapped else names_, exponent)
            what = f"{format_number(graph.data[i])} is {shown}"
        if again is not None and same(again, right) and not same(again, graph.data[i]):
            message = f"{value} no longer follows from its operands: {claim} now"
            hint = (
                "a value changed after the graph was built (`x.data = ...`): run the cells "
                "that build the expression again, then backward()"
            )
            out.append(ForwardProblem(i, method, message, hint, right, canonical, True))
            continue
        if computes is not None and op_of is not None and computes == (op_of, False):
            message = f"your `{method}` gave {value}, but marked it '{mark}': {claim}"
            symbol = engine_op(op_of) or op_of
            hint = (
                f"{what}, as `{method}` should give: mark the new value '{symbol}' (its "
                f"`_op`), not '{mark}'"
            )
            out.append(ForwardProblem(i, method, message, hint, right, op_of))
            continue
        message = f"your `{method}` gave {value}, but {claim}"
        if again is None or not same(again, graph.data[i]):
            hint = (
                "either its forward line computes the wrong value, or a value changed after "
                "the graph was built (then run the cells that build it again)"
            )
        elif computes is not None:
            hint = f"{what}: check the line of `{method}` that computes the new value's data"
        else:
            hint = f"check the line of `{method}` that computes the new value's data"
        out.append(ForwardProblem(i, method, message, hint, right, canonical))
    return tuple(out)
