"""Write-the-code exercises: a `CodeExercise` names what the learner is to write (`my_sigmoid`, a
`tanh` method) and how to grade it, and its Check button grades whatever that name holds in the
kernel now, so the learner edits their cell, runs it and presses Check again. The answer is right or
wrong with where and why (the input where the forward value is off, the node that cuts the graph,
the first wrong node `check_engine` finds in a learner's own class), and an exception in the
learner's code is an answer too, never a traceback. The usual graders are `function_check` and
`method_check` (`autograd_viz.course.code_checks`), the lessons' own checks live in
`autograd_viz.lesson_checks`, and every exercise's model answer must pass its own check when the
exercise is made (shown by the teacher's switch, `autograd_viz.course.teacher`), so a check that
refuses a right answer cannot ship; `try_answers` does the same for typical wrong answers and other
right ones.

>>> ex = CodeExercise("Write my_sigmoid(x) = 1 / (1 + e^(−x)) from exp.",
...     function_check(lambda x: 1 / (1 + math.exp(-x)), [-1.5, 0.5, 2.0], without=["sigmoid"]),
...     name="my_sigmoid", model_answer="def my_sigmoid(x):\\n    return 1 / (1 + (-x).exp())")
>>> ex.check(lambda x: 1 / (1 + x.exp())).ok
False
"""

from __future__ import annotations

import html
import inspect
import keyword
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import ipywidgets as widgets

from autograd_viz.core.errors import CodeTimeoutError
from autograd_viz.core.time_limits import (
    DEFAULT_TIMEOUT,
    _check_timeout,
    call_with_time_limit,
    shallow_stack,
)
from autograd_viz.course._card import Card, empty_line
from autograd_viz.course._verdict import CodeExerciseError, Verdict, not_callable, raised
from autograd_viz.course.class_checks import method_check, on
from autograd_viz.course.code_checks import function_check
from autograd_viz.course.grading import verdict_html
from autograd_viz.course.teacher import register
from autograd_viz.view.palette import var

__all__ = [
    "CodeExercise",
    "CodeExerciseError",
    "Tried",
    "Verdict",
    "function_check",
    "method_check",
    "on",
]


@dataclass(frozen=True)
class Tried:
    """What `CodeExercise.try_answers` found: (description, passed, verdict) per answer,
    printed one line each ("refused   ..." / "accepted  ...")."""

    rows: tuple[tuple[str, bool, Verdict], ...]

    def __str__(self) -> str:
        return "\n".join(
            f"{'accepted' if ok else 'refused ':8}  {label}" for label, ok, _ in self.rows
        )

    def __repr__(self) -> str:
        return str(self)

    def verdict(self, label: str) -> Verdict:
        """The verdict on the answer described as `label`."""
        return next(v for lab, _, v in self.rows if lab == label)


def _code_and_words(item: str | tuple[str, str]) -> tuple[str, str]:
    if isinstance(item, tuple):
        return item[0], item[1]
    return item, ""


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


class CodeExercise(Card):
    """A task to write code (a function or a method), a Check button, and a model answer.

    `check` grades the learner's object: `function_check(...)`, `method_check(...)`, or any
    function of (object, name) — or of the object alone — returning a Verdict, a bool or
    (bool, message). `name` is what the learner defines (`my_sigmoid`); the Check button
    grades what that name holds in the kernel. `model_answer` is code defining `name`; it
    runs (with `context`'s names, `math`, and a method_check's base class) and must pass.
    A check may run for `timeout` seconds (5 by default): a learner's loop that never ends
    is an answer ("your `my_sigmoid` did not return within 5 s ..."), not a hung kernel.

    >>> ex = CodeExercise("Write my_square(x) = x·x.", lambda f: f(3) == 9, name="my_square",
    ...                   model_answer="def my_square(x):\\n    return x * x")
    >>> ex.check(lambda x: x + x).ok, ex.check(lambda x: x * x).ok
    (False, True)
    """

    SHOW = "Show a model answer"

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
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        try:
            self.timeout = _check_timeout(timeout)
        except ValueError as err:
            raise CodeExerciseError(f"CodeExercise: {err}, e.g. timeout=5") from None
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
        self.feedback = empty_line(widgets.HTML)
        self.solution = empty_line(widgets.HTML)
        self.button.on_click(lambda _button: self.check())
        self._box = widgets.VBox(
            [self._question, self.button, self.feedback, self.solution],
            layout=widgets.Layout(
                border=f"1px solid {var('answer-box')}", padding="4px 10px", margin="6px 0",
                width="auto",
            ),
        )  # fmt: skip
        register(self)  # the teacher's switch reveals this one too (autograd_viz.course.teacher)

    def _run_source(self, source: str, label: str, context: Mapping[str, object] | None) -> object:
        """Run code defining `name` in a namespace of its own (`math`, the check's and the
        exercise's context) and return what it defined; the learner's names are not touched."""
        namespace: dict[str, object] = {"math": math}
        namespace.update(getattr(self._check, "context", {}))
        namespace.update(self._context)
        namespace.update(context or {})
        exec(compile(source, f"<{label} for {self.name}>", "exec"), namespace)
        if self.name not in namespace:
            raise CodeExerciseError(f"the {label} does not define {self.name!r}")
        return namespace[self.name]

    def _test_model_answer(self, context: dict[str, object] | None) -> None:
        self._context = dict(context or {})
        try:
            answer = self._run_source(self.model_answer, "model answer", None)
        except CodeExerciseError:
            raise
        except Exception as err:
            raise CodeExerciseError(
                f"the model answer for {self.name!r} does not run: {type(err).__name__}: {err}; "
                "pass the names it needs in context={...}"
            ) from err
        verdict = self.grade(answer)
        if not verdict.ok:
            raise CodeExerciseError(
                f"the model answer for {self.name!r} fails its check: {verdict}"
            )
        missing = getattr(self._check, "missing_kinds", None)
        lacking = missing(answer) if callable(missing) else []
        if lacking:
            raise CodeExerciseError(
                f"the check of {self.name!r} never gives the method {', '.join(lacking)}: a "
                "wrong rule can pass it. Add graphs, e.g. on(lambda x, y: (x + 1) * y * 3, "
                "x=0.5, y=-1.5) and on(lambda t: t * t + t, t=3.0)"
            )

    def try_answers(
        self,
        wrong: Mapping[str, str | tuple[str, str]],
        right: Mapping[str, str] | None = None,
        *,
        context: Mapping[str, object] | None = None,
    ) -> Tried:
        """Grade typical wrong answers and other right ones (code, as text), and fail loudly
        if a wrong one passes or a right one is refused: the check's own test, kept in the
        notebook next to the exercise and run by the tests (`autograd_viz.lesson_answers`).

        `wrong` maps a short description to the code, or to (code, words): words the verdict
        must contain, so the reason given is the real one. The model answer is tried too.

        >>> ex = CodeExercise("Write my_square(x) = x·x.", lambda f: f(3) == 9, name="my_square",
        ...                   model_answer="def my_square(x):\\n    return x * x")
        >>> print(ex.try_answers({"doubled": "def my_square(x):\\n    return x + x"},
        ...                      {"a power": "def my_square(x):\\n    return x ** 2"}))
        refused   doubled
        accepted  the model answer
        accepted  a power
        """
        rows: list[tuple[str, bool, Verdict]] = []
        problems: list[str] = []
        tries = [(label, *_code_and_words(item), False) for label, item in wrong.items()]
        answers = {"the model answer": self.model_answer, **(right or {})}
        tries += [(label, code, "", True) for label, code in answers.items()]
        for label, code, words, should_pass in tries:
            try:
                verdict = self.grade(self._run_source(code, label, context))
            except CodeExerciseError:
                raise
            except Exception as err:  # a wrong answer may not even run: that is refused too
                verdict = Verdict(False, f"the code does not run: {type(err).__name__}: {err}")
            rows.append((label, verdict.ok, verdict))
            if verdict.ok != should_pass:
                said = "passes" if verdict.ok else "is refused"
                problems.append(f"{label!r} {said}: {verdict}")
            elif words and words not in str(verdict):
                problems.append(f"{label!r} is refused without naming {words!r}: {verdict}")
        if problems:
            raise AssertionError(f"the check of {self.name!r} is wrong:\n" + "\n".join(problems))
        return Tried(tuple(rows))

    # ---- grading -------------------------------------------------------------

    def grade(self, obj: object) -> Verdict:
        """The verdict on `obj`, shown nowhere: a grader that raises counts as wrong, and
        one still running after `timeout` seconds (the learner's loop) is stopped."""
        wrong = not_callable(self.name, obj)  # every task asks for a function or a class
        if wrong is not None:
            return wrong
        args = (obj, self.name) if self._takes_name else (obj,)
        try:
            with shallow_stack(300):  # their recursion: RecursionError, not a dead browser kernel
                result = call_with_time_limit(
                    self._check, *args, what=f"Your `{self.name}`", timeout=self.timeout
                )
        except CodeExerciseError:
            raise
        except CodeTimeoutError as err:
            return Verdict(False, str(err))
        except Exception as err:
            return raised(self.name, err)
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

    def _answer_html(self) -> str:
        more = f"<p>{html.escape(self.explanation, quote=False)}</p>" if self.explanation else ""
        code = html.escape(self.model_answer, quote=False)
        return f"<b>Answer:</b> a model answer<pre><code>{code}</code></pre>{more}"

    def __repr__(self) -> str:
        return f"Code exercise ({self.name}): {self.question}"
