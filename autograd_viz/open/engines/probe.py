"""A learner's class tried on fresh values, for `check_engine` alone (a picture never runs it): the
graph a learner drew may hide a bug (`=` where `+=` belongs gives the right numbers on a graph that
uses no value twice, and a method the graph does not use is not checked at all), so `probe_methods`
tries each method the op table knows (`x + x`, `x * y`, `x ** 3`, ...) and `probe_reflected` tries
`2 + x`, `2 * x`, `2 - x`, `2 / x`, comparing values and gradients with the kit's own engine and
naming a missing `__rmul__` or `__rsub__` with a one-line fix that was tried on the class.
"""

from __future__ import annotations

import math

from autograd_viz.core._numbers import format_number
from autograd_viz.core.time_limits import DEFAULT_TIMEOUT, _TimeUp, shallow_stack, time_limit
from autograd_viz.open.engines.findings import (
    MISSING,
    RIGHT,
    UNCHECKED,
    WRONG,
    Finding,
    RuleCheck,
    _close,
)
from autograd_viz.open.engines.node import is_graph
from autograd_viz.open.engines.read import ForeignGraph, NotAGraphError, read_graph
from autograd_viz.open.engines.run import _kit_order, _timed_out, run_backward

__all__ = ["probe_methods", "probe_reflected"]


# ---- each method on fresh values, with a value used twice ---------------------------------------

_A, _B = 1.5, -2.5  # two different operands; x = 1.5 > 0 for log
# method, expression, how it is built from x and y (y unused by a one-operand expression),
# and whether x is used twice (a rule that assigns instead of adding keeps one share)
_METHOD_PROBES = (
    ("__add__", "x + y", lambda x, y: x + y, False),
    ("__add__", "x + x", lambda x, y: x + x, True),
    ("__mul__", "x * y", lambda x, y: x * y, False),
    ("__mul__", "x * x", lambda x, y: x * x, True),
    ("__sub__", "x - y", lambda x, y: x - y, False),
    ("__truediv__", "x / y", lambda x, y: x / y, False),
    ("__pow__", "x ** 3", lambda x, y: x**3, False),
    ("__neg__", "-x", lambda x, y: -x, False),
    ("tanh", "x.tanh()", lambda x, y: x.tanh(), False),
    ("exp", "x.exp()", lambda x, y: x.exp(), False),
    ("log", "x.log()", lambda x, y: x.log(), False),
    ("relu", "x.relu()", lambda x, y: x.relu(), False),
    ("sigmoid", "x.sigmoid()", lambda x, y: x.sigmoid(), False),
)


def _kit_grads(out: object, leaves: list[object]) -> list[float] | None:
    """The gradients `leaves` get from their rules (closures, or stored local gradients)
    with the output seeded 1 by the kit: no call of their backward()."""
    try:
        graph = read_graph(out)
        errors: list[tuple[int, str]] = []
        _kit_order(graph, errors)
        if errors:
            return None
        return [float(v.grad) for v in leaves]
    except Exception:  # their code: a probe that cannot run checks nothing
        return None


def probe_methods(
    graph: ForeignGraph, timeout: float = DEFAULT_TIMEOUT
) -> tuple[list[RuleCheck], list[Finding]]:
    """Each method of the learner's class the op table knows, tried on fresh values: x + y
    and x + x, x * y and x * x, x ** 3, tanh(x), ... Its value and the gradients its rule
    sends (the output seeded 1 by the kit) are compared with the kit's own engine, so a bug
    the drawn graph does not show (`=` where `+=` belongs, on a graph with no value used
    twice) is named whatever the graph. For an engine whose backward() does the adding
    itself (stored local gradients, microgpt), their backward() on `x * y + x` too: it must
    add up the shares of a value used twice."""
    from autograd_viz.engine import Value

    cls = type(graph.nodes[-1])
    rules: list[RuleCheck] = []
    findings: list[Finding] = []
    good: set[str] = set()
    at = f"x = {format_number(_A)}, y = {format_number(_B)}"
    try:
        with time_limit(timeout) as limit, shallow_stack():
            for method, text, build, twice in _METHOD_PROBES:
                if not callable(getattr(cls, method, None)):
                    continue
                where = f"x = {format_number(_A)}" if "y" not in text else at
                kx, ky = Value(_A), Value(_B)
                right = build(kx, ky)
                right.backward()
                try:
                    x, y = cls(_A), cls(_B)
                    out = build(x, y)
                    data = float(out.data)
                except Exception as err:
                    how = f"nothing: `{text}` raised {type(err).__name__}: {err}"
                    rules.append(RuleCheck(method, text, UNCHECKED, how))
                    continue
                if not _close(data, right.data, 1e-9):
                    detail = (
                        f"`{text}` at {where} gave {format_number(data)}; it should be "
                        f"{format_number(right.data)}"
                    )
                    findings.append(Finding(None, "x", method, detail))
                    rules.append(RuleCheck(method, text, WRONG, "a probe", (), detail))
                    continue
                leaves = [x, y] if "y" in text else [x]
                got = _kit_grads(out, leaves)
                if got is None:
                    how = f"nothing: the rules of `{text}` could not be run"
                    rules.append(RuleCheck(method, text, UNCHECKED, how))
                    continue
                want = [kx.grad, ky.grad][: len(leaves)]
                bad = [k for k in range(len(leaves)) if not _close(got[k], want[k], 1e-6)]
                if not bad:
                    rules.append(RuleCheck(method, text, RIGHT, "a probe"))
                    good.add(text)
                    continue
                k = bad[0]
                name = "xy"[k]
                detail = (
                    f"`{text}` at {where} sent {format_number(got[k])} to {name}; "
                    f"it should be {format_number(want[k])}"
                )
                hint = ""
                if twice and _close(got[0], want[0] / 2, 1e-6):
                    detail += f" (x is used twice: {format_number(want[0] / 2)} + " + (
                        f"{format_number(want[0] / 2)})"
                    )
                    hint = (
                        f"its rule replaced the gradient instead of adding to it: `=` where "
                        f"`+=` belongs in `{method}`"
                    )
                elif (
                    len(leaves) == 2
                    and len(bad) == 2
                    and _close(got[0], want[1], 1e-6)
                    and _close(got[1], want[0], 1e-6)
                ):
                    hint = "each operand got what the other should: the operands are swapped"
                findings.append(Finding(None, "x", method, detail, hint))
                rules.append(RuleCheck(method, text, WRONG, "a probe", (), detail))
            stores_locals = any(local is not None for local in graph.local_grads)
            if stores_locals and {"x + y", "x + x", "x * y", "x * x"} <= good:
                found = _probe_backward(cls, timeout)
                if found is not None:
                    findings.append(found)
                    rules.append(RuleCheck("backward", "x * y + x", WRONG, "a probe", (),
                                           found.message))  # fmt: skip
                else:
                    rules.append(RuleCheck("backward", "x * y + x", RIGHT, "a probe"))
    except _TimeUp as err:
        if err.limit is not limit:
            raise
        raise _timed_out("a method of yours (on `x + x`, `x * y`, ...)", timeout, "") from None
    return rules, findings


def _probe_backward(cls: type, timeout: float) -> Finding | None:
    """Their backward() on `x * y + x` (its rules known right): x must get y + 1 — the two
    shares added — and y must get x."""
    try:
        x, y = cls(_A), cls(_B)
        out = x * y + x
        graph = read_graph(out)
        run = run_backward(graph, timeout=timeout)
    except Exception:
        return None
    if run.order != "your backward()":
        return None
    index = {id(v): i for i, v in enumerate(graph.nodes)}
    got = run.grads[index[id(x)]], run.grads[index[id(y)]]
    want = (_B + 1.0, _A)
    if all(_close(g, w, 1e-9) for g, w in zip(got, want)):
        return None
    at = f"x = {format_number(_A)}, y = {format_number(_B)}"
    if not _close(run.grads[-1], 1.0, 1e-12):
        message = (
            f"your backward() on `x * y + x` at {at} left the output's grad at "
            f"{format_number(run.grads[-1])}, not 1"
        )
        return Finding(None, "x", "backward", message, "set `self.grad = 1.0` before the loop")
    k = 0 if not _close(got[0], want[0], 1e-9) else 1
    message = (
        f"your backward() on `x * y + x` at {at} left {'xy'[k]}.grad = "
        f"{format_number(got[k])}; it should be {format_number(want[k])}"
    )
    hint = ""
    if k == 0 and (_close(got[0], _B, 1e-9) or _close(got[0], 1.0, 1e-9)):
        message += f" (x is used twice: {format_number(_B)} + 1)"
        hint = "it replaced the gradient instead of adding to it: `=` where `+=` belongs"
    return Finding(None, "x", "backward", message, hint)


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


def probe_reflected(
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
        with time_limit(timeout) as limit, shallow_stack():
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
    except _TimeUp as err:
        if err.limit is not limit:
            raise
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
