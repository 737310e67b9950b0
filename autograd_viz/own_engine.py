"""Your own engine under the microscope: run its backward pass step by step, and check it.

`run_backward(graph)` runs the learner's own backward pass on a `ForeignGraph` and records
every `_backward()` call: which node, its `grad` at that moment, and what the call added to
each operand's `grad`. It calls their `backward()` (so their topological order is the one
recorded) with each node's `_backward` wrapped by a recorder; where that cannot be done
it calls the closures itself, in the kit's order. Every `grad` and every `_backward` it
touched is put back afterwards: the learner's graph is left exactly as it was.

`check_engine(root)` compares each recorded call with the right local derivatives — from
the kit's own engine where the operation is one it knows (the op table), and by central
differences on the learner's own forward method where it can re-run it — and reports each
operation's rule as right, wrong or unchecked, the first node where the gradient goes
wrong, and a sentence a learner can act on: "your `__mul__` sent 5 to y; the product rule
gives 3".
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from autograd_viz._numbers import format_number
from autograd_viz.engine import Value
from autograd_viz.foreign import ForeignGraph, NotAGraphError, is_graph, read_graph
from autograd_viz.graph import Graph, Node

__all__ = [
    "BackwardRun",
    "Call",
    "EngineReport",
    "Finding",
    "ForeignSnapshot",
    "RuleCheck",
    "check_engine",
    "foreign_snapshot",
    "run_backward",
]

RIGHT, WRONG, UNCHECKED = "right", "wrong", "unchecked"
_SOURCES = ("op table", "central differences")
_UNKNOWN = "nothing: an operation the kit does not know, and its method could not be re-run"


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


def run_backward(graph: ForeignGraph) -> BackwardRun:
    """Run the learner's backward pass on `graph`, record every call, restore everything.

    Every `grad` starts at 0 for the run (as in a freshly built graph) and gets its old
    value back afterwards, the very same object; so do the `_backward` attributes.
    """
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
                    backward()
                except RecursionError:
                    note = "your backward() hit Python's recursion limit"
                except Exception as err:  # their code: report it, then show the kit's order
                    note = f"your backward() raised {type(err).__name__}: {err}"
        _restore_rules(installed)
        installed = []
        errors: list[tuple[int, str]] = []
        if note:
            order = "the kit's order"
            log = _kit_order(graph, errors)
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


# ---- the right answers ---------------------------------------------------------------------

# How each operation the kit knows is spelt, and how to build it from the kit's own Value.
_CANONICAL = {
    "+": "+", "add": "+", "__add__": "+",
    "*": "*", "mul": "*", "__mul__": "*",
    "-": "-", "sub": "-", "__sub__": "-",
    "/": "/", "div": "/", "truediv": "/", "__truediv__": "/",
    "**": "**", "pow": "**", "__pow__": "**",
    "relu": "relu", "tanh": "tanh", "exp": "exp", "log": "log", "ln": "log",
    "sigmoid": "sigmoid", "σ": "sigmoid", "neg": "neg", "__neg__": "neg",
    "sin": "sin", "cos": "cos",
}  # fmt: skip
_BUILD: dict[str, Callable[..., Value]] = {
    "+": lambda a, b: a + b,
    "*": lambda a, b: a * b,
    "-": lambda a, b: a - b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "relu": lambda a: a.relu(),
    "tanh": lambda a: a.tanh(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "sigmoid": lambda a: a.sigmoid(),
    "neg": lambda a: -a,
    "sin": lambda a: a.sin(),
    "cos": lambda a: a.cos(),
}
_RULE_NAMES = {
    "+": "the sum rule",
    "*": "the product rule",
    "-": "the difference rule",
    "/": "the quotient rule",
    "**": "the power rule",
    "relu": "ReLU's rule",
    "tanh": "tanh's rule (1 − tanh²)",
    "exp": "exp's rule",
    "log": "log's rule (1/x)",
    "sigmoid": "the sigmoid rule σ(1 − σ)",
    "neg": "negation's rule",
    "sin": "sin's rule (cos)",
    "cos": "cos's rule (−sin)",
}
_METHODS = {
    "+": "__add__", "*": "__mul__", "-": "__sub__", "/": "__truediv__", "**": "__pow__",
    "relu": "relu", "tanh": "tanh", "exp": "exp", "log": "log", "sigmoid": "sigmoid",
    "neg": "__neg__", "sin": "sin", "cos": "cos",
}  # fmt: skip
_ARITY = {"+": 2, "*": 2, "-": 2, "/": 2, "**": 2, "neg": 1}


def _canonical(op: str, n_operands: int) -> str | None:
    text = op.strip()
    if re.fullmatch(r"\*\*\s*\(?\s*[-+]?[0-9.]+(?:e[-+]?\d+)?\s*\)?", text) and n_operands == 1:
        return "**n"
    name = _CANONICAL.get(text, _CANONICAL.get(text.lower()))
    if name == "**" and n_operands == 1:
        return "**n"
    return name


def _method_name(node: object, canonical: str | None) -> str:
    """The learner's method that made the node: `__mul__` from the closure's qualified name
    (`Value.__mul__.<locals>._backward`), else the usual name for the operation."""
    rule = getattr(node, "_backward", None)
    qualname = getattr(getattr(rule, "__func__", rule), "__qualname__", "")
    parts = qualname.split(".")
    if "<locals>" in parts:  # the method is just before the last <locals>
        owner = parts[len(parts) - 1 - parts[::-1].index("<locals>") - 1]
        if owner not in ("<lambda>", "__init__"):  # __init__'s is the do-nothing default
            return owner
    if canonical == "**n":
        return "__pow__"
    return _METHODS.get(canonical or "", "")


def _table_partials(
    canonical: str | None, args: list[float], exponent: float | None, result: float | None = None
) -> list[float] | None:
    """∂out/∂(each operand position) from the kit's own engine; None where it has no row,
    or where the operation does not give the node's `result` (a `tanh` that is not tanh)."""
    if canonical is None:
        return None
    try:
        leaves = [Value(a) for a in args]
        if canonical == "**n":
            if exponent is None or len(leaves) != 1:
                return None
            out = leaves[0] ** exponent
        else:
            build = _BUILD[canonical]
            if len(leaves) != _ARITY.get(canonical, 1):
                return None
            out = build(*leaves)
        if result is not None and not math.isclose(out.data, result, rel_tol=1e-9, abs_tol=1e-12):
            return None
        out.backward()
    except (ArithmeticError, ValueError, TypeError):
        return None
    return [leaf.grad for leaf in leaves]


def _numeric_partials(
    node: object, method: str, args: list[float], exponent: float | None, out: float
) -> list[float] | None:
    """∂out/∂(each operand position) by central differences on the learner's own forward
    method, re-run on fresh values of their class; None where it cannot be re-run."""
    cls = type(node)
    if not method or not callable(getattr(cls, method, None)):
        return None

    def forward(values: list[float]) -> float:
        fresh = [cls(v) for v in values]
        if exponent is not None and len(fresh) == 1:
            result = getattr(fresh[0], method)(exponent)
        else:
            result = getattr(fresh[0], method)(*fresh[1:])
        return float(result.data)

    try:
        if not math.isclose(forward(args), out, rel_tol=1e-9, abs_tol=1e-12):
            return None  # re-running does not reproduce the node: not the method we think
        partials = []
        for k, a in enumerate(args):
            h = 1e-6 * max(1.0, abs(a))
            up, down = list(args), list(args)
            up[k], down[k] = a + h, a - h
            partials.append((forward(up) - forward(down)) / (2 * h))
        return partials
    except Exception:  # their forward may refuse numbers, or fail near a kink: unchecked
        return None


# ---- the report ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One place where the learner's backward pass goes wrong.

    `node` is the index (in the drawing's topological order) of the node whose rule (or
    whose place in the order) is wrong, `name` its name, `method` the learner's method,
    `operand`/`sent`/`right` what was sent to which operand and what the rule gives;
    `message` says it in one sentence, `hint` guesses the bug.
    """

    node: int | None
    name: str
    method: str
    message: str
    hint: str = ""
    operand: int | None = None
    sent: float | None = None
    right: float | None = None

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


@dataclass(frozen=True)
class RuleCheck:
    """One of the learner's operations (a method), and whether its backward rule is right,
    wrong or unchecked; `how` says what it was checked against."""

    method: str
    op: str
    status: str
    how: str
    nodes: tuple[int, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class EngineReport:
    """What `check_engine` found: one row per operation, the findings in the order the
    learner's backward pass met them, and the recorded run itself."""

    rules: tuple[RuleCheck, ...]
    findings: tuple[Finding, ...]
    run: BackwardRun
    graph: ForeignGraph = field(repr=False)
    names: tuple[str, ...] = field(repr=False)
    right_sent: tuple[dict[int, float] | None, ...] = field(repr=False)

    @property
    def ok(self) -> bool:
        return not self.findings and all(r.status != WRONG for r in self.rules)

    def __bool__(self) -> bool:
        return self.ok

    @property
    def first_wrong(self) -> Finding | None:
        """The first node whose gradient goes wrong, in the order the backward pass ran."""
        return next((f for f in self.findings if f.node is not None), None)

    def __str__(self) -> str:
        width = max([len(r.method) for r in self.rules] + [9])
        lines = [f"{'operation':<{width}}  {'rule':<9}  checked against"]
        for r in self.rules:
            lines.append(f"{r.method:<{width}}  {r.status:<9}  {r.how}".rstrip())
            if r.detail:
                lines.append(f"{'':<{width}}    {r.detail}")
        note = f" ({self.run.note})" if self.run.note else ""
        lines.append(f"backward order: {self.run.order}{note}")
        if self.findings:
            lines.append("first wrong: " + str(self.findings[0]))
            lines += [f"  also: {f}" for f in self.findings[1:]]
        else:
            lines.append("every checked rule gives the right gradients")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(str(self))}</pre>"


def _names(graph: ForeignGraph) -> tuple[str, ...]:
    """Names as the drawings write them: the label, `v{i}`, or a constant's number."""
    names = []
    root = len(graph) - 1
    for i, label in enumerate(graph.labels):
        if label:
            names.append(label)
        elif not graph.operands[i] and i != root:
            names.append(format_number(graph.data[i]))
        else:
            names.append(f"v{i}")
    return tuple(names)


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol * 1e-3)


def check_engine(root: object) -> EngineReport:
    """Check a micrograd-style engine's backward pass on the graph ending at `root`.

    Runs the learner's own backward pass (their order, their rules), compares what each
    rule sent with the right local derivatives, and names the first node that goes wrong.
    The graph is left as it was. Probes `2 + x`, `2 * x`, `2 - x`, `2 / x` on fresh values
    of the class, so a missing `__rmul__` or `__rsub__` is named too.

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> check_engine((x + y) * y).ok  # doctest: +SKIP
    True
    """
    if isinstance(root, Value):
        raise TypeError(
            "check_engine checks your own engine; autograd_viz.Value is the kit's, tested "
            "against sympy. Pass a value built with your class (micrograd-style: data, grad, "
            "_prev, _op, _backward)."
        )
    return _check(read_graph(root))


def _check(graph: ForeignGraph) -> EngineReport:
    names = _names(graph)
    run = run_backward(graph)
    findings: list[tuple[int, Finding]] = []  # (call position, finding)
    per_method: dict[tuple[str, str], dict] = {}
    right_sent: list[dict[int, float] | None] = [None] * len(graph)
    uses: list[list[int]] = [[] for _ in range(len(graph))]
    for i, ops in enumerate(graph.operands):
        for p in dict.fromkeys(ops):
            uses[p].append(i)

    runs = [0] * len(graph)
    for call in run.calls:
        runs[call.node] += 1
    seen: dict[int, int] = {}
    for position, call in enumerate(run.calls):
        i = call.node
        if not graph.operands[i]:
            continue  # a leaf's rule does nothing
        if runs[i] > 1:  # a sort that visits twice also runs the node early: name the cause
            if i not in seen:
                findings.append((position, _ran_twice(names, i, runs[i])))
        else:
            early = [u for u in uses[i] if u not in seen and run.order == "your backward()"]
            if early:
                findings.append((position, _ran_early(names, i, early, call)))
        seen[i] = position
        canonical = _canonical(graph.ops[i], len(graph.operands[i]))
        method = _method_name(graph.nodes[i], canonical)
        key = (method or graph.ops[i] or "?", graph.ops[i])
        row = per_method.setdefault(key, {"status": set(), "how": set(), "nodes": [], "detail": ""})
        row["nodes"].append(i)
        verdict = _check_call(graph, names, call, canonical, method)
        row["status"].add(verdict.status)
        row["how"].update(h for h in verdict.how.split(", ") if h)
        if right_sent[i] is None:
            right_sent[i] = verdict.right
        if verdict.finding is not None:
            findings.append((position, verdict.finding))
            row["detail"] = row["detail"] or verdict.finding.message
    failed = dict(run.errors)
    for i in range(len(graph) - 1, -1, -1):  # in the order a backward pass meets them
        rule = getattr(graph.nodes[i], "_backward", None)
        if i in failed:
            method = _method_name(graph.nodes[i], _canonical(graph.ops[i], len(graph.operands[i])))
            message = f"your `{method or graph.ops[i]}`'s `_backward` raised {failed[i]}"
            findings.append((-1, Finding(i, names[i], method, message)))
        elif graph.operands[i] and i not in seen and callable(rule):
            findings.append((len(run.calls), _never_ran(names, i)))

    rules = []
    for (method, op), row in per_method.items():
        status = WRONG if WRONG in row["status"] else RIGHT if RIGHT in row["status"] else UNCHECKED
        how = ", ".join(h for h in _SOURCES if h in row["how"]) or _UNKNOWN
        rules.append(RuleCheck(method, op, status, how, tuple(row["nodes"]), row["detail"]))
    probe_rules, probe_findings = _probe_reflected(graph)
    rules += probe_rules
    ordered = [f for _, f in sorted(findings, key=lambda pf: pf[0])] + probe_findings
    return EngineReport(tuple(rules), tuple(ordered), run, graph, names, tuple(right_sent))


@dataclass
class _Verdict:
    status: str
    how: str
    finding: Finding | None = None
    right: dict[int, float] | None = None


def _check_call(
    graph: ForeignGraph, names: tuple[str, ...], call: Call, canonical: str | None, method: str
) -> _Verdict:
    i = call.node
    positions = graph.operands[i]
    args = [graph.data[p] for p in positions]
    exponent = graph.exponents[i]
    table = _table_partials(canonical, args, exponent, graph.data[i])
    numeric = None
    if table is None:  # an operation the table does not know: measure their own forward
        numeric = _numeric_partials(graph.nodes[i], method, args, exponent, graph.data[i])
    if table is not None:
        partials, how, tol = table, "op table", 1e-6
        rule_name = _RULE_NAMES["**" if canonical == "**n" else canonical]
    elif numeric is not None:
        partials, how, tol = numeric, "central differences", 1e-4
        rule_name = "central differences"
    else:
        return _Verdict(UNCHECKED, "")
    g = call.out_grad
    right: dict[int, float] = {}
    for k, p in enumerate(positions):
        right[p] = right.get(p, 0.0) + partials[k] * g
    for p in dict.fromkeys(positions):
        sent, expected = call.sent[p], right[p]
        if _close(sent, expected, tol):
            continue
        verb = "gives" if rule_name != "central differences" else "give"
        shown = method or graph.ops[i] or "its rule"
        message = (
            f"your `{shown}` sent {format_number(sent)} to {names[p]}; "
            f"{rule_name} {verb} {format_number(expected)}"
        )
        if positions.count(p) > 1:
            each = [partials[j] * g for j, q in enumerate(positions) if q == p]
            shares = " + ".join(format_number(x) for x in each)
            message += f" ({names[p]} is used {positions.count(p)} times: {shares})"
        hint = _diagnose(call, p, positions, partials, g, canonical, args, tol)
        if _still_the_default(graph.nodes[i]):
            hint = (
                "its `_backward` is still the do-nothing one from `__init__`: set "
                "`out._backward = _backward` in the method"
            )
        finding = Finding(i, names[i], shown, message, hint, p, sent, expected)
        return _Verdict(WRONG, how, finding, right)
    return _Verdict(RIGHT, how, None, right)


def _diagnose(call, p, positions, partials, g, canonical, args, tol) -> str:
    """A guess at which classic bug produced a wrong contribution."""
    sent, before = call.sent[p], call.before[p]
    after = before + sent
    shares = [partials[k] * g for k, q in enumerate(positions) if q == p]
    if (before != 0 or len(shares) > 1) and any(_close(after, s, tol) for s in shares):
        return "it replaced the gradient instead of adding to it: `=` where `+=` belongs"
    if g != 1 and _close(sent, sum(partials[k] for k, q in enumerate(positions) if q == p), tol):
        return f"it left out the chain rule's factor out.grad (here {format_number(g)})"
    if canonical == "tanh" and _close(sent, (1 - args[0] ** 2) * g, tol):
        return "it used the input (1 − x²) where the rule needs the output t = tanh(x): 1 − t²"
    if len(positions) == 2 and positions[0] != positions[1]:
        k = positions.index(p)
        other = partials[1 - k] * g
        if _close(sent, other, tol) and not _close(other, partials[k] * g, tol):
            return "it sent what the other operand should get: operands swapped in the rule?"
        if canonical == "*" and _close(sent, args[k] * g, tol):
            return "it multiplied by the operand's own value; the product rule uses the other one"
    return ""


def _still_the_default(node: object) -> bool:
    rule = getattr(node, "_backward", None)
    qualname = getattr(getattr(rule, "__func__", rule), "__qualname__", "")
    return ".__init__.<locals>." in f".{qualname}"


def _ran_twice(names, i, times) -> Finding:
    count = "twice" if times == 2 else f"{times} times"
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() ran {names[i]}'s `_backward` {count}, so it sent its gradient {count}",
        "the topological sort visited it twice: keep a `visited` set and skip nodes already in it",
    )


def _ran_early(names, i, early, call) -> Finding:
    waiting = ", ".join(names[u] for u in early)
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() ran {names[i]}'s `_backward` before {waiting} had sent "
        f"{names[i]} its gradient (it had {format_number(call.out_grad)} so far)",
        "visit nodes in reverse topological order: every use of a value before the value",
    )


def _never_ran(names, i) -> Finding:
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() never ran {names[i]}'s `_backward`, so its operands got nothing from it",
        "the topological sort must reach every node the output depends on",
    )


# ---- reflected operations: `2 * x` needs __rmul__ ---------------------------------------------

# method, expression, with a number on the left, with the number wrapped, float value, slope
_PROBES = (
    ("__radd__", "2 + x", lambda x: 2 + x, lambda two, x: two + x, lambda a: 2 + a, lambda a: 1.0),
    ("__rmul__", "2 * x", lambda x: 2 * x, lambda two, x: two * x, lambda a: 2 * a, lambda a: 2.0),
    ("__rsub__", "2 - x", lambda x: 2 - x, lambda two, x: two - x, lambda a: 2 - a, lambda a: -1.0),
    ("__rtruediv__", "2 / x", lambda x: 2 / x, lambda two, x: two / x, lambda a: 2 / a,
     lambda a: -2 / a**2),
)  # fmt: skip
_FIXES = {
    "__radd__": "def __radd__(self, other): return self + other",
    "__rmul__": "def __rmul__(self, other): return self * other",
    "__rsub__": "def __rsub__(self, other): return other + (-self)",
    "__rtruediv__": "def __rtruediv__(self, other): return other * self**-1",
}


def _probe_reflected(graph: ForeignGraph) -> tuple[list[RuleCheck], list[Finding]]:
    """Try `2 + x`, `2 * x`, `2 - x`, `2 / x` on a fresh value of the learner's class.

    A reflected method must exist, give the right value, and send x the gradient the
    learner's own engine sends for the same expression with the 2 wrapped (`Value(2) * x`),
    so a wrong `__mul__` is blamed on `__mul__`, not on the `__rmul__` that calls it."""
    cls = type(graph.nodes[-1])
    rules: list[RuleCheck] = []
    findings: list[Finding] = []
    a = 1.5
    for method, text, build, wrapped, value, slope in _PROBES:
        try:
            x = cls(a)
        except Exception as err:
            how = f"nothing: {cls.__name__}({a}) raised {type(err).__name__}"
            rules.append(RuleCheck(method, text, UNCHECKED, how))
            continue
        try:
            out = build(x)
        except TypeError as err:
            message = (
                f"`{text}` raises TypeError ({err}): your class has no `{method}`, so Python "
                f"cannot handle a number on the left"
            )
            findings.append(Finding(None, "x", method, message, f"add `{_FIXES[method]}`"))
            rules.append(RuleCheck(method, text, WRONG, "a probe", (), "missing"))
            continue
        except Exception as err:
            detail = f"`{text}` raised {type(err).__name__}: {err}"
            findings.append(Finding(None, "x", method, detail))
            rules.append(RuleCheck(method, text, WRONG, "a probe", (), detail))
            continue
        expected = _wrapped_slope(cls, wrapped, a)
        expected = slope(a) if expected is None else expected
        verdict = _probe_result(cls, text, x, out, value(a), expected)
        if verdict is None:
            rules.append(RuleCheck(method, text, RIGHT, "a probe"))
        else:
            findings.append(Finding(None, "x", method, verdict, f"e.g. `{_FIXES[method]}`"))
            rules.append(RuleCheck(method, text, WRONG, "a probe", (), verdict))
    return rules, findings


def _wrapped_slope(cls, wrapped, a: float) -> float | None:
    """The gradient x gets from the learner's engine for the expression with the 2 wrapped."""
    try:
        x = cls(a)
        wrapped(cls(2.0), x).backward()
        return float(x.grad)
    except Exception:  # no such operation, or no backward(): fall back to the true slope
        return None


def _probe_result(cls, text, x, out, value, slope) -> str | None:
    if not is_graph(out):
        return f"`{text}` gave a {type(out).__name__}, not a {cls.__name__}"
    try:
        data = float(out.data)
    except (TypeError, ValueError):
        return f"`{text}` gave data {out.data!r}, not a number"
    if not math.isclose(data, value, rel_tol=1e-9):
        return (
            f"`{text}` at x = 1.5 gave {format_number(data)}; it should be {format_number(value)}"
        )
    if not callable(getattr(out, "backward", None)):
        return None
    try:
        read_graph(out)
        out.backward()
        grad = float(x.grad)
    except (NotAGraphError, Exception):
        return None  # the gradient check needs a working backward(); other rows cover it
    if not math.isclose(grad, slope, rel_tol=1e-6, abs_tol=1e-12):
        return (
            f"`{text}` at x = 1.5 sent {format_number(grad)} to x; it should be "
            f"{format_number(slope)}"
        )
    return None


# ---- the snapshot of a foreign graph: the door every viewer reads -----------------------------

# The engine's op string for each operation the kit knows (`**n` is spelt with its number).
_ENGINE_OPS = {
    "+": "+", "*": "*", "**": "**", "relu": "ReLU", "tanh": "tanh", "exp": "exp",
    "log": "log", "sigmoid": "sigmoid", "sin": "sin", "cos": "cos",
}  # fmt: skip


class _Replay:
    """What the learner's own rules send, for `Graph.contributions`: recorded from one run
    of their backward pass (made on first use, so a drawing never runs it), and replayed
    at another gradient by calling their closure with their operands' grads as they were."""

    def __init__(self, graph: ForeignGraph, run: BackwardRun | None = None) -> None:
        self.graph = graph
        self._run = run
        self._calls: dict[int, list[Call]] | None = None

    def calls(self, i: int) -> list[Call]:
        if self._calls is None:
            self._calls = {}
            run = self._run if self._run is not None else run_backward(self.graph)
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
            node._backward()
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
        canonical = _canonical(self.graph.ops[i], len(positions))
        args = [self.graph.data[p] for p in positions]
        weights = _table_partials(canonical, args, self.graph.exponents[i])
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
        report = _check(self.source)
        flags: dict[tuple[int, int | None], tuple[str, str]] = {}
        for finding in report.findings:
            if finding.node is not None:
                flags.setdefault((finding.node, finding.operand), (finding.message, finding.hint))
        return dataclasses.replace(self, report=report, flags=flags)

    @property
    def first_wrong(self) -> Finding | None:
        return None if self.report is None else self.report.first_wrong


def foreign_snapshot(root: object, *, check: bool | None = True) -> ForeignSnapshot:
    """The graph snapshot of a learner's micrograd-style graph: read once (`read_graph`),
    with backward rules that give the numbers *their* code produces; with `check`, also
    `check_engine`'s findings, so the viewers can mark the first wrong node (None: check
    only a graph that holds gradients, i.e. one whose backward pass has run).

    >>> from micrograd.engine import Value  # doctest: +SKIP
    >>> x, y = Value(2.0), Value(3.0)  # doctest: +SKIP
    >>> foreign_snapshot((x + y) * y).contributions(3, 1.0)  # doctest: +SKIP
    (3.0, 5.0)
    """
    graph = root if isinstance(root, ForeignGraph) else read_graph(root)
    if check is None:
        check = any(g != 0 for g in graph.grads)
    replay = _Replay(graph)
    last = len(graph) - 1
    nodes, rules = [], []
    for i, operands in enumerate(graph.operands):
        label = graph.labels[i]
        if i == last:
            role = "output"
        elif operands:
            role = "value"
        else:
            role = "input" if label else "const"
        op = graph.ops[i] if operands else ""
        canonical = _canonical(op, len(operands)) if operands else None
        exponent = graph.exponents[i]
        if canonical == "**n" and exponent is not None:
            op = f"**{exponent:g}"
        elif canonical in _ENGINE_OPS:
            op = _ENGINE_OPS[canonical]
        node = Node(i, label, graph.data[i], graph.grads[i], op, operands, exponent, None,
                    False, role)  # fmt: skip
        nodes.append(node)
        rules.append(functools.partial(_replayed_rule, replay, i) if operands else None)
    snap = ForeignSnapshot(tuple(nodes), tuple(rules), graph.note, source=graph, replay=replay)
    return snap.checked() if check else snap
