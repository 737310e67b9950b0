"""The derivation as data, the public entry: `trace(root)` opens the graph once (the door: the
size guard, one read, another engine's backward run once) and returns `autograd_viz.core.derive`'s
steps, the graph worked the way the blog works it by hand — forward, the inputs then every
operation with its equation (`s = x + y = 2 + 3 = 5`); backward, the seed, then per operation
one line per operand edge, the chain rule written out (`∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3`),
and a sum wherever a value feeds several operations (`∂z/∂y = 5 + 3 = 8`) — with every number
from the engine's own backward pass, so the gradients agree bit for bit with `backward()`;
`derivation` is the same as text, `node_names` what the equations call each value.
"""

from __future__ import annotations

from autograd_viz.core._checks import check_count
from autograd_viz.core._numbers import format_number
from autograd_viz.core.derive import MAX_NODES, NOTATIONS, derive, local_equations
from autograd_viz.core.errors import GraphTooLargeError, TraceError
from autograd_viz.core.naming import expression_names
from autograd_viz.core.steps import KINDS, PHASES, Step, check_phase
from autograd_viz.open.door import open_graph


def node_names(root: object) -> list[str]:
    """The name of every value in topological order, as the equations write it:
    its label; unlabelled, its expression while short (`x + y`, see `autograd_viz.core.naming`),
    a neuron's name, or `v{i}` (topological index); its number for a constant.

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> node_names((x + y) * 2)
    ['x', 'y', 'x + y', '2', 'out']
    """
    graph = open_graph(root, caller="node_names()")  # the one door: a Graph passes as is
    return [e.text for e in expression_names(graph, 4)]


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
    max_nodes = check_count(max_nodes, "max_nodes", TraceError)
    graph = open_graph(root, caller="trace()", max_nodes=max_nodes, every_value=True,
                       too_large=_too_large, error=TraceError, check=True)  # fmt: skip
    return derive(graph, phase, digits=digits, notation=notation)


def _too_large(max_nodes: int) -> GraphTooLargeError:
    return GraphTooLargeError(
        f"trace(): this graph has more than {max_nodes} values (max_nodes={max_nodes}), too "
        "many to read as one derivation (counting stopped there, before any work). Trace "
        "less: a sub-expression (an intermediate Value, e.g. one neuron's output), or raise "
        "max_nodes (slow, and too long to read). For a network built with autograd_viz.nn, "
        "draw it collapsed instead: root.draw(collapse='neuron')."
    )


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
