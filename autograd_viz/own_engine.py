"""Your own engine, stepped through: run its backward pass and replay its numbers.

`run_backward(graph)` runs the learner's own backward pass on a `ForeignGraph` and records
every `_backward()` call: which node, its `grad` at that moment, and what the call added to
each operand's `grad`. It calls their `backward()` (so their topological order is the one
recorded) with each node's `_backward` wrapped by a recorder; where that cannot be done
it calls the closures itself, in the kit's order. Every `grad` and every `_backward` it
touched is put back afterwards: the learner's graph is left exactly as it was. Their code
runs under a time limit (`time_limit`, 5 s by default): a loop that never ends raises
`BackwardTimeoutError`, saying where it was, instead of hanging the notebook.

`foreign_snapshot(root)` is the graph snapshot of such a graph, the door through which
every viewer reads it: its backward rules replay what *their* closures sent, so every
derivation, drawing and frame shows the learner's own numbers — from one run of their
backward() per call; checked by `autograd_viz.engine_check`, it also says where they go
wrong. A value that does not follow from its operation (their `__add__` giving 2 + 3 =
−1) is written as a call of their method, `__add__(2, 3) = −1`, never as a false equation,
and said (`ForwardProblem`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import numbers
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograd_viz._numbers import format_number
from autograd_viz.engine import Value
from autograd_viz.foreign import ForeignGraph, read_graph
from autograd_viz.foreign_ops import (
    canonical_op,
    engine_op,
    method_name,
    op_of_method,
    rerun,
    same,
    table_partials,
    table_value,
    what_it_computes,
    written,
)
from autograd_viz.graph import Graph, Node

if TYPE_CHECKING:
    from autograd_viz.engine_check import EngineReport, Finding

__all__ = [
    "DEFAULT_TIMEOUT",
    "BackwardRun",
    "BackwardTimeoutError",
    "Call",
    "ForeignSnapshot",
    "ForwardProblem",
    "foreign_snapshot",
    "run_backward",
    "time_limit",
]

DEFAULT_TIMEOUT = 5.0  # seconds a learner's backward() may run: a tiny graph takes milliseconds


class BackwardTimeoutError(TimeoutError):
    """The learner's own `backward()` (or one `_backward` closure) did not return within the
    time limit; the message says where it was still running. Every `grad` is as it was."""


# ---- a time limit on their code ---------------------------------------------------------------


class _TimeUp(BaseException):
    """Raised inside their code when time is up; a BaseException, so `except Exception`
    in their loop cannot swallow it."""


def _check_timeout(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    return float(timeout)


def _can_ring() -> bool:
    """Whether an interval timer may interrupt this code: the main thread, a platform with
    SIGALRM, and no timer already running (someone else's: leave it alone)."""
    return (
        sys.platform != "emscripten"
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Stop the code in the block with `_TimeUp` after `seconds`: a learner's loop that never
    ends must not hang the notebook. An interval timer (SIGALRM) where this is the main
    thread and no other timer runs (a kernel's cell, a test); else a trace function that
    looks at the clock on each line (slower, but works in any thread and in Pyodide)."""
    deadline = time.monotonic() + seconds
    state = {"on": True}

    def ring(signum, frame):
        if state["on"]:
            raise _TimeUp

    if _can_ring():
        old = signal.getsignal(signal.SIGALRM)
        try:
            signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        except (OSError, ValueError):  # not allowed here after all: watch the clock instead
            signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
        else:
            try:
                yield
            finally:
                state["on"] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
            return

    def tick(frame, event, arg):
        if state["on"] and time.monotonic() > deadline:
            raise _TimeUp
        return tick

    previous = sys.gettrace()
    sys.settrace(tick)
    try:
        yield
    finally:
        state["on"] = False
        sys.settrace(previous)


@contextlib.contextmanager
def shallow_stack(room: int = 100) -> Iterator[None]:
    """Let code in the block call at most `room` levels deeper than here. A learner's method
    that calls itself for ever (an `__rsub__` written as `other - self`, or one of the kit's
    trial fixes on a class without `__neg__`) must raise RecursionError, which the kit
    reports: in the browser edition WebAssembly's own stack runs out long before Python's
    default limit of 1000, and that kills the kernel instead."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(min(old, depth + room))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _where(err: BaseException, graph: ForeignGraph) -> str:
    """Where their code was when time ran out: the function, file and line, and the node
    whose `_backward` it was running, if any."""
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    here = __file__.removesuffix("c")
    theirs = [f for f in frames if f.f_code.co_filename.removesuffix("c") != here]
    i = None  # the node whose `_backward` ran: `_snapshot_call`'s i, or `_replay`'s call
    for f in frames:
        if f.f_code is _snapshot_call.__code__:
            i = f.f_locals.get("i")
        elif f.f_code is _Replay._replay.__code__:
            i = f.f_locals["call"].node
    text = ""
    if theirs:
        f = theirs[-1]
        file = os.path.basename(f.f_code.co_filename)
        text = f"in `{f.f_code.co_name}` ({file}, line {f.f_lineno})"
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
    node = graph.nodes[i]
    distinct = list(dict.fromkeys(graph.operands[i]))
    before = {p: _grad(graph.nodes[p]) for p in distinct}
    out_grad = _grad(node)
    rule(*args, **(kwargs or {}))
    sent = {p: _grad(graph.nodes[p]) - before[p] for p in distinct}
    return Call(i, out_grad, sent, before)


def run_backward(graph: ForeignGraph, *, timeout: float = DEFAULT_TIMEOUT) -> BackwardRun:
    """Run the learner's backward pass on `graph`, record every call, restore everything.

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
                    with time_limit(timeout):
                        backward()
                except _TimeUp as err:
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
                with time_limit(timeout):
                    log = _kit_order(graph, errors)
            except _TimeUp as err:
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
    """Seed the root with 1 and call each closure in reverse topological order; a closure
    that raises is recorded in `errors` and the pass goes on without it."""
    for node in graph.nodes:
        node.grad = 0.0
    graph.nodes[-1].grad = 1.0
    log = []
    for i in range(len(graph) - 1, -1, -1):
        rule = getattr(graph.nodes[i], "_backward", None)
        if graph.operands[i] and callable(rule):
            try:
                log.append(_snapshot_call(graph, i, rule))
            except Exception as err:  # their code: name it at its node
                errors.append((i, f"{type(err).__name__}: {err}"))
    return log


# ---- the forward pass: does each value follow from its operation? ------------------------------


@dataclass(frozen=True)
class ForwardProblem:
    """A node whose value does not follow from the operation it is marked with (`+` giving
    2 + 3 = −1): a forward bug in the learner's method, a wrong `_op`, or a stale graph.

    `method` made it; `right` is what the operation gives; `rule_op` is the operation its
    backward rule is judged against (the one it computes, when only the mark is wrong);
    `stale`: their method gives the right value today, so an operand changed afterwards.
    """

    node: int
    method: str
    message: str
    hint: str
    right: float
    rule_op: str | None
    stale: bool = False


def _forward_checks(graph: ForeignGraph) -> dict[int, tuple]:
    """The nodes whose value differs from what their operation gives, with what is known
    about each: (operation, right value, method, what it computes instead, re-run value)."""
    found = {}
    for i, operands in enumerate(graph.operands):
        if not operands:
            continue
        canonical = canonical_op(graph.ops[i], len(operands))
        args = [graph.data[p] for p in operands]
        right = table_value(canonical, args, graph.exponents[i])
        if right is None or same(right, graph.data[i]):
            continue  # an operation the kit does not know is written as a call: no claim
        method = method_name(graph.nodes[i], canonical)
        computes = what_it_computes(graph.data[i], args, graph.exponents[i], canonical)
        again = rerun(graph.nodes[i], method, args, graph.exponents[i])
        found[i] = (canonical, right, method, computes, again)
    return found


def _forward_problems(
    graph: ForeignGraph, checks: dict[int, tuple], names: list[str]
) -> tuple[ForwardProblem, ...]:
    """What to say about each node whose value does not follow from its operation."""
    out = []
    for i, (canonical, right, method, computes, again) in checks.items():
        operands = graph.operands[i]
        names_ = [names[p] for p in operands]
        numbers = [format_number(graph.data[p]) for p in operands]
        exponent = graph.exponents[i]
        claim = (
            f"{written(canonical, names_, exponent)} = "
            f"{written(canonical, numbers, exponent)} = {format_number(right)}"
        )
        value = f"{names[i]} = {format_number(graph.data[i])}"
        mark = graph.ops[i].strip()
        op_of = op_of_method(method)
        if computes is not None:
            op, swapped = computes
            shown = written(op, names_[::-1] if swapped else names_, exponent)
            what = f"{format_number(graph.data[i])} is {shown}"
        if again is not None and same(again, right) and not same(again, graph.data[i]):
            message = f"{value} no longer follows from its operands: {claim} now"
            hint = (
                "a value changed after the graph was built (`x.data = ...`): run the cells "
                "that build the expression again, then backward()"
            )
            out.append(ForwardProblem(i, method, message, hint, right, canonical, True))
            continue
        if computes is not None and op_of is not None and computes == (op_of, False):
            message = f"your `{method}` gave {value}, but marked it '{mark}': {claim}"
            symbol = engine_op(op_of) or op_of
            hint = (
                f"{what}, as `{method}` should give: mark the new value '{symbol}' (its "
                f"`_op`), not '{mark}'"
            )
            out.append(ForwardProblem(i, method, message, hint, right, op_of))
            continue
        message = f"your `{method}` gave {value}, but {claim}"
        if again is None or not same(again, graph.data[i]):
            hint = (
                "either its forward line computes the wrong value, or a value changed after "
                "the graph was built (then run the cells that build it again)"
            )
        elif computes is not None:
            hint = f"{what}: check the line of `{method}` that computes the new value's data"
        else:
            hint = f"check the line of `{method}` that computes the new value's data"
        out.append(ForwardProblem(i, method, message, hint, right, canonical))
    return tuple(out)


# ---- the snapshot of a foreign graph: the door every viewer reads -----------------------------


class _Replay:
    """What the learner's own rules send, for `Graph.contributions`: recorded from one run
    of their backward pass (made on first use, so a drawing never runs it), and replayed
    at another gradient by calling their closure with their operands' grads as they were."""

    def __init__(
        self, graph: ForeignGraph, run: BackwardRun | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.graph = graph
        self._run = run
        self.timeout = timeout
        self._calls: dict[int, list[Call]] | None = None

    def adopt(self, run: BackwardRun) -> None:
        """Replay `run` (the check's own recording) instead of running their backward() again."""
        if self._calls is None and self._run is None:
            self._run = run

    def calls(self, i: int) -> list[Call]:
        if self._calls is None:
            self._calls = {}
            run = self._run
            if run is None:
                run = run_backward(self.graph, timeout=self.timeout)
            for call in run.calls:
                self._calls.setdefault(call.node, []).append(call)
        return self._calls.get(i, [])

    def order(self) -> tuple[int, ...] | None:
        """The operations in the order their backward ran them, if that order is valid."""
        self.calls(0)
        ran = [i for i, calls in self._calls.items() for _ in calls if self.graph.operands[i]]
        ops = [i for i, operands in enumerate(self.graph.operands) if operands]
        if sorted(ran) != ops:  # each operation exactly once
            return None
        done: set[int] = set()
        for i in ran:
            if any(u not in done for u in self._uses()[i]):
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
        """What node i's rule adds to each operand position at gradient `grad`."""
        calls = self.calls(i)
        if not calls:
            return tuple(0.0 for _ in self.graph.operands[i])
        if math.isclose(grad, calls[-1].out_grad, rel_tol=1e-12, abs_tol=0.0):
            total: dict[int, float] = {}
            for call in calls:  # a node their backward ran twice sent twice
                for p, amount in call.sent.items():
                    total[p] = total.get(p, 0.0) + amount
        else:
            total = self._replay(calls[-1], grad)
        return self._per_position(i, total)

    def _replay(self, call: Call, grad: float) -> dict[int, float]:
        nodes = self.graph.nodes
        node, touched = nodes[call.node], [call.node, *call.before]
        saved = [nodes[j].grad for j in touched]
        try:
            for p, before in call.before.items():
                nodes[p].grad = before
            node.grad = grad
            try:
                with time_limit(self.timeout):
                    node._backward()
            except _TimeUp as err:
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


def _replayed_rule(replay: _Replay, i: int, out: Value) -> None:
    """A backward rule in the engine's shape (it takes the output node) that adds what the
    learner's own closure sent; `Graph.contributions` runs it on stand-in values."""
    for operand, amount in zip(out.parents, replay.sent(i, out.grad)):
        operand.grad += amount


@dataclass(frozen=True, eq=False)
class ForeignSnapshot(Graph):
    """The snapshot of a learner's own graph: a `Graph`, plus what the viewers say about it.

    `note` is a caption line (operand order that could not be recovered); `report` is
    `check_engine`'s report (None when not checked); `flags` maps (node, operand) — or
    (node, None) for the node as a whole — to what went wrong there (a sentence and a
    hint), for the derivation and the step's caption to say ("✗ your `__mul__` sent 28 to
    a; the product rule gives 42").
    """

    note: str = ""
    report: EngineReport | None = None
    flags: Mapping[tuple[int, int | None], tuple[str, str]] = field(default_factory=dict)
    source: ForeignGraph | None = field(default=None, repr=False)
    replay: _Replay | None = field(default=None, repr=False)
    forward: tuple[ForwardProblem, ...] = ()

    @property
    def forward_flags(self) -> dict[int, tuple[str, str]]:
        """Node -> (sentence, hint) for every value that does not follow from its operation
        (such a node is written as a call of the method that made it: `__add__(x, y)`)."""
        return {p.node: (p.message, p.hint) for p in self.forward}

    @property
    def backward_order(self) -> tuple[int, ...] | None:
        """The operations in the order the learner's backward pass ran them, for the
        derivation to follow; None where that order is not a valid one (a node run twice,
        or before all its uses), so the kit's own reverse topological order is shown."""
        if self.replay is None:
            return None
        return self.replay.order()

    def with_grads(self, grads: Mapping[int, float]) -> ForeignSnapshot:
        plain = super().with_grads(grads)
        return dataclasses.replace(self, nodes=plain.nodes)

    def checked(self) -> ForeignSnapshot:
        """This snapshot with `check_engine`'s findings (a viewer asks once it knows the
        graph is not too large to show, so a refusal never waits for a check)."""
        if self.report is not None or self.source is None:
            return self
        from autograd_viz.engine_check import check_graph  # the check reads this module

        timeout = self.replay.timeout if self.replay is not None else DEFAULT_TIMEOUT
        report = check_graph(self.source, timeout=timeout)
        if self.replay is not None:
            self.replay.adopt(report.run)  # their backward() runs once: the check's run is replayed
        flags: dict[tuple[int, int | None], tuple[str, str]] = {}
        for finding in report.findings:  # a forward one flags its forward step (`forward`)
            if finding.node is not None and finding.phase == "backward":
                flags.setdefault((finding.node, finding.operand), (finding.message, finding.hint))
        note = self.source.note  # the forward problems are findings now: no second line
        return dataclasses.replace(self, report=report, flags=flags, note=note)

    @property
    def first_wrong(self) -> Finding | None:
        return None if self.report is None else self.report.first_wrong


def foreign_snapshot(
    root: object, *, check: bool | None = True, timeout: float = DEFAULT_TIMEOUT
) -> ForeignSnapshot:
    """The graph snapshot of a learner's micrograd-style graph: read once (`read_graph`),
    with backward rules that give the numbers *their* code produces; with `check`, also
    `check_engine`'s findings, so the viewers can mark the first wrong node (None: check
    only a graph that holds gradients, i.e. one whose backward pass has run). Their
    backward() runs at most once, within `timeout` seconds (`BackwardTimeoutError`).

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> foreign_snapshot((x + y) * y).contributions(3, 1.0)  # doctest: +SKIP
    (3.0, 5.0)
    """
    graph = root if isinstance(root, ForeignGraph) else read_graph(root)
    if check is None:
        check = any(g != 0 for g in graph.grads)
    replay = _Replay(graph, timeout=_check_timeout(timeout))
    last = len(graph) - 1
    # An unlabelled leaf is a number written into the expression (a constant), as with our
    # Value; but in a graph with no labels at all (micrograd has none) every leaf is an input.
    labelled = any(graph.labels)
    checks = _forward_checks(graph)  # a value its operation does not give is not written as one
    nodes, rules = [], []
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
        rules.append(functools.partial(_replayed_rule, replay, i) if operands else None)
    snap = ForeignSnapshot(tuple(nodes), tuple(rules), graph.note, source=graph, replay=replay)
    if checks:
        from autograd_viz.naming import expression_names

        names = [name.text for name in expression_names(snap)]
        forward = _forward_problems(graph, checks, names)
        lines = [graph.note] if graph.note else []
        lines += [f"✗ {p.message} — {p.hint}" for p in forward[:3]]
        if len(forward) > 3:
            lines.append(
                f"(and {len(forward) - 3} more values that do not follow from their operations)"
            )
        snap = dataclasses.replace(snap, forward=forward, note="\n".join(lines))
    return snap.checked() if check else snap
