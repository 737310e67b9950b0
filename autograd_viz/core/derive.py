"""The derivation of an opened graph (a `Graph` of plain numbers) as data, one `Step` per line
— forward, the inputs then every operation with its equation (`s = x + y = 2 + 3 = 5`);
backward, the lines `autograd_viz.core.chain_rule` writes from the numbers the graph holds; it reads
no user's object and opens nothing, so every view (frames, the ask panel, the network steps,
the worksheet) derives from the graph its entry opened once (`autograd_viz.trace.trace` is the
public form that takes a Value).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from autograd_viz.core._checks import as_count
from autograd_viz.core._equations import Eq, chain
from autograd_viz.core.chain_rule import _Backward, _forward_eq, _noted, value_eq
from autograd_viz.core.chain_rule import local_equations as _local_equations
from autograd_viz.core.errors import TraceError
from autograd_viz.core.naming import expression_names
from autograd_viz.core.steps import Step, _Line, _steps, check_phase

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.graph import Graph

__all__ = ["MAX_NODES", "NOTATIONS", "derive", "local_equations"]

NOTATIONS = ("blog", "adjoint")
MAX_NODES = 500  # as for a drawing: past this a derivation is too long to read


def derive(graph: Graph, phase: str = "both", *, digits: int = 4,
           notation: str = "blog") -> list[Step]:  # fmt: skip
    """The steps of `graph`'s forward and/or backward pass (see `autograd_viz.trace.trace`).

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x = Value(2.0, label="x")
    >>> [step.text for step in derive(snapshot(x * x), "backward")][-1]
    '∂(x · x)/∂x = 2 + 2 = 4'
    """
    check_phase(phase)
    count = as_count(digits)
    if count is None:
        raise TraceError(f"digits must be a whole number >= 1, got {digits!r}")
    digits = count
    if notation not in NOTATIONS:
        raise TraceError(f"notation must be 'blog' or 'adjoint', got {notation!r}")
    names = expression_names(graph, digits)
    lines: list[_Line] = []
    grads: list[float] = []
    if phase in ("forward", "both"):
        lines += _forward_lines(graph, names, digits)
    if phase in ("backward", "both"):
        if getattr(graph, "shapes", ()):  # PyTorch's small tensors: element by element
            from autograd_viz.core.tensor_chain import TensorBackward  # only such a graph needs it

            if notation != "blog":
                raise TraceError(
                    "a graph of tensors is derived in the blog's notation only (∂L/∂x = "
                    "∂L/∂s ⊙ ∂s/∂x); leave notation out"
                )
            backward, grads = TensorBackward(graph, names, digits).lines()
        else:
            backward, grads = _Backward(graph, names, digits, notation).lines()
        lines += backward
    return _steps(graph, lines, phase, grads)


def local_equations(graph: Graph, digits: int = 4) -> dict[str, Eq]:
    """Each operand edge's local derivative as the adjoint notation writes it, by SVG edge
    id: the `local` lines of `derive(graph, notation="adjoint")`, written without deriving
    again (what a player's "ask the graph" panel shows on an edge).

    >>> from autograd_viz import Value
    >>> from autograd_viz.open.snapshot import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> local_equations(snapshot((x + y) * y))["v1-op3-1"].text
    '∂((x + y) · y)/∂y = x + y = 5'
    """
    return _local_equations(graph, expression_names(graph, digits), digits)


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
            pairs = [chain([names[i], value_eq(graph, i, digits)]) for i in members]
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
