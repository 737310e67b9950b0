"""A grade of learner code (`Verdict`) and the sentences every grader writes with it, shared by the
code-exercise graders (`autograd_viz.course.code_checks`, `autograd_viz.lesson_checks`) and the
exercise box (`autograd_viz.code_exercises`): how a number is shown, how an exception in the
learner's code becomes an answer ("your `f` raised ZeroDivisionError at x = 0.5 (line 2: ...)"), and
the error an exercise's author gets for a check written wrongly."""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass

from autograd_viz.core._checks import is_number
from autograd_viz.core._numbers import format_number
from autograd_viz.core._watch import PACKAGE_DIR

__all__ = [
    "CodeExerciseError",
    "Verdict",
    "a_",
    "forward_wrong",
    "not_callable",
    "raised",
    "read_points",
    "show",
    "where",
]



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


def show(x: float) -> str:
    return format_number(x)  # the kit's one number format (a real minus sign: −1.5)


def where(points: dict[str, float]) -> str:
    return ", ".join(f"{k} = {show(v)}" for k, v in points.items())


def raised(name: str, err: BaseException, at: str = "") -> Verdict:
    """An exception inside the learner's code, as an answer: what, where, and which line."""
    place = f" at {at}" if at else ""
    line = ""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not os.path.abspath(frame.filename).startswith(PACKAGE_DIR):
            text = (frame.line or "").strip()
            line = f" (line {frame.lineno}: `{text}`)" if text else f" (line {frame.lineno})"
            break
    detail = f": {err}" if str(err) else ""
    return Verdict(False, f"Your `{name}` raised {type(err).__name__}{place}{detail}{line}.")


def a_(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def not_callable(name: str, obj: object) -> Verdict | None:
    if callable(obj):
        return None
    shown = repr(obj)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return Verdict(
        False,
        f"`{name}` is {a_(type(obj).__name__)} ({shown}), not a function.",
        f"define it with `def {name}(...):` and run that cell before checking.",
    )


def read_points(points: Iterable[float], who: str) -> tuple[float, ...]:
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


def forward_wrong(name: str, at: str, got: float, want: float, what: str) -> Verdict:
    return Verdict(
        False,
        f"At {at} your `{name}` gives {show(got)}; {what} is {show(want)}.",
        "compare your formula with the one in the question, sign by sign.",
    )
