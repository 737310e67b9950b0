"""The general grader of a learner's function of a `Value`: `function_check(reference, points)`
grades a function built from the kit's operations (a `my_sigmoid` from `exp`) by its forward values
against a reference at points away from kinks, then its gradients with `gradcheck`, alone and inside
a larger graph. What the learner's code does while it runs is watched, never read from its text
(`autograd_viz.core._watch`). `method_check` (`autograd_viz.course.class_checks`, for a method of
the learner's own class) is re-exported here; both return a `Verdict`, which
`autograd_viz.code_exercises` puts behind a Check button."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence

from autograd_viz.core._watch import LEAVE_GRADS, touched_grads, watching
from autograd_viz.course._verdict import (
    CodeExerciseError,
    Verdict,
    a_,
    forward_wrong,
    not_callable,
    raised,
    read_points,
    show,
)
from autograd_viz.course.class_checks import method_check, on
from autograd_viz.engine import Value
from autograd_viz.gradcheck import GradcheckError, gradcheck

__all__ = ["function_check", "method_check", "on"]


class function_check:  # noqa: N801 - used like a function: function_check(reference, points)
    """Grade a function of one `Value` built from the kit's operations.

    At each point x it must run, return a Value, leave every `grad` alone (a function that
    calls `backward()` itself is named), match `reference(x)` (a function of a float) within
    `tol`, avoid the operations listed in `without` (so `x.sigmoid()` is no answer to "build
    sigmoid from exp"), and give the gradient `gradcheck` measures — on x itself, and inside
    a larger graph, `f(u)·u·2.5` with u = 2t − 1 computed from a leaf t: an input that is
    itself computed, used twice, under an upstream gradient other than 1. Keep the points
    away from kinks (ReLU at 0) and the edges of a domain (log at 0).

    >>> check = function_check(math.tanh, [-1.0, 0.5], without=["tanh"])
    >>> check(lambda x: (x.exp() - (-x).exp()) / (x.exp() + (-x).exp()), "my_tanh").ok
    True
    """

    def __init__(
        self,
        reference: Callable[[float], float],
        points: Sequence[float],
        *,
        without: Iterable[str] = (),
        tol: float = 1e-6,
    ) -> None:
        if not callable(reference):
            raise CodeExerciseError(
                f"function_check: reference must be a function of a float, got {reference!r}; "
                "e.g. function_check(math.tanh, [-1.0, 0.5])"
            )
        self.reference = reference
        self.points = read_points(points, "function_check")
        self.without = tuple(without)
        self.tol = tol

    def __call__(self, f: object, name: str = "f") -> Verdict:
        wrong = not_callable(name, f)
        if wrong is not None:
            return wrong
        for x in self.points:
            verdict = self._at(f, name, x)
            if verdict is not None:
                return verdict
        return Verdict(True, f"Your `{name}` gives the right values and gradients.")

    def _run(self, f: Callable, name: str, x: float) -> tuple[Value, Value] | Verdict:
        leaf = Value(x, label="x")
        try:
            with watching() as seen:
                out = f(leaf)
        except Exception as err:  # the learner's code: any exception is an answer
            return raised(name, err, f"x = {show(x)}")
        if isinstance(out, Value):
            touched = touched_grads(seen, Value.backward, out.topological_order())
            if touched:
                return Verdict(False, f"Your `{name}` {touched}.", LEAVE_GRADS, node="x")
            return leaf, out
        if isinstance(out, numbers.Real):
            return Verdict(
                False,
                f"Your `{name}` returned the plain number {show(float(out))}, not a Value.",
                "build the result from Value operations on x (x.exp(), +, *, /), so backward() "
                "can run through it.",
            )
        kind = type(out).__name__
        if kind == "Value":  # another engine's Value: say whose, or the message contradicts itself
            kind = f"{type(out).__module__}.{type(out).__qualname__}"
        return Verdict(
            False,
            f"Your `{name}` returned {a_(kind)}, not autograd_viz's Value.",
            "build the result from the x it is given (x.exp(), +, *, /).",
        )

    def _at(self, f: Callable, name: str, x: float) -> Verdict | None:
        ran = self._run(f, name, x)
        if isinstance(ran, Verdict):
            return ran
        leaf, out = ran
        order = out.topological_order()
        used = [op for op in self.without if any(v.op == op for v in order)]
        if used:
            return Verdict(
                False,
                f"Your `{name}` calls `.{used[0]}()` itself; the exercise is to build it from "
                "simpler operations.",
                "use the operations the question names.",
            )
        want = float(self.reference(x))
        if not math.isclose(out.data, want, rel_tol=self.tol, abs_tol=self.tol):
            return forward_wrong(name, f"x = {show(x)}", out.data, want, "the right value")
        if not any(v is leaf for v in order):
            return Verdict(
                False,
                "The value is right, but it does not depend on x through the graph: backward() "
                "cannot reach x, so x.grad stays 0.",
                "your code computes with x.data (a plain float); use x itself.",
                node="x",
            )
        verdict = self._gradient(f, name, x)  # a Verdict is falsy when wrong: no `or` here
        return verdict if verdict is not None else self._in_context(f, name, x)

    def _gradient(self, f: Callable, name: str, x: float) -> Verdict | None:
        try:
            report = gradcheck(lambda x: f(x), {"x": x})  # whatever their parameter is called
        except GradcheckError as err:
            return Verdict(False, f"At x = {show(x)} the gradient cannot be checked: {err}.")
        except Exception as err:
            return raised(name, err, f"x near {show(x)}")
        row = report["x"]
        if row.ok:
            return None
        cut = self._cut_leaf(f, x)
        if cut:
            return Verdict(
                False,
                f"At x = {show(x)} backprop gives ∂f/∂x = {show(row.analytic)}, but nudging x "
                f"measures {show(row.numeric)}. The leaf {cut} in your graph changes with x but "
                "has no parents: it was computed from x.data, so the gradient stops there.",
                "build every part of the result from x itself, never from x.data.",
                node=cut,
            )
        return Verdict(
            False,
            f"At x = {show(x)} backprop gives ∂f/∂x = {show(row.analytic)}, but nudging x "
            f"measures {show(row.numeric)}.",
            "every node of the result must come from x through the kit's operations: a node "
            "you made yourself (Value(..., _backward=...)) or one kept from an earlier call "
            "sends the wrong gradient.",
            node="x",
        )

    def _in_context(self, f: Callable, name: str, x: float) -> Verdict | None:
        """f inside a larger graph: its input computed (u = 2t − 1) and used twice, and an
        upstream gradient other than 1 (u·2.5), checked against central differences."""

        def g(t: Value) -> Value:
            u = 2 * t - 1
            return f(u) * u * 2.5

        try:
            report = gradcheck(g, {"t": (x + 1) / 2})
        except GradcheckError as err:
            return Verdict(False, f"At x = {show(x)} the gradient cannot be checked: {err}.")
        except Exception as err:
            return raised(name, err, f"u = 2t − 1 near {show(x)}")
        row = report["t"]
        if row.ok:
            return None
        return Verdict(
            False,
            f"Alone your `{name}` is right, but inside a larger graph it is not: for "
            f"g(t) = {name}(u)·u·2.5 with u = 2t − 1 = {show(x)}, backprop gives "
            f"∂g/∂t = {show(row.analytic)} and nudging t measures {show(row.numeric)}.",
            "the result must depend on its input only through the graph, whatever made that "
            "input: no globals, no values kept from an earlier call, no rule that forgets "
            "out.grad.",
            node="x",
        )

    def _cut_leaf(self, f: Callable, x: float) -> str | None:
        """The first leaf (other than x) whose number moves with x: made from x.data."""
        leaves = []
        for at in (x, x + 1e-3):
            ran = self._run(f, "f", at)
            if isinstance(ran, Verdict):
                return None
            leaf, out = ran
            leaves.append([v.data for v in out.leaves() if v is not leaf])
        if len(leaves[0]) != len(leaves[1]):
            return None
        for a, b in zip(*leaves):
            if a != b:
                return f"Value({show(a)})"
        return None
