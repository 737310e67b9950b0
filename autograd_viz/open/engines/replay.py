"""The snapshot of a learner's own graph with the numbers their backward pass sent:
`foreign_snapshot(root)` (the door calls `read_foreign`, then `ForeignSnapshot.numbered`)
runs their backward() once (`autograd_viz.open.engines.run`) — the run the check judges too —
and writes what their closures sent into the nodes as plain numbers (each local derivative a
call's share scaled to gradient 1, since a `_backward` adds `local · out.grad`), so every
viewer shows the learner's own numbers; a value that does not follow from its operation
(their `__add__` giving 2 + 3 = −1) is written as a call of their method, `__add__(2, 3) =
−1`, never as a false equation, and said (`engines.forward`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograd_viz.core.graph import Graph, Node, with_numbers
from autograd_viz.core.naming import expression_names
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT, _check_timeout, _TimeUp, time_limit
from autograd_viz.open.engines.check import check_graph
from autograd_viz.open.engines.diagnose import seed_finding
from autograd_viz.open.engines.forward import ForwardProblem, forward_checks, forward_problems
from autograd_viz.open.engines.ops import (
    canonical_op,
    engine_op,
    method_name,
    numeric_partials,
    table_partials,
)
from autograd_viz.open.engines.read import ForeignGraph, read_graph
from autograd_viz.open.engines.run import BackwardRun, Call, _grad, _timed_out, _where, run_backward

if TYPE_CHECKING:
    from autograd_viz.open.engines.check import EngineReport, Finding

__all__ = ["ForeignSnapshot", "foreign_snapshot", "read_foreign"]


# ---- the snapshot of a foreign graph, whose rules replay their run ---------------------------


class _Replay:
    """What the learner's own rules send (`graph.with_numbers`'s share): recorded from the
    one run of their backward pass, and at another gradient scaled from what the call sent
    (a rule adds `local · out.grad`)."""

    def __init__(
        self, graph: ForeignGraph, run: BackwardRun | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.graph = graph
        self._run = run
        self.timeout = timeout
        self._calls: dict[int, list[Call]] | None = None

    def run(self) -> BackwardRun:
        """The one recorded run of their backward pass (running it now if none is yet)."""
        if self._run is None:
            self._run = run_backward(self.graph, timeout=self.timeout)
        return self._run

    def calls(self, i: int) -> list[Call]:
        if self._calls is None:
            self._calls = {}
            for call in self.run().calls:
                self._calls.setdefault(call.node, []).append(call)
        return self._calls.get(i, [])

    def order(self) -> tuple[int, ...] | None:
        """The operations in the order their backward ran them, if that order is valid."""
        return self._valid_order

    @functools.cached_property
    def _valid_order(self) -> tuple[int, ...] | None:  # worked out once per graph
        self.calls(0)
        ran = [i for i, calls in self._calls.items() for _ in calls if self.graph.operands[i]]
        ops = [i for i, operands in enumerate(self.graph.operands) if operands]
        if sorted(ran) != ops:  # each operation exactly once
            return None
        done: set[int] = set()
        uses = self._uses()
        for i in ran:
            if any(u not in done for u in uses[i]):
                return None  # ran before a use of it had sent its gradient
            done.add(i)
        return tuple(ran)

    def _uses(self) -> list[list[int]]:
        uses: list[list[int]] = [[] for _ in self.graph.operands]
        for i, operands in enumerate(self.graph.operands):
            for p in set(operands):
                uses[p].append(i)
        return uses

    def sent(self, i: int, grad: float) -> tuple[float, ...]:
        """What node i's rule adds to each operand position at gradient `grad`: for a
        node that stores its local gradients (microgpt), those numbers times `grad`, read,
        never run."""
        local = self.graph.local_grads[i] if self.graph.local_grads else None
        if local is not None:
            return tuple(g * grad for g in local)
        calls = self.calls(i)
        if not calls:
            return tuple(0.0 for _ in self.graph.operands[i])
        last = calls[-1]
        if math.isclose(grad, last.out_grad, rel_tol=1e-12, abs_tol=0.0):
            total: dict[int, float] = {}
            for call in calls:  # a node their backward ran twice sent twice
                for p, amount in call.sent.items():
                    total[p] = total.get(p, 0.0) + amount
        elif last.out_grad != 0 and math.isfinite(last.out_grad):
            scale = grad / last.out_grad  # their rule sent local · out.grad: the same local
            total = {p: amount * scale for p, amount in last.sent.items()}
        else:  # their rule ran at gradient 0 (or inf): no local derivative to scale from
            # in a valid order the pass asks this rule for 0 (above) and for its local
            # derivative at 1, which, as check_engine says, such a run tells nothing of
            if grad == 1.0 and self.order() is not None:
                local = _table_partials(self.graph, i)
                if local is not None:
                    return tuple(local)
            total = self._replay(last, grad)  # an operation the op table does not know
        return self._per_position(i, total)

    def _replay(self, call: Call, grad: float) -> dict[int, float]:
        """Their closure called again at `grad`: only where the recorded call ran at a
        gradient of 0 or inf, which says nothing of its local derivative, and the op table
        cannot say it instead (an operation it does not know, or a gradient other than 1
        asked of a run in an order that was not valid)."""
        _running = call.node
        nodes = self.graph.nodes
        node, touched = nodes[call.node], [call.node, *call.before]
        saved = [nodes[j].grad for j in touched]
        try:
            for p, before in call.before.items():
                nodes[p].grad = before
            node.grad = grad
            try:
                with time_limit(self.timeout) as limit:
                    node._backward()
            except _TimeUp as err:
                if err.limit is not limit:
                    raise
                where = _where(err, self.graph)
                raise _timed_out("a `_backward` of yours", self.timeout, where) from None
            return {p: _grad(nodes[p]) - before for p, before in call.before.items()}
        finally:
            for j, g in zip(touched, saved):
                nodes[j].grad = g

    def _per_position(self, i: int, total: dict[int, float]) -> tuple[float, ...]:
        """Split what an operand used twice (`a * a`) received between its positions, in
        proportion to the right local derivatives (evenly where the kit has none)."""
        positions = self.graph.operands[i]
        if len(set(positions)) == len(positions):
            return tuple(total[p] for p in positions)
        canonical = canonical_op(self.graph.ops[i], len(positions))
        args = [self.graph.data[p] for p in positions]
        weights = table_partials(canonical, args, self.graph.exponents[i])
        out = []
        for k, p in enumerate(positions):
            mine = [j for j, q in enumerate(positions) if q == p]
            share = 1 / len(mine)
            if weights is not None and sum(weights[j] for j in mine) != 0:
                share = weights[k] / sum(weights[j] for j in mine)
            out.append(total[p] * share)
        return tuple(out)


@dataclass(frozen=True, eq=False)
class ForeignSnapshot(Graph):
    """The snapshot of a learner's own graph: a `Graph`, plus what the viewers say about it.

    `note` is a caption line (operand order that could not be recovered); `report` is
    `check_engine`'s report (None when not checked); `flags` maps (node, operand) — or
    (node, None) for the node as a whole — to what went wrong there (a sentence and a
    hint), for the derivation and the step's caption to say ("✗ your `__mul__` sent 28 to
    a; the product rule gives 42"); `run` is the one recorded run of their backward(), whose
    numbers the nodes hold (None: a graph opened to grade against, no longer theirs).
    """

    note: str = ""
    report: EngineReport | None = None
    flags: Mapping[tuple[int, int | None], tuple[str, str]] = field(default_factory=dict)
    source: ForeignGraph | None = field(default=None, repr=False)
    run: BackwardRun | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT
    forward: tuple[ForwardProblem, ...] = ()

    @property
    def forward_flags(self) -> dict[int, tuple[str, str]]:
        """Node -> (sentence, hint) for every value that does not follow from its operation
        (such a node is written as a call of the method that made it: `__add__(x, y)`)."""
        return {p.node: (p.message, p.hint) for p in self.forward}

    def numbered(self) -> ForeignSnapshot:
        """This snapshot with the numbers their backward() sent written into its nodes: it
        runs once, now (the run every picture of the call shows, and the check judges)."""
        if self.run is not None or self.source is None:
            return self
        replay = _Replay(self.source, timeout=self.timeout)
        snap = dataclasses.replace(self, run=replay.run())
        return with_numbers(snap, replay.sent, replay.order())

    def checked(self, *, probe: bool = False) -> ForeignSnapshot:
        """This snapshot with `check_engine`'s findings (a viewer asks once it knows the
        graph is not too large to show, so a refusal never waits for a check). `probe`:
        also try each method of their class on fresh values — `check_engine` only; a
        picture runs their backward() once and nothing else of theirs."""
        if self.report is not None or self.source is None:
            return self
        snap = self.numbered()  # the check judges the run the numbers came from: one run
        names = tuple(name.text for name in expression_names(snap))
        report = check_graph(
            snap.source, names, snap.forward, run=snap.run, timeout=snap.timeout, probe=probe
        )
        flags: dict[tuple[int, int | None], tuple[str, str]] = {}
        for finding in report.findings:  # a forward one flags its forward step (`forward`)
            if finding.node is not None and finding.phase == "backward":
                flags.setdefault((finding.node, finding.operand), (finding.message, finding.hint))
        note = snap.source.note  # the forward problems are findings now: no second line
        return dataclasses.replace(snap, report=report, flags=flags, note=note)

    def graded(self) -> tuple[Graph, set[int], tuple[float, ...] | None]:
        """What a quiz grades against (`Graph.graded`): at each operation the op table's
        derivative, or central differences on their own forward method where the table has
        no row, never their `_backward`'s (a quiz that graded against their rule would call
        their bug right); with what their one run of backward() gave for every value."""
        if self.source is None:
            return self, set(), None
        right: dict[int, tuple[float, ...]] = {}
        unknown: set[int] = set()
        for i, node in enumerate(self.nodes):
            partials = None if node.is_leaf else _right_partials(self.source, i)
            if partials is None and not node.is_leaf:
                unknown.add(i)  # its operands' gradients are neither shown nor asked
                partials = [0.0] * len(node.operands)
            if partials is not None:
                right[i] = tuple(partials)
        plain = dataclasses.replace(self, report=None, flags={}, source=None, run=None)
        # no flags: a caption saying "the product rule gives 3" would give the answer away
        graded = with_numbers(plain, lambda i, g: tuple(d * g for d in right[i]))
        return graded, unknown, self.run.grads  # the one run, which the check judged too

    @property
    def first_wrong(self) -> Finding | None:
        return None if self.report is None else self.report.first_wrong

    @property
    def seed_flag(self) -> tuple[str, str] | None:
        """(sentence, hint) where their backward() never seeds the output with 1, for the
        derivation's seed line; None elsewhere (and for a graph opened to grade against,
        which holds no run of theirs)."""
        if self.report is not None:
            found = next((f for f in self.report.findings if f.phase == "seed"), None)
        else:
            run = self.run
            if run is None or self.source is None:
                return None
            names = tuple(name.text for name in expression_names(self))
            found = seed_finding(self.source, names, run)
        return None if found is None else (found.message, found.hint)

    @property
    def unseen_rules(self) -> str:
        """Why the backward pass of their graph cannot be shown, where no operation has a rule
        the kit can record — neither a `_backward` nor stored local gradients — so what each
        operation sent is unknown (not 0, which is what a pass that ran no rule would show);
        '' elsewhere, and for a graph opened to grade against (a quiz needs no rule of theirs)."""
        run, source = self.run, self.source
        if run is None or source is None or run.calls:
            return ""
        if any(local is not None for local in source.local_grads):
            return ""
        operations = [i for i, operands in enumerate(source.operands) if operands]
        if not operations or any(
            callable(getattr(source.nodes[i], "_backward", None)) for i in operations
        ):
            return ""
        start = "the backward pass of your graph cannot be shown: no operation's output has a "
        start += "`_backward` (the rule micrograd leaves on it) or its local gradients stored as "
        start += "`_local_grads` (as microgpt does)"
        fix = "Give each output its rule as `_backward`. Meanwhile, "
        fix += "autograd_viz.trace.trace(root, 'forward') writes the forward pass, and "
        fix += "autograd_viz.draw(root) draws the graph"
        if run.order == "your backward()" and any(g != 0 for g in run.grads[:-1]):
            return (
                f"{start}; your backward() changed the gradients another way, so which "
                f"operation sent what is unknown. {fix} with the grads your backward() left."
            )
        return f"{start}, so there is no backward pass to show yet. {fix}."

    @property
    def engine_grads(self) -> tuple[float, ...] | None:
        """Every value's gradient after the one run of *their* backward() from fresh
        gradients, for the derivation to say where it differs from the numbers it derives
        (`y.grad` left at 0 while the rules give 8); None where their backward() could not
        run."""
        run = self.run
        if run is None or run.order != "your backward()":
            return None
        return run.grads


def foreign_snapshot(
    root: object,
    *,
    check: bool | None = True,
    timeout: float = DEFAULT_TIMEOUT,
    read: Mapping[int, tuple[list[object], bool]] | None = None,
) -> ForeignSnapshot:
    """The graph snapshot of a learner's micrograd-style graph: read once (`read_foreign`),
    with the numbers *their* backward() sends written in (`ForeignSnapshot.numbered`: it runs
    once, within `timeout` seconds, else `BackwardTimeoutError`); with `check`, also
    `check_engine`'s findings, so the viewers can mark the first wrong node (None: check
    only a graph that holds gradients, i.e. one whose backward pass has run).
    `read`: the operands a size check has read already, by `id` (`read_graph`'s `read`).

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> foreign_snapshot((x + y) * y).nodes[3].local  # doctest: +SKIP
    (3.0, 5.0)
    """
    snap = read_foreign(root, timeout=timeout, read=read).numbered()
    if check is None:
        check = any(n.grad != 0 for n in snap.nodes)
    return snap.checked() if check else snap


def read_foreign(
    root: object,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    read: Mapping[int, tuple[list[object], bool]] | None = None,
) -> ForeignSnapshot:
    """A learner's graph read once, each value checked against its operation, before any
    of their backward code runs (the door bounds this reading with its own time limit)."""
    graph = root if isinstance(root, ForeignGraph) else read_graph(root, read=read)
    last = len(graph) - 1
    # An unlabelled leaf is a number written into the expression (a constant), as with our
    # Value; but in a graph with no labels at all (micrograd has none) every leaf is an input.
    labelled = any(graph.labels)
    checks = forward_checks(graph)  # a value its operation does not give is not written as one
    nodes = []
    for i, operands in enumerate(graph.operands):
        label = graph.labels[i]
        if i == last:
            role = "output"
        elif operands:
            role = "value"
        else:
            role = "input" if label or not labelled else "const"
        op = graph.ops[i] if operands else ""
        canonical = canonical_op(op, len(operands)) if operands else None
        exponent = graph.exponents[i]
        if i in checks:
            op = checks[i][2] or f"{op}?"  # a call of their method: `__add__(x, y)`, not `x + y`
        elif canonical == "**n" and exponent is not None:
            op = f"**{exponent:g}"
        elif engine_op(canonical) is not None:
            op = engine_op(canonical)
        node = Node(i, label, graph.data[i], graph.grads[i], op, operands, exponent, None,
                    False, role)  # fmt: skip
        nodes.append(node)
    snap = ForeignSnapshot(tuple(nodes), note=graph.note, source=graph,
                           timeout=_check_timeout(timeout))  # fmt: skip
    if checks:
        names = [name.text for name in expression_names(snap)]
        forward = forward_problems(graph, checks, names)
        lines = [graph.note] if graph.note else []
        lines += [f"✗ {p.message} — {p.hint}" for p in forward[:3]]
        if len(forward) > 3:
            lines.append(
                f"(and {len(forward) - 3} more values that do not follow from their operations)"
            )
        snap = dataclasses.replace(snap, forward=forward, note="\n".join(lines))
    return snap


def _table_partials(source: ForeignGraph, i: int) -> list[float] | None:
    """∂node_i/∂(each operand position) from the op table, running nothing of theirs; None
    where the table has no row, or the node is not what the row computes."""
    operands = source.operands[i]
    args = [source.data[p] for p in operands]
    canonical = canonical_op(source.ops[i], len(operands))
    return table_partials(canonical, args, source.exponents[i], source.data[i])


def _right_partials(source: ForeignGraph, i: int) -> list[float] | None:
    """∂node_i/∂(each operand position): the op table's, else central differences."""
    partials = _table_partials(source, i)
    if partials is None:  # their forward method, run on nearby numbers
        node = source.nodes[i]
        args = [source.data[p] for p in source.operands[i]]
        method = method_name(node, canonical_op(source.ops[i], len(args)))
        partials = numeric_partials(node, method, args, source.exponents[i], source.data[i])
    return partials
