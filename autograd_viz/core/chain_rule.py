"""The backward pass written out — the chain rule per operand edge, a sum wherever a value feeds
several operations, the seed first, in the engine's own order — in the blog's notation
(`∂z/∂x = ∂z/∂s · ∂s/∂x = 3 · 1 = 3`) or the adjoint one (each operation's local partials,
then each contribution: `s̄ = z̄ · ∂(s · y)/∂s = 1 · 3 = 3`), with every number read from the
opened graph (its local derivatives and what one backward pass sent), and what a learner's
engine or PyTorch did differently said where it happens.
"""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING

from autograd_viz.core._equations import Eq, chain, latex_text, num, partial, plus, times, vector
from autograd_viz.core._numbers import format_number
from autograd_viz.core.errors import TraceError
from autograd_viz.core.ops import Args, Op, describe
from autograd_viz.core.steps import _Line

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.graph import Graph, Node


def value_eq(graph: Graph, i: int, digits: int) -> Eq:
    """Value i as a derivation writes it: its number, or a tensor's numbers (`[1, 2, 3]`)."""
    shapes = getattr(graph, "shapes", ())
    if shapes:  # a graph of small tensors (PyTorch's): every value may hold several
        return vector(shapes[i], graph.tensors[i][0], digits)  # type: ignore[attr-defined]
    return num(graph.nodes[i].data, digits)


def _args(graph: Graph, node: Node, names: list[Eq], digits: int) -> Args:
    """What the op table writes with, for one operation node (a tensor's `values` are its
    numbers, so a rule that computes with one number refuses them with a TypeError)."""
    tensors = getattr(graph, "tensors", ())
    return Args(
        names=[names[p] for p in node.operands],
        numbers=[value_eq(graph, p, digits) for p in node.operands],
        values=[tensors[p][0] if tensors else graph.nodes[p].data for p in node.operands],
        out=names[node.index],
        out_number=value_eq(graph, node.index, digits),
        out_value=node.data,
        exponent=node.exponent,
        digits=digits,
    )


def _forward_eq(graph: Graph, node: Node, names: list[Eq], digits: int) -> Eq:
    """`out = <symbolic> = <numbers> = <result>` for one operation."""
    row = describe(node.op)
    args = _args(graph, node, names, digits)
    symbolic, numbers = row.forward(args.names, args), row.forward(args.numbers, args)
    return chain([names[node.index], symbolic, numbers, value_eq(graph, node.index, digits)])


def _noted(eq: Eq, note: str | None) -> Eq:
    """The step's equation with a note after it, `(…)`: where another engine (PyTorch) does
    this step differently from the kit's, said once, in the caption every front end shows."""
    if not note:
        return eq
    return Eq(f"{eq.text}   ({note})", eq.latex + rf"\quad\text{{({latex_text(note)})}}", eq.prec)


class _Backward:
    """The backward lines of one graph, and every value's final gradient.

    Visits operations in reverse topological order, as `backward()` does; for each
    operand edge it writes one line, and once a value has received every share of its
    gradient (one per use) it writes the sum. Constants get no lines.
    """

    def __init__(self, graph: Graph, names: list[Eq], digits: int, notation: str) -> None:
        unseen = getattr(graph, "unseen_rules", "")  # a learner's engine with no rule to record
        if unseen:
            raise TraceError(unseen)
        self.graph, self.names, self.digits = graph, names, digits
        self.adjoint = notation == "adjoint"
        self.r = len(graph.nodes) - 1  # the root is last in topological order
        self.top = names[self.r]
        self.uses = graph.consumers()  # per value: (consumer, operand position)
        self.grad = [0.0] * len(graph.nodes)
        self.received: list[list[tuple[int, int, float]]] = [[] for _ in graph.nodes]
        self.family = [describe(n.op).short for n in graph.nodes]  # "the power" is one kind
        self.kinds_used: dict[int, dict[str, set[int]]] = {}  # value -> kind -> consumers
        # a learner's engine, checked (autograd_viz.open.engines): what went wrong at which edge
        self.flags = getattr(graph, "flags", {})
        # leaves whose .grad holds more than this pass gives (backward() twice, no zero_grad)
        self.held = {i: g for i, g, _ in graph.accumulated()}
        # a learner's engine, checked: what *their* backward() gives, where it differs
        self.theirs = getattr(graph, "engine_grads", None)
        self.seed_flag = getattr(graph, "seed_flag", None)
        # PyTorch's graph (autograd_viz.open.engines.torch_run): where its engine works differently
        self.notes = getattr(graph, "notes", {})

    def lines(self) -> tuple[list[_Line], list[float]]:
        r, top = self.r, self.top
        seed = [_bar(top), partial(top, top)] if self.adjoint else [partial(top, top)]
        eq, said = chain([*seed, Eq("1", "1")]), ""
        if self.seed_flag:  # their backward() never seeds the output: say so where it belongs
            said, hint = self.seed_flag
            eq = Eq(f"{eq.text}   ✗ {said}" + (f" — {hint}" if hint else ""), eq.latex)
        out = [_Line("backward", "seed", (r,), (), r, eq, (), (r,), said)]
        self.grad[r] = 1.0
        # a learner's engine (autograd_viz.open.engines): the order their backward() ran in
        theirs = self.graph.backward_order
        nodes = [self.graph.nodes[i] for i in theirs] if theirs else reversed(self.graph.nodes)
        for node in nodes:
            if not node.is_leaf:
                out += self._operation(node)
        return out, self.grad

    def _via(self, p: int, i: int, k: int) -> tuple[Eq, Eq]:
        if p not in self.kinds_used:
            self.kinds_used[p] = {}
            for c, _ in self.uses[p]:
                self.kinds_used[p].setdefault(self.family[c], set()).add(c)
        named = len(self.kinds_used[p][self.family[i]]) > 1
        twice = self.graph.nodes[i].operands.count(p) > 1
        return _via(describe(self.graph.nodes[i].op), named, twice, k, self.names[i])

    def _numbers(self, node: Node) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The local derivatives and what one backward pass sent each operand: numbers the
        graph's opener wrote from the engine's own rule."""
        i = node.index
        if i in self.graph.unsolved:
            at = ", ".join(
                f"{self.names[p].text} = {format_number(self.graph.nodes[p].data)}"
                for p in dict.fromkeys(node.operands)
            )
            raise TraceError(
                f"the local derivative of {self.names[i].text} = "
                f"{_forward_eq(self.graph, node, self.names, self.digits).text.split(' = ')[1]} "
                f"has no finite value at {at} ({self.graph.unsolved[i]}), so there is no "
                "derivation to show (backward() fails here too)"
            )
        return node.local, node.sent

    def _operation(self, node: Node) -> list[_Line]:
        """The lines for one operation: one per operand edge, then any completed sums."""
        graph, names, digits, r = self.graph, self.names, self.digits, self.r
        i = node.index
        row = describe(node.op)
        args = _args(graph, node, names, digits)
        local, contributions = self._numbers(node)
        out = names[i]
        g = num(self.grad[i], digits)
        lines: list[_Line] = []
        locals_: list[_Line] = []  # adjoint notation: all local partials, then contributions
        completed: list[int] = []
        for k, p in enumerate(node.operands):
            if graph.nodes[p].role == "const":
                continue
            symbolic, numbers = _local_sides(row, k, args, out, names[p], local[k], digits)
            reads = tuple(q for m, q in enumerate(node.operands) if m != k and row.reads)
            contribution = contributions[k]
            self.received[p].append((i, k, contribution))
            shared = len(self.uses[p]) > 1
            share = self._via(p, i, k) if shared else None
            result = num(contribution, digits)
            edges = (f"op{i}-v{i}", f"v{p}-op{i}-{k}")
            touched = tuple(dict.fromkeys((p, i, *reads)))
            if self.adjoint:
                own = _own(graph, node, row, args, names)
                eq = _local_eq(own, names[p], node, k, symbolic, numbers, digits)
                locals_.append(_Line("backward", "local", touched, edges, p, eq))
                kind, eq = "contribution", chain([
                    _bar(names[p], share), times(_bar(out), partial(own, names[p])),
                    times(g, num(local[k], digits)), result,
                ])  # fmt: skip
            else:
                lhs = partial(self.top, names[p])  # ∂z/∂x: always the total
                if share is not None:  # one of several contributions: ȳ via the product
                    bar = _bar(names[p])
                    lhs = Eq(f"{bar.text} via {share[0].text}",
                             rf"{bar.latex}\ \text{{via }}{share[0].latex}")  # fmt: skip
                if i == r:  # the output's own operation: the local partial is the gradient
                    kind, eq = "local", chain([lhs, symbolic, numbers, result])
                else:
                    kind, eq = "contribution", chain([
                        lhs, times(partial(self.top, out), partial(out, names[p])),
                        times(g, symbolic), times(g, numbers), result,
                    ])  # fmt: skip
            done = len(self.received[p]) == len(self.uses[p])
            if done:
                total = 0.0
                for _, _, c in self.received[p]:  # the engine's order: 0.0 += each share
                    total += c
                self.grad[p] = total
                if shared:
                    completed.append(p)
            reveal = (p,) if done and not shared else ()
            if done and not shared:
                eq = _noted(self._held(p, eq), self.notes.get((p, "backward")))
            flag = self.flags.get((i, p)) or (not lines and self.flags.get((i, None)))
            said = ""
            if flag:  # what a check of the learner's engine found here: (sentence, hint)
                said, hint = flag
                eq = Eq(f"{eq.text}   ✗ {said}" + (f" — {hint}" if hint else ""), eq.latex)
            lines.append(_Line("backward", kind, touched, edges, p, eq, (), reveal, said))
        return locals_ + lines + [self._sum(p) for p in completed]

    def _held(self, p: int, eq: Eq) -> Eq:
        """The line completing p's gradient, with a note where p's `.grad` holds more than
        this one pass gives: `(x.grad holds 6: backward() ran again without zero_grad())`."""
        if self.theirs is not None and not _close_grad(self.theirs[p], self.grad[p]):
            theirs = num(self.theirs[p], self.digits)
            name = self.names[p]
            shown = f"({name.text})" if " " in name.text else name.text
            text = f"your backward() leaves {shown}.grad = {theirs.text}"
            latex = (rf"\quad\left(\text{{your backward() leaves the grad of }}{name.latex}"
                     rf"\text{{ at }}{theirs.latex}\right)")  # fmt: skip
            return Eq(f"{eq.text}   ({text})", eq.latex + latex, eq.prec)
        if p not in self.held:
            return eq
        held = num(self.held[p], self.digits)
        name = self.names[p]
        text = f"{name.text}.grad holds {held.text}: backward() ran again without zero_grad()"
        latex = (rf"\quad\left(\text{{the grad of }}{name.latex}\text{{ holds }}{held.latex}"
                 r"\text{: backward() ran again}\right)")  # fmt: skip
        return Eq(f"{eq.text}   ({text})", eq.latex + latex, eq.prec)

    def _sum(self, p: int) -> _Line:
        """`∂z/∂y = 5 + 3 = 8`: a value used several times gets the sum of its shares."""
        names, digits, received = self.names, self.digits, self.received[p]
        terms = [num(c, digits) for _, _, c in received]
        total_eq = terms[0]
        for term in terms[1:]:
            total_eq = plus(total_eq, term)
        if self.adjoint:
            vias = [self._via(p, c, k) for c, k, _ in received]
            symbolic_sum = _bar(names[p], vias[0])
            for one in vias[1:]:
                symbolic_sum = plus(symbolic_sum, _bar(names[p], one))
            parts = [_bar(names[p]), symbolic_sum]
        else:
            parts = [partial(self.top, names[p])]
        eq = self._held(p, chain([*parts, total_eq, num(self.grad[p], digits)]))
        eq = _noted(eq, self.notes.get((p, "backward")))
        consumers = tuple(dict.fromkeys(c for c, _, _ in received))
        edges = tuple(f"v{p}-op{c}-{k}" for c, k, _ in received)
        return _Line("backward", "accumulate", (p, *consumers), edges, p, eq, (), (p,))


def local_equations(graph: Graph, names: list[Eq], digits: int) -> dict[str, Eq]:
    """Each operand edge's local derivative as the adjoint notation writes it, by SVG edge
    id, with the values called `names`: the `local` lines of `trace(graph,
    notation="adjoint")`, written without tracing again (`autograd_viz.trace.local_equations`
    is the public form, which names the values itself)."""
    out: dict[str, Eq] = {}
    for node in graph.nodes:
        if node.is_leaf or node.index in graph.unsolved:
            continue
        row = describe(node.op)
        args = _args(graph, node, names, digits)
        own = _own(graph, node, row, args, names)
        for k, p in enumerate(node.operands):
            if graph.nodes[p].role != "const":
                sides = _local_sides(row, k, args, names[node.index], names[p], node.local[k],
                                     digits)  # fmt: skip
                out[f"v{p}-op{node.index}-{k}"] = _local_eq(own, names[p], node, k, *sides, digits)
    return out


def _local_sides(
    row: Op, k: int, args: Args, out: Eq, operand: Eq, local: float, digits: int
) -> tuple[Eq, Eq]:
    """The local derivative of operand k, symbolic and in numbers (by number only for an
    op the table does not know)."""
    if row.local is None:
        return partial(out, operand), num(local, digits)
    symbolic, numbers = row.local(k, args)
    return symbolic, numbers or num(local, digits)


def _own(graph: Graph, node: Node, row: Op, args: Args, names: list[Eq]) -> Eq:
    """What a local partial is written with: its operation's output; where that is the root,
    the operation itself — ∂(s · y)/∂s, as ∂z/∂s means the total."""
    return (
        row.forward(args.names, args) if node.index == len(graph.nodes) - 1 else names[node.index]
    )


def _local_eq(
    own: Eq, operand: Eq, node: Node, k: int, symbolic: Eq, numbers: Eq, digits: int
) -> Eq:
    """`∂own/∂operand = symbolic = numbers = value`, saying which operand in `a * a`."""
    part = partial(own, operand)
    if node.operands.count(node.operands[k]) > 1:
        part = Eq(f"{part.text} (operand {k + 1})",
                  rf"{part.latex}\ (\text{{operand {k + 1}}})")  # fmt: skip
    return chain([part, symbolic, numbers, num(node.local[k], digits)])


def _close_grad(a: float, b: float) -> bool:
    return a == b or (a != a and b != b) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _bar(name: Eq, via: tuple[Eq, Eq] | None = None) -> Eq:
    """The adjoint (gradient) of a value: z̄; with `via`, one operation's share: ȳ_mul."""
    if len(name.text) == 1:
        text, latex = name.text + "\u0304", rf"\bar{{{name.latex}}}"  # one letter: a macron
    else:  # a line over every character (not over the spaces of an expression: a · b)
        text = "".join(c + "\u0305" for c in name.text if c != " ")
        latex = rf"\overline{{{name.latex}}}"
    if via is not None:
        short = via[1]
        text, latex = f"{text}_{short.text}", rf"{latex}_{{{short.latex}}}"
    return Eq(unicodedata.normalize("NFC", text), latex)  # ȳ as one character where one exists


def _via(row: Op, named: bool, twice: bool, k: int, consumer: Eq) -> tuple[Eq, Eq]:
    """Which of a value's several uses an edge is, spelt long and short.

    Long: `the product`; `the sum s` when several sums use the value (`named`); `the
    product t, operand 2` when one operation uses it twice (`a * a`). Short (a
    subscript): `mul`, `add,s`, `mul2`.
    """
    noun, short = row.noun, row.short
    text, latex = noun, rf"\text{{{noun}}}"
    stext, slatex = short, rf"\text{{{short}}}"
    if named:
        text, latex = f"{text} {consumer.text}", rf"{latex}\ {consumer.latex}"
        stext, slatex = f"{stext},{consumer.text}", rf"{slatex},{consumer.latex}"
    if twice:
        text, latex = f"{text}, operand {k + 1}", rf"{latex}\text{{, operand {k + 1}}}"
        stext, slatex = f"{stext}{k + 1}", rf"{slatex}{k + 1}"
    return Eq(text, latex), Eq(stext, slatex)
