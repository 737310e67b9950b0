"""Check a learner's engine: each backward rule right, wrong or unchecked, and the first
node where the gradient goes wrong.

`check_graph(graph, names, forward)` judges one run of the learner's own backward pass
(`autograd_viz.engines.run.run_backward`: their order, their rules, their graph left as it
was; `autograd_viz.check_engine(root)` opens the graph and asks for it) and compares what
each `_backward` call sent with the right local derivatives — from the kit's own engine
where the operation is one it knows (the op table), and by central differences on the
learner's own forward method where it can re-run it (`autograd_viz.engines.ops`). The
report lists each operation's rule as right, wrong or unchecked, names the first node
where the gradient goes wrong in a sentence a learner can act on ("your `__mul__` sent 5
to y; the product rule gives 3"), guesses the classic bug behind it, and probes `2 + x`,
`2 * x`, `2 - x`, `2 / x`, so a missing `__rmul__` or `__rsub__` is named too — as
missing, not wrong, with a one-line fix that was tried on the class. Before any rule is
judged, each value is checked against its operation: a forward bug ("your `__add__` gave
z = −1, but x + y = 2 + 3 = 5") is reported as one, and the rule is judged against the
operation the node computes or was meant to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograd_viz._numbers import format_number
from autograd_viz.engines.ops import (
    canonical_op,
    method_name,
    numeric_partials,
    rule_name,
    table_partials,
)
from autograd_viz.engines.read import ForeignGraph, NotAGraphError, is_graph, read_graph
from autograd_viz.engines.run import (
    DEFAULT_TIMEOUT,
    BackwardRun,
    Call,
    _kit_order,
    _timed_out,
    _TimeUp,
    run_backward,
    shallow_stack,
    time_limit,
)

if TYPE_CHECKING:
    from autograd_viz.engines.replay import ForwardProblem

__all__ = ["EngineReport", "Finding", "RuleCheck", "check_graph"]

RIGHT, WRONG, UNCHECKED, MISSING = "right", "wrong", "unchecked", "missing"
_SOURCES = ("op table", "central differences")
_UNKNOWN = "nothing: an operation the kit does not know, and its method could not be re-run"


# ---- the report ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One place where the learner's backward pass goes wrong.

    `node` is the index (in the drawing's topological order) of the node whose rule (or
    whose place in the order) is wrong, `name` its name, `method` the learner's method,
    `operand`/`sent`/`right` what was sent to which operand and what the rule gives;
    `message` says it in one sentence, `hint` guesses the bug. `phase` is "forward" for a
    value that does not follow from its operation (then `sent` is the value, `right` what
    the operation gives), "backward" for a gradient.
    """

    node: int | None
    name: str
    method: str
    message: str
    hint: str = ""
    operand: int | None = None
    sent: float | None = None
    right: float | None = None
    phase: str = "backward"

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
    learner's backward pass met them, and the recorded run itself. `missing` lists the
    operations the class does not have (`2 - x` raises TypeError), each with a fix that
    was tried on the class and works: a missing operation is not a wrong one, so it does
    not make the report wrong."""

    rules: tuple[RuleCheck, ...]
    findings: tuple[Finding, ...]
    run: BackwardRun
    graph: ForeignGraph = field(repr=False)
    names: tuple[str, ...] = field(repr=False)
    right_sent: tuple[dict[int, float] | None, ...] = field(repr=False)
    missing: tuple[Finding, ...] = ()

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
        lines += [f"missing: {f}" for f in self.missing]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(str(self))}</pre>"


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol * 1e-3)


def check_graph(
    graph: ForeignGraph,
    names: tuple[str, ...],
    forward: tuple[ForwardProblem, ...],
    *,
    run: BackwardRun | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> EngineReport:
    """Check a micrograd-style engine's backward pass on a graph already read
    (`autograd_viz.engines.read.read_graph`); `autograd_viz.check_engine(root)` is the door.

    Compares what each rule sent in one run of the learner's backward pass (`run`, or one
    made now: their order, their rules) with the right local derivatives, and names the
    first node that goes wrong. `names` are the values' names as the drawings write them
    (`autograd_viz.naming`), `forward` the values that do not follow from their operations
    (both from the graph's snapshot, `autograd_viz.engines.replay`). Probes `2 + x`, `2 * x`,
    `2 - x`, `2 / x` on fresh values of the class, so a missing `__rmul__` or `__rsub__` is
    named too (with a one-line fix that was tried on the class). Their code runs for at most
    `timeout` seconds (`BackwardTimeoutError` says where it was still running).
    """
    if run is None:
        run = run_backward(graph, timeout=timeout)
    findings: list[tuple[int, Finding]] = []  # (call position, finding)
    per_method: dict[tuple[str, str], dict] = {}
    wrong_value = {p.node: p for p in forward}
    for p in forward:  # a forward bug comes before every gradient built on it
        i = p.node
        finding = Finding(i, names[i], p.method, p.message, p.hint, None, graph.data[i],
                          p.right, "forward")  # fmt: skip
        findings.append((-len(graph) - 1 + i, finding))
        key = (p.method or graph.ops[i] or "?", graph.ops[i])
        row = per_method.setdefault(key, {"status": set(), "how": set(), "nodes": [], "detail": ""})
        row["status"].add(WRONG)
        row["how"].add("op table")
        row["detail"] = row["detail"] or p.message
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
        canonical = canonical_op(graph.ops[i], len(graph.operands[i]))
        method = method_name(graph.nodes[i], canonical)
        key = (method or graph.ops[i] or "?", graph.ops[i])
        row = per_method.setdefault(key, {"status": set(), "how": set(), "nodes": [], "detail": ""})
        row["nodes"].append(i)
        if i in wrong_value:  # judged against the operation it computes, or was meant to
            verdict = _check_call(graph, names, call, wrong_value[i].rule_op, method, False)
        else:
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
            method = method_name(graph.nodes[i], canonical_op(graph.ops[i], len(graph.operands[i])))
            message = f"your `{method or graph.ops[i]}`'s `_backward` raised {failed[i]}"
            findings.append((-1, Finding(i, names[i], method, message)))
        elif graph.operands[i] and i not in seen and callable(rule):
            findings.append((len(run.calls), _never_ran(names, i)))

    rules = []
    for (method, op), row in per_method.items():
        status = WRONG if WRONG in row["status"] else RIGHT if RIGHT in row["status"] else UNCHECKED
        how = ", ".join(h for h in _SOURCES if h in row["how"]) or _UNKNOWN
        rules.append(RuleCheck(method, op, status, how, tuple(row["nodes"]), row["detail"]))
    probe_rules, probe_findings, missing = _probe_reflected(graph, timeout)
    rules += probe_rules
    ordered = [f for _, f in sorted(findings, key=lambda pf: pf[0])] + probe_findings
    return EngineReport(tuple(rules), tuple(ordered), run, graph, names, tuple(right_sent),
                        tuple(missing))  # fmt: skip


@dataclass
class _Verdict:
    status: str
    how: str
    finding: Finding | None = None
    right: dict[int, float] | None = None


def _check_call(
    graph: ForeignGraph,
    names: tuple[str, ...],
    call: Call,
    canonical: str | None,
    method: str,
    value_follows: bool = True,
) -> _Verdict:
    i = call.node
    positions = graph.operands[i]
    args = [graph.data[p] for p in positions]
    exponent = graph.exponents[i]
    table = table_partials(canonical, args, exponent, graph.data[i] if value_follows else None)
    numeric = None
    if table is None and value_follows:  # an operation the table does not know: measure it
        numeric = numeric_partials(graph.nodes[i], method, args, exponent, graph.data[i])
    if table is not None:
        partials, how, tol = table, "op table", 1e-6
        named = rule_name(canonical)
    elif numeric is not None:
        partials, how, tol = numeric, "central differences", 1e-4
        named = "central differences"
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
        verb = "gives" if named != "central differences" else "give"
        shown = method or graph.ops[i] or "its rule"
        message = (
            f"your `{shown}` sent {format_number(sent)} to {names[p]}; "
            f"{named} {verb} {format_number(expected)}"
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
# One-line fixes, most readable first; `C` is the class's name. Each is tried on the class
# before it is offered: the blog's `other + (-self)` needs a `__neg__`, `self * -1 + other`
# a `__mul__` that takes plain numbers, `C(other) + ...` only `__add__` and `__mul__`.
_FIXES = {
    "__radd__": ("self + other", "self + C(other)"),
    "__rmul__": ("self * other", "self * C(other)"),
    "__rsub__": ("other + (-self)", "C(other) - self", "self * -1 + other",
                 "C(other) + self * C(-1.0)"),
    "__rtruediv__": ("other * self**-1", "C(other) / self", "self**-1 * other",
                     "C(other) * self**-1"),
}  # fmt: skip


def _probe_reflected(
    graph: ForeignGraph, timeout: float = DEFAULT_TIMEOUT
) -> tuple[list[RuleCheck], list[Finding], list[Finding]]:
    """Try `2 + x`, `2 * x`, `2 - x`, `2 / x` on a fresh value of the learner's class.

    A reflected method must exist, give the right value, and send x the gradient the
    learner's own engine sends for the same expression with the 2 wrapped (`Value(2) * x`),
    so a wrong `__mul__` is blamed on `__mul__`, not on the `__rmul__` that calls it. A
    missing one is its own verdict (the third list), with a fix that works in the class.
    Gradients come from their `_backward` rules in the kit's order: their backward() runs
    once per check, on their graph only."""
    cls = type(graph.nodes[-1])
    rules: list[RuleCheck] = []
    findings: list[Finding] = []
    missing: list[Finding] = []
    a = 1.5
    try:
        with time_limit(timeout), shallow_stack():
            for method, text, build, wrapped, value, slope in _PROBES:
                try:
                    x = cls(a)
                except Exception as err:
                    how = f"nothing: {cls.__name__}({a}) raised {type(err).__name__}"
                    rules.append(RuleCheck(method, text, UNCHECKED, how))
                    continue
                expected = _wrapped_slope(cls, wrapped, a)
                expected = slope(a) if expected is None else expected
                try:
                    out = build(x)
                except TypeError:
                    fix = _working_fix(cls, method, build, value(a), expected, slope(a))
                    forward = "__" + method[3:]  # __rsub__ -> __sub__
                    has = "" if hasattr(cls, forward) else f"`{forward}` or "
                    message = (
                        f"`{text}` raises TypeError (your class has no {has}`{method}`): {fix}"
                    )
                    missing.append(Finding(None, "x", method, message))
                    rules.append(RuleCheck(method, text, MISSING, "a probe", (), fix))
                    continue
                except Exception as err:
                    detail = f"`{text}` raised {type(err).__name__}: {err}"
                    findings.append(Finding(None, "x", method, detail))
                    rules.append(RuleCheck(method, text, WRONG, "a probe", (), detail))
                    continue
                verdict = _probe_result(cls, text, x, out, value(a), expected)
                if verdict is None:
                    rules.append(RuleCheck(method, text, RIGHT, "a probe"))
                else:
                    fix = _working_fix(cls, method, build, value(a), expected, slope(a), own=True)
                    findings.append(Finding(None, "x", method, verdict, fix))
                    rules.append(RuleCheck(method, text, WRONG, "a probe", (), verdict))
    except _TimeUp:
        raise _timed_out("a `_backward` of yours (on `2 + x`, `2 * x`, ...)", timeout, "") from None
    return rules, findings, missing


def _kit_grad(out: object, x: object) -> float | None:
    """The gradient x gets from their `_backward` rules, run in the kit's order (no call of
    their backward()); None where their rules cannot run."""
    try:
        graph = read_graph(out)
        errors: list[tuple[int, str]] = []
        _kit_order(graph, errors)
        return None if errors else float(x.grad)
    except (NotAGraphError, Exception):
        return None


def _wrapped_slope(cls, wrapped, a: float) -> float | None:
    """The gradient x gets from the learner's engine for the expression with the 2 wrapped."""
    try:
        x = cls(a)
        return _kit_grad(wrapped(cls(2.0), x), x)
    except Exception:  # no such operation: fall back to the true slope
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
    grad = _kit_grad(out, x)
    if grad is None:
        return None  # the gradient check needs working rules; other rows cover them
    if not math.isclose(grad, slope, rel_tol=1e-6, abs_tol=1e-12):
        return (
            f"`{text}` at x = 1.5 sent {format_number(grad)} to x; it should be "
            f"{format_number(slope)}"
        )
    return None


def _namespace(cls: type) -> dict:
    """The globals a method pasted into `cls` would see: those of its own methods."""
    for klass in cls.__mro__:
        for attr in vars(klass).values():
            found = getattr(getattr(attr, "__func__", attr), "__globals__", None)
            if found is not None and klass is not object:
                return found
    return {}


def _working_fix(cls, method, build, value, expected, slope, own=False) -> str:
    """The advice for a missing (or wrong) reflected method: the first one-line fix that,
    defined in the class's own namespace and put on a copy of the class, makes the probe
    give the right value and gradient. Only a fix that was seen to work is offered."""
    name = cls.__name__
    namespace = _namespace(cls)
    tried = []
    for body in _FIXES[method]:
        source = f"def {method}(self, other): return {body.replace('C(', f'{name}(')}"
        tried.append(f"`{source}`")
        local: dict = {}
        try:
            exec(source, namespace, local)  # our own one-line template, in their namespace
            trial = type(name, (cls,), {method: local[method], "__module__": cls.__module__})
            x = trial(1.5)
            out = build(x)
            if not math.isclose(float(out.data), value, rel_tol=1e-9):
                tried[-1] += f" gives {format_number(float(out.data))}"
                continue
            grad = _kit_grad(out, x)
        except Exception as err:
            tried[-1] += f" raises {type(err).__name__}: {err}"
            continue
        if grad is not None and (
            math.isclose(grad, expected, rel_tol=1e-6, abs_tol=1e-12)
            or math.isclose(grad, slope, rel_tol=1e-6, abs_tol=1e-12)
        ):
            verb = "e.g." if own else "add"
            return f"{verb} `{source}` to your class"
        tried[-1] += " sends x the wrong gradient"
    if own:
        return ""  # the wrong value comes from elsewhere (a rule named above): no guess
    return (
        f"no one-line `{method}` works with its methods as they are ({len(tried)} tried); "
        f"the blog's {tried[0]}"
    )
