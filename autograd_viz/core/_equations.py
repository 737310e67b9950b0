"""Equations as data: each piece has a plain-text form and a LaTeX form, built together, so the
Unicode text and the LaTeX of a line can never say different things. `autograd_viz.trace` writes
every line of a derivation with these pieces, and each row of the op table (`autograd_viz.core.ops`)
writes its operation and local derivative with them; `Eq.prec` says how tightly a piece binds, so
parentheses appear exactly where they are needed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from autograd_viz.core._numbers import MINUS, format_number, nested

# ---- numbers ------------------------------------------------------------------


def latex_number(x: float, digits: int) -> str:
    text = format_number(x, digits).replace(MINUS, "-")
    if text in ("∞", "-∞"):
        return text.replace("∞", r"\infty")
    if text == "nan":
        return r"\mathrm{nan}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa} \times 10^{{{exponent}}}"
    return text


# ---- equation pieces: every piece has a text form and a LaTeX form -------------


_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

# How tightly a piece binds, to decide where parentheses are needed.
SUM, PRODUCT, POWER, ATOM = 1, 2, 3, 4


@dataclass(frozen=True)
class Eq:
    """One piece of an equation in both notations, and how tightly it binds."""

    text: str
    latex: str
    prec: int = ATOM


@functools.lru_cache(maxsize=4096)  # numbers repeat (0, 1, the same weights): format once
def num(x: float, digits: int) -> Eq:
    return Eq(format_number(x, digits), latex_number(x, digits))


def vector(shape: tuple[int, ...], numbers: Sequence[float], digits: int) -> Eq:
    """A tensor's numbers nested as its shape, `[1, 2, 3]` or `[[1, 2], [3, 4]]`; one number
    for shape () — how a derivation on small tensors writes every value and gradient.

    >>> vector((3,), (1.0, -2.0, 0.5), 4).text
    '[1, −2, 0.5]'
    """

    def row(rows: list[Eq]) -> Eq:
        text = "[" + ", ".join(r.text for r in rows) + "]"
        return Eq(text, r"\left[" + r",\ ".join(r.latex for r in rows) + r"\right]")

    return nested(shape, numbers, lambda x: num(x, digits), row)


def par(e: Eq, prec: int) -> Eq:
    """Parenthesise `e` if it binds less tightly than `prec`, or starts with a minus sign."""
    if e.prec < prec or e.text.startswith(MINUS):
        return Eq(f"({e.text})", rf"\left({e.latex}\right)", ATOM)
    return e


def plus(a: Eq, b: Eq) -> Eq:
    b = par(b, PRODUCT)
    return Eq(f"{a.text} + {b.text}", f"{a.latex} + {b.latex}", SUM)


def minus(a: Eq, b: Eq) -> Eq:
    b = par(b, PRODUCT)
    return Eq(f"{a.text} {MINUS} {b.text}", f"{a.latex} - {b.latex}", SUM)


def times(a: Eq, b: Eq) -> Eq:
    a = a if a.prec >= PRODUCT else par(a, PRODUCT)  # a leading minus reads fine
    b = par(b, PRODUCT)
    return Eq(f"{a.text} · {b.text}", rf"{a.latex} \cdot {b.latex}", PRODUCT)


def hadamard(a: Eq, b: Eq) -> Eq:
    """a ⊙ b: two tensors multiplied element by element."""
    a, b = par(a, PRODUCT), par(b, PRODUCT)
    return Eq(f"{a.text} ⊙ {b.text}", rf"{a.latex} \odot {b.latex}", PRODUCT)


def power(base: Eq, exponent: float, digits: int) -> Eq:
    """base**exponent: Unicode superscripts for whole exponents, a caret otherwise."""
    exponent = float(exponent)
    if exponent == 1:
        return base
    base = par(base, ATOM)
    exp = num(exponent, digits)
    if exponent.is_integer() and abs(exponent) < 1000:
        text = base.text + str(int(exponent)).translate(_SUPERSCRIPTS)
    else:
        text = f"{base.text}^{par(exp, ATOM).text}"
    return Eq(text, f"{{{base.latex}}}^{{{exp.latex}}}", POWER)


def caret(base: Eq, exponent: Eq) -> Eq:
    base, shown = par(base, ATOM), par(exponent, ATOM)
    return Eq(f"{base.text}^{shown.text}", f"{{{base.latex}}}^{{{exponent.latex}}}", POWER)


def reciprocal(x: Eq) -> Eq:
    shown = par(x, ATOM)  # binds like a sum, so a product wraps it: 3 · (1/x)
    return Eq(f"1/{shown.text}", rf"\frac{{1}}{{{x.latex}}}", SUM)


def call(name: str, latex_name: str, *args: Eq) -> Eq:
    """A function applied to its arguments: `tanh(x)`, `f(x, y)`."""
    text = ", ".join(a.text for a in args)
    latex = ", ".join(a.latex for a in args)
    return Eq(f"{name}({text})", rf"{latex_name}\left({latex}\right)", ATOM)


def negated(e: Eq) -> Eq:
    """−e, binding like a product: `−sin(x)`."""
    e = par(e, PRODUCT)
    return Eq(f"{MINUS}{e.text}", f"-{e.latex}", PRODUCT)


def chain(parts: Sequence[Eq]) -> Eq:
    """`a = b = c`, dropping a part that repeats the one before it (`y = 3 = 3` → `y = 3`)."""
    kept: list[Eq] = []
    for part in parts:
        if not kept or part.text != kept[-1].text:
            kept.append(part)
    return Eq(" = ".join(p.text for p in kept), " = ".join(p.latex for p in kept), 0)


_LATEX_SPECIAL = re.compile(r"([\\{}_^#$%&~])")
# what each special character becomes inside \mathrm{...} (math mode, MathJax and LaTeX)
_LATEX_ESCAPES = {"\\": r"\backslash{}", "^": r"\hat{}", "~": r"\sim{}"}


def latex_text(text: str) -> str:
    r"""Plain words for `\text{...}`, its special characters escaped; a backslash, ^ and ~
    have no text-mode escape every renderer reads, so they become spaces."""
    return _LATEX_SPECIAL.sub(lambda c: " " if c[1] in "\\^~" else "\\" + c[1], text)


def latex_name(name: str) -> str:
    """A name in LaTeX: `x1` -> `x_{1}`, anything else upright and escaped."""
    m = re.fullmatch(r"([A-Za-z])_?(\d*)", name)
    if m:
        letter, sub = m.groups()
        return f"{letter}_{{{sub}}}" if sub else letter
    escaped = _LATEX_SPECIAL.sub(lambda c: _LATEX_ESCAPES.get(c[1], "\\" + c[1]), name)
    return rf"\mathrm{{{escaped}}}".replace(" ", "\\ ")  # spaces vanish in math mode


def partial(top: Eq, bottom: Eq) -> Eq:
    """∂top/∂bottom; a name that is an expression is parenthesised: ∂z/∂(x + y)."""
    top, bottom = _wrapped(top), _wrapped(bottom)
    return Eq(
        f"∂{top.text}/∂{bottom.text}", rf"\frac{{\partial {top.latex}}}{{\partial {bottom.latex}}}"
    )


def _wrapped(name: Eq) -> Eq:
    return par(name, ATOM) if name.prec < ATOM else name
