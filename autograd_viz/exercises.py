"""Self-check exercises for the notebooks: type an answer, press Check, get right or wrong at once.

An `Exercise` shows a question (LaTeX between `$...$` is typeset), a text box and a Check button.
The learner's text is read tolerantly: `8`, `8.0`, `-24`, `−24` (Unicode minus), `1e-3`,
full-width digits, and arithmetic on plain numbers (`5+3`, `2*3`, `1/2`, `2^3`, `(2+3)*3`), so a
learner may type a sum exactly as a derivation writes it; no names or calls are evaluated, and
Python-only forms (`0x3`, `0b11`, `1_000`) are refused. Separators follow one rule
(`SEPARATOR_RULE`, shown as the answer box's tooltip): a comma or space followed by exactly three
digits separates thousands (`1,000`, `1 000`), any other comma is a decimal comma (`0,5`), a point
is a decimal point. Where a separator could mean something else (`1,000` vs 1.000, `1.000` vs a
thousand) and only the other reading is right, the feedback asks "did you mean …?" instead of a
bare "not quite". A numeric answer is right within `tol` (relative and absolute) when one is
given; by default by the rule quizzes use too (`autograd_viz._numbers.ANSWER_RULE`): within one
part in a million, or what the drawings print for the answer (4 significant digits: `0.6667` or
`0.66667` for 2/3, `1.235e4` for 12345.678; whole numbers are printed, and checked, in full).
Digits of any script (`٣`, `３`), direction marks pasted with a number, and fractions such as
`2½` (2.5) are read too. A text answer
(`answer="reverse"`) is right when it matches ignoring case and surrounding spaces; `answer=[...]`
accepts any of several; `check=` takes a function of the typed text for anything else. A wrong
answer shows the hint. The expected answer is in neither the widget nor the saved widget state
until it is revealed, and `scripts/execute_notebooks.py` collapses the input of every cell that
creates an `Exercise`, so the code holding the answer is one click away, not on show.

A teacher can reveal every answer in the notebook at once: start Jupyter with the environment
variable `AUTOGRAD_VIZ_TEACHER=1` (exercises then appear already revealed, and `teacher_mode()`
is a switch that shows and hides them), or unlock `teacher_mode()` with the teacher's key
(`autograd_viz.classroom`); without either, the switch says what it needs and reveals nothing.
`reveal_all()` does it from code. Checks need a running kernel.

Once a notebook calls `autograd_viz.answers.record_answers(...)`, every attempt is appended to
the learner's answers file (what is written: `autograd_viz.answers`); nothing is recorded before.

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
import re
import unicodedata
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ipywidgets as widgets

from autograd_viz import answers
from autograd_viz._checks import is_number
from autograd_viz._numbers import ANSWER_RULE, agrees
from autograd_viz.viz.palette import var

__all__ = [
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

TEACHER_ENV = "AUTOGRAD_VIZ_TEACHER"

_RIGHT_COLOUR = var("right-answer")  # the one palette (autograd_viz.viz.palette)
_WRONG_COLOUR = var("wrong-answer")

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_MAX_LENGTH = 200  # an answer is a number or a short sum, never a page of text
_SHOWN_DIGITS = 4  # significant digits drawings and equations show (format_number's default)
# Symbols a learner may copy from the prose, mapped to what Python reads.
_TRANSLATE = str.maketrans(
    {"−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "^": "**", "÷": "/", "⁄": "/"}
)
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))  # zero-width
# Direction marks and embeddings (LRM, RLM, ALM, U+202A-202E, U+2066-2069): a right-to-left
# keyboard or page puts them around a number; they order text, they are not part of it.
_INVISIBLE.update(dict.fromkeys([0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F),
                                 *range(0x2066, 0x206A)]))  # fmt: skip
_ARABIC_MARKS = str.maketrans({"\u066b": ".", "\u066c": ","})  # Arabic decimal, thousands
# A vulgar fraction, alone (½) or after a whole number (2½, 2 ½): NFKC would write 2½ as
# "21⁄2", which reads 10.5; it is 2 + 1/2.
_FRACTIONS = {
    c: unicodedata.normalize("NFKC", c).replace("\u2044", "/")
    for c in map(chr, [0xBC, 0xBD, 0xBE, *range(0x2150, 0x215F), 0x2189])
}
_FRACTION = re.compile(rf"(\d+)?[ \u00a0\u202f]?([{''.join(_FRACTIONS)}])")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_POWER = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")  # 2³ is 2**3 (NFKC alone would make it 23)
# A number as typed: digits, with points, commas, or single spaces between digit groups.
_RUN = re.compile(r"\d(?:[\d.,]| (?=\d))*")
_NOT_DECIMAL = re.compile(r"0[xXbBoO]|\d_|_\d")  # 0x3, 0b11, 0o7, 1_000: Python, not a learner
SEPARATOR_RULE = (
    "A comma or a space followed by exactly three digits separates thousands (1,000 and 1 000 "
    "are a thousand); any other comma is a decimal comma (0,5 is a half); a point is always "
    "a decimal point, and where a comma and a point both appear, the last one is the decimal mark "
    "(1,000.5 and 1.000,5)."
)


ANSWER_HELP = (
    "Type a number (8, -24, 0.5, 1,000) or a sum (5+3, 2^3, 1/2). "
    f"{SEPARATOR_RULE} Unless the exercise says otherwise: {ANSWER_RULE}"
)


def _slack(half_unit: float | None) -> float:
    """Half a unit in the last typed place, with room for binary rounding (0.6667 vs 2/3)."""
    return (half_unit or 0.0) * (1 + 1e-9)


class ExerciseError(ValueError):
    """An exercise was written wrongly (by the notebook author, not the learner)."""


class AnswerParseError(ValueError):
    """The learner's text could not be read as a number."""


@dataclass(frozen=True)
class Reading:
    """How a typed answer was read: its value, and the other reading a separator allows.

    `alternative` is set when a separator could mean something else (`1,000` read as a
    thousand could be meant as 1.000; `1.000` read as 1 could be meant as a thousand), so a
    wrong answer can say "did you mean ...?" instead of a silent "not quite". `digits` and
    `half_unit` describe a single typed number (`0.6667`: 4 significant digits, ±0.00005);
    `why` says how an ambiguous separator was read and how to type the other meaning.
    """

    value: float
    alternative: float | None = None
    digits: int | None = None
    half_unit: float | None = None
    why: str = ""  # how the ambiguous separator was read, and how to type the other meaning


def parse_number(text: str) -> float:
    """Read a learner's answer as a number; arithmetic on plain numbers is allowed.

    >>> parse_number("−24"), parse_number("5+3"), parse_number("1/2"), parse_number("2^3")
    (-24.0, 8.0, 0.5, 8.0)
    >>> parse_number("1,000"), parse_number("0,5"), parse_number("1 000 000")
    (1000.0, 0.5, 1000000.0)
    """
    return read_answer(text).value


def read_answer(text: str) -> Reading:
    """Read a learner's answer (see `parse_number`), keeping what a feedback message needs.

    >>> reading = read_answer("1,000")
    >>> reading.value, reading.alternative
    (1000.0, 1.0)
    """
    shown = text.strip()
    cleaned = _normalise_symbols(shown)
    if not cleaned:
        raise AnswerParseError("the answer box is empty")
    if len(cleaned) > _MAX_LENGTH:
        raise AnswerParseError(f"that is {len(cleaned)} characters; a number needs far fewer")
    if _NOT_DECIMAL.search(cleaned):
        raise AnswerParseError(
            f"{shown!r} is written in Python's notation (0x…, 0b…, 0o… or 1_000); "
            "type the number in ordinary decimal digits"
        )
    primary, alternative, why = [], [], ""
    position = 0
    for match in _RUN.finditer(cleaned):
        run = match.group()
        main, other = _read_run(run, shown)
        if cleaned[match.end() : match.end() + 1] in ("e", "E"):
            other = None  # 1.000e3 is a mantissa: only a decimal point makes sense there
        if other is not None and not why:
            why = _why(run)
        between = cleaned[position : match.start()]
        primary += [between, main]
        alternative += [between, other or main]
        position = match.end()
    primary.append(cleaned[position:])
    alternative.append(cleaned[position:])
    value = _evaluate_text("".join(primary), shown)
    other_value = _evaluate_text("".join(alternative), shown) if why else None
    digits, half_unit = _precision("".join(primary))
    return Reading(value, other_value, digits, half_unit, why)


def _why(run: str) -> str:
    """How an ambiguous number (1,000 or 1.000) was read, and how to type the other meaning."""
    if "," in run:
        return (
            "a comma followed by exactly three digits separates thousands; for a decimal, "
            f"type a point: {run.replace(',', '.')}"
        )
    return f"a point is a decimal point; for thousands, type {run.replace('.', '')}"


def _normalise_symbols(text: str) -> str:
    """Digits of any script, Unicode minus and friends become ASCII; invisible characters
    (zero-width, direction marks) go; 2½ becomes (2+1/2) and 2³ becomes 2**(3)."""
    text = _POWER.sub(lambda m: "**(" + m.group().translate(_SUPERSCRIPT) + ")", text)
    text = _FRACTION.sub(_fraction, text.translate(_INVISIBLE))
    text = unicodedata.normalize("NFKC", text).translate(_ARABIC_MARKS)
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)
    return text.strip().translate(_TRANSLATE)


def _fraction(match: re.Match) -> str:
    whole, fraction = match.group(1), _FRACTIONS[match.group(2)]
    return f"({whole}+{fraction})" if whole else f"({fraction})"


def _grouped(text: str, sep: str) -> bool:
    """True for digits in groups of three after the first: 1,000 / 12.345.678."""
    return re.fullmatch(rf"[1-9]\d{{0,2}}(?:{re.escape(sep)}\d{{3}})+", text) is not None


def _read_run(run: str, shown: str) -> tuple[str, str | None]:
    """One typed number (digits with separators) as a Python literal, and its other reading."""
    unreadable = AnswerParseError(
        f"{shown!r}: the separators in {run!r} do not make one number. {SEPARATOR_RULE}"
    )
    if " " in run:
        head, *groups = run.split(" ")
        last = re.fullmatch(r"(\d{3})([.,]\d+)?", groups[-1])
        if not (re.fullmatch(r"\d{1,3}", head) and last and _all_groups(groups[:-1])):
            raise unreadable
        fraction = f".{last.group(2)[1:]}" if last.group(2) else ""
        return _literal(head + "".join(groups[:-1]) + last.group(1) + fraction), None
    commas, points = run.count(","), run.count(".")
    if commas and points:
        mark = "," if run.rfind(",") > run.rfind(".") else "."
        whole, _, fraction = run.rpartition(mark)
        thousands = "." if mark == "," else ","
        if not (fraction and (_grouped(whole, thousands) or whole.isdigit())):
            raise unreadable
        return _literal(f"{whole.replace(thousands, '')}.{fraction}"), None
    if commas > 1 or points > 1:
        sep = "," if commas else "."
        if not _grouped(run, sep):
            raise unreadable
        return _literal(run.replace(sep, "")), None
    if commas:
        whole, fraction = run.split(",")
        if not fraction:
            raise unreadable
        if _grouped(run, ","):  # 1,000: a thousand, though 1.000 is possible
            return _literal(whole + fraction), _literal(f"{whole}.{fraction}")
        return _literal(f"{whole}.{fraction}"), None  # 0,5 and 3,14: a decimal comma
    if points and _grouped(run, "."):  # 1.000: one, though a thousand is possible
        return _literal(run), _literal(run.replace(".", ""))
    return _literal(run), None


def _all_groups(groups: list[str]) -> bool:
    return all(re.fullmatch(r"\d{3}", g) for g in groups)


def _literal(number: str) -> str:
    """A literal Python reads as the learner meant it (08 is 8, not a syntax error)."""
    return (number.lstrip("0") or "0") if number.isdigit() else number


def _precision(text: str) -> tuple[int | None, float | None]:
    """Significant digits and half a unit in the last place of a single typed number."""
    match = re.fullmatch(r"[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?", text)
    if match is None or not (match.group(1) or match.group(2)):
        return None, None
    whole, fraction, exponent = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    digits = len((whole + fraction).lstrip("0")) or 1
    return digits, 0.5 * 10.0 ** (exponent - len(fraction))


def _evaluate_text(cleaned: str, shown: str) -> float:
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, RecursionError, MemoryError):
        raise AnswerParseError(f"{shown!r} is not a number") from None
    try:
        value = _evaluate(tree.body)
    except (ZeroDivisionError, OverflowError) as err:
        raise AnswerParseError(f"{shown!r} cannot be worked out ({err})") from None
    if not math.isfinite(value):
        raise AnswerParseError(f"{shown!r} is not a finite number")
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


def _normalise_text(text: str) -> str:
    """A word answer as compared: no invisible characters or direction marks, any case."""
    return " ".join(text.translate(_INVISIBLE).strip().casefold().split())


def _format_answer(answer: object) -> str:
    if isinstance(answer, float) and answer.is_integer():
        return f"{answer:g}"
    if isinstance(answer, (list, tuple)):
        return " or ".join(_format_answer(a) for a in answer)
    return str(answer)


def _teacher_machine() -> bool:
    """True where the environment says this is the teacher's machine (read at each call)."""
    return os.environ.get(TEACHER_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


class _Registry:
    """Every live exercise in this kernel, so one switch can reveal them all."""

    def __init__(self) -> None:
        self._items: list[weakref.ref[Exercise]] = []
        self.teacher = _teacher_machine()  # revealing now (from the start on the teacher's)
        self.unlocked = False  # the teacher's key was given in this kernel

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
        tol: float | None = None,
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise ExerciseError("Exercise needs a question: a non-empty string")
        answers = list(answer) if isinstance(answer, (list, tuple)) else [answer]
        if not answers:
            raise ExerciseError("Exercise needs at least one acceptable answer")
        answers = [_answer_value(a) for a in answers]
        if check is not None and not callable(check):
            raise ExerciseError("check= must be a function taking the typed text, returning bool")
        for name, text in (("hint", hint), ("explanation", explanation)):
            if not isinstance(text, str):
                raise ExerciseError(
                    f"{name}= must be text (a string shown to the learner), got "
                    f"{type(text).__name__}: {text!r}; e.g. {name}={str(text)!r}"
                )
        if tol is not None and (not is_number(tol, (int, float)) or not 0 <= tol < math.inf):
            raise ExerciseError(f"tol must be a finite number >= 0 (or None), got {tol!r}")
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
            tooltip=ANSWER_HELP,
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
                border=f"1px solid {var('answer-box')}",
                padding="4px 10px",
                margin="6px 0",
                width="auto",
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
        >>> Exercise("2 / 3 = ?", answer=2 / 3).is_correct("0.6667")  # as drawings show it
        True
        """
        return self._judge(text)[0]

    def _judge(self, text: str) -> tuple[bool, str]:
        """The verdict, and a note for a wrong answer that was read in a surprising way.

        A `check=` that cannot read the text (ValueError, TypeError, ArithmeticError) is the
        learner's unreadable answer; any other exception it raises is a fault in the exercise
        (ExerciseError), said as such rather than escaping from the widget as a KeyError."""
        if self._check is not None:
            try:
                return bool(self._check(text)), ""
            except (ValueError, TypeError, ArithmeticError) as err:
                raise AnswerParseError(f"{text.strip()!r} could not be checked ({err})") from None
            except Exception as err:
                raise ExerciseError(
                    f"this exercise's check= function raised {type(err).__name__} ({err}) on "
                    f"the answer {text.strip()!r}: a fault in the exercise, not in the answer. "
                    "Its author should make check= return True or False for any text."
                ) from err
        expected = [a for a in self._answers if not isinstance(a, str)]
        words = [_normalise_text(a) for a in self._answers if isinstance(a, str)]
        if _normalise_text(text) in words:
            return True, ""
        if not expected:
            return False, ""
        reading = read_answer(text)
        if any(self._matches(reading.value, n) for n in expected):
            return True, ""
        shown = text.strip()
        if reading.alternative is not None:
            if any(self._matches(reading.alternative, n) for n in expected):
                return False, (
                    f"Did you mean {reading.alternative:g}? I read {shown!r} as "
                    f"{reading.value:g}: {reading.why}."
                )
            return False, f"(I read {shown!r} as {reading.value:g}: {reading.why}.)"
        rounded = reading.digits is not None and self._tol is None
        if rounded and any(abs(reading.value - n) <= _slack(reading.half_unit) for n in expected):
            return False, (
                f"Close: give at least {_SHOWN_DIGITS} significant digits, as the drawings "
                "show numbers (e.g. 0.1235, not 0.12)."
            )
        return False, ""

    def _matches(self, value: float, answer: float) -> bool:
        if self._tol is not None:
            return math.isclose(value, answer, rel_tol=self._tol, abs_tol=self._tol)
        return agrees(value, answer, _SHOWN_DIGITS)  # the quiz's rule too (ANSWER_RULE)

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
            right, note = self._judge(text)
        except ExerciseError as err:  # check= failed: the learner is told it is not their fault
            self.feedback.value = self._message(
                _WRONG_COLOUR, f"This exercise could not check your answer: {err}"
            )
            return False
        except AnswerParseError as err:
            self.feedback.value = self._message(
                _WRONG_COLOUR,
                f"I couldn't read that: {err}. Type a number such as 8, -24, 0.5 or 1,000 "
                f"(a sum like 5+3 is fine too).",
            )
            _record(self, text, False)
            return False
        if right:
            more = f" {self.explanation}" if self.explanation else ""
            self.feedback.value = self._message(_RIGHT_COLOUR, f"✔ Right!{more}")
        else:
            hint = f" Hint: {self.hint}" if self.hint else " Try again."
            note = f" {note}" if note else ""
            self.feedback.value = self._message(_WRONG_COLOUR, f"✘ Not quite.{note}{hint}")
        _record(self, text, right)
        return right

    @staticmethod
    def _message(colour: str, text: str) -> str:
        # The text keeps the theme's own colour (4.5:1 in light and dark themes); the verdict's
        # colour is a bar beside it, and ✔ / ✘ and the words carry it too.
        body = html.escape(text, quote=False)
        return (
            f'<span style="border-left: 6px solid {colour}; padding-left: 6px; '
            f'font-weight: 600">{body}</span>'
        )

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
        from autograd_viz.viz.inline import widgets_render

        if not widgets_render():  # no widget manager: the question, and its answer to open
            return {"text/plain": repr(self), "text/html": self.static_html()}
        bundle = self._box._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def static_html(self) -> str:
        """The exercise where no kernel can check it (Colab, a static page, a slide deck):
        the question, then the hint and the answer, each closed until clicked."""
        more = f" — {self.explanation}" if self.explanation else ""
        answer = html.escape(f"{_format_answer(self.answer)}{more}", quote=False)
        hint = html.escape(self.hint, quote=False)
        hint_html = f"<details><summary>Hint</summary>{hint}</details>" if self.hint else ""
        return (
            f'<div class="avz-exercise" style="border: 1px solid {var("muted")}; '
            f'padding: 4px 10px; margin: 6px 0">'
            f"<p>{html.escape(self.question, quote=False)}</p>{hint_html}"
            f"<details><summary>Show the answer</summary><b>Answer:</b> {answer}</details></div>"
        )

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


class _NoSwitch:
    """What `teacher_mode()` shows where widgets cannot render: each answer opens alone."""

    def _repr_html_(self) -> str:
        return f'<p class="avz-teacher-note">{html.escape(repr(self))}</p>'

    def __repr__(self) -> str:
        return "Teacher: each answer opens under its question (Show the answer)."


_SWITCH_LABELS = {False: "Teacher: show all answers", True: "Teacher: hide all answers"}


class _TeacherSwitch(widgets.ToggleButton):
    def __repr__(self) -> str:
        return "Teacher switch: reveal every answer in this notebook"


def teacher_mode(key: str | None = None) -> widgets.DOMWidget | _NoSwitch:
    """A toggle that reveals (on) or hides (off) every answer in the notebook, now and later,
    on the teacher's machine only: where `AUTOGRAD_VIZ_TEACHER=1` is set, or with the
    teacher's key (`key=`, or typed into the box shown instead of the switch).

    Why: every notebook ends with this cell, and a student who runs it must not see the
    answers. Without the environment variable or the key it shows what it needs and reveals
    nothing. The key is checked against a salted hash the teacher makes with
    `python -m autograd_viz.classroom --make-key FOLDER` (see `autograd_viz.classroom`). Once the
    key is accepted, the switch stays unlocked until the kernel restarts.

    >>> import os; os.environ["AUTOGRAD_VIZ_TEACHER"] = "1"
    >>> switch = teacher_mode(); switch.value = True  # every exercise now shows its answer
    >>> switch.value = False; del os.environ["AUTOGRAD_VIZ_TEACHER"]
    """
    from autograd_viz.viz.inline import widgets_render

    if not widgets_render():
        return _NoSwitch()
    if _teacher_machine() or _registry.unlocked:
        return _switch()
    if key is not None:
        refusal = _key_refusal(key)
        if refusal is None:
            return _switch()
        return _TeacherLock(refusal)
    return _TeacherLock()


def _key_refusal(key: object) -> str | None:
    """None when `key` is the teacher's (the switch unlocks), else why not, in a sentence."""
    from autograd_viz.classroom import check_teacher_key  # standard library only

    refusal = check_teacher_key(key)
    if refusal is None:
        _registry.unlocked = True
    return refusal


_LOCKED = (
    "Teacher switch: locked, nothing is revealed. It works on the teacher's machine only: "
    f"start Jupyter with {TEACHER_ENV}=1, or give the teacher's key (type it below, or run "
    'teacher_mode(key="...")).'
)


class _TeacherLock(widgets.VBox):
    """What `teacher_mode()` shows without the teacher's machine or key: a box for the key."""

    def __init__(self, refusal: str | None = None) -> None:
        self.note = widgets.HTML(html.escape(_LOCKED + (f" {refusal}" if refusal else ""), False))
        self.key = widgets.Password(
            placeholder="teacher's key", layout=widgets.Layout(width="14em")
        )
        self.button = widgets.Button(description="Unlock", icon="unlock")
        self.button.on_click(lambda _button: self.unlock(self.key.value))
        super().__init__([self.note, widgets.HBox([self.key, self.button])])

    def unlock(self, key: str) -> bool:
        """Check `key`; the right one turns this box into the switch (as typed in the box)."""
        self.key.value = ""  # never kept in the widget (or in a saved notebook's state)
        refusal = _key_refusal(key)
        if refusal is not None:
            self.note.value = html.escape(f"{_LOCKED} {refusal}", quote=False)
            return False
        self.children = [_switch()]
        return True

    def __repr__(self) -> str:  # short: a widget's text form is cut at 110 characters
        return f"Teacher switch: locked, nothing is revealed (needs {TEACHER_ENV}=1 or the key)"


def _switch() -> _TeacherSwitch:
    switch = _TeacherSwitch(
        value=_registry.teacher,
        description=_SWITCH_LABELS[_registry.teacher],  # what a click will do next
        icon="eye-slash" if _registry.teacher else "eye",
        layout=widgets.Layout(width="auto"),
    )

    def _toggle(change: dict) -> None:
        _registry.teacher = bool(change["new"])
        switch.description = _SWITCH_LABELS[_registry.teacher]
        switch.icon = "eye-slash" if _registry.teacher else "eye"
        if _registry.teacher:
            reveal_all()
        else:
            hide_all()

    switch.observe(_toggle, names="value")
    return switch


# ---- recording the learner's answers (autograd_viz.answers) ------------------------------


def _record(exercise: Exercise, text: str, right: bool) -> None:
    """Append this attempt to the learner's answers file, when the notebook turned it on."""
    if answers.recording() is None:
        return
    try:
        read: float | None = parse_number(text)
    except AnswerParseError:
        read = None  # a word, or text that could not be read
    answers.record_attempt(
        kind="exercise", question=answers.question_id("exercise", exercise.question),
        prompt=exercise.question, answer=text.strip(), read=read, right=right,
    )  # fmt: skip
