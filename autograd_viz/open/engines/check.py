"""Check a learner's engine: `check_graph` judges the one recorded run of their backward pass
(`autograd_viz.open.engines.run`) against the right local derivatives
(`autograd_viz.open.engines.ops`: the kit's own engine, or central differences on their forward
method) and reports each rule as right, wrong or unchecked, with the first node where the gradient
goes wrong in a sentence a learner can act on ("your `__mul__` sent 5 to y; the product rule gives
3") and a guess at the bug where the numbers say so. A value that does not follow from its operation
is reported as the forward bug it is before any rule is judged, and a report that could check
nothing says so: it is no all-clear."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograd_viz.core._numbers import format_number
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT
from autograd_viz.open.engines.diagnose import (
    diagnose,
    never_ran,
    ran_early,
    ran_twice,
    seed_finding,
    their_sums,
)
from autograd_viz.open.engines.findings import (
    MISSING,
    RIGHT,
    UNCHECKED,
    WRONG,
    Finding,
    RuleCheck,
    _close,
)
from autograd_viz.open.engines.ops import (
    canonical_op,
    method_name,
    numeric_partials,
    rule_name,
    table_partials,
)
from autograd_viz.open.engines.probe import probe_methods, probe_reflected
from autograd_viz.open.engines.read import ForeignGraph
from autograd_viz.open.engines.run import BackwardRun, Call, run_backward

if TYPE_CHECKING:
    from autograd_viz.open.engines.forward import ForwardProblem

__all__ = ["MISSING", "RIGHT", "UNCHECKED", "WRONG", "EngineReport", "Finding", "RuleCheck",
           "check_graph"]  # fmt: skip

_SOURCES = ("op table", "central differences")
_UNKNOWN = "nothing: an operation the kit does not know, and its method could not be re-run"
_AT_ZERO = "gradient 0"
_ONLY_AT_ZERO = "nothing: its rule only ran with out.grad = 0, which sends 0 whatever the rule"


# ---- the report ---------------------------------------------------------------------------------


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
    probes: tuple[RuleCheck, ...] = ()  # each method tried on fresh values (check_engine)

    @property
    def checked_any(self) -> bool:
        """Whether any rule was checked at all (a report that checked nothing is no
        all-clear)."""
        return any(r.status in (RIGHT, WRONG) for r in (*self.rules, *self.probes))

    @property
    def ok(self) -> bool:
        return (
            self.checked_any
            and not self.findings
            and all(r.status != WRONG for r in (*self.rules, *self.probes))
        )

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
        if self.probes:
            lines.append("each method on fresh values (x = 1.5, y = −2.5), seeded with 1:")
            width_ = max(len(r.op) for r in self.probes)
            for r in self.probes:
                shown = f"  {r.method:<{width}}  {r.op:<{width_}}  {r.status}"
                if r.status == UNCHECKED:
                    shown += f"  ({r.how})"
                lines.append(shown.rstrip())
                if r.detail:
                    lines.append(f"{'':<{width}}      {r.detail}")
        note = f" ({self.run.note})" if self.run.note else ""
        lines.append(f"backward order: {self.run.order}{note}")
        if self.findings:
            lines.append("first wrong: " + str(self.findings[0]))
            lines += [f"  also: {f}" for f in self.findings[1:]]
        elif self.checked_any:
            lines.append("every checked rule gives the right gradients")
        else:
            lines.append(
                "nothing could be checked: no rule above was compared with a right derivative, "
                "so this is no all-clear"
            )
        lines += [f"missing: {f}" for f in self.missing]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(str(self))}</pre>"


def check_graph(
    graph: ForeignGraph,
    names: tuple[str, ...],
    forward: tuple[ForwardProblem, ...],
    *,
    run: BackwardRun | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    probe: bool = False,
) -> EngineReport:
    """Check a micrograd-style engine's backward pass on a graph already read
    (`autograd_viz.open.engines.read.read_graph`); `autograd_viz.check_engine(root)` is the door.

    Compares what each rule sent in one run of the learner's backward pass (`run`, or one
    made now: their order, their rules) with the right local derivatives, and names the
    first node that goes wrong. `names` are the values' names as the drawings write them
    (`autograd_viz.core.naming`), `forward` the values that do not follow from their operations
    (both from the graph's snapshot, `autograd_viz.open.engines.replay`). A node that stores its
    local gradients (microgpt) has them compared with the right ones, and the gradients
    their backward() leaves with what those local gradients give; an output their
    backward() never seeds with 1 is named. With `probe` (only `check_engine`: a picture
    never runs their methods), each method of the class is also tried on fresh values, with
    a value used twice (`x + x`, `x * x`), and `2 + x`, `2 * x`, `2 - x`, `2 / x`, so a bug
    the drawn graph does not show and a missing `__rmul__` or `__rsub__` are named too (with
    a one-line fix that was tried on the class). Their code runs for at most `timeout`
    seconds (`BackwardTimeoutError` says where it was still running).
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
                findings.append((position, ran_twice(names, i, runs[i])))
        else:
            early = [u for u in uses[i] if u not in seen and run.order == "your backward()"]
            if early:
                findings.append((position, ran_early(names, i, early, call)))
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
            findings += [(position, f) for f in (verdict.finding, *verdict.also)]
            row["detail"] = row["detail"] or verdict.finding.message
    failed = dict(run.errors)
    stores = [local is not None for local in graph.local_grads] or [False] * len(graph)
    for i in range(len(graph) - 1, -1, -1):  # in the order a backward pass meets them
        rule = getattr(graph.nodes[i], "_backward", None)
        if i in failed:
            method = method_name(graph.nodes[i], canonical_op(graph.ops[i], len(graph.operands[i])))
            message = f"your `{method or graph.ops[i]}`'s `_backward` raised {failed[i]}"
            findings.append((-1, Finding(i, names[i], method, message)))
        elif graph.operands[i] and i not in seen and callable(rule) and not stores[i]:
            findings.append((len(run.calls), never_ran(names, i)))

    for i, local in enumerate(graph.local_grads):  # microgpt: stored local grads, no closures
        if local is None:
            continue
        canonical = canonical_op(graph.ops[i], len(graph.operands[i]))
        method = method_name(graph.nodes[i], canonical) or graph.ops[i]
        key = (method or "?", graph.ops[i])
        row = per_method.setdefault(key, {"status": set(), "how": set(), "nodes": [], "detail": ""})
        row["nodes"].append(i)
        op = wrong_value[i].rule_op if i in wrong_value else canonical
        verdict = _check_local(graph, names, i, local, op, method, i not in wrong_value)
        row["status"].add(verdict.status)
        row["how"].update(h for h in verdict.how.split(", ") if h)
        right_sent[i] = verdict.right
        if verdict.finding is not None:
            findings.append((-1, verdict.finding))
            row["detail"] = row["detail"] or verdict.finding.message
        elif verdict.status == UNCHECKED and not row["detail"]:
            row["detail"] = f"{names[i]} stores no `_op` and fits no operation the kit knows"
    seeded = seed_finding(graph, names, run)
    if seeded is not None:
        findings.append((-2 * len(graph) - 2, seeded))  # before all: every grad follows it
    elif any(local is not None for local in graph.local_grads):
        kept = their_sums(graph, names, run)
        if kept is not None:
            findings.append((len(run.calls) + 1, kept))

    rules = []
    for (method, op), row in per_method.items():
        status = WRONG if WRONG in row["status"] else RIGHT if RIGHT in row["status"] else UNCHECKED
        how = ", ".join(h for h in _SOURCES if h in row["how"])
        how = how or (_ONLY_AT_ZERO if _AT_ZERO in row["how"] else _UNKNOWN)
        rules.append(RuleCheck(method, op, status, how, tuple(row["nodes"]), row["detail"]))
    ordered = [f for _, f in sorted(findings, key=lambda pf: pf[0])]
    missing: list[Finding] = []
    method_rules: list[RuleCheck] = []
    if probe:  # their class tried on fresh values: check_engine only
        method_rules, method_findings = probe_methods(graph, timeout)
        probe_rules, probe_findings, missing = probe_reflected(graph, timeout)
        rules += probe_rules
        ordered += method_findings + probe_findings
    return EngineReport(tuple(rules), tuple(ordered), run, graph, names, tuple(right_sent),
                        tuple(missing), tuple(method_rules))  # fmt: skip


@dataclass
class _Verdict:
    status: str
    how: str
    finding: Finding | None = None
    right: dict[int, float] | None = None
    also: tuple[Finding, ...] = ()  # the call's other wrong operands: each line says its own


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
    if g == 0 and all(call.sent[p] == 0 for p in right):
        return _Verdict(UNCHECKED, _AT_ZERO, None, right)  # 0 · anything: nothing learnt
    wrong: list[Finding] = []
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
        hint = diagnose(call, p, positions, partials, g, canonical, args, tol, graph.data[i])
        if _still_the_default(graph.nodes[i]):
            hint = (
                "its `_backward` is still the do-nothing one from `__init__`: set "
                "`out._backward = _backward` in the method"
            )
        wrong.append(Finding(i, names[i], shown, message, hint, p, sent, expected))
    if wrong:
        return _Verdict(WRONG, how, wrong[0], right, tuple(wrong[1:]))
    return _Verdict(RIGHT, how, None, right)


def _numbers(values) -> str:
    return "(" + ", ".join(format_number(v) for v in values) + ")"


def _check_local(
    graph: ForeignGraph,
    names: tuple[str, ...],
    i: int,
    local: tuple[float, ...],
    canonical: str | None,
    method: str,
    value_follows: bool,
) -> _Verdict:
    """A microgpt-style node's stored local gradients against the right ones: the op
    table's (or central differences on their method) for the operation it was made by."""
    positions = graph.operands[i]
    args = [graph.data[p] for p in positions]
    exponent = graph.exponents[i]
    partials = table_partials(canonical, args, exponent, graph.data[i] if value_follows else None)
    how, tol, named = "op table", 1e-6, rule_name(canonical) if canonical else ""
    if partials is None and value_follows and i not in graph.unnamed:
        partials = numeric_partials(graph.nodes[i], method, args, exponent, graph.data[i])
        how, tol, named = "central differences", 1e-4, "central differences"
    if partials is None:
        return _Verdict(UNCHECKED, "")
    g = graph.grads[i]
    right = {p: 0.0 for p in positions}
    for k, p in enumerate(positions):
        right[p] += partials[k] * g
    wrong = [k for k in range(len(positions)) if not _close(local[k], partials[k], tol)]
    if not wrong:
        return _Verdict(RIGHT, how, None, right)
    k = wrong[0]
    p = positions[k]
    verb = "give" if named == "central differences" else "gives"
    shown = method or graph.ops[i] or "its method"
    message = (
        f"your `{shown}` stored the local gradients {_numbers(local)} in {names[i]}; "
        f"{named} {verb} {_numbers(partials)}"
    )
    hint = ""
    if (
        len(positions) == 2
        and not _close(partials[0], partials[1], tol)
        and _close(local[0], partials[1], tol)
        and _close(local[1], partials[0], tol)
    ):
        hint = "each operand got the other's local gradient: the two are swapped"
    finding = Finding(i, names[i], shown, message, hint, p, local[k], partials[k])
    return _Verdict(WRONG, how, finding, right)


def _still_the_default(node: object) -> bool:
    rule = getattr(node, "_backward", None)
    qualname = getattr(getattr(rule, "__func__", rule), "__qualname__", "")
    return ".__init__.<locals>." in f".{qualname}"
