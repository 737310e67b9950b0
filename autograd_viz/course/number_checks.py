"""The lessons' checks of code that computes with plain numbers (06's central difference, 10's
backward pass by hand, 12's gradient of softmax with cross-entropy, 14's quotient of dual numbers),
re-exported by `lesson_checks`: each on several inputs, asking what the code does by running it (an
engine run inside 10), and with its own reference (12's softmax is its own, not a notebook's).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from autograd_viz.core._checks import is_number
from autograd_viz.core._watch import PACKAGE_DIR, Watch, watching
from autograd_viz.course._verdict import Verdict, raised, show
from autograd_viz.engine import Value

__all__ = [
    "by_hand_backward_check",
    "central_difference_check",
    "cross_entropy_grad_check",
    "dual_div_check",
]


# ---- 06: a central difference ----------------------------------------------------------------

_SLOPES = (
    ("x**3", lambda t: t**3, 2.0, 0.01),
    ("sin", math.sin, 1.0, 0.01),
    ("exp", math.exp, 0.5, 0.01),
    ("x**3", lambda t: t**3, -1.0, 0.1),
)


def central_difference_check(slope: Callable, name: str = "central_difference") -> Verdict:
    """Compare slope(f, x, h) with (f(x + h) − f(x − h)) / 2h for four functions and two h."""
    for text, f, x, h in _SLOPES:
        call = f"{name}({text}, {x:g}, {h:g})"
        try:
            got = slope(f, x, h)
        except Exception as err:
            return raised(name, err, f"{text}, x = {x:g}, h = {h:g}")
        if not isinstance(got, numbers.Real) or isinstance(got, bool):
            return Verdict(False, f"{call} gave {got!r}, not a number: return the slope.")
        want = (f(x + h) - f(x - h)) / (2 * h)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if math.isclose(got, (f(x + h) - f(x)) / h, rel_tol=1e-9):
            why = "that is the one-sided difference; nudge both sides."
        elif math.isclose(got, 2 * want, rel_tol=1e-9):
            why = "twice the slope: divide by 2h, the distance from x − h to x + h."
        elif math.isclose(got, -want, rel_tol=1e-9):
            why = "the slope with its sign flipped: f(x + h) comes first."
        else:
            why = f"the central difference with this h is {want:.6f}."
        return Verdict(False, f"{call} gave {got:.6f}: {why}")
    return Verdict(True, f"Your `{name}` measures slopes as gradcheck does.")


# ---- 10: a backward pass by hand ---------------------------------------------------------------

_BY_HAND_POINTS = ((2.0, -3.0, 10.0), (3.0, -1.0, 5.0), (0.5, 4.0, -1.0), (-1.5, 2.0, 0.5))


def _used_an_engine(seen: Watch) -> bool:
    """Whether the code ran the kit's code or any `backward(self, ...)` method (a Value
    class's, micrograd's, PyTorch's): not a backward pass by hand."""
    if any(code.co_filename.startswith(PACKAGE_DIR) for code in seen.entered):
        return True
    return any(c.co_argcount and c.co_varnames[0] == "self" for c in seen.named("backward"))


def by_hand_backward_check(f: Callable, name: str = "my_backward") -> Verdict:
    """Compare f(a, b, c) with backward() on L = (a·b + c)² at four points, exactly (a rule
    applied by hand is exact to rounding; a measured slope is not), without any engine."""
    for av, bv, cv in _BY_HAND_POINTS:
        a, b, c = Value(av, label="a"), Value(bv, label="b"), Value(cv, label="c")
        e = a * b + c
        (e**2).backward()
        where = f"a = {av:g}, b = {bv:g}, c = {cv:g}"
        try:
            with watching() as seen:
                got = f(av, bv, cv)
        except Exception as err:
            return raised(name, err, where)
        if _used_an_engine(seen):
            return Verdict(
                False,
                f"Your `{name}` runs an engine (a Value, backward()); the exercise is to compute "
                "the three gradients by hand, with numbers.",
                "forward first (d = a·b, e = d + c), then one local rule per node, from "
                "dL/de = 2e.",
            )
        if not (isinstance(got, (tuple, list)) and len(got) == 3):
            return Verdict(
                False, f"At {where} your `{name}` returned {got!r}; return (dL/da, dL/db, dL/dc)."
            )
        for label, g, want in zip("abc", got, (a.grad, b.grad, c.grad)):
            if isinstance(g, numbers.Real) and abs(g - want) <= 1e-12 * max(1.0, abs(want)):
                continue
            hint = ""
            other = {"a": b.grad, "b": a.grad}.get(label)  # what the product's other input gets
            if isinstance(g, numbers.Real) and want and abs(2 * g - want) < 1e-9 * abs(want):
                hint = " Half of it: the square's rule is 2e, not e."
            elif isinstance(g, numbers.Real) and other is not None and abs(g - other) < 1e-9:
                hint = (
                    f" That is dL/d{'b' if label == 'a' else 'a'}: d = a·b sends each input "
                    "the other one."
                )
            elif isinstance(g, numbers.Real) and abs(g - want) <= 1e-5 * max(1.0, abs(want)):
                hint = (
                    " Close, but not exact: that is a measured slope (nudging the inputs); the "
                    "local rules give the exact number."
                )
            shown = f"{g:.12g}" if isinstance(g, numbers.Real) else repr(g)
            return Verdict(
                False,
                f"At {where} your dL/d{label} is {shown}; backward() gives {want:g} (there "
                f"e = a·b + c = {e.data:g}).{hint}",
            )
    return Verdict(True, f"Your `{name}` gives backward()'s three gradients at all four points.")


# ---- 12: the gradient of softmax with cross-entropy ---------------------------------------------

# the third: scores 2,000 apart, where exp overflows after any shift but the largest score's (no
# shift, the smallest, the mean, the first, the correct class's), and the correct class's p is 0
_SCORES = (
    ([2.0, 1.0, -1.0], 0),
    ([0.5, -1.5, 3.0, 0.0], 2),
    ([-1000.0, 1000.0, 999.0, -1000.0], 3),
    ([1.0, 1.0, -2.0], 1),
    ([-0.5], 0),
)


def _backward_gradient(z: list[float], c: int) -> list[float]:
    """dL/dz from backward() on L = −log softmax(z)[c], built here from Values as
    log Σ exp(z − max z) + max z − z[c]: no exp overflows, and a correct class whose softmax
    is 0 in floats takes no log of 0. The check's own softmax, not a notebook's."""
    zv = [Value(v) for v in z]
    top = max(z)
    total = (zv[0] - top).exp()
    for v in zv[1:]:
        total = total + (v - top).exp()
    (total.log() + top - zv[c]).backward()
    return [v.grad for v in zv]


def cross_entropy_grad_check(f: Callable, name: str = "cross_entropy_grad") -> Verdict:
    """Compare f(z, c) with backward()'s gradient of −log softmax(z)[c] on five score
    vectors: three classes, four, scores 2,000 apart (exp overflows unless the largest score
    is subtracted), a tie, and a single class."""
    for z, c in _SCORES:
        want = _backward_gradient(z, c)
        where = f"z = {[float(v) for v in z]}, c = {c}"
        try:
            got = f(list(z), c)
        except OverflowError:
            return Verdict(
                False,
                f"For {where} your `{name}` overflowed: exp of a number above 709.78 is too "
                "large for a float.",
                "subtract the largest score before exp: every exponent is then 0 or less.",
            )
        except Exception as err:
            return raised(name, err, where)
        try:
            got = [float(g) for g in got]
        except (TypeError, ValueError):
            return Verdict(
                False, f"For {where} your `{name}` returned {got!r}, not a list of numbers."
            )
        if len(got) != len(z):
            return Verdict(
                False,
                f"For {where} your list has {len(got)} entries; it needs one per score, {len(z)}.",
            )
        for k, (g, w) in enumerate(zip(got, want)):
            if not abs(g - w) <= 1e-9:
                y = 1.0 if k == c else 0.0
                more = ""
                if math.isnan(g):
                    more = " (nan: subtract the largest score before exp)"
                elif abs(g + w) <= 1e-9 and w:
                    more = " (the sign flipped: p − y, not y − p)"
                elif abs(g - (w + y)) <= 1e-9 and k == c:
                    more = " (that is p: subtract y, which is 1 at the correct class)"
                return Verdict(
                    False,
                    f"For {where} your entry {k} is {show(g)}{more}; backward() gives {show(w)}.",
                )
    return Verdict(True, f"Your `{name}` gives backward()'s gradient on all five score vectors.")


# ---- 14: the quotient of dual numbers ------------------------------------------------------------

_QUOTIENTS = (((2.0, 1.0), (3.0, 0.5)), ((-1.5, 0.5), (0.5, 2.0)), ((0.25, -1.0), (-4.0, 3.0)),
              ((3.0, 0.0), (2.0, 1.0)))  # fmt: skip


class dual_div_check:  # noqa: N801 - used like a function: dual_div_check(Dual)
    """Grade div(a, b) for dual numbers (`.val`, `.der`): the quotient rule, which the lesson
    does not show, on four pairs (both derivatives nonzero first, then a constant numerator),
    a Dual divided by itself, and a quotient of a quotient; exactly (a measured slope is
    refused), with the inputs left unchanged. The class is the one the learner's code names
    now (a re-run class cell made a new one), else `base`."""

    def __init__(self, base: type) -> None:
        self.base = base

    @property
    def context(self) -> dict[str, object]:
        return {self.base.__name__: self.base}

    def _class_for(self, div: object) -> type:
        now = getattr(div, "__globals__", {}).get(self.base.__name__)
        return now if isinstance(now, type) else self.base

    def __call__(self, div: Callable, name: str = "dual_div") -> Verdict:
        cls = self._class_for(div)
        for (a, da), (b, db) in _QUOTIENTS:
            verdict = self._one(cls, div, name, cls(a, da), cls(b, db))
            if verdict is not None:
                return verdict
        same = cls(3.0, 1.0)
        verdict = self._one(cls, div, name, same, same)  # x / x = 1: derivative 0
        if verdict is not None:
            return verdict
        x, y = cls(1.5, 1.0), cls(-2.0, 0.5)
        try:
            inner = div(x, y)
        except Exception as err:
            return raised(name, err)
        if not isinstance(inner, cls):
            return Verdict(False, f"{name}(x, y) gave {inner!r}, not a {cls.__name__}.")
        verdict = self._one(cls, div, name, inner, x)  # a computed input: (x / y) / x
        if verdict is not None:
            return verdict
        return Verdict(True, f"Your `{name}` carries the quotient rule forward.")

    def _one(self, cls: type, div: Callable, name: str, a: object, b: object) -> Verdict | None:
        call = f"{name}({cls.__name__}({a.val:g}, {a.der:g}), {cls.__name__}({b.val:g}, {b.der:g}))"
        before = (a.val, a.der, b.val, b.der)
        want_val = a.val / b.val
        want_der = (a.der * b.val - a.val * b.der) / b.val**2
        try:
            got = div(a, b)
        except Exception as err:
            return raised(name, err, call)
        if (a.val, a.der, b.val, b.der) != before:
            return Verdict(
                False,
                f"{call} changed its input: a quotient makes a new {cls.__name__} and leaves a "
                "and b as they were.",
                f"return {cls.__name__}(..., ...) instead of setting a.val or a.der.",
            )
        if not isinstance(got, cls):
            return Verdict(
                False, f"{call} gave {type(got).__name__} {got!r}, not a {cls.__name__}."
            )
        if got is a or got is b:
            return Verdict(False, f"{call} returned one of its inputs, not a new {cls.__name__}.")
        for part in ("val", "der"):
            if not is_number(getattr(got, part, None)):
                shown = repr(getattr(got, part, None))
                return Verdict(False, f"{call} has {part} = {shown}, not a number.")
        if not math.isclose(got.val, want_val, rel_tol=1e-12, abs_tol=1e-12):
            return Verdict(False, f"{call} has value {got.val:g}; it should be {want_val:g}.")
        if math.isclose(got.der, want_der, rel_tol=1e-12, abs_tol=1e-12):
            return None
        return Verdict(
            False,
            f"{call} has derivative {show(got.der)}; the quotient rule (a'·b − a·b')/b² gives "
            f"{show(want_der)}.{_why_quotient(got.der, want_der, a, b)}",
        )


def _why_quotient(got: float, want: float, a: object, b: object) -> str:
    """The typical slip behind a wrong derivative of a / b, if it is one."""

    def near(x: float, rel: float = 1e-9) -> bool:
        return math.isclose(got, x, rel_tol=rel, abs_tol=1e-12)

    if want and near(-want):
        return " The sign is flipped: a's derivative comes first, a'·b − a·b'."
    if near(want * b.val):
        return " Divide by b², not by b."
    if b.der and near(a.der / b.val):
        return " That leaves out b's derivative: when b moves, a / b moves too (−a·b'/b²)."
    if near(a.der * b.val + a.val * b.der):
        return " That is the product rule; a quotient subtracts, and divides by b²."
    if near(want, rel=1e-4):
        return (
            " Close, but not exact: that is a measured slope; the ε algebra gives the exact number."
        )
    return ""
