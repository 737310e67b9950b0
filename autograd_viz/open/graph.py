"""The graph snapshot: a computation graph read once and kept as plain numbers, which every
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

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from autograd_viz.core._text import clip
from autograd_viz.core.errors import CycleError, GraphError, StaleGraphError, cycle_error
from autograd_viz.core.ops import POWER_N, describe
from autograd_viz.engine import Constant, Value
from autograd_viz.open.size import read_node, read_operands

__all__ = [
    "CycleError",
    "Edge",
    "Graph",
    "GraphError",
    "Node",
    "StaleGraphError",
    "snapshot",
    "with_numbers",
]

ROLES = ("input", "param", "const", "value", "output")
G = TypeVar("G", bound="Graph")


class Node(NamedTuple):
    """One value of the graph, as plain data: `index` (topological position; the root is
    last), `label` (the user's, '' if none), `data`, `grad` (as read), `op` (the engine's op
    string: "+", "*", "**2", "tanh", ...; '' for a leaf), `operands` (indices in operand
    order, a repeat for `a * a`), `exponent` (the n of `x**n`, else None), `tag` (the `nn`
    neuron that made it, e.g. "L2.n1"; None), `trainable` (a weight or bias), `role`
    ("input", "param", "const" — a number the engine wrapped, the 2 of `x * 2` — "value",
    "output"), and per operand position `local` (∂node/∂operand, the engine's rule at
    gradient 1) and `sent` (what one backward pass from the root sent it)."""

    index: int
    label: str
    data: float
    grad: float
    op: str
    operands: tuple[int, ...]
    exponent: float | None
    tag: str | None
    trainable: bool
    role: str
    local: tuple[float, ...] = ()  # ∂node/∂operand k (empty: a leaf, or no finite value)
    sent: tuple[float, ...] = ()  # what one backward pass from the root sent operand k

    @property
    def name(self) -> str:
        """The label, or a stable generated name from the topological index: `v3`."""
        return self.label or f"v{self.index}"

    @property
    def is_leaf(self) -> bool:
        return not self.operands


class Edge(NamedTuple):
    """Operand number `position` of node `target` is node `source`."""

    source: int
    target: int
    position: int

    @property
    def id(self) -> str:
        """The SVG id of the edge from the operand into the operation node: `v0-op2-0`."""
        return f"v{self.source}-op{self.target}-{self.position}"


@dataclass(frozen=True, eq=False)
class Graph:
    """A computation graph as plain data: `nodes` in topological order (the root last).

    Make one with `snapshot(root)` (or `autograd_viz.open.door.open_graph` for any engine).
    `backward_order` is the order the engine's own backward pass ran the operations in
    (None: reverse topological order); `once` every value's gradient after one backward
    pass from the root on fresh gradients (None where a rule has no finite value there:
    `unsolved` says which node and why). Immutable: `with_grads` gives a copy with other
    gradients (an animation's final state) without touching the user's values.
    """

    nodes: tuple[Node, ...]
    backward_order: tuple[int, ...] | None = None
    once: tuple[float, ...] | None = None
    unsolved: Mapping[int, str] = field(default_factory=dict)

    @property
    def root(self) -> Node:
        return self.nodes[-1]

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def edges(self) -> list[Edge]:
        """One edge per operand occurrence (`a + a` has two), in node then operand order."""
        return [Edge(p, n.index, k) for n in self.nodes for k, p in enumerate(n.operands)]

    def consumers(self) -> list[list[tuple[int, int]]]:
        """For each node, the (consumer index, operand position) pairs that read it."""
        out: list[list[tuple[int, int]]] = [[] for _ in self.nodes]
        for n in self.nodes:
            for k, p in enumerate(n.operands):
                out[p].append((n.index, k))
        return out

    def drawn_op(self, i: int) -> str:
        """The text of node i's operation node in a drawing: its op table symbol (`×`), cut
        to one short line; another engine's snapshot may add a line (PyTorch's Function)."""
        op = self.nodes[i].op
        return clip(describe(op).drawn(op), 16, 1)

    def drawn_numbers(self, i: int, number: Callable[[float], str]) -> tuple[str, str]:
        """Value i's data and grad as a drawing writes them, each with `number`; PyTorch's
        graph of small tensors writes a tensor's several numbers."""
        node = self.nodes[i]
        return number(node.data), number(node.grad)

    def drawn_note(self, i: int) -> str:
        """A line under value i's name in a drawing, where its engine keeps something there:
        none for ours; PyTorch's graph names a leaf's `AccumulateGrad`."""
        return ""

    def local(self, i: int) -> tuple[float, ...]:
        """The local derivatives ∂node_i/∂(operand k), from the engine's rule at gradient 1."""
        return self.nodes[i].local

    def accumulated(self) -> list[tuple[int, float, float]]:
        """The inputs and parameters whose `.grad` holds more (or other) than one backward
        pass from this root gives, as (index, .grad, one pass): `backward()` ran again
        without `zero_grad()`, or another output's backward() added to a shared input.
        Empty unless the last backward() started here (the root's grad is 1: before any
        backward() it is 0, and after one from a later output it is that output's slope), and
        for another engine's graph."""
        once = self.once
        if type(self) is not Graph or self.root.is_leaf or self.root.grad != 1.0 or not once:
            return []
        return [(n.index, n.grad, once[n.index]) for n in self.nodes
                if n.role in ("input", "param") and not _same(n.grad, once[n.index])]  # fmt: skip

    def with_grads(self, grads: Mapping[int, float]) -> Graph:
        """A copy whose node `i` has gradient `grads[i]` (others unchanged)."""
        nodes = tuple(
            n._replace(grad=grads[n.index]) if n.index in grads else n for n in self.nodes
        )
        return dataclasses.replace(self, nodes=nodes)

    def __repr__(self) -> str:
        return f"<Graph of {len(self.nodes)} values, root {self.root.name!r}>"


Share = Callable[[int, float], tuple[float, ...]]


def with_numbers(graph: G, share: Share, order: Sequence[int] | None = None) -> G:
    """`graph` with its numbers written in: each operation's local derivatives and what one
    backward pass from the root sends each operand, in `order` (the engine's own, else
    reverse topological), each gradient summed as the engine sums it (0.0, then += each
    share as it arrives). `share(i, g)` is what node i's backward rule sends its operands
    at gradient g: the only place an engine's rules are run, once per opened graph."""
    grads = [0.0] * len(graph.nodes)
    grads[-1] = 1.0
    local: dict[int, tuple[float, ...]] = {}
    sent: dict[int, tuple[float, ...]] = {}
    unsolved: dict[int, str] = {}
    for i in order if order is not None else range(len(graph.nodes) - 1, -1, -1):
        operands = graph.nodes[i].operands
        if not operands:
            continue
        try:
            local[i] = share(i, 1.0)
            if not unsolved:  # the pass stops at a rule with no finite value
                sent[i] = share(i, grads[i])
        except (ArithmeticError, ValueError) as err:
            unsolved[i] = str(err) or type(err).__name__
            continue
        for p, amount in zip(operands, sent.get(i, ())):
            grads[p] += amount
    nodes = tuple(
        n._replace(local=local[n.index], sent=sent.get(n.index, ())) if n.index in local else n
        for n in graph.nodes
    )
    once = None if unsolved else tuple(grads)
    return dataclasses.replace(graph, nodes=nodes, backward_order=order, once=once,
                               unsolved=unsolved)  # fmt: skip


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


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


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
