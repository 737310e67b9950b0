"""Self-check exercises for the notebooks: an `Exercise` shows a question, a text box and a Check
button, and says right or wrong at once, with the hint (and "did you mean …?") for a wrong answer.
How the text is read and what counts as right is `autograd_viz.course.grading`, and revealing every
answer at once is `autograd_viz.course.teacher` (`teacher_mode()`, `reveal_all()`), both re-exported
here. The expected answer is in neither the widget nor its saved state until it is revealed, and
`scripts/execute_notebooks.py` collapses the input of every cell that creates an `Exercise`, so the
code holding the answer is one click away, not on show. Checks need a running kernel; once a
notebook calls `autograd_viz.course.answers.record_answers(...)` every attempt is recorded.

>>> ex = Exercise("With x=2, y=3 and z=(x+y)·y, what is ∂z/∂y?", answer=8, hint="y is used twice.")
>>> ex.submit("5+3")
True
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import ipywidgets as widgets

from autograd_viz.core._checks import is_number
from autograd_viz.course import answers
from autograd_viz.course._card import Card, empty_line
from autograd_viz.course.grading import (
    ANSWER_HELP,
    ANSWER_RULE,
    SEPARATOR_RULE,
    AnswerKey,
    AnswerParseError,
    ExerciseError,
    Reading,
    format_answer,
    parse_number,
    read_answer,
    read_or_none,
    unreadable,
    verdict_html,
)
from autograd_viz.course.teacher import (
    TEACHER_ENV,
    hide_all,
    register,
    reveal_all,
    teacher_mode,
)
from autograd_viz.view.palette import var

__all__ = [
    "ANSWER_HELP",
    "ANSWER_RULE",
    "SEPARATOR_RULE",
    "TEACHER_ENV",
    "AnswerParseError",
    "Exercise",
    "ExerciseError",
    "Reading",
    "hide_all",
    "parse_number",
    "read_answer",
    "reveal_all",
    "teacher_mode",
]


class Exercise(Card):
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
        tol: float | None = None,
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise ExerciseError("Exercise needs a question: a non-empty string")
        self.key = AnswerKey(answer, tol=tol, check=check)  # what counts as right
        for name, text in (("hint", hint), ("explanation", explanation)):
            if not isinstance(text, str):
                raise ExerciseError(
                    f"{name}= must be text (a string shown to the learner), got "
                    f"{type(text).__name__}: {text!r}; e.g. {name}={str(text)!r}"
                )
        self.question = question
        self.answer = answer
        self.hint = hint
        self.explanation = explanation
        self.revealed = False

        self._question = widgets.HTMLMath(value=html.escape(question, quote=False))
        self.input = widgets.Text(
            placeholder="your answer",
            tooltip=ANSWER_HELP,
            continuous_update=False,
            layout=widgets.Layout(width="14em"),
        )
        self.button = widgets.Button(description="Check", button_style="primary", icon="check")
        self.feedback = empty_line(widgets.HTMLMath)
        self.solution = empty_line(widgets.HTMLMath)
        self.button.on_click(self._on_click)
        self.input.observe(self._on_submit, names="value")
        self._box = widgets.VBox(
            [self._question, widgets.HBox([self.input, self.button]), self.feedback, self.solution],
            layout=widgets.Layout(
                border=f"1px solid {var('answer-box')}",
                padding="4px 10px",
                margin="6px 0",
                width="auto",
            ),
        )
        register(self)  # under the teacher's switch (autograd_viz.course.teacher)

    # ---- checking ----------------------------------------------------------

    def is_correct(self, text: str) -> bool:
        """True when `text` is an acceptable answer; raises AnswerParseError if unreadable.

        >>> Exercise("2 + 3 = ?", answer=5).is_correct("5.0")
        True
        >>> Exercise("2 / 3 = ?", answer=2 / 3).is_correct("0.6667")  # as drawings show it
        True
        """
        return self.key.judge(text)[0]

    def submit(self, text: str) -> bool:
        """Check `text` as if the learner typed it and pressed Check; show and return the verdict.

        >>> Exercise("2 · 3 = ?", answer=6).submit("2*3")
        True
        """
        if is_number(text, (int, float)):
            text = repr(text)  # submit(6) reads as the learner typing 6
        if not isinstance(text, str):
            raise ExerciseError(
                f"submit() takes the text a learner would type, got {type(text).__name__}: "
                f"{text!r}; e.g. submit('6') or submit('2*3')"
            )
        self.input.value = text
        return self._show_verdict(text)

    def _on_click(self, _button: widgets.Button) -> None:
        self._show_verdict(self.input.value)

    def _on_submit(self, change: dict) -> None:
        if change["new"].strip():
            self._show_verdict(change["new"])

    def _show_verdict(self, text: str) -> bool:
        try:
            right, note = self.key.judge(text)
        except ExerciseError as err:  # check= failed: the learner is told it is not their fault
            self.feedback.value = verdict_html(
                False, f"This exercise could not check your answer: {err}"
            )
            return False
        except AnswerParseError as err:
            self.feedback.value = verdict_html(False, unreadable(err))
            _record(self, text, False)
            return False
        if right:
            more = f" {self.explanation}" if self.explanation else ""
            self.feedback.value = verdict_html(True, f"✔ Right!{more}")
        else:
            hint = f" Hint: {self.hint}" if self.hint else " Try again."
            note = f" {note}" if note else ""
            self.feedback.value = verdict_html(False, f"✘ Not quite.{note}{hint}")
        _record(self, text, right)
        return right

    def _answer_html(self) -> str:
        more = f" — {self.explanation}" if self.explanation else ""
        return f"<b>Answer:</b> {html.escape(f'{format_answer(self.answer)}{more}', quote=False)}"

    def __repr__(self) -> str:
        return f"Exercise: {self.question}"


def _record(exercise: Exercise, text: str, right: bool) -> None:
    """Append this attempt to the learner's answers file, when the notebook turned it on."""
    if answers.recording() is None:
        return
    answers.record_attempt(
        kind="exercise", question=answers.question_id("exercise", exercise.question),
        prompt=exercise.question, answer=text.strip(), read=read_or_none(text), right=right,
    )  # fmt: skip
