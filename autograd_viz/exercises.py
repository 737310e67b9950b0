"""Self-check exercises for the notebooks: type an answer, press Check, get right or wrong at once.

An `Exercise` shows a question (LaTeX between `$...$` is typeset), a text box and a Check button.
The learner's text is read tolerantly: `8`, `8.0`, `-24`, `−24` (Unicode minus), `1e-3`, `0,5`
(decimal comma), and arithmetic on plain numbers (`5+3`, `2*3`, `1/2`, `2^3`, `(2+3)*3`), so a
learner may type a sum exactly as a derivation writes it; no names or calls are evaluated. A
numeric answer is right within `tol` (relative and absolute, default 1e-6); a text answer
(`answer="reverse"`) is right when it matches ignoring case and surrounding spaces; `answer=[...]`
accepts any of several; `check=` takes a function of the typed text for anything else. A wrong
answer shows the hint. The expected answer is in neither the widget nor the saved widget state
until it is revealed, and `scripts/execute_notebooks.py` collapses the input of every cell that
creates an `Exercise`, so the code holding the answer is one click away, not on show.

A teacher can reveal every answer in the notebook at once: call `reveal_all()`, display the
switch from `teacher_mode()`, or start Jupyter with the environment variable
`AUTOGRAD_VIZ_TEACHER=1` (exercises then appear already revealed). Checks need a running kernel.

>>> ex = Exercise("With x=2, y=3 and z=(x+y)·y, what is ∂z/∂y?", answer=8, hint="y is used twice.")
>>> ex.submit("5+3")
True
"""

from __future__ import annotations

import ast
import html
import math
import operator
import os
import weakref
from collections.abc import Callable, Sequence

import ipywidgets as widgets

__all__ = [
    "AnswerParseError",
    "Exercise",
    "ExerciseError",
    "hide_all",
    "parse_number",
    "reveal_all",
    "teacher_mode",
]

TEACHER_ENV = "AUTOGRAD_VIZ_TEACHER"

_RIGHT_COLOUR = "#009E73"  # Okabe–Ito bluish green
_WRONG_COLOUR = "#D55E00"  # Okabe–Ito vermilion

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_MAX_LENGTH = 200  # an answer is a number or a short sum, never a page of text
# Symbols a learner may copy from the prose, mapped to what Python reads.
_TRANSLATE = str.maketrans({"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "^": "**", "÷": "/"})


class ExerciseError(ValueError):
    """An exercise was written wrongly (by the notebook author, not the learner)."""


class AnswerParseError(ValueError):
    """The learner's text could not be read as a number."""


def parse_number(text: str) -> float:
    """Read a learner's answer as a number; arithmetic on plain numbers is allowed.

    >>> parse_number("−24"), parse_number("5+3"), parse_number("1/2"), parse_number("2^3")
    (-24.0, 8.0, 0.5, 8.0)
    """
    cleaned = text.strip().translate(_TRANSLATE)
    if cleaned.count(",") == 1 and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")  # a decimal comma: 0,5
    if not cleaned:
        raise AnswerParseError("the answer box is empty")
    if len(cleaned) > _MAX_LENGTH:
        raise AnswerParseError(f"that is {len(cleaned)} characters; a number needs far fewer")
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        raise AnswerParseError(f"{text.strip()!r} is not a number") from None
    try:
        value = _evaluate(tree.body)
    except (ZeroDivisionError, OverflowError) as err:
        raise AnswerParseError(f"{text.strip()!r} cannot be worked out ({err})") from None
    if not math.isfinite(value):
        raise AnswerParseError(f"{text.strip()!r} is not a finite number")
    return value


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 1000:
            raise AnswerParseError("that power is too large to work out")
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, complex):  # e.g. (-8)^(1/3) in Python is a complex number
            raise AnswerParseError("that is not a real number")
        return float(result)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    raise AnswerParseError("only numbers and + − × / ^ ( ) can be used")


def _normalise_text(text: str) -> str:
    return " ".join(text.strip().casefold().split())


def _format_answer(answer: object) -> str:
    if isinstance(answer, float) and answer.is_integer():
        return f"{answer:g}"
    if isinstance(answer, (list, tuple)):
        return " or ".join(_format_answer(a) for a in answer)
    return str(answer)


class _Registry:
    """Every live exercise in this kernel, so one switch can reveal them all."""

    def __init__(self) -> None:
        self._items: list[weakref.ref[Exercise]] = []
        self.teacher = os.environ.get(TEACHER_ENV, "").strip().lower() in {"1", "true", "yes", "on"}

    def add(self, exercise: Exercise) -> None:
        self._items = [ref for ref in self._items if ref() is not None]
        self._items.append(weakref.ref(exercise))

    def live(self) -> list[Exercise]:
        return [ex for ex in (ref() for ref in self._items) if ex is not None]


_registry = _Registry()


class Exercise:
    """One question with an answer box, a Check button, a hint for wrong answers, and a reveal.

    `answer` is a number, a string, or a list of acceptable ones; `check(text) -> bool` replaces
    the built-in comparison when given (then `answer` is only what a reveal shows).

    >>> ex = Exercise("What is ∂L/∂a for L = 2·(a·b + b) at a=2, b=3?", answer=6,
    ...               hint="Multiply the local slopes along the path from L to a.")
    >>> ex.submit("6.0"), ex.submit("5")
    (True, False)
    """

    def __init__(
        self,
        question: str,
        answer: float | str | Sequence[float | str],
        *,
        hint: str = "",
        explanation: str = "",
        check: Callable[[str], bool] | None = None,
        tol: float = 1e-6,
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise ExerciseError("Exercise needs a question: a non-empty string")
        answers = list(answer) if isinstance(answer, (list, tuple)) else [answer]
        if not answers:
            raise ExerciseError("Exercise needs at least one acceptable answer")
        for a in answers:
            if isinstance(a, bool) or not isinstance(a, (int, float, str)):
                raise ExerciseError(
                    f"an answer must be a number or a string, got {type(a).__name__}: {a!r}"
                )
        if check is not None and not callable(check):
            raise ExerciseError("check= must be a function taking the typed text, returning bool")
        if not (tol >= 0 and math.isfinite(tol)):
            raise ExerciseError(f"tol must be a finite number >= 0, got {tol!r}")
        self.question = question
        self.answer = answer
        self.hint = hint
        self.explanation = explanation
        self._answers = answers
        self._check = check
        self._tol = tol
        self.revealed = False

        self._question = widgets.HTMLMath(value=html.escape(question, quote=False))
        self.input = widgets.Text(
            placeholder="your answer",
            continuous_update=False,
            layout=widgets.Layout(width="14em"),
        )
        self.button = widgets.Button(description="Check", button_style="primary", icon="check")
        self.feedback = widgets.HTMLMath(value="")
        self.solution = widgets.HTMLMath(value="")
        self.button.on_click(self._on_click)
        self.input.observe(self._on_submit, names="value")
        self._box = widgets.VBox(
            [self._question, widgets.HBox([self.input, self.button]), self.feedback, self.solution],
            layout=widgets.Layout(
                border="1px solid #bbb", padding="4px 10px", margin="6px 0", width="auto"
            ),
        )
        _registry.add(self)
        if _registry.teacher:
            self.reveal()

    # ---- checking ----------------------------------------------------------

    def is_correct(self, text: str) -> bool:
        """True when `text` is an acceptable answer; raises AnswerParseError if unreadable.

        >>> Exercise("2 + 3 = ?", answer=5).is_correct("5.0")
        True
        """
        if self._check is not None:
            try:
                return bool(self._check(text))
            except (ValueError, TypeError, ArithmeticError) as err:
                raise AnswerParseError(f"{text.strip()!r} could not be checked ({err})") from None
        numbers = [a for a in self._answers if not isinstance(a, str)]
        words = [_normalise_text(a) for a in self._answers if isinstance(a, str)]
        if _normalise_text(text) in words:
            return True
        if not numbers:
            return False
        value = parse_number(text)
        tol = self._tol
        return any(math.isclose(value, float(n), rel_tol=tol, abs_tol=tol) for n in numbers)

    def submit(self, text: str) -> bool:
        """Check `text` as if the learner typed it and pressed Check; show and return the verdict.

        >>> Exercise("2 · 3 = ?", answer=6).submit("2*3")
        True
        """
        self.input.value = text
        return self._show_verdict(text)

    def _on_click(self, _button: widgets.Button) -> None:
        self._show_verdict(self.input.value)

    def _on_submit(self, change: dict) -> None:
        if change["new"].strip():
            self._show_verdict(change["new"])

    def _show_verdict(self, text: str) -> bool:
        try:
            right = self.is_correct(text)
        except AnswerParseError as err:
            self.feedback.value = self._message(
                _WRONG_COLOUR,
                f"I couldn't read that: {err}. Type a number such as 8, -24 or 0.5 "
                f"(a sum like 5+3 is fine too).",
            )
            return False
        if right:
            more = f" {self.explanation}" if self.explanation else ""
            self.feedback.value = self._message(_RIGHT_COLOUR, f"✔ Right!{more}")
        else:
            hint = f" Hint: {self.hint}" if self.hint else " Try again."
            self.feedback.value = self._message(_WRONG_COLOUR, f"✘ Not quite.{hint}")
        return right

    @staticmethod
    def _message(colour: str, text: str) -> str:
        body = html.escape(text, quote=False)
        return f'<span style="color:{colour}; font-weight:600">{body}</span>'

    # ---- revealing -----------------------------------------------------------

    def reveal(self) -> None:
        """Show the expected answer (and the explanation) under the question."""
        self.revealed = True
        more = f" — {self.explanation}" if self.explanation else ""
        text = html.escape(f"{_format_answer(self.answer)}{more}", quote=False)
        self.solution.value = f"<b>Answer:</b> {text}"

    def hide(self) -> None:
        """Hide the answer again."""
        self.revealed = False
        self.solution.value = ""

    # ---- display -------------------------------------------------------------

    @property
    def widget(self) -> widgets.VBox:
        """The ipywidgets box holding the question, the input, the button and the feedback."""
        return self._box

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        bundle = self._box._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        return f"Exercise: {self.question}"


def reveal_all() -> int:
    """Reveal the answer of every exercise created in this kernel; return how many.

    >>> _ = Exercise("1 + 1 = ?", answer=2); reveal_all() >= 1
    True
    """
    exercises = _registry.live()
    for ex in exercises:
        ex.reveal()
    return len(exercises)


def hide_all() -> int:
    """Hide every revealed answer again; return how many exercises there are."""
    exercises = _registry.live()
    for ex in exercises:
        ex.hide()
    return len(exercises)


class _TeacherSwitch(widgets.ToggleButton):
    def __repr__(self) -> str:
        return "Teacher switch: reveal every answer in this notebook"


def teacher_mode() -> widgets.ToggleButton:
    """A toggle that reveals (on) or hides (off) every answer in the notebook, now and later.

    >>> switch = teacher_mode(); switch.value = True  # every exercise now shows its answer
    >>> switch.value = False
    """
    switch = _TeacherSwitch(
        value=_registry.teacher,
        description="Teacher: show all answers",
        icon="eye",
        layout=widgets.Layout(width="auto"),
    )

    def _toggle(change: dict) -> None:
        _registry.teacher = bool(change["new"])
        if _registry.teacher:
            reveal_all()
        else:
            hide_all()

    switch.observe(_toggle, names="value")
    return switch
