"""Judging a typed answer, with no widgets, so that `Exercise` (`autograd_viz.exercises`) and the
fill-in quiz (`front/quiz.py`) judge, word an unreadable answer and record what was read the same
way. The text is read by `autograd_viz.course.answer_reading` (its names are importable from here
too): tolerantly, never evaluated as Python. An `AnswerKey` says what is right (within `tol`, else
`ANSWER_RULE`; a word ignoring case and spaces; `check=` for anything else), and its `judge` adds a
note to a wrong answer that was nearly right ("give at least 4 significant digits", "did you mean
…?"); `judge_tensor` judges a tensor's numbers typed in one box, and `verdict_html` shows a verdict.

>>> AnswerKey(8).judge("5+3")
(True, '')
>>> parse_number("1,000"), parse_number("0,5")
(1000.0, 0.5)
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence

from autograd_viz.core._checks import is_number
from autograd_viz.core._numbers import ANSWER_RULE, agrees, format_number, shape_text
from autograd_viz.course.answer_reading import (
    ANSWER_HELP,
    SEPARATOR_RULE,
    AnswerParseError,
    Reading,
    _normalise_text,
    parse_number,
    read_answer,
    read_or_none,
    unreadable,
)
from autograd_viz.view.palette import var

__all__ = [
    "ANSWER_HELP",
    "ANSWER_RULE",
    "SEPARATOR_RULE",
    "TENSOR_HELP",
    "AnswerKey",
    "AnswerParseError",
    "ExerciseError",
    "Reading",
    "format_answer",
    "judge_answer",
    "judge_tensor",
    "parse_number",
    "read_answer",
    "read_or_none",
    "unreadable",
    "verdict_html",
]

_SHOWN_DIGITS = 4  # significant digits drawings and equations show (format_number's default)


def _slack(half_unit: float | None) -> float:
    """Half a unit in the last typed place, with room for binary rounding (0.6667 vs 2/3)."""
    return (half_unit or 0.0) * (1 + 1e-9)


class ExerciseError(ValueError):
    """An exercise was written wrongly (by the notebook author, not the learner)."""


def _answer_value(a: object) -> float | str:
    """An acceptable answer as the checks use it: text, or a float (numpy's numbers too)."""
    if isinstance(a, str):
        return a
    if not is_number(a):
        raise ExerciseError(
            f"an answer must be a number or a string, got {type(a).__name__}: {a!r}"
        )
    try:
        value = float(a)
    except OverflowError:
        raise ExerciseError(
            f"the answer {_short(a)} is too large to check: answers are floats, up to about "
            "1.8e308. Ask for a smaller number (its logarithm, or the number of digits)"
        ) from None
    if not math.isfinite(value):
        raise ExerciseError(f"an answer must be a finite number, got {a!r}")
    return value


def _short(a: object) -> str:
    text = repr(a)
    return text if len(text) <= 40 else f"{text[:12]}…{text[-6:]} ({len(text)} digits)"


def format_answer(answer: object) -> str:
    """An answer as a reveal shows it: `8` for 8.0, `a or b` for several."""
    if isinstance(answer, float) and answer.is_integer():
        return f"{answer:g}"
    if isinstance(answer, (list, tuple)):
        return " or ".join(format_answer(a) for a in answer)
    return str(answer)


class AnswerKey:
    """What counts as right for one question: its acceptable answers, `tol`, or `check=`.

    `answer` is a number, a string, or a list of acceptable ones; `check(text) -> bool`
    replaces the built-in comparison when given. A key that is written wrongly (no answer,
    an answer beyond a float, a bad `tol`) raises ExerciseError when it is made, not at the
    learner's first answer.

    >>> key = AnswerKey(2 / 3)
    >>> key.judge("0.6667"), key.judge("0.67")[0]
    ((True, ''), False)
    """

    def __init__(
        self,
        answer: float | str | Sequence[float | str],
        *,
        tol: float | None = None,
        check: Callable[[str], bool] | None = None,
        digits: int = _SHOWN_DIGITS,
    ) -> None:
        answers = list(answer) if isinstance(answer, (list, tuple)) else [answer]
        if not answers:
            raise ExerciseError("Exercise needs at least one acceptable answer")
        self.answers = [_answer_value(a) for a in answers]
        if check is not None and not callable(check):
            raise ExerciseError("check= must be a function taking the typed text, returning bool")
        if tol is not None and (not is_number(tol, (int, float)) or not 0 <= tol < math.inf):
            raise ExerciseError(f"tol must be a finite number >= 0 (or None), got {tol!r}")
        if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 17:
            raise ExerciseError(f"digits must be a whole number from 1 to 17, got {digits!r}")
        self.tol = tol
        self.check = check
        self.digits = digits  # how the question's drawing writes numbers: its rounding is right

    def judge(self, text: str) -> tuple[bool, str]:
        """The verdict on `text`, and a note for a wrong answer that was read in a surprising
        way; raises AnswerParseError when the text cannot be read.

        A `check=` that cannot read the text (ValueError, TypeError, ArithmeticError) is the
        learner's unreadable answer; any other exception it raises is a fault in the exercise
        (ExerciseError), said as such rather than escaping from the widget as a KeyError."""
        if self.check is not None:
            try:
                return bool(self.check(text)), ""
            except (ValueError, TypeError, ArithmeticError) as err:
                raise AnswerParseError(f"{text.strip()!r} could not be checked ({err})") from None
            except Exception as err:
                raise ExerciseError(
                    f"this exercise's check= function raised {type(err).__name__} ({err}) on "
                    f"the answer {text.strip()!r}: a fault in the exercise, not in the answer. "
                    "Its author should make check= return True or False for any text."
                ) from err
        expected = [a for a in self.answers if not isinstance(a, str)]
        words = [_normalise_text(a) for a in self.answers if isinstance(a, str)]
        if _normalise_text(text) in words:
            return True, ""
        if not expected:
            return False, ""
        reading = read_answer(text)
        if any(self.matches(reading.value, n) for n in expected):
            return True, ""
        shown = text.strip()
        if reading.alternative is not None:
            if any(self.matches(reading.alternative, n) for n in expected):
                return False, (
                    f"Did you mean {reading.alternative:g}? I read {shown!r} as "
                    f"{reading.value:g}: {reading.why}."
                )
            return False, f"(I read {shown!r} as {reading.value:g}: {reading.why}.)"
        # a typed 0 says the answer is zero, not a rounding of it: never "close" (a vanishing
        # gradient, 0.005, is not 0 given to too few digits)
        rounded = reading.digits is not None and self.tol is None and reading.value != 0
        if rounded and any(abs(reading.value - n) <= _slack(reading.half_unit) for n in expected):
            return False, (
                f"Close: give at least {self.digits} significant digits, as the drawings "
                f"show numbers (e.g. {format_number(0.123456, self.digits)}, not "
                f"{format_number(0.123456, max(1, self.digits - 2))})."
            )
        return False, ""

    def matches(self, value: float, answer: float) -> bool:
        """Whether a read number counts as one acceptable `answer`: within `tol`, or by
        `ANSWER_RULE` (the quiz's rule too)."""
        if self.tol is not None:
            return math.isclose(value, answer, rel_tol=self.tol, abs_tol=self.tol)
        return agrees(value, answer, self.digits)


TENSOR_HELP = (
    "Type the tensor's numbers in order, row by row, separated by commas, with a point for "
    "decimals: [0.5, -1.5] (the brackets may be left out; each number may be a sum such as "
    "5+3). A value of one number takes one number."
)


def judge_tensor(
    text: str, answer: Sequence[float], shape: tuple[int, ...], *, digits: int = _SHOWN_DIGITS
) -> tuple[bool, str]:
    """The verdict on a tensor's numbers typed in one box (`[0.21, -0.18, 1.8e-5]`), each
    judged as one number is (`AnswerKey`), and a note naming the elements that are wrong;
    raises AnswerParseError when an element cannot be read. The elements are separated by
    commas or semicolons (or spaces, where there is neither); brackets are ignored, so a
    matrix may be typed nested. A count that is not the tensor's is said, never guessed at.

    >>> judge_tensor("[0.5, -1.5]", (0.5, -1.5), (2,))
    (True, '')
    >>> judge_tensor("0.5, 1.5", (0.5, -1.5), (2,))
    (False, 'Element 2 of 2 is not right.')
    """
    n = len(answer)
    flat = re.sub(r"[\[\]()]", ",", text)
    pieces = [p.strip() for p in re.split(r"[,;]", flat) if p.strip()]
    if len(pieces) == 1 and n > 1:
        pieces = pieces[0].split()
    if len(pieces) != n:
        return False, (
            f"This tensor has {n} numbers (shape {shape_text(shape)}), and I read {len(pieces)}: "
            "type them in order, separated by commas, with a point for decimals, e.g. "
            f"[{', '.join(format_number(x) for x in (0.5, -1.5, 2.0)[: max(1, min(n, 3))])}"
            f"{', ...' if n > 3 else ''}]."
        )
    wrong, notes = [], []
    for k, (piece, want) in enumerate(zip(pieces, answer)):
        try:
            right, note = AnswerKey(float(want), digits=digits).judge(piece)
        except AnswerParseError as err:
            raise AnswerParseError(f"element {k + 1} of {n}, {piece!r}: {err}") from None
        if not right:
            wrong.append(k + 1)
            if note:
                notes.append(note)
    if not wrong:
        return True, ""
    listed = ", ".join(map(str, wrong[:-1])) + (" and " if len(wrong) > 1 else "")
    listed += str(wrong[-1])
    order = " (counting row by row)" if len(shape) > 1 else ""
    verb = "is" if len(wrong) == 1 else "are"
    said = f"Element{'s' if len(wrong) > 1 else ''} {listed} of {n}{order} {verb} not right."
    close = notes[:1] if len(notes) == len(wrong) else []  # "give 4 digits" only if it is all
    return False, " ".join([said, *close])


def judge_answer(
    text: str,
    answer: float | Sequence[float],
    *,
    shape: tuple[int, ...] | None = None,
    digits: int = _SHOWN_DIGITS,
) -> tuple[bool, str]:
    """The verdict on a blank, whatever it holds: one number by `AnswerKey`, a tensor's numbers
    (`shape` given, or `answer.shape`: the quiz's `Numbers`) by `judge_tensor`, one number of
    shape () as one number; raises AnswerParseError for text that does not read as one.

    >>> judge_answer("5 + 3", 8.0), judge_answer("[1, 2]", (1.0, 2.0), shape=(2,))
    ((True, ''), (True, ''))
    """
    shape = getattr(answer, "shape", None) if shape is None else shape
    if shape is None:
        return AnswerKey(answer, digits=digits).judge(text)
    if not shape:
        return AnswerKey(float(answer[0]), digits=digits).judge(text)  # type: ignore[index]
    return judge_tensor(text, answer, shape, digits=digits)  # type: ignore[arg-type]


def verdict_html(right: bool, text: str) -> str:
    """A verdict as the exercises show it: the text in the theme's own colour (4.5:1 in light
    and dark themes), the verdict's colour a bar beside it (✔ / ✘ and the words carry it too).

    >>> verdict_html(True, "✔ Right!").startswith('<span style="border-left: 6px solid var(')
    True
    """
    colour = var("right-answer") if right else var("wrong-answer")  # the one palette
    body = html.escape(text, quote=False)
    return (
        f'<span style="border-left: 6px solid {colour}; padding-left: 6px; '
        f'font-weight: 600">{body}</span>'
    )
