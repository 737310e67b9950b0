"""Write-the-code exercises: the learner writes a function or a method, a check grades it.

A `CodeExercise` names what the learner is to write (`my_sigmoid`, a `tanh` method) and how
to grade it. Its Check button grades whatever that name holds in the kernel now, so the
learner edits their cell, runs it, and presses Check again; `check(obj)` grades an object
directly (a notebook's worked example, a test). The answer is right or wrong, with where and
why: the input at which the forward value is off, the node that cuts the graph, or, for a
learner's own micrograd-style class, the first wrong node `check_engine` finds ("your `tanh`
sent 0.75 to x; the tanh rule gives 0.7864"). An exception in the learner's code, a missing
method or something that is not a function is an answer too ("your `my_sigmoid` raised
ZeroDivisionError at x = 0.5, line 2"), never a traceback.

Two graders cover the usual cases: `function_check` for a function of a `Value` built from
the kit's operations (forward values against a reference at a few points away from kinks,
gradients with `gradcheck`), and `method_check` for a method of the learner's own class
(forward values, then `check_engine`, then `gradcheck(engine=...)`). Any callable returning
a `Verdict`, a bool or `(bool, message)` grades too.

Every exercise carries a model answer as code. It is run through the exercise's own check
when the exercise is made (an exercise whose model answer fails is refused), and shown by
the teacher's switch (`autograd_viz.teacher`: `teacher_mode()`, `reveal_all()`,
`AUTOGRAD_VIZ_TEACHER=1`), with the number exercises' answers.

>>> ex = CodeExercise("Write my_sigmoid(x) = 1 / (1 + e^(−x)) from exp.",
...     function_check(lambda x: 1 / (1 + math.exp(-x)), [-1.5, 0.5, 2.0], without=["sigmoid"]),
...     name="my_sigmoid", model_answer="def my_sigmoid(x):\\n    return 1 / (1 + (-x).exp())")
>>> ex.check(lambda x: 1 / (1 + x.exp())).ok
False
"""

from __future__ import annotations

import contextlib
import html
import inspect
import keyword
import math
import numbers
import os
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets

from autograd_viz._checks import is_number
from autograd_viz._numbers import format_number
from autograd_viz.engine import Value
from autograd_viz.engines.read import is_graph
from autograd_viz.engines.run import shallow_stack
from autograd_viz.gradcheck import GradcheckError, gradcheck
from autograd_viz.grading import verdict_html
from autograd_viz.teacher import register
from autograd_viz.viz.palette import var

__all__ = [
    "CodeExercise",
    "CodeExerciseError",
    "Verdict",
    "function_check",
    "method_check",
]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class CodeExerciseError(ValueError):
    """A code exercise was written wrongly (by the notebook author, not the learner)."""


@dataclass(frozen=True)
class Verdict:
    """The grade of one piece of learner code: right or wrong, and in words why.

    `node` names the first wrong node of the learner's graph when one is known (`x`,
    `tanh(x)`); `hint` guesses the bug behind it.
    """

    ok: bool
    message: str = ""
    hint: str = ""
    node: str | None = None

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        head = "✔ Right!" if self.ok else "✘ Not yet."
        hint = f" Hint: {self.hint}" if self.hint else ""
        return " ".join(part for part in (head, self.message) if part) + hint

    def __repr__(self) -> str:
        return str(self)


def _show(x: float) -> str:
    return format_number(x)  # the kit's one number format (a real minus sign: −1.5)


def _where(points: dict[str, float]) -> str:
    return ", ".join(f"{k} = {_show(v)}" for k, v in points.items())


def _raised(name: str, err: BaseException, at: str = "") -> Verdict:
    """An exception inside the learner's code, as an answer: what, where, and which line."""
    where = f" at {at}" if at else ""
    line = ""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE + os.sep):
            text = (frame.line or "").strip()
            line = f" (line {frame.lineno}: `{text}`)" if text else f" (line {frame.lineno})"
            break
    detail = f": {err}" if str(err) else ""
    return Verdict(False, f"Your `{name}` raised {type(err).__name__}{where}{detail}{line}.")


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def _not_callable(name: str, obj: object) -> Verdict | None:
    if callable(obj):
        return None
    shown = repr(obj)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return Verdict(
        False,
        f"`{name}` is {_a(type(obj).__name__)} ({shown}), not a function.",
        f"define it with `def {name}(...):` and run that cell before checking.",
    )


def _points(points: Iterable[float], who: str) -> tuple[float, ...]:
    try:
        values = tuple(points)
    except TypeError:
        raise CodeExerciseError(
            f"{who}: points must be a list of numbers, got {points!r}"
        ) from None
    if not values:
        raise CodeExerciseError(f"{who}: give at least one point to check at, e.g. [-1.5, 0.5]")
    for x in values:
        if not is_number(x) or not math.isfinite(x):
            raise CodeExerciseError(f"{who}: every point must be a finite number, got {x!r}")
    return tuple(float(x) for x in values)


def _forward_wrong(name: str, at: str, got: float, want: float, what: str) -> Verdict:
    return Verdict(
        False,
        f"At {at} your `{name}` gives {_show(got)}; {what} is {_show(want)}.",
        "compare your formula with the one in the question, sign by sign.",
    )


class function_check:  # noqa: N801 - used like a function: function_check(reference, points)
    """Grade a function of one `Value` built from the kit's operations.

    At each point x it must run, return a Value, match `reference(x)` (a function of a
    float) within `tol`, avoid the operations listed in `without` (so `x.sigmoid()` is no
    answer to "build sigmoid from exp"), and give the gradient `gradcheck` measures. Keep
    the points away from kinks (ReLU at 0) and the edges of a domain (log at 0).

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
        self.points = _points(points, "function_check")
        self.without = tuple(without)
        self.tol = tol

    def __call__(self, f: object, name: str = "f") -> Verdict:
        wrong = _not_callable(name, f)
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
            out = f(leaf)
        except Exception as err:  # the learner's code: any exception is an answer
            return _raised(name, err, f"x = {_show(x)}")
        if isinstance(out, Value):
            return leaf, out
        if isinstance(out, numbers.Real):
            return Verdict(
                False,
                f"Your `{name}` returned the plain number {_show(float(out))}, not a Value.",
                "build the result from Value operations on x (x.exp(), +, *, /), so backward() "
                "can run through it.",
            )
        kind = type(out).__name__
        if kind == "Value":  # another engine's Value: say whose, or the message contradicts itself
            kind = f"{type(out).__module__}.{type(out).__qualname__}"
        return Verdict(
            False,
            f"Your `{name}` returned {_a(kind)}, not autograd_viz's Value.",
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
            return _forward_wrong(name, f"x = {_show(x)}", out.data, want, "the right value")
        if not any(v is leaf for v in order):
            return Verdict(
                False,
                "The value is right, but it does not depend on x through the graph: backward() "
                "cannot reach x, so x.grad stays 0.",
                "your code computes with x.data (a plain float); use x itself.",
                node="x",
            )
        return self._gradient(f, name, x)

    def _gradient(self, f: Callable, name: str, x: float) -> Verdict | None:
        try:
            report = gradcheck(
                lambda x: f(x), {"x": x}
            )  # whatever the learner's parameter is called
        except GradcheckError as err:
            return Verdict(False, f"At x = {_show(x)} the gradient cannot be checked: {err}.")
        except Exception as err:
            return _raised(name, err, f"x near {_show(x)}")
        row = report["x"]
        if row.ok:
            return None
        cut = self._cut_leaf(f, x)
        where = (
            f" The leaf {cut} in your graph changes with x but has no parents: it was "
            "computed from x.data, so the gradient stops there."
            if cut
            else ""
        )
        return Verdict(
            False,
            f"At x = {_show(x)} backprop gives ∂f/∂x = {_show(row.analytic)}, but nudging x "
            f"measures {_show(row.numeric)}.{where}",
            "build every part of the result from x itself, never from x.data.",
            node=cut or "x",
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
                return f"Value({_show(a)})"
        return None


class method_check:  # noqa: N801 - used like a function: method_check(base, "tanh", ...)
    """Grade a method the learner writes for their own micrograd-style class.

    The learner gives either their whole class or just the method (a function of `self`),
    which is put on `base` for the check only (a micrograd-style class makes new nodes by
    its own name, `Value(...)`, so only the class itself carries a method to every node)
    and taken off again afterwards, so the notebook's class is left as it was.
    At each point x, `build(x)` (with x a leaf of that class) must run, give a node whose
    `data` matches `reference(x)`, pass `check_engine` (every backward rule it uses: the
    first wrong node is named) and `gradcheck(engine=...)`.

    >>> check = method_check(MyValue, "tanh", lambda x: x.tanh(), math.tanh, [0.5]) # doctest: +SKIP
    >>> check(my_tanh_method, "tanh").ok  # doctest: +SKIP
    True
    """

    def __init__(
        self,
        base: type,
        method: str,
        build: Callable[[object], object],
        reference: Callable[[float], float],
        points: Sequence[float],
        *,
        tol: float = 1e-6,
    ) -> None:
        if not isinstance(base, type) or not is_graph(_try_make(base)):
            raise CodeExerciseError(
                f"method_check: base must be a micrograd-style class (base(2.0) gives a node with "
                f"data, grad and _prev), got {base!r}"
            )
        if not isinstance(method, str) or not method.isidentifier():
            raise CodeExerciseError(f"method_check: method must be a method name, got {method!r}")
        if not callable(build) or not callable(reference):
            raise CodeExerciseError(
                "method_check: build (a function of a leaf, e.g. lambda x: x.tanh()) and "
                "reference (a function of a float, e.g. math.tanh) must be functions"
            )
        self.base, self.method, self.build, self.reference = base, method, build, reference
        self.points = _points(points, "method_check")
        self.tol = tol

    @property
    def context(self) -> dict[str, object]:
        """Names a model answer's code may use: the base class, under its own name."""
        return {self.base.__name__: self.base}

    def _class(self, obj: object, name: str) -> type | Verdict | Callable:
        if isinstance(obj, type):
            if not callable(getattr(obj, self.method, None)):
                return Verdict(
                    False,
                    f"Your class `{obj.__name__}` has no `{self.method}` method.",
                    f"add `def {self.method}(self, ...):` inside the class and run its cell again.",
                )
            return obj
        wrong = _not_callable(name, obj)
        if wrong is not None:
            return wrong
        return obj

    def __call__(self, obj: object, name: str = "method") -> Verdict:
        found = self._class(obj, name)
        if isinstance(found, Verdict):
            return found
        if isinstance(found, type):
            return self._grade(found)
        missing = object()
        saved = self.base.__dict__.get(self.method, missing)
        setattr(self.base, self.method, found)
        try:
            return self._grade(self.base)
        finally:
            if saved is missing:
                delattr(self.base, self.method)
            else:
                setattr(self.base, self.method, saved)

    def _grade(self, cls: type) -> Verdict:
        shown = f"`{self.method}`"
        for x in self.points:
            verdict = self._at(cls, shown, x)
            if verdict is not None:
                return verdict
        return Verdict(True, f"Your {shown} gives the right values and gradients.")

    def _at(self, cls: type, shown: str, x: float) -> Verdict | None:
        from autograd_viz.door import check_engine

        at = f"x = {_show(x)}"
        try:
            leaf = cls(x)
            with contextlib.suppress(AttributeError):  # __slots__ without a label: unnamed
                leaf.label = "x"
            out = self.build(leaf)
        except Exception as err:
            return _raised(shown.strip("`"), err, at)
        if not is_graph(out):
            return Verdict(
                False,
                f"At {at} your {shown} returned {_a(type(out).__name__)}, "
                "not a node of your class.",
                "make the result with your class, e.g. `out = Value(..., (self,), 'tanh')`, "
                "and return out.",
            )
        want = float(self.reference(x))
        try:
            got = float(out.data)
        except (TypeError, ValueError):
            return Verdict(False, f"At {at} your {shown} gave data {out.data!r}, not a number.")
        if not math.isclose(got, want, rel_tol=self.tol, abs_tol=self.tol):
            return _forward_wrong(shown.strip("`"), at, got, want, "the right value")
        try:
            report = check_engine(out)
        except Exception as err:
            return _raised(shown.strip("`"), err, at)
        wrong = next((f for f in report.findings if f.node is not None), None)
        if wrong is not None:
            # the first node whose gradient is wrong: the operand the wrong rule sent to
            node = wrong.name if wrong.operand is None else report.names[wrong.operand]
            return Verdict(False, f"At {at} {wrong.message}.", wrong.hint, node=node)
        return self._gradient(cls, shown, x)

    def _gradient(self, cls: type, shown: str, x: float) -> Verdict | None:
        try:
            report = gradcheck(lambda x: self.build(x), {"x": x}, engine=cls)
        except GradcheckError as err:
            return Verdict(False, f"At x = {_show(x)} the gradient cannot be checked: {err}.")
        except Exception as err:
            return _raised(shown.strip("`"), err, f"x near {_show(x)}")
        row = report["x"]
        if row.ok:
            return None
        return Verdict(
            False,
            f"At x = {_show(x)} your backward() gives x.grad = {_show(row.analytic)}, but nudging "
            f"x measures {_show(row.numeric)}.",
            f"check the `_backward` inside {shown}: local derivative times out.grad, with +=.",
            node="x",
        )


def _try_make(cls: type) -> object:
    try:
        return cls(2.0)
    except Exception:
        return None


def _as_verdict(result: object) -> Verdict:
    """What a custom check returned (a Verdict, a bool, or (bool, message)) as a Verdict."""
    if isinstance(result, Verdict):
        return result
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str):
        return Verdict(bool(result[0]), result[1])
    if isinstance(result, bool):
        return Verdict(result)
    raise CodeExerciseError(
        f"a check must return a Verdict, True/False or (True/False, message), got {result!r}"
    )


def _takes_two(check: Callable[..., object]) -> bool:
    """Whether a check takes (object, name) or the object alone."""
    try:
        inspect.signature(check).bind(None, "name")
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature
        return False
    return True


def _user_namespace() -> dict | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return None if shell is None else shell.user_ns


_LOOKUP = object()  # check() with no argument: grade what the name holds in the kernel now


class CodeExercise:
    """A task to write code (a function or a method), a Check button, and a model answer.

    `check` grades the learner's object: `function_check(...)`, `method_check(...)`, or any
    function of (object, name) — or of the object alone — returning a Verdict, a bool or
    (bool, message). `name` is what the learner defines (`my_sigmoid`); the Check button
    grades what that name holds in the kernel. `model_answer` is code defining `name`; it
    runs (with `context`'s names, `math`, and a method_check's base class) and must pass.

    >>> ex = CodeExercise("Write my_square(x) = x·x.", lambda f: f(3) == 9, name="my_square",
    ...                   model_answer="def my_square(x):\\n    return x * x")
    >>> ex.check(lambda x: x + x).ok, ex.check(lambda x: x * x).ok
    (False, True)
    """

    def __init__(
        self,
        question: str,
        check: Callable[..., object],
        *,
        name: str,
        model_answer: str,
        context: dict[str, object] | None = None,
        hint: str = "",
        explanation: str = "",
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise CodeExerciseError("CodeExercise needs a question: a non-empty string")
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise CodeExerciseError(
                f"name must be the Python name the learner defines (e.g. 'my_sigmoid'), "
                f"got {name!r}"
            )
        if not callable(check):
            raise CodeExerciseError(
                "check must grade the learner's object: function_check(...), method_check(...) "
                f"or a function returning True/False, got {check!r}"
            )
        if not isinstance(model_answer, str) or not model_answer.strip():
            raise CodeExerciseError(
                f"model_answer must be the code of a right answer, defining {name!r}, as a string"
            )
        self.question, self.name, self.hint, self.explanation = question, name, hint, explanation
        self.model_answer = model_answer.strip("\n")
        self._check = check
        self._takes_name = _takes_two(check)
        self._test_model_answer(context)
        self.revealed = False
        self.last: Verdict | None = None

        self._question = widgets.HTMLMath(value=html.escape(question, quote=False))
        self.button = widgets.Button(
            description=f"Check my {name}", button_style="primary", icon="check",
            layout=widgets.Layout(width="auto"),
        )  # fmt: skip
        self.feedback = widgets.HTML(value="")
        self.solution = widgets.HTML(value="")
        self.button.on_click(lambda _button: self.check())
        self._box = widgets.VBox(
            [self._question, self.button, self.feedback, self.solution],
            layout=widgets.Layout(
                border=f"1px solid {var('answer-box')}", padding="4px 10px", margin="6px 0",
                width="auto",
            ),
        )  # fmt: skip
        register(self)  # the teacher's switch reveals this one too (autograd_viz.teacher)

    def _test_model_answer(self, context: dict[str, object] | None) -> None:
        namespace: dict[str, object] = {"math": math}
        namespace.update(getattr(self._check, "context", {}))
        namespace.update(context or {})
        try:
            exec(compile(self.model_answer, f"<model answer for {self.name}>", "exec"), namespace)
        except Exception as err:
            raise CodeExerciseError(
                f"the model answer for {self.name!r} does not run: {type(err).__name__}: {err}; "
                "pass the names it needs in context={...}"
            ) from err
        if self.name not in namespace:
            raise CodeExerciseError(f"the model answer does not define {self.name!r}")
        verdict = self.grade(namespace[self.name])
        if not verdict.ok:
            raise CodeExerciseError(
                f"the model answer for {self.name!r} fails its check: {verdict}"
            )

    # ---- grading -------------------------------------------------------------

    def grade(self, obj: object) -> Verdict:
        """The verdict on `obj`, shown nowhere: a grader that raises counts as wrong."""
        wrong = _not_callable(self.name, obj)  # every task asks for a function or a class
        if wrong is not None:
            return wrong
        try:
            with shallow_stack(300):  # their recursion: RecursionError, not a dead browser kernel
                result = self._check(obj, self.name) if self._takes_name else self._check(obj)
        except CodeExerciseError:
            raise
        except Exception as err:
            return _raised(self.name, err)
        return _as_verdict(result)

    def check(self, obj: object = _LOOKUP) -> Verdict:
        """Grade `obj` (by default, what `name` holds in the kernel now) and show the verdict.

        >>> ex = CodeExercise("Write one() returning 1.", lambda f: f() == 1, name="one",
        ...                   model_answer="def one():\\n    return 1")
        >>> print(ex.check(lambda: 2))
        ✘ Not yet.
        """
        if obj is _LOOKUP:
            namespace = _user_namespace() or {}
            if self.name not in namespace:
                verdict = Verdict(
                    False,
                    f"There is no `{self.name}` yet.",
                    f"write `def {self.name}(...):` in the cell above, run it, then check.",
                )
                return self._show(verdict)
            obj = namespace[self.name]
        return self._show(self.grade(obj))

    def _show(self, verdict: Verdict) -> Verdict:
        self.last = verdict
        self.feedback.value = verdict_html(verdict.ok, str(verdict))
        return verdict

    # ---- revealing: the teacher's switch (autograd_viz.teacher) -----------------

    def _answer_html(self) -> str:
        more = f"<p>{html.escape(self.explanation, quote=False)}</p>" if self.explanation else ""
        code = html.escape(self.model_answer, quote=False)
        return f"<b>Answer:</b> a model answer<pre><code>{code}</code></pre>{more}"

    def reveal(self) -> None:
        """Show the model answer (as code) under the task."""
        self.revealed = True
        self.solution.value = self._answer_html()

    def hide(self) -> None:
        """Hide the model answer again."""
        self.revealed = False
        self.solution.value = ""

    # ---- display -------------------------------------------------------------

    @property
    def widget(self) -> widgets.VBox:
        """The ipywidgets box: the task, the Check button, the feedback, the model answer."""
        return self._box

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        from autograd_viz.viz.inline import widgets_render

        if not widgets_render():
            return {"text/plain": repr(self), "text/html": self.static_html()}
        bundle = self._box._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def static_html(self) -> str:
        """The task where no kernel can check it: the question, then the hint and a model
        answer, each closed until clicked."""
        hint = html.escape(self.hint, quote=False)
        hint_html = f"<details><summary>Hint</summary>{hint}</details>" if self.hint else ""
        return (
            f'<div class="avz-exercise" style="border: 1px solid {var("muted")}; '
            f'padding: 4px 10px; margin: 6px 0">'
            f"<p>{html.escape(self.question, quote=False)}</p>{hint_html}"
            f"<details><summary>Show a model answer</summary>{self._answer_html()}</details></div>"
        )

    def __repr__(self) -> str:
        return f"Code exercise ({self.name}): {self.question}"
