"""The backward pass of a graph of small tensors written out (PyTorch's, as `engines.torch_run`
opened it): per operand edge the chain rule element by element — `∂out/∂x = ∂out/∂(x · w) ⊙
∂(x · w)/∂x = [1, 1, 1] ⊙ w = [1, 1, 1] ⊙ [0.5, −1, 2] = [0.5, −1, 2]` — the shares of a
stretched (broadcast) operand added up, a sum wherever a tensor feeds several operations, in the
order PyTorch's hooks fired; every number read from the opened graph, which checked each share
PyTorch sent against its local derivative.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autograd_viz.core._equations import Eq, chain, hadamard, partial, plus, times, vector
from autograd_viz.core._numbers import shape_text
from autograd_viz.core.chain_rule import _args, _bar, _noted, _via
from autograd_viz.core.ops import describe
from autograd_viz.core.steps import _Line

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.graph import Graph, Node

__all__ = ["TensorBackward"]

# A whole tensor added up into one number, by the op string PyTorch's reader gives it.
_REDUCTIONS = ("sum", "mean")


class TensorBackward:
    """The backward lines of a graph of tensors, in the order PyTorch ran its Functions:
    for each operand edge one line, once a tensor has every share of its gradient the sum.
    `lines()` returns them with each value's gradient as the graph holds it (a tensor of
    several numbers holds nan: its numbers are in `graph.tensors`)."""

    def __init__(self, graph: Graph, names: list[Eq], digits: int) -> None:
        self.graph, self.names, self.digits = graph, names, digits
        self.r = len(graph.nodes) - 1
        self.top = names[self.r]
        self.uses = graph.consumers()
        self.received: list[list[tuple[int, int]]] = [[] for _ in graph.nodes]
        self.notes = getattr(graph, "notes", {})

    def lines(self) -> tuple[list[_Line], list[float]]:
        r = self.r
        seed = chain([partial(self.top, self.top), Eq("1", "1")])
        out = [_Line("backward", "seed", (r,), (), r, seed, (), (r,))]
        for i in self.graph.backward_order or ():
            node = self.graph.nodes[i]
            if not node.is_leaf:
                out += self._operation(node)
        return out, [n.grad for n in self.graph.nodes]

    def _grad(self, i: int) -> Eq:
        return vector(self.graph.shapes[i], self.graph.tensors[i][1], self.digits)

    def _local(self, node: Node, k: int, local: tuple[float, ...]) -> tuple[Eq, Eq]:
        """The local derivative of operand k, symbolic and element by element."""
        graph, digits = self.graph, self.digits
        i, p = node.index, node.operands[k]
        if node.op in _REDUCTIONS:  # every element of the operand counts once (1/n for a mean)
            n = len(local)
            one = Eq("1 per element", r"1\ \text{per element}")
            if node.op == "mean":
                one = Eq(f"1/{n} per element", rf"\frac{{1}}{{{n}}}\ \text{{per element}}")
            return one, vector(graph.shapes[p], local, digits)
        numbers = vector(graph.shapes[i], local, digits)
        row = describe(node.op)
        if row.local is None:
            return partial(self.names[i], self.names[p]), numbers
        try:
            symbolic, written = row.local(k, _args(graph, node, self.names, digits))
        except TypeError:  # a rule that computes with one number (b − 1 of a ** b)
            return partial(self.names[i], self.names[p]), numbers
        return symbolic, written or numbers

    def _operation(self, node: Node) -> list[_Line]:
        """The lines for one Function: one per operand edge, then any completed sums."""
        graph, names, digits = self.graph, self.names, self.digits
        i, out = node.index, names[node.index]
        row = describe(node.op)
        glue = hadamard if graph.shapes[i] else times  # a gradient of several numbers: ⊙
        g = self._grad(i)
        lines: list[_Line] = []
        completed: list[int] = []
        for k, p in enumerate(node.operands):
            if graph.nodes[p].role == "const":  # a number written in gets no gradient
                continue
            local, sent = graph.tensor_edges[i][k]
            symbolic, numbers = self._local(node, k, local)
            self.received[p].append((i, k))
            shared = len(self.uses[p]) > 1
            lhs = partial(self.top, names[p])
            if shared:  # one of several shares: x̄ via the product
                named = len({c for c, _ in self.uses[p] if graph.nodes[c].op == node.op}) > 1
                via = _via(row, named, node.operands.count(p) > 1, k, out)[0]
                bar = _bar(names[p])
                lhs = Eq(f"{bar.text} via {via.text}", rf"{bar.latex}\ \text{{via }}{via.latex}")
            result = vector(graph.shapes[p], sent, digits)
            if i == self.r:
                kind, parts = "local", [lhs, symbolic, numbers]
            else:
                kind = "contribution"
                parts = [lhs, glue(partial(self.top, out), partial(out, names[p])),
                         glue(g, symbolic), glue(g, numbers)]  # fmt: skip
            note = None
            if node.op not in _REDUCTIONS and graph.shapes[p] != graph.shapes[i]:
                grad = graph.tensors[i][1]
                product = vector(graph.shapes[i], [a * b for a, b in zip(grad, local)], digits)
                parts.append(Eq(f"Σ{product.text}", rf"\Sigma {product.latex}"))
                note = (f"{names[p].text} was stretched from shape {shape_text(graph.shapes[p])} "
                        f"to {shape_text(graph.shapes[i])}: Σ adds up the shares of each of its "
                        "elements")  # fmt: skip
            eq = _noted(chain([*parts, result]), note)
            done = len(self.received[p]) == len(self.uses[p])
            if done and shared:
                completed.append(p)
            reveal = (p,) if done and not shared else ()
            edges = (f"op{i}-v{i}", f"v{p}-op{i}-{k}")
            reads = tuple(q for m, q in enumerate(node.operands) if m != k and row.reads)
            touched = tuple(dict.fromkeys((p, i, *reads)))
            lines.append(_Line("backward", kind, touched, edges, p, eq, (), reveal))
        return lines + [self._sum(p) for p in completed]

    def _sum(self, p: int) -> _Line:
        """`∂out/∂x = [1, 2] + [3, 4] = [4, 6]`: a tensor used several times gets the sum
        of its shares (PyTorch adds them before its Function runs)."""
        graph, received = self.graph, self.received[p]
        terms = [vector(graph.shapes[p], graph.tensor_edges[c][k][1], self.digits)
                 for c, k in received]  # fmt: skip
        total = terms[0]
        for term in terms[1:]:
            total = plus(total, term)
        eq = chain([partial(self.top, self.names[p]), total, self._grad(p)])
        eq = _noted(eq, self.notes.get((p, "backward")))
        consumers = tuple(dict.fromkeys(c for c, _ in received))
        edges = tuple(f"v{p}-op{c}-{k}" for c, k in received)
        return _Line("backward", "accumulate", (p, *consumers), edges, p, eq, (), (p,))

