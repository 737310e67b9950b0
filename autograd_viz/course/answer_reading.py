"""Reading a typed answer as a number, with no widgets: what the learner meant by `8`, `−24`,
`1e-3`, digits of any script, `2½`, `2³`, arithmetic on plain numbers such as `5+3` or `2^3`, and
thousands or decimal separators (`SEPARATOR_RULE`), never evaluated as Python (no names or calls;
Python-only forms such as `0x3` and `1_000` are refused); a `Reading` keeps what a feedback
message needs (the other meaning a separator allows, the digits typed), and an unreadable answer
is an `AnswerParseError` whose wording `unreadable` gives. Judging what was read is `grading`'s job.

>>> parse_number("1,000"), parse_number("0,5")
(1000.0, 0.5)
"""

from __future__ import annotations

import ast
import math
import operator
import re
import unicodedata
from dataclasses import dataclass

from autograd_viz.core._numbers import ANSWER_RULE

__all__ = [
    "ANSWER_HELP",
    "SEPARATOR_RULE",
    "AnswerParseError",
    "Reading",
    "parse_number",
    "read_answer",
    "read_or_none",
    "unreadable",
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


def _normalise_text(text: str) -> str:
    """A word answer as compared: no invisible characters or direction marks, any case."""
    return " ".join(text.translate(_INVISIBLE).strip().casefold().split())
