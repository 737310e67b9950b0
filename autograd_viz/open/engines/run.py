"""Running a learner's own backward pass once, recorded, within a time limit: `run_backward` calls
their `backward()` (so their topological order is the one recorded) with each node's `_backward`
wrapped by a recorder, and puts every `grad` and `_backward` back afterwards, so their graph is left
exactly as it was; a loop that never ends raises `BackwardTimeoutError` instead of hanging the
notebook. The recorded `BackwardRun` is what the rest of `autograd_viz.open.engines` works from
(`check` judges it, `replay` shows it in every picture), so their backward() runs at most once per
public call."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from dataclasses import dataclass

from autograd_viz.core.errors import BackwardTimeoutError
from autograd_viz.core.time_limits import (
    DEFAULT_TIMEOUT,
    _check_timeout,
    _frames,
    _TimeUp,
    _where_code,
    time_limit,
)
from autograd_viz.open.engines.ops import canonical_op, method_name
from autograd_viz.open.engines.read import ForeignGraph

__all__ = ["BackwardRun", "Call", "run_backward"]


# ---- where their code was when time ran out --------------------------------------------------


def _where(err: BaseException, graph: ForeignGraph) -> str:
    """Where their code was when time ran out: the function, file and line, and the node
    whose `_backward` it was running, if any."""
    frames = _frames(err)
    i = None  # the node whose `_backward` ran: the `_running` local of the kit's caller
    for f in frames:
        if "_running" in f.f_locals:
            i = f.f_locals["_running"]
    text = _where_code(frames)
    if i is not None:
        op = canonical_op(graph.ops[i], len(graph.operands[i]))
        method = method_name(graph.nodes[i], op) or graph.ops[i] or "an operation"
        label = graph.labels[i] or f"node {i}"
        text += f", inside the `_backward` of {label} (made by your `{method}`)"
    return text.lstrip(", ")


def _timed_out(what: str, seconds: float, where: str) -> BackwardTimeoutError:
    at = f": it was still running {where}" if where else ""
    return BackwardTimeoutError(
        f"{what} did not return within {seconds:g} s (timeout={seconds:g}){at}. Check that "
        "loop: a `while` whose condition never changes, a topological sort that never marks "
        "a node visited, or a `_backward` that calls backward() again. Every grad is as it "
        "was. If your graph is only slow, pass a longer timeout=."
    )


# ---- running their backward pass ------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One `_backward()` call of the learner's backward pass.

    `node` is the index of the node whose rule ran, `out_grad` its `grad` when it ran,
    `sent[i]` what the call added to operand node i's `grad` (one entry per distinct
    operand), `before[i]` that operand's `grad` just before the call.
    """

    node: int
    out_grad: float
    sent: dict[int, float]
    before: dict[int, float]


@dataclass(frozen=True)
class BackwardRun:
    """The learner's backward pass as recorded: the calls in the order they ran, every
    node's `grad` at the end, and whose order it was ("your backward()" or "the kit's
    order", with the reason in `note`)."""

    calls: tuple[Call, ...]
    grads: tuple[float, ...]
    order: str
    note: str = ""
    errors: tuple[tuple[int, str], ...] = ()  # (node, what its `_backward` raised)


class _Recorder:
    """Stands in for one node's `_backward` while their backward() runs."""

    __slots__ = ("index", "original", "graph", "log")

    def __init__(self, index, original, graph, log):
        self.index, self.original, self.graph, self.log = index, original, graph, log

    def __call__(self, *args, **kwargs):
        self.log.append(_snapshot_call(self.graph, self.index, self.original, args, kwargs))


def _grad(node: object) -> float:
    g = node.grad
    return float(g) if isinstance(g, numbers.Real) else float("nan")


def _snapshot_call(graph: ForeignGraph, i: int, rule: Callable, args=(), kwargs=None) -> Call:
    _running = i
    node = graph.nodes[i]
    distinct = list(dict.fromkeys(graph.operands[i]))
    before = {p: _grad(graph.nodes[p]) for p in distinct}
    out_grad = _grad(node)
    rule(*args, **(kwargs or {}))
    sent = {p: _grad(graph.nodes[p]) - before[p] for p in distinct}
    return Call(i, out_grad, sent, before)


def run_backward(graph: ForeignGraph, *, timeout: float = DEFAULT_TIMEOUT) -> BackwardRun:
    """Run the learner's backward pass on `graph`, record every call, restore everything.

    Each `_backward()` call is recorded: which node, its `grad` at that moment, and what the
    call added to each operand's `grad`. Their `backward()` runs with each node's `_backward`
    wrapped by a recorder; where that cannot be done the closures are called directly, in the
    kit's order.
    Every `grad` starts at 0 for the run (as in a freshly built graph) and gets its old
    value back afterwards, the very same object; so do the `_backward` attributes. Their
    code may run `timeout` seconds in all; past that, `BackwardTimeoutError` says where it
    was still running.
    """
    timeout = _check_timeout(timeout)
    nodes = graph.nodes
    saved = [node.grad for node in nodes]
    log: list[Call] = []
    installed: list[tuple[object, bool, object]] = []  # node, had own attribute, original
    order, note = "your backward()", ""
    try:
        for node in nodes:
            node.grad = 0.0
        root = nodes[-1]
        backward = getattr(root, "backward", None)
        if not callable(backward):
            note = "your class has no backward() method"
        else:
            for i, node in enumerate(nodes):
                original = getattr(node, "_backward", None)
                if not callable(original):
                    continue
                own = "_backward" in getattr(node, "__dict__", {})
                try:
                    node._backward = _Recorder(i, original, graph, log)
                except (AttributeError, TypeError):
                    note = f"{type(node).__name__}._backward cannot be replaced"
                    break
                installed.append((node, own, original))
            if not note:
                try:
                    with time_limit(timeout) as limit:
                        backward()
                except _TimeUp as err:
                    if err.limit is not limit:
                        raise
                    raise _timed_out("your backward()", timeout, _where(err, graph)) from None
                except RecursionError:
                    note = "your backward() hit Python's recursion limit"
                except Exception as err:  # their code: report it, then show the kit's order
                    note = f"your backward() raised {type(err).__name__}: {err}"
        _restore_rules(installed)
        installed = []
        errors: list[tuple[int, str]] = []
        if note:
            order = "the kit's order"
            try:
                with time_limit(timeout) as limit:
                    log = _kit_order(graph, errors)
            except _TimeUp as err:
                if err.limit is not limit:
                    raise
                where = _where(err, graph)
                raise _timed_out("a `_backward` of yours", timeout, where) from None
        grads = tuple(_grad(node) for node in nodes)
    finally:
        _restore_rules(installed)
        for node, g in zip(nodes, saved):
            node.grad = g
    return BackwardRun(tuple(log), grads, order, note, tuple(errors))


def _restore_rules(installed: list[tuple[object, bool, object]]) -> None:
    for node, own, original in installed:
        if own:
            node._backward = original
        else:
            del node._backward


def _kit_order(graph: ForeignGraph, errors: list[tuple[int, str]]) -> list[Call]:
    """Seed the root with 1 and call each closure in reverse topological order (a node that
    stores its local gradients sends `local · grad` instead); a closure that raises is
    recorded in `errors` and the pass goes on without it."""
    for node in graph.nodes:
        node.grad = 0.0
    graph.nodes[-1].grad = 1.0
    log = []
    for i in range(len(graph) - 1, -1, -1):
        local = graph.local_grads[i] if graph.local_grads else None
        if local is not None:
            log.append(_snapshot_call(graph, i, functools.partial(_send_local, graph, i, local)))
            continue
        rule = getattr(graph.nodes[i], "_backward", None)
        if graph.operands[i] and callable(rule):
            try:
                log.append(_snapshot_call(graph, i, rule))
            except Exception as err:  # their code: name it at its node
                errors.append((i, f"{type(err).__name__}: {err}"))
    return log


def _send_local(graph: ForeignGraph, i: int, local: tuple[float, ...]) -> None:
    """What a correct microgpt-style backward() does at node i: each operand gets
    `local · grad` (the kit's order, for a pass their backward() could not make)."""
    g = _grad(graph.nodes[i])
    for p, slope in zip(graph.operands[i], local):
        graph.nodes[p].grad += slope * g
