"""Our Value's graph read once into the plain `Graph` (`autograd_viz.core.graph`), which every
viewer reads instead of the `Value`s (never writing to them) — `snapshot(root)` is the one
iterative walk of our Value's graph (no recursion limit), numbering values in topological
order exactly as `Value.topological_order()` does so drawings keep stable ids (`v{i}`,
`op{i}`, `v{p}-op{i}-{k}`), checking that no value is stale, and writing each operation's
numbers once (`with_numbers`: the local derivatives and what one backward pass sent, from
the engine's own rule), so the Graph holds no callable and every number shown agrees with
`backward()`; other engines' graphs become a Graph of the same shape in
`autograd_viz.open.engines`, behind the one door (`autograd_viz.open.door.open_graph`).

    >>> from autograd_viz import Value
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> z = (x + y) * y
    >>> g = snapshot(z)
    >>> [(n.name, n.op, n.operands) for n in g.nodes]  # node i has n.index == i
    [('x', '', ()), ('y', '', ()), ('v2', '+', (0, 1)), ('v3', '*', (2, 1))]
    >>> [n.role for n in g.nodes]
    ['input', 'input', 'value', 'output']
    >>> g.nodes[3].local, g.nodes[3].sent  # ∂z/∂(operand k); what one backward pass sent
    ((3.0, 5.0), (3.0, 5.0))
    >>> [e.id for e in g.edges][:2]
    ['v0-op2-0', 'v1-op2-1']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autograd_viz.core.errors import GraphError, StaleGraphError, cycle_error
from autograd_viz.core.graph import Graph, Node, Share, _same, with_numbers
from autograd_viz.core.ops import POWER_N, describe
from autograd_viz.engine import Constant, Value
from autograd_viz.open.size import read_node, read_operands

__all__ = ["snapshot"]


def _stand_in_share(nodes: list[Node], rules: list[Callable[..., Any] | None]) -> Share:
    """What the kit's own backward rule of node i sends at gradient g, run on stand-in
    values, so the user's graph is never written."""

    def share(i: int, grad: float) -> tuple[float, ...]:
        node = nodes[i]
        operands = [Value(nodes[p].data) for p in node.operands]
        out = Value(node.data, node.op or "?", rules[i], *operands)
        out._arg = node.exponent
        out.grad = grad
        rules[i](out)
        return tuple(v.grad for v in operands)

    return share


def snapshot(root: object, *, read: dict[int, tuple[object, ...]] | None = None) -> Graph:
    """Read the graph that ends at `root` once, into a `Graph` (see the module docstring).

    `read` holds operands already read, by `id` of the node (the size check of
    `autograd_viz.open.size` hands over what it walked), so no node is read twice.

    Depth-first with an explicit stack; operands are visited in order, so the node
    order is `root.topological_order()` on every run. A `Graph` passes through as is.
    Another engine's graph (micrograd's, a learner's own class) is read by
    `autograd_viz.open.engines` (`engines.replay.foreign_snapshot`);
    `autograd_viz.open.door.open_graph` is the one door for both.
    """
    if isinstance(root, Graph):
        return root
    if not isinstance(root, Value):
        raise GraphError(
            f"expected a Value (the output of an expression), got {type(root).__name__}: {root!r}"
        )
    nodes: list[Node] = []
    rules: list[Callable[..., Any] | None] = []
    index: dict[int, int] = {}  # id(node) -> its position, once all its operands are placed
    entered: set[int] = set()  # nodes whose operands are being placed: the current path
    stack: list[Any] = [root]
    known = read if read is not None else {}
    while stack:
        v = stack.pop()
        if v is None:  # marker: below it, a node's operands (all placed now), then the node
            operands = tuple([index[id(p)] for p in stack.pop()])
            v = stack.pop()
            if id(v) in index:  # reached twice before it was placed (a * a)
                continue
            label, data, grad, op, exponent, tag, trainable, rule = read_node(v)
            i = index[id(v)] = len(nodes)
            if trainable:
                role = "param"
            elif operands:
                role = "value"
            else:  # a number the engine wrapped (the 2 of x * 2), unless someone named it
                role = "const" if type(v) is Constant and not label else "input"
            nodes.append(Node(i, label, data, grad, op, operands, exponent, tag, trainable, role))
            rules.append(rule if operands else None)
        elif id(v) not in index:
            if id(v) in entered:  # met again below itself: it is its own ancestor
                raise cycle_error(v)
            entered.add(id(v))
            operands = known.pop(id(v), None)
            if operands is None:
                operands = read_operands(v)
            stack += (v, operands, None)
            stack.extend(reversed(operands))  # the first operand pops first
    nodes[-1] = nodes[-1]._replace(role="output")
    graph = Graph(tuple(nodes))
    _check_current(graph)
    return with_numbers(graph, _stand_in_share(nodes, rules))


# ---- a stale graph: a value that no longer follows from its operands ------------------


def _recomputed(graph: Graph, i: int) -> float | None:
    """Node i's value computed again from its operands' values now, by the `Value` method the
    op table names for its op; None for an op without a row (a learner's own, say). Raises
    what the op raises when the operands now have no value for it (log of a negative number)."""
    node = graph.nodes[i]
    operands = [Value(graph.nodes[p].data) for p in node.operands]
    found = describe(node.op)
    if found.key == POWER_N:  # x ** number: the number is the node's, not an operand
        if node.exponent is None or len(operands) != 1:
            return None
        return (operands[0] ** node.exponent).data
    method = getattr(Value, found.method, None) if found.known else None
    if not callable(method) or len(operands) != found.arity:
        return None
    return method(*operands).data


def _check_current(graph: Graph) -> None:
    """Raise StaleGraphError at the first value (in topological order) that its operands,
    as they are now, no longer give: the viewers would draw `s = 100 + 3 = 5`."""
    for node in graph.nodes:
        if not node.operands:
            continue
        try:
            now = _recomputed(graph, node.index)
        except (ArithmeticError, ValueError, TypeError) as err:  # log(−1); data = "abc"
            raise _stale(graph, node.index, None, err) from None
        if now is not None and not _same(now, node.data):
            raise _stale(graph, node.index, now, None)


def _stale(graph: Graph, i: int, now: float | None, err: Exception | None) -> StaleGraphError:
    from autograd_viz.core._equations import num  # lazily: only on this error path
    from autograd_viz.core.naming import expression_names
    from autograd_viz.core.ops import Args, describe

    names = expression_names(graph)
    node = graph.nodes[i]
    operands = [graph.nodes[p] for p in node.operands]
    args = Args(
        names=[names[p] for p in node.operands],
        numbers=[num(o.data, 4) for o in operands],
        values=[o.data for o in operands],
        out=names[i],
        out_number=num(node.data, 4),
        out_value=node.data,
        exponent=node.exponent,
        digits=4,
    )
    row = describe(node.op)
    symbolic, numbers = row.forward(args.names, args).text, row.forward(args.numbers, args).text
    what = symbolic if names[i].text == symbolic else f"{names[i].text} = {symbolic}"
    given = f"{numbers} = {num(now, 4).text}" if err is None else f"{numbers}, which fails ({err})"
    return StaleGraphError(
        f"this graph is out of date: {what} was computed as {num(node.data, 4).text}, but its "
        f"operands now give {given}: a .data was changed after the graph was built, so a "
        "picture, derivation or quiz of it would show a false equation. Run the forward pass "
        "again (the code that computes the output from its inputs, then backward()) and show "
        "the new output."
    )
