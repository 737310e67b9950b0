"""How numbers are written, in pictures and in equations alike: one formatter (`format_number`:
whole numbers in full, others to a few significant digits, a real minus sign), so a drawing's `data
0.6667` and the equation beside it can never disagree; and one rule for when a typed number counts
as an answer (`agrees`, stated in `ANSWER_RULE`), shared by exercises and quizzes, so a number
typed as the kit prints it is right wherever it is typed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

MINUS = "\u2212"  # the typographic minus sign: −


def format_number(x: float, digits: int = 4) -> str:
    """Format a number compactly: whole numbers without a decimal point, others with
    `digits` significant digits, and a real minus sign (−).

    Whole numbers below 10¹⁵ are written in full (`15`, `−6`, `12345`); others use
    Python's general format (`0.5`, `0.7616`, `1.5e−7`); `-0.0` is `0`.

    >>> format_number(2.0), format_number(-6.0), format_number(0.5), format_number(2 / 3)
    ('2', '−6', '0.5', '0.6667')
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else f"{MINUS}∞"
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e15:
        text = str(int(x))
    else:
        text = f"{x:.{digits}g}"
        if "e" in text:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}e{int(exponent)}"
    return text.replace("-", MINUS)


# ---- when a typed number is right: one rule for exercises and quizzes -----------------------

REL_TOL = 1e-6  # one part in a million
ZERO_TOL = 1e-12  # below this, a number is 0 (rounding noise: 0.1 + 0.2 − 0.3 is 5.6e−17)

ANSWER_RULE = (
    "A number is right when it is within one part in a million of the answer (anything "
    "below 1e-12 counts as 0), or when it is the answer as the kit prints it: where a drawing "
    "rounds the answer to 4 significant digits, that rounded number is right too (0.6667 for "
    "2/3, 1.235e4 for 12345.678), and so is one typed with more digits that rounds to it "
    "(0.66667). A whole number is printed, and checked, in full."
)


def shape_text(shape: tuple[int, ...]) -> str:
    """A tensor's shape as Python writes it, for a message.

    >>> shape_text(()), shape_text((3,)), shape_text((2, 2))
    ('()', '(3,)', '(2, 2)')
    """
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def nested(shape: tuple[int, ...], numbers: Sequence[float], one: Callable[[float], T],
           row: Callable[[list[T]], T]) -> T:  # fmt: skip
    """A tensor's flat `numbers` nested as its `shape`: each number written by `one`, each row
    of rows joined by `row` (one number, written alone, for shape ()). The drawing's
    `[[1, 2], [3, 4]]` and the derivation's text-and-LaTeX vectors are both this walk.

    >>> nested((2, 2), (1.0, 2.0, 3.0, 4.0), format_number, lambda r: "[" + ", ".join(r) + "]")
    '[[1, 2], [3, 4]]'
    """
    if not shape:
        return one(numbers[0])
    step = len(numbers) // shape[0] if shape[0] else 0
    return row([nested(shape[1:], numbers[k * step : (k + 1) * step], one, row)
                for k in range(shape[0])])  # fmt: skip


def agrees(value: float, answer: float, digits: int = 4) -> bool:
    """True when a typed `value` counts as `answer` (the rule in `ANSWER_RULE`, shared by
    `Exercise` and the quiz, so both accept exactly what the drawings print).

    >>> agrees(0.6667, 2 / 3), agrees(12350.0, 12345.678), agrees(0.0, 2e-7), agrees(8.0004, 8)
    (True, True, False, False)
    """
    if not (math.isfinite(value) and math.isfinite(answer)):
        return False
    if math.isclose(value, answer, rel_tol=REL_TOL, abs_tol=ZERO_TOL):
        return True
    shown = format_number(answer, digits)
    printed = float(shown.replace(MINUS, "-"))
    if printed == answer:  # printed in full (a whole number, 0.5): the tolerance alone decides
        return False
    return math.isclose(value, printed, rel_tol=1e-9) or format_number(value, digits) == shown
