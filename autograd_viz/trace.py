"""The derivation as data: `trace(root)` works the graph the way the blog works it by hand and
returns one `Step` per line — forward, the inputs then every operation with its equation
(`s = x + y = 2 + 3 = 5`); backward, the seed, then per operation (in the engine's own
order) one line per operand edge, the chain rule written out (`∂z/∂x = ∂z/∂s · ∂s/∂x = 3 ·
1 = 3`), and a sum wherever a value feeds several operations (`∂z/∂y = 5 + 3 = 8`), or in
`notation="adjoint"` each operation's local partials then each contribution to the adjoints
— each step naming the values and SVG edges it touches, what is known after it, and its
equation as Unicode text and LaTeX; this module is only the walk (which line comes when):
names come from `autograd_viz.naming`, how an operation is written from its op table row,
every number from the engine's own backward pass as the opened graph holds it, so the
gradients agree bit for bit with `backward()`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from autograd_viz._checks import is_number
from autograd_viz._equations import (
    Eq,
    chain,
    latex_text,
    num,
    partial,
    plus,
    times,
)
from autograd_viz._numbers import format_number
from autograd_viz.door import open_graph
from autograd_viz.errors import GraphTooLargeError, TraceError
from autograd_viz.graph import Graph, Node, snapshot
from autograd_viz.naming import expression_names
from autograd_viz.ops import Args, Op, describe

PHASES = ("forward", "backward", "both")
KINDS = ("value", "seed", "local", "contribution", "accumulate")
NOTATIONS = ("blog", "adjoint")


def check_phase(phase: object) -> str:
    """`phase` if it is one of PHASES; else a TraceError saying which ones there are.

    The one phase check: trace, frames, the player and the exports all call it.
    """
    if phase not in PHASES:
        raise TraceError(f"phase must be one of {', '.join(map(repr, PHASES))}; got {phase!r}")
    return phase


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


class _Revealed(Mapping):
    """A read-only {value index: number} of what is known after one step.

    Every step shares one table of final numbers and the step at which each is
    revealed, so a trace of n steps costs O(n) memory, not O(n²).
    """

    __slots__ = ("_final", "_rank", "_order", "_count")

    def __init__(
        self, final: dict[int, float], rank: dict[int, int], order: list[int], count: int
    ) -> None:
        # rank[i]: position of i in the reveal order; the first `count` are known
        self._final, self._rank, self._order, self._count = final, rank, order, count

    def __getitem__(self, key: int) -> float:
        if self._rank.get(key, self._count) < self._count:
            return self._final[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return self._rank.get(key, self._count) < self._count

    def __iter__(self) -> Iterator[int]:
        return iter(self._order[: self._count])

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return repr(dict(self))


@dataclass(frozen=True)
class Step:
    """One line of the derivation.

    `index` (position in the trace), `phase` ("forward" | "backward"), `kind`
    ("value" | "seed" | "local" | "contribution" | "accumulate"), `nodes` (value
    indices the step reads or writes), `edges` (SVG edge ids it travels), `active`
    (the value index it is about), `values` / `grads` (read-only {index: number}
    known after the step; grads only once complete), `text` and `latex`, and `flag`:
    where a learner's own engine goes wrong at this step, what it did ('' elsewhere).
    """

    index: int
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    values: Mapping[int, float]
    grads: Mapping[int, float]
    text: str
    latex: str
    flag: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass
class _Line:
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    eq: Eq
    reveal_values: tuple[int, ...] = ()
    reveal_grads: tuple[int, ...] = ()
    flag: str = ""


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


def local_equations(graph: Graph, digits: int = 4) -> dict[str, Eq]:
    """Each operand edge's local derivative as the adjoint notation writes it, by SVG edge
    id: the `local` lines of `trace(graph, notation="adjoint")`, written without tracing
    again (what a player's "ask the graph" panel shows on an edge).

    >>> from autograd_viz import Value
    >>> from autograd_viz.graph import snapshot
    >>> x, y = Value(2.0, label="x"), Value(3.0, label="y")
    >>> local_equations(snapshot((x + y) * y))["v1-op3-1"].text
    '∂((x + y) · y)/∂y = x + y = 5'
    """
    names = _names(graph, digits)
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


def _args(graph: Graph, node: Node, names: list[Eq], digits: int) -> Args:
    """What the op table writes with, for one operation node."""
    operands = [graph.nodes[p] for p in node.operands]
    return Args(
        names=[names[p] for p in node.operands],
        numbers=[num(o.data, digits) for o in operands],
        values=[o.data for o in operands],
        out=names[node.index],
        out_number=num(node.data, digits),
        out_value=node.data,
        exponent=node.exponent,
        digits=digits,
    )


def _forward_eq(graph: Graph, node: Node, names: list[Eq], digits: int) -> Eq:
    """`out = <symbolic> = <numbers> = <result>` for one operation."""
    row = describe(node.op)
    args = _args(graph, node, names, digits)
    symbolic, numbers = row.forward(args.names, args), row.forward(args.numbers, args)
    return chain([names[node.index], symbolic, numbers, num(node.data, digits)])


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


class _Backward:
    """The backward lines of one graph, and every value's final gradient.

    Visits operations in reverse topological order, as `backward()` does; for each
    operand edge it writes one line, and once a value has received every share of its
    gradient (one per use) it writes the sum. Constants get no lines.
    """

    def __init__(self, graph: Graph, names: list[Eq], digits: int, notation: str) -> None:
        self.graph, self.names, self.digits = graph, names, digits
        self.adjoint = notation == "adjoint"
        self.r = len(graph.nodes) - 1  # the root is last in topological order
        self.top = names[self.r]
        self.uses = graph.consumers()  # per value: (consumer, operand position)
        self.grad = [0.0] * len(graph.nodes)
        self.received: list[list[tuple[int, int, float]]] = [[] for _ in graph.nodes]
        self.family = [describe(n.op).short for n in graph.nodes]  # "the power" is one kind
        self.kinds_used: dict[int, dict[str, set[int]]] = {}  # value -> kind -> consumers
        # a learner's engine, checked (autograd_viz.engines): what went wrong at which edge
        self.flags = getattr(graph, "flags", {})
        # leaves whose .grad holds more than this pass gives (backward() twice, no zero_grad)
        self.held = {i: g for i, g, _ in graph.accumulated()}
        # a learner's engine, checked: what *their* backward() gives, where it differs
        self.theirs = getattr(graph, "engine_grads", None)
        self.seed_flag = getattr(graph, "seed_flag", None)
        # PyTorch's graph (autograd_viz.engines.torch_run): where its engine works differently
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
        # a learner's engine (autograd_viz.engines): the order their backward() ran in
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


def _noted(eq: Eq, note: str | None) -> Eq:
    """The step's equation with a note after it, `(…)`: where another engine (PyTorch) does
    this step differently from the kit's, said once, in the caption every front end shows."""
    if not note:
        return eq
    return Eq(f"{eq.text}   ({note})", eq.latex + rf"\quad\text{{({latex_text(note)})}}", eq.prec)


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


def _steps(graph: Graph, lines: list[_Line], phase: str, grads: list[float]) -> list[Step]:
    """Turn lines into Steps whose values/grads are views on one shared table."""
    order = graph.nodes
    values_final = {node.index: node.data for node in order}
    # the forward pass is taken as done when only the backward pass is traced
    value_order: list[int] = list(range(len(order))) if phase == "backward" else []
    grads_final: dict[int, float] = {}
    grad_order: list[int] = []
    value_counts, grad_counts = [], []
    seen = set(value_order)
    for line in lines:
        for i in line.reveal_values:
            if i not in seen:
                seen.add(i)
                value_order.append(i)
        for p in line.reveal_grads:
            grads_final[p] = grads[p]
            grad_order.append(p)
        value_counts.append(len(value_order))
        grad_counts.append(len(grad_order))
    value_rank = {i: n for n, i in enumerate(value_order)}
    grad_rank = {i: n for n, i in enumerate(grad_order)}
    return [
        Step(
            index=s,
            phase=line.phase,
            kind=line.kind,
            nodes=line.nodes,
            edges=line.edges,
            active=line.active,
            values=_Revealed(values_final, value_rank, value_order, value_counts[s]),
            grads=_Revealed(grads_final, grad_rank, grad_order, grad_counts[s]),
            text=line.eq.text,
            latex=line.eq.latex,
            flag=line.flag,
        )
        for s, line in enumerate(lines)
    ]


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
