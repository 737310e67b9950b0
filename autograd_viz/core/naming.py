"""Names a learner can follow: a value nobody labelled is called by the expression that made it (`a
· b`, `tanh(a · b)`, `sum1 / d`, `−b`) while that stays short, else after its operation (`sum1`,
`prod2`), because numbered names (`∂f/∂v6 = v8`) are correct and mean nothing to a learner; the
output keeps its expression only while short, else it is `out`, a neuron's output is named after
its neuron (`L2.n1`), a constant by its value, and an unlabelled input by a letter. Drawings,
equations, the player and quizzes all use these names (`expression_names`).

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> [e.text for e in expression_names(snapshot((a * b).tanh() / b))]
    ['a', 'b', 'a · b', 'tanh(a · b)', 'b⁻¹', 'out']
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from autograd_viz.core._equations import ATOM, PRODUCT, SUM, Eq, latex_name, negated, num, par
from autograd_viz.core.ops import Args, describe

if TYPE_CHECKING:  # names are read from a snapshot's nodes; the graph module needs them back
    from autograd_viz.core.graph import Graph, Node

__all__ = ["MAX_LENGTH", "ROOT_LENGTH", "expression_names"]

MAX_LENGTH = 16  # characters: `tanh(a · b) / d` fits, a whole neuron's sum does not
ROOT_LENGTH = 8  # the output's name starts every ∂out/∂… line: longer than this, it is `out`


def expression_names(graph: Graph, digits: int = 4) -> list[Eq]:
    """The name of every value of `graph`, in node order, as text and LaTeX.

    A label is kept. A value without one is named by its expression while that stays short
    (`a · b`, `tanh(a · b)`, `exp(c)`, `d⁻¹`; a product with a reciprocal reads as the division
    the learner wrote, `sum1 / d`, and a product with −1 as the negation, `−b` from `a - b`),
    and after the operation that made it (`sum1`, `prod2`, `tanh1`: the first sum, the second
    product, in the order they are computed) when the expression would be longer than
    `MAX_LENGTH` characters or the name is taken. The output, whose name starts every line of
    the backward pass, keeps its expression only up to `ROOT_LENGTH` characters, else it is
    `out`. A neuron's output is named after its neuron (`L2.n1`), a constant (a number the
    engine wrapped, the 2 of `x * 2`) by its value, and an input nobody labelled
    (`a = Value(2.0)`) by a letter: a, b, c, … in the order the expression first uses them,
    skipping letters that are labels.
    """
    names: list[Eq] = []
    taken = {n.label for n in graph.nodes if n.label}
    letters = _input_letters(graph, taken)
    ordinal: dict[int, int] | None = None  # each operation's place among its kind, if needed
    for node in graph.nodes:
        if node.label:
            name = Eq(node.label, latex_name(node.label), _label_precedence(node.label))
        elif node.index in letters:
            name = Eq(letters[node.index], letters[node.index])
        elif node.role == "const":
            name = num(node.data, digits)
        elif node.tag is not None:  # a neuron's output
            name = Eq(node.tag, latex_name(node.tag))
        else:
            name = _expression(graph, node, names, digits)
            long = name is None or len(name.text) > ROOT_LENGTH
            if node is graph.root and long and not node.is_leaf:  # it starts every ∂out/∂… line
                name = Eq("out", r"\mathrm{out}")
            if name is None or name.text in taken:
                ordinal = _ordinals(graph) if ordinal is None else ordinal
                name = _kind_name(graph, node, taken, ordinal)
        if not node.label and node.role != "const":
            taken.add(name.text)
        names.append(name)
    return names


_OPERATOR = re.compile(r"[-+−*/·×÷^=<>%@&|!,;:]|\s")


def _label_precedence(label: str) -> int:
    """How tightly a label binds: one with an operator or a space in it (`x+y`, `my loss`) is
    a sum to the equations, so they write `(x+y) · y`, never `x+y · y`."""
    if (label.startswith("(") and label.endswith(")")) or not _OPERATOR.search(label):
        return ATOM
    return SUM


# What a value too long to write out is called after: the operation that made it.
_KINDS = {"+": "sum", "*": "prod", "**": "pow", "ReLU": "relu", "sigmoid": "sig"}


def _kind(graph: Graph, node: Node) -> str:
    """What kind of operation made a value, as its fallback name says it: sum, prod, quot."""
    second = graph.nodes[node.operands[-1]]
    pair = node.op == "*" and len(node.operands) == 2
    if pair and second.op == "**-1":
        return "quot"  # a · b⁻¹, the engine's a / b
    if pair and second.role == "const" and second.data == -1:
        return "neg"  # b · (−1), the engine's −b
    if node.op.startswith("**"):
        return "pow"
    return _KINDS.get(node.op) or re.sub(r"[^A-Za-z]+", "", node.op).lower() or "op"


def _kind_name(graph: Graph, node: Node, taken: set[str], ordinal: dict[int, int]) -> Eq:
    """`sum2`, `prod1`, `tanh1`: the kind of operation that made the value and its place
    among the values of that kind, in the order they are computed (`sum2`: the second sum),
    so `sum2 = tanh(a · b) + exp(c)` reads as what it is; ASCII, so a quiz blank can be
    typed. A leaf (an unlabelled parameter) is `v{i}`."""
    if node.is_leaf:
        return Eq(f"v{node.index}", f"v_{{{node.index}}}")
    kind, k = _kind(graph, node), ordinal[node.index]
    while f"{kind}{k}" in taken:  # a label took it: the next number that is free
        k += 1
    return Eq(f"{kind}{k}", rf"\mathrm{{{kind}}}_{{{k}}}")


def _ordinals(graph: Graph) -> dict[int, int]:
    """Each operation's place among the operations of its kind, in node order (from 1)."""
    seen: dict[str, int] = {}
    out: dict[int, int] = {}
    for node in graph.nodes:
        if node.operands:
            kind = _kind(graph, node)
            out[node.index] = seen[kind] = seen.get(kind, 0) + 1
    return out


def _input_letters(graph: Graph, taken: set[str]) -> dict[int, str]:
    """Names for the inputs nobody labelled (`a = Value(2.0)`, as micrograd users write):
    a, b, c, … in the order the expression first uses them, skipping the labels in use."""
    free = (c for c in "abcdefghijklmnopqrstuvwxyz" if c not in taken)
    unnamed = (n.index for n in graph.nodes if n.role == "input" and not n.label)
    return dict(zip(unnamed, free))


def _expression(graph: Graph, node: Node, names: list[Eq], digits: int) -> Eq | None:
    """The value's expression in its operands' names, or None if it would be too long."""
    if node.is_leaf:
        return None
    operands = [names[p] for p in node.operands]
    second = graph.nodes[node.operands[-1]]
    if node.op == "*" and len(operands) == 2 and second.role == "const" and second.data == -1:
        name = negated(operands[0])  # a - b is computed as a + b · (−1): show −b
    elif node.op == "*" and len(operands) == 2 and second.op == "**-1":
        a = par(operands[0], PRODUCT)  # a · b⁻¹ is how the engine divides: show a / b
        b = par(names[graph.nodes[node.operands[1]].operands[0]], ATOM)
        text, latex = f"{a.text} / {b.text}", rf"\frac{{{operands[0].latex}}}{{{b.latex}}}"
        name = Eq(text, latex, PRODUCT)
    else:
        numbers = [num(graph.nodes[p].data, digits) for p in node.operands]
        args = Args(
            names=operands,
            numbers=numbers,
            values=[graph.nodes[p].data for p in node.operands],
            out=Eq(f"v{node.index}", f"v_{{{node.index}}}"),
            out_number=num(node.data, digits),
            out_value=node.data,
            exponent=node.exponent,
            digits=digits,
        )
        name = describe(node.op).forward(operands, args)
    return name if len(name.text) <= MAX_LENGTH and "\n" not in name.text else None
