"""A network's forward and backward pass one frame per neuron (`neuron_steps(graph)`), because
an MLP's graph is far too many operations to step through one at a time (MLP(2, [16, 16,
1]) on one sample: 1,918 values): forward, each neuron lights up as its activation is
computed; backward, its gradient arrives as the weighted sum the next layer sends back and
passes on to its weights and the layer before — drawn on the one-box-per-neuron layout
(MLP(2, [4, 4, 1]) with a squared-error loss: 25 frames), with the operation-level trace's
numbers (the last frame's gradients are exactly `backward()`'s) and its equation pieces and
op table rows, so a neuron's line writes numbers, names and activations as an operation's
line does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autograd_viz.core._equations import (
    ATOM,
    SUM,
    Eq,
    chain,
    latex_name,
    num,
    par,
    partial,
    plus,
    times,
)
from autograd_viz.core.derive import derive
from autograd_viz.core.errors import NetworkError, TraceError
from autograd_viz.core.graph import Graph, Node
from autograd_viz.core.naming import expression_names
from autograd_viz.core.ops import Args, describe
from autograd_viz.core.steps import Step, check_phase
from autograd_viz.view.collapse import collapse_view, has_neurons

__all__ = [
    "BY",
    "NetworkError",
    "count_neuron_steps",
    "neuron_steps",
    "steps_for",
    "with_by",
]

BY = ("operation", "neuron")  # what one frame of an animation is: one operation, or one neuron

_TERMS_SHOWN = 4  # a neuron with 16 inputs: the first terms of its sum, then "…"
_Z = Eq("z", "z")  # a neuron's pre-activation, w·x + b
_AFFINE = Eq("w·x + b", r"w \cdot x + b", SUM)


@dataclass(frozen=True)
class _Unit:
    """One thing a frame is about: a neuron (its output value and the values it hides) or a
    value drawn on its own (an input, a constant, an operation of the loss)."""

    index: int  # the value it stands for (a neuron's output)
    neuron: str | None  # the neuron's name, None for a value drawn on its own
    owned: tuple[int, ...]  # values hidden inside the neuron's box
    inputs: tuple[int, ...]  # visible values or neuron outputs feeding it


def with_by(by: object, draw_options: dict[str, Any]) -> dict[str, Any]:
    """The drawing options an animation `by` operation or neuron needs: one frame per neuron
    is drawn one box per neuron (`collapse="neuron"`); anything else is a clear error."""
    if by not in BY:
        raise TraceError(
            "by must be 'operation' (one frame per operation) or 'neuron' (one frame per "
            f"neuron of an autograd_viz.nn network), got {by!r}"
        )
    if by == "operation":
        return draw_options
    if draw_options.get("collapse", "neuron") != "neuron":
        raise TraceError(f"by='neuron' draws one box per neuron; leave out "
                         f"collapse={draw_options['collapse']!r}")  # fmt: skip
    return {**draw_options, "collapse": "neuron"}


def steps_for(
    graph: Graph, phase: str, *, by: str = "operation", digits: int = 4, notation: str = "blog"
) -> list[Step]:
    """The steps an animation shows: the trace (`by="operation"`) or one per neuron."""
    if by == "neuron":
        return neuron_steps(graph, phase, digits=digits)
    return derive(graph, phase, digits=digits, notation=notation)


def count_neuron_steps(graph: Graph, phase: str = "both") -> int:
    """How many frames `neuron_steps(graph, phase)` gives, counted without tracing.

    >>> from autograd_viz.open.snapshot import snapshot
    >>> from autograd_viz.nn import MLP
    >>> count_neuron_steps(snapshot((MLP(2, [4, 4, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2))
    25
    """
    order = graph.nodes
    units = _units(graph)
    root_index = len(order) - 1
    leaves = [u for u in units if order[u.index].is_leaf]
    ops = [u for u in units if not order[u.index].is_leaf]
    forward = (1 if leaves else 0) + len(ops)
    with_grad = [u for u in leaves if _has_grad(order[u.index])]
    backward = 1 + sum(1 for u in ops if u.index != root_index or u.neuron) + len(with_grad)
    return {"forward": forward, "backward": backward, "both": forward + backward}[phase]


def neuron_steps(graph: Graph, phase: str = "both", *, digits: int = 4) -> list[Step]:
    """The forward and/or backward pass of a network's opened graph, one `Step` per neuron.

    Each step is a `autograd_viz.trace.Step` (so frames and players draw it like any other):
    its `active` is the neuron's output (a box of the `collapse="neuron"` drawing), its
    `values`/`grads` say what is known after it, its `text`/`latex` the neuron's equation.

    >>> from autograd_viz.open.snapshot import snapshot
    >>> from autograd_viz.nn import MLP
    >>> loss = (MLP(2, [4, 4, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
    >>> steps = neuron_steps(snapshot(loss))
    >>> len(steps), steps[1].text.split(" = ")[0]
    (25, 'L1.n1')
    """
    check_phase(phase)
    order = graph.nodes
    if not has_neurons(graph):
        raise NetworkError(
            "animating neuron by neuron needs a network built with autograd_viz.nn (MLP, Layer "
            "or Neuron); this graph has no neurons. Animate it operation by operation instead: "
            "root.animate()."
        )
    fine = derive(graph, "both", digits=digits)
    grads = dict(fine[-1].grads)
    net = _Net(graph, _units(graph), fine, grads, digits)
    steps: list[Step] = []
    values: dict[int, float] = {}
    if phase == "backward":
        values = {n.index: n.data for n in order}
    if phase in ("forward", "both"):
        steps += net.forward(values)
    if phase in ("backward", "both"):
        steps += net.backward(values, len(steps))
    return steps


def _units(graph: Graph) -> list[_Unit]:
    """The neurons and the values drawn on their own, in topological order."""
    order = graph.nodes
    view = collapse_view(graph, "neuron")
    drawn = {b.members[0] for b in view.boxes} | set(view.visible)
    units = [_Unit(i, None, (), tuple(dict.fromkeys(order[i].operands))) for i in view.visible]
    for box in view.boxes:
        out = box.members[0]
        owned, seen, stack = [], set(), list(order[out].operands)
        while stack:  # everything behind the output up to the drawn values is the box's
            p = stack.pop()
            if p in seen or p in drawn:
                continue
            seen.add(p)
            owned.append(p)
            stack.extend(order[p].operands)
        inputs = tuple(int(key[1:]) for key in box.inputs)
        units.append(_Unit(out, order[out].tag, tuple(sorted(owned)), inputs))
    return sorted(units, key=lambda u: u.index)


def _has_grad(leaf: Node) -> bool:
    """A leaf drawn on its own gets a gradient unless it is a number written in (a constant)."""
    return leaf.role != "const"


class _Net:
    """The units of one network's graph, with the trace's numbers, turned into steps."""

    def __init__(
        self, graph: Graph, units: list[_Unit], fine: list[Step], grads: dict, digits: int
    ) -> None:
        order = graph.nodes
        self.graph, self.order, self.units, self.grads = graph, order, units, grads
        self.digits = digits
        self.root = len(order) - 1
        self.by_index = {u.index: u for u in units}
        self.lines: dict[tuple[str, int], list[Step]] = {}
        for s in fine:
            self.lines.setdefault((s.phase, s.active), []).append(s)
        self.uses = graph.consumers()
        self.parents = [n.operands for n in order]
        self.names = {u.index: u.neuron for u in units if u.neuron}
        self.expression_names = expression_names(graph, digits)
        head = fine[0] if fine and fine[0].phase == "forward" else None
        self.first = head if head is not None and order[head.active].is_leaf else None

    def num(self, x: float) -> Eq:
        return num(x, self.digits)

    def name(self, i: int) -> Eq:
        """How equations call value i: its neuron's name, else the trace's name for it."""
        if i in self.names:
            return Eq(self.names[i], latex_name(self.names[i]))
        return self.expression_names[i]

    # ---- forward ---------------------------------------------------------------

    def forward(self, values: dict[int, float]) -> list[Step]:
        steps: list[Step] = []
        leaves = [u.index for u in self.units if self.order[u.index].is_leaf]
        values.update((n.index, n.data) for n in self.order if n.is_leaf)
        if leaves:  # the inputs (and the weights, hidden in their boxes) are there first
            line = self.first
            text, latex = (line.text, line.latex) if line else ("inputs", r"\text{inputs}")
            steps.append(self._step(0, "forward", "value", tuple(leaves), (), leaves[0],
                                    values, {}, Eq(text, latex)))  # fmt: skip
        for u in self.units:
            if self.order[u.index].is_leaf:
                continue
            values.update((i, self.order[i].data) for i in (*u.owned, u.index))
            if u.neuron:
                eq = self._neuron_forward(u)
                edges = tuple(f"v{p}-v{u.index}" for p in u.inputs)
            else:
                line = self.lines[("forward", u.index)][-1]
                eq, edges = Eq(line.text, line.latex), line.edges
            steps.append(self._step(len(steps), "forward", "value", (u.index, *u.inputs),
                                    edges, u.index, values, {}, eq))  # fmt: skip
        return steps

    def _neuron_forward(self, u: _Unit) -> Eq:
        """`L1.n2 = ReLU(w·x + b) = ReLU(0.69 · 1 + 0.52 · (−1) + 0) = ReLU(0.17) = 0.17`."""
        out = self.order[u.index]
        row = describe(out.op)
        act = row.activation  # the op table's activations
        z = self.parents[u.index][0] if act else u.index

        def wrap(e: Eq) -> Eq:  # the activation as its op table row writes it: ReLU(…), σ(…)
            if not act:
                return e
            args = Args(names=[e], numbers=[self.num(self.order[z].data)],
                        values=[self.order[z].data], out=self.name(u.index),
                        out_number=self.num(out.data), out_value=out.data,
                        exponent=out.exponent, digits=self.digits)  # fmt: skip
            return row.forward([e], args)

        name, result = self.name(u.index), self.num(out.data)
        terms, bias = self._affine(z, u)
        if terms is None:  # not built as w·x + b: its pre-activation's number only
            return chain([name, wrap(chain([_Z, self.num(self.order[z].data)])), result])
        numbers = plus(self._products(terms), self.num(bias)) if terms else self.num(bias)
        if not act:
            return chain([name, _AFFINE, numbers, result])
        return chain([name, wrap(_AFFINE), wrap(numbers), wrap(self.num(self.order[z].data)),
                      result])  # fmt: skip

    def _products(self, pairs: list[tuple[float, float]]) -> Eq:
        """`a · b + c · d + …`: the first terms, then how many there are."""
        total: Eq | None = None
        for j, (a, b) in enumerate(pairs[:_TERMS_SHOWN]):
            first = self.num(a)
            first = par(first, ATOM) if j else first  # after the first term: (−0.5) · 1
            term = times(first, self.num(b))
            total = term if total is None else plus(total, term)
        if len(pairs) > _TERMS_SHOWN:
            more = Eq(f"… ({len(pairs)} terms)", rf"\ldots\ ({len(pairs)}\ \text{{terms}})")
            total = plus(total, more)
        return total

    def _affine(self, z: int, u: _Unit) -> tuple[list[tuple[float, float]] | None, float]:
        """The neuron's w·x + b as (w, x) pairs and b, read off the sum behind `z`; None if
        the neuron is not built that way."""
        owned = set(u.owned)
        terms: list[tuple[float, float]] = []
        bias = 0.0
        stack = [z]
        found_bias = False
        while stack:
            i = stack.pop()
            v = self.order[i]
            if v.op == "+" and (i == z or i in owned):
                stack.extend(reversed(self.parents[i]))
            elif v.op == "*" and i in owned:
                a, b = (self.order[p] for p in self.parents[i])
                w, x = (a, b) if a.trainable else (b, a)
                terms.append((w.data, x.data))
            elif v.is_leaf and v.trainable and not found_bias:
                bias, found_bias = v.data, True
            else:
                return None, 0.0
        return terms, bias

    # ---- backward ----------------------------------------------------------------

    def backward(self, values: dict[int, float], first: int) -> list[Step]:
        grads: dict[int, float] = {self.root: self.grads[self.root]}
        seed = self.lines[("backward", self.root)][0]
        steps = [self._step(first, "backward", "seed", (self.root,), (), self.root, values,
                            grads, Eq(seed.text, seed.latex))]  # fmt: skip
        for u in reversed(self.units):
            v = self.order[u.index]
            if u.index == self.root and not u.neuron:
                continue  # the seed was its frame
            if v.is_leaf and u.index not in self.grads:
                continue  # a constant: no gradient
            grads.update((i, self.grads[i]) for i in (u.index, *u.owned) if i in self.grads)
            if u.neuron:
                eq = self._neuron_backward(u)
                edges = tuple(f"v{p}-v{u.index}" for p in u.inputs)
                kind = "accumulate" if len(self.uses[u.index]) > 1 else "contribution"
            else:
                eq = self._arrival(u.index)
                edges = tuple(
                    dict.fromkeys(self._edge(u.index, c, k) for c, k in self.uses[u.index])
                )
                kind = "accumulate" if len(self.uses[u.index]) > 1 else "contribution"
            consumers = tuple(dict.fromkeys(self._drawn_consumer(c) for c, _ in self.uses[u.index]))
            steps.append(self._step(first + len(steps), "backward", kind,
                                    (u.index, *consumers, *u.inputs), edges, u.index, values,
                                    grads, eq))  # fmt: skip
        return steps

    def _edge(self, p: int, c: int, k: int) -> str:
        """The drawn edge from value p into its consumer c (operand k): into c's neuron box
        when c is hidden in one, else the operation's own edge."""
        drawn = self._drawn_consumer(c)
        return f"v{p}-v{drawn}" if self.order[drawn].tag is not None else f"v{p}-op{c}-{k}"

    def _drawn_consumer(self, c: int) -> int:
        """The drawn unit a consumer value belongs to (a neuron box, or itself)."""
        if c in self.by_index:
            return c
        for u in self.units:
            if c in u.owned:
                return u.index
        return c

    def _arrival(self, p: int) -> Eq:
        """How the gradient of value p is made from what its consumers send back."""
        top = self.name(self.root)
        head = partial(top, self.name(p))
        total = self.num(self.grads[p])
        if p == self.root:
            return chain([head, Eq("1", "1")])
        weighted = []
        for c, k in self.uses[p]:
            other = self.parents[c][1 - k] if len(self.parents[c]) == 2 else None
            if self.order[c].op == "*" and other is not None and self.order[other].trainable:
                weighted.append((self.order[other].data, self.grads[c]))
            else:
                weighted = None
                break
        if weighted:
            each = partial(top, _Z)
            symbolic = Eq(f"Σ w·{each.text}", rf"\sum w \cdot {each.latex}", SUM)
            return chain([head, symbolic, self._products(weighted), total])
        lines = self.lines.get(("backward", p), [])
        if len(lines) == 1 or (lines and lines[-1].kind == "accumulate"):
            return Eq(lines[-1].text, lines[-1].latex)
        return chain([head, total])

    def _neuron_backward(self, u: _Unit) -> Eq:
        arrival = self._arrival(u.index)
        out = self.order[u.index]
        row = describe(out.op)
        if not row.activation:
            return Eq(arrival.text + "; its weights get input · this", arrival.latex)
        z = self.parents[u.index][0]
        g, delta = self.num(self.grads[u.index]), self.num(self.grads.get(z, 0.0))
        top = self.name(self.root)
        slope = row.slope.format(z=self.num(self.order[z].data).text)  # the row's words
        slope_value = self.graph.local(u.index)[0]  # its number, from the engine's own rule
        local = self.num(slope_value)
        stopped = row.blocked and slope_value == 0 and not math.isnan(self.order[z].data)
        blocked = f" (blocked: {row.blocked})" if stopped else ""
        to_z = chain([partial(top, _Z), times(g, local), delta])  # ∂L/∂z = g · slope = δ
        head, _, rest = to_z.text.partition(" = ")
        worded = f"{head} = {g.text} · {slope} = {rest}"  # the slope's words: text only
        weights = partial(top, Eq("wⱼ", "w_j")).text
        then = (f"; {worded}{blocked} → weights: {weights} = xⱼ · {par(delta, ATOM).text}, "
                f"bias: {delta.text}")  # fmt: skip
        return Eq(arrival.text + then, rf"{arrival.latex};\quad {to_z.latex}")

    # ---- one step ---------------------------------------------------------------

    @staticmethod
    def _step(index, phase, kind, nodes, edges, active, values, grads, eq: Eq) -> Step:
        return Step(index=index, phase=phase, kind=kind, nodes=tuple(dict.fromkeys(nodes)),
                    edges=tuple(edges), active=active, values=dict(values), grads=dict(grads),
                    text=eq.text, latex=eq.latex)  # fmt: skip
