"""The Graph: a computation graph kept as plain numbers, which every stage after the door reads
instead of the engine's values — nodes in topological order (label, data, grad, op, operands,
exponent, tag, trainable, role) and per operation its local derivatives and what one backward pass
sent, written once by `with_numbers` from the engine's own rule, so no callable is kept and every
number shown agrees with `backward()`; whoever opens a graph (`autograd_viz.open`) makes one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from autograd_viz.core._text import clip
from autograd_viz.core.ops import describe

__all__ = ["ROLES", "Edge", "Graph", "Node", "Share", "opened", "with_numbers"]

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

    @property
    def shown(self) -> str:
        """The value as a message names it, by its label and number: `x (= 2)`."""
        return f"{self.label or 'this value'} (= {self.data:g})"


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

    def graded(self) -> tuple[Graph, set[int], tuple[float, ...] | None]:
        """What a quiz grades against: this graph with the numbers the op table's rules give,
        the operations whose right derivative is not known, and what the engine's own
        backward() gave where its numbers are not the rules' (None here: our Value's numbers
        and PyTorch's are the rules'; a learner's graph says otherwise)."""
        return self, set(), None

    def with_grads(self, grads: Mapping[int, float]) -> Graph:
        """A copy whose node `i` has gradient `grads[i]` (others unchanged)."""
        nodes = tuple(
            n._replace(grad=grads[n.index]) if n.index in grads else n for n in self.nodes
        )
        return dataclasses.replace(self, nodes=nodes)

    def __repr__(self) -> str:
        return f"<Graph of {len(self.nodes)} values, root {self.root.name!r}>"


Share = Callable[[int, float], tuple[float, ...]]


def opened(graph: object, this: str, public: str) -> Graph:
    """`graph`, if it is a Graph. What lies below an entry is handed the Graph its entry
    opened: given a Value instead, it opens nothing (no second door) and raises a TypeError
    that says which public call opens one, e.g. `this Quiz asks about a graph opened already,
    got Value; for a Value use autograd_viz.quiz(z), which opens it`."""
    if not isinstance(graph, Graph):
        raise TypeError(
            f"{this} a graph opened already, got {type(graph).__name__}; for a Value use "
            f"{public}, which opens it"
        )
    return graph


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


def _same(a: float, b: float) -> bool:
    """Two numbers equal as the stale check and the second-backward check compare them: NaN
    equals NaN, and a difference of rounding is no difference."""
    return a == b or (a != a and b != b) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
