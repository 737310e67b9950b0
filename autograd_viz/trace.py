"""The derivation as data: `trace(root)` works the graph the way the blog works it by hand and
returns one `Step` per line — forward, the inputs then every operation with its equation
(`s = x + y = 2 + 3 = 5`); backward, the seed, then per operation (in the engine's own
order) one line per operand edge, the chain rule written out (`∂z/∂x = ∂z/∂s · ∂s/∂x = 3 ·
1 = 3`), and a sum wherever a value feeds several operations (`∂z/∂y = 5 + 3 = 8`), or in
`notation="adjoint"` each operation's local partials then each contribution to the adjoints
— each step naming the values and SVG edges it touches, what is known after it, and its
equation as Unicode text and LaTeX; this module writes the forward lines and puts the
derivation together — the backward lines are `autograd_viz.chain_rule`'s, a `Step` is
`autograd_viz.steps`', names come from `autograd_viz.naming`, how an operation is written
from its op table row, every number from the engine's own backward pass as the opened graph
holds it, so the gradients agree bit for bit with `backward()`.
"""

from __future__ import annotations

import re

from autograd_viz._checks import is_number
from autograd_viz._equations import (
    Eq,
    chain,
    num,
)
from autograd_viz._numbers import format_number
from autograd_viz.chain_rule import _Backward, _forward_eq, _noted, local_equations
from autograd_viz.door import open_graph
from autograd_viz.errors import GraphTooLargeError, TraceError
from autograd_viz.graph import Graph, snapshot
from autograd_viz.naming import expression_names
from autograd_viz.steps import KINDS, PHASES, Step, _Line, _steps, check_phase

NOTATIONS = ("blog", "adjoint")


def node_names(root: object) -> list[str]:
    """The name of every value in topological order, as the equations write it:
    its label; unlabelled, its expression while short (`x + y`, see `autograd_viz.naming`),
    a neuron's name, or `v{i}` (topological index); its number for a constant.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> node_names((x + y) * 2)
    ['x', 'y', 'x + y', '2', 'out']
    """
    return [e.text for e in _names(snapshot(root), 4)]


def _names(graph: Graph, digits: int) -> list[Eq]:
    """How equations call each value: see `autograd_viz.naming` (a label, a short expression
    like `a · b`, a neuron's name, a constant's number, else `v{i}`)."""
    return expression_names(graph, digits)


# ---- steps ------------------------------------------------------------------------


# ---- the walk -------------------------------------------------------------------------


MAX_NODES = 500  # as for a drawing: past this a derivation is too long to read


def trace(
    root: object,
    phase: str = "both",
    *,
    digits: int = 4,
    notation: str = "blog",
    max_nodes: int = MAX_NODES,
) -> list[Step]:
    """The forward and/or backward pass of `root`'s graph as an ordered list of `Step`s.

    `root` is a Value (read once into a snapshot) or a `Graph` snapshot.
    `phase` is "forward", "backward" (values all known from the start) or "both".
    `digits` is the number of significant digits in the equations (see `format_number`).
    `notation` is "blog" (one line per edge, the chain rule written out, as below) or
    "adjoint" (each operation's local partials first, then each contribution to the
    adjoints: `s̄ = z̄ · ∂(s · y)/∂s = 1 · 3 = 3`, `ȳ = ȳ_mul + ȳ_add = 5 + 3 = 8`).
    The graph is only read: no `.grad` changes. A graph with more than `max_nodes` values
    is refused with GraphTooLargeError before it is read (counting stops at the limit), as
    `draw()` refuses it: a derivation that long is not read, and would take minutes.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> s = x + y; s.label = "s"
    >>> z = s * y; z.label = "z"
    >>> for step in trace(z): print(step.text)
    inputs: x = 2, y = 3
    s = x + y = 2 + 3 = 5
    z = s · y = 5 · 3 = 15
    ∂z/∂z = 1
    ∂z/∂s = y = 3
    ȳ via the product = s = 5
    ∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3
    ȳ via the sum = ∂z/∂s · ∂s/∂y = 3 · 1 = 3
    ∂z/∂y = 5 + 3 = 8
    """
    if not is_number(max_nodes, int) or max_nodes < 1:
        raise TraceError(f"max_nodes must be a positive int, got {max_nodes!r}")
    graph = open_graph(root, caller="trace()", max_nodes=max_nodes, every_value=True,
                       too_large=_too_large, error=TraceError)  # fmt: skip
    check_phase(phase)
    if not is_number(digits, int) or digits < 1:
        raise TraceError(f"digits must be a whole number >= 1, got {digits!r}")
    if notation not in NOTATIONS:
        raise TraceError(f"notation must be 'blog' or 'adjoint', got {notation!r}")
    names = _names(graph, digits)
    lines: list[_Line] = []
    grads: list[float] = []
    if phase in ("forward", "both"):
        lines += _forward_lines(graph, names, digits)
    if phase in ("backward", "both"):
        backward, grads = _Backward(graph, names, digits, notation).lines()
        lines += backward
    return _steps(graph, lines, phase, grads)


def _too_large(max_nodes: int) -> GraphTooLargeError:
    return GraphTooLargeError(
        f"trace(): this graph has more than {max_nodes} values (max_nodes={max_nodes}), too "
        "many to read as one derivation (counting stopped there, before any work). Trace "
        "less: a sub-expression (an intermediate Value, e.g. one neuron's output), or raise "
        "max_nodes (slow, and too long to read). For a network built with autograd_viz.nn, "
        "draw it collapsed instead: root.draw(collapse='neuron')."
    )


_LIST_AT_MOST = 8  # inputs or parameters named one by one in the first step


def _natural(label: str) -> list[object]:
    """Sort key that puts L1.n2.w10 after L1.n2.w9."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label)]


def _forward_lines(graph: Graph, names: list[Eq], digits: int) -> list[_Line]:
    nodes = graph.nodes
    leaves = [n.index for n in nodes if n.is_leaf]
    groups = []
    for title, members in (
        ("inputs", [i for i in leaves if nodes[i].role != "const" and not nodes[i].trainable]),
        ("parameters", sorted((i for i in leaves if nodes[i].trainable),
                              key=lambda i: _natural(nodes[i].label))),
    ):  # fmt: skip
        if members:
            pairs = [chain([names[i], num(nodes[i].data, digits)]) for i in members]
            if len(pairs) > _LIST_AT_MOST:  # a network's weights: the picture shows them all
                more = f"… ({len(pairs)} in all)"
                pairs = [
                    *pairs[: _LIST_AT_MOST - 2],
                    Eq(more, rf"\ldots\ \text{{({len(pairs)} in all)}}"),
                ]
            groups.append(
                Eq(
                    f"{title}: " + ", ".join(p.text for p in pairs),
                    rf"\text{{{title}: }} " + r",\ ".join(p.latex for p in pairs),
                )
            )
    lines = []
    notes = getattr(graph, "notes", {})  # another engine's graph: where it works differently
    named = [i for i in leaves if nodes[i].role != "const"]
    if named:
        eq = Eq("; ".join(g.text for g in groups), r";\quad ".join(g.latex for g in groups))
        lines.append(_Line("forward", "value", tuple(leaves), (), named[0], eq, tuple(leaves)))
    divided = False
    for node in nodes:
        if node.is_leaf:
            continue
        i = node.index
        edges = tuple(f"v{p}-op{i}-{k}" for k, p in enumerate(node.operands)) + (f"op{i}-v{i}",)
        touched = (i, *dict.fromkeys(node.operands))
        eq = _forward_eq(graph, node, names, digits)
        if node.op == "**-1" and not divided:  # said once: how the engine divides
            divided = True
            b = names[node.operands[0]]
            note = f"(÷ {b.text} is × {b.text}⁻¹: a / b is computed as a · b⁻¹)"
            latex = rf"\quad(\div {b.latex}\ \text{{is}}\ \times {{{b.latex}}}^{{-1}})"
            eq = Eq(f"{eq.text}   {note}", eq.latex + latex, eq.prec)
        eq = _noted(eq, notes.get((i, "forward")))
        reveal = (i,) if lines else (*leaves, i)  # constants only: shown with the first step
        lines.append(_Line("forward", "value", touched, edges, i, eq, reveal))
    return lines


def derivation(
    root: object,
    phase: str = "both",
    *,
    digits: int = 4,
    notation: str = "blog",
    max_nodes: int = MAX_NODES,
) -> str:
    """The whole derivation as text, one step per line, for `print()` in a notebook.

    A graph with more than `max_nodes` values is refused first, as by `trace`.

    >>> from autograd_viz import Value
    >>> a = Value(2.0, label="a")
    >>> print(derivation(a * a, "backward"))
    ∂(a · a)/∂(a · a) = 1
    ā via the product, operand 1 = a = 2
    ā via the product, operand 2 = a = 2
    ∂(a · a)/∂a = 2 + 2 = 4
    """
    steps = trace(root, phase, digits=digits, notation=notation, max_nodes=max_nodes)
    return "\n".join(step.text for step in steps)


__all__ = [
    "KINDS",
    "MAX_NODES",
    "NOTATIONS",
    "PHASES",
    "Step",
    "TraceError",
    "check_phase",
    "derivation",
    "format_number",
    "local_equations",
    "node_names",
    "trace",
]
