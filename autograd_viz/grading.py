"""Reading and judging a typed answer, with no widgets, so that `Exercise`
(`autograd_viz.exercises`) and the fill-in quiz (`viz/quiz.py`) read, judge, word an unreadable
answer and record what was read the same way. The text is read tolerantly (`8`, `−24`, `1e-3`,
digits of any script, `2½`, arithmetic on plain numbers such as `5+3` or `2^3`; separators by
`SEPARATOR_RULE`) but never evaluated as Python: no names or calls, and Python-only forms (`0x3`,
`1_000`) are refused. An `AnswerKey` says what is right (within `tol`, else `ANSWER_RULE`; a word
ignoring case and spaces; `check=` for anything else), and its `judge` adds a note to a wrong
answer that was nearly right ("give at least 4 significant digits", "did you mean …?").

>>> AnswerKey(8).judge("5+3")
(True, '')
>>> parse_number("1,000"), parse_number("0,5")
(1000.0, 0.5)
"""

from __future__ import annotations

import ast
import html
import math
import operator
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autograd_viz._checks import is_number
from autograd_viz._numbers import ANSWER_RULE, agrees, format_number, shape_text
from autograd_viz.viz.palette import var

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
    "judge_tensor",
    "parse_number",
    "read_answer",
    "read_or_none",
    "unreadable",
    "verdict_html",
]

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


def read_or_none(text: str) -> float | None:
    """The number `text` reads as, or None for a word or text that cannot be read: what an
    answers file records beside the text typed.

    >>> read_or_none("5+3"), read_or_none("eight")
    (8.0, None)
    """
    try:
        return read_answer(text).value
    except AnswerParseError:
        return None


def unreadable(err: AnswerParseError) -> str:
    """What a learner is told when their answer cannot be read (exercises and the quiz)."""
    return (
        f"I couldn't read that: {err}. Type a number such as 8, −24, 0.5 or 1,000 "
        "(a sum like 5+3 is fine too)."
    )


def read_answer(text: str) -> Reading:
    """Read a learner's answer (see `parse_number`), keeping what a feedback message needs.

    >>> reading = read_answer("1,000")
    >>> reading.value, reading.alternative
    (1000.0, 1.0)
    """
    shown = text.strip()
    if len(shown) > _MAX_LENGTH:  # before the symbols are read: that costs n² on a long run
        raise AnswerParseError(f"that is {len(shown)} characters; a number needs far fewer")
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
        rounded = reading.digits is not None and self.tol is None
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
