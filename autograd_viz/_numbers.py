"""How numbers are written, in pictures and in equations alike.

One formatter, so a drawing's `data 0.6667` and the equation beside it can never
disagree: whole numbers in full, others to a few significant digits, and a real
minus sign (−) as in typeset maths.
"""

from __future__ import annotations

import math

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
