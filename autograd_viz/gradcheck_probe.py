"""The numerical side of a gradient check: `f` evaluated with one input nudged by ±h
(`numeric_gradient`: central differences, error O(h²)), and, where that slope and backprop
disagree, why in words instead of a bare FAIL: an `h` too coarse (a smaller one agrees), a kink
where the one-sided slopes differ at every h (ReLU at 0), a point within h where f has no value
(1/x near 0), the edge of f's domain with a slope from one side only (sqrt at 0), or a probe
outside the domain, refused with an `h` whose probes stay inside.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autograd_viz.engine import Value
from autograd_viz.gradcheck_report import GradcheckError, GradRow


def numeric_gradient(
    f: Callable[..., Value],
    values: Sequence[float],
    index: int,
    h: float = 1e-6,
    *,
    names: Sequence[str] | None = None,
) -> float:
    """Central difference (f(x+h) - f(x-h)) / 2h in the input at `index`.

    With `names`, `f` is called with keyword arguments (as `gradcheck` does for a mapping).

    >>> round(numeric_gradient(lambda a, b: a * b, [2.0, 3.0], 0), 6)  # ∂(a·b)/∂a = b
    3.0
    """
    return (_at(f, names, values, index, h) - _at(f, names, values, index, -h)) / (2 * h)


def _at(
    f: Callable[..., Value],
    names: Sequence[str] | None,
    values: Sequence[float],
    i: int,
    step: float,
    engine: Callable[[float], object] | None = None,
) -> float:
    point = list(values)
    point[i] += step
    make = Value if engine is None else engine
    return float(_output(_call(f, names, [make(v) for v in point]), engine).data)


def _call(f: Callable[..., Value], names: Sequence[str] | None, leaves: list[Value]) -> object:
    if names is None:
        return f(*leaves)
    return f(**dict(zip(names, leaves)))


def _output(out: object, engine: Callable[[float], object] | None = None) -> Value:
    if engine is not None:  # a learner's own class: any micrograd-style node will do
        from autograd_viz.open.engines.node import is_graph

        if not is_graph(out):
            raise TypeError(
                f"gradcheck: f must return a value of {getattr(engine, '__name__', engine)}, "
                f"got {type(out).__name__}"
            )
        return out
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: f must return a Value, got {type(out).__name__}")
    return out


@dataclass(frozen=True)
class _Probe:
    """Evaluates f with one input nudged, for the numerical side of the check."""

    f: Callable[..., Value]
    keyword_names: Sequence[str] | None
    values: list[float]
    tol: float
    engine: Callable[[float], object] | None = None

    def at(self, i: int, step: float) -> float | str:
        """f with input i moved by `step`, or why it could not be evaluated there."""
        try:
            y = _at(self.f, self.keyword_names, self.values, i, step, self.engine)
        except (ArithmeticError, ValueError) as err:
            return f"{type(err).__name__}: {err}"
        return y if math.isfinite(y) else f"f = {y}"

    def slope(self, i: int, h: float) -> float | None:
        """The central difference with step h, or None where a probe leaves f's domain."""
        up, down = self.at(i, h), self.at(i, -h)
        if isinstance(up, str) or isinstance(down, str):
            return None
        return (up - down) / (2 * h)

    def agrees(self, analytic: float, numeric: float) -> bool:
        return abs(analytic - numeric) <= self.tol * max(1.0, abs(numeric))

    def smaller_h(self, i: int, h: float, analytic: float) -> tuple[float | None, bool]:
        """The largest h/10^k (k = 1..8) that stays in f's domain and agrees with backprop;
        failing that, the largest that stays in the domain. Returns (h, agrees)."""
        inside = None
        for k in range(1, 9):
            numeric = self.slope(i, h / 10**k)
            if numeric is not None:
                if self.agrees(analytic, numeric):
                    return h / 10**k, True
                inside = inside or h / 10**k
        return inside, False

    def kink_note(
        self, name: str, i: int, h: float, f0: float, analytic: float
    ) -> tuple[bool, str]:
        """Explain a failing row: an h too large (a smaller one agrees), a kink (one-sided
        slopes differ at every h), or a point within h of where f is undefined (1/x near 0)."""
        finer, agrees = self.smaller_h(i, h, analytic)
        hole = self._hole(name, i, h)
        if agrees:  # before the kink test: near a pole the one-sided slopes differ too
            return False, (
                f"f curves sharply here, so h = {h:g} is too coarse: with h={finer:g} "
                "the slopes match" + (f". {hole}" if hole else "")
            )
        gaps, sides = [], []
        for step in (h, h / 10):
            up, down = self.at(i, step), self.at(i, -step)
            if isinstance(up, str) or isinstance(down, str):
                break
            left, right = (f0 - down) / step, (up - f0) / step
            gaps.append(abs(right - left))
            sides.append((left, right))
        if len(gaps) == 2:
            left, right = sides[0]
            if gaps[0] > self.tol * max(1.0, abs(left), abs(right)) and gaps[1] > 0.5 * gaps[0]:
                return True, (  # the one-sided slopes do not close up as h shrinks: a corner
                    f"not differentiable here: the slope is {left:.6g} from the left and "
                    f"{right:.6g} from the right, so no single gradient exists (backprop gives "
                    f"{analytic:.6g}); check at a point away from the kink"
                )
        if hole:
            return False, (
                f"{hole}, and no h tried ({h:g} down to {h / 10**8:g}) gives slopes that match: "
                f"the numerical slope is not reliable this close to it; check at a point "
                f"farther from it"
            )
        return False, ""

    def _hole(self, name: str, i: int, h: float) -> str:
        """Where f cannot be evaluated within h of input i (a pole, 1/x at 0), in words, or ""."""
        for k in range(9):
            for sign, step in (("+", h / 10**k), ("−", -h / 10**k)):
                why = self.at(i, step)
                if isinstance(why, str):
                    return (
                        f"f is undefined at {name} {sign} {abs(step):g} = "
                        f"{self.values[i] + step:g} ({why.split(':')[0]}), within h of {name} = "
                        f"{self.values[i]:g}: the probes straddle a point where f has no value"
                    )
        return ""

    def edge_row(self, name: str, i: int, h: float, f0: float, analytic: float) -> GradRow | None:
        """A row for an input on the edge of f's domain (sqrt at 0): no h/10^k (k = 0..8)
        keeps both probes inside, so a smaller h cannot help. None if one does."""
        if self.slope(i, h) is not None or self.smaller_h(i, h, analytic)[0] is not None:
            return None
        tiny = h / 10**8
        side = next((s for s in (1, -1) if not isinstance(self.at(i, s * tiny), str)), 0)
        x = f"{name} = {self.values[i]:g}"
        if side == 0:
            return GradRow(name, analytic, math.nan, math.nan, math.nan, False, (
                f"f is defined at {x} but at neither {name} + h nor {name} − h for any h tried "
                f"({h:g} down to {tiny:g}), so it has no slope here; check at another point"
            ), edge=True)  # fmt: skip
        slopes = []  # one-sided slopes (f(x ± step) − f(x)) / ±step, where f is defined
        for step in (h, tiny):
            y = self.at(i, side * step)
            if not isinstance(y, str):
                slopes.append((step, (y - f0) / (side * step)))
        numeric = slopes[0][1]
        where, missing = ("right", "−") if side > 0 else ("left", "+")
        seen = ", ".join(f"{s:.6g} at h = {step:g}" for step, s in slopes)
        infinite = not math.isfinite(analytic) or abs(slopes[-1][1]) > 2 * abs(numeric)
        verdict = (
            f"it grows without bound as h shrinks: the derivative is infinite here (backprop "
            f"gives {analytic:.6g})"
            if infinite
            else f"backprop gives {analytic:.6g}"
        )
        point = self._inside(i, h, side)
        advice = "check at a point inside the domain" + (
            f", e.g. {name} = {point:g}" if point is not None else ""
        )
        abs_error = abs(analytic - numeric)
        rel_error = math.inf if math.isinf(abs_error) else abs_error / max(abs(numeric), 1e-12)
        return GradRow(
            name, analytic, numeric, abs_error, rel_error, False,
            f"{x} is on the edge of f's domain: f is undefined at {name} {missing} h for every "
            f"h tried ({h:g} down to {tiny:g}), so a smaller h cannot help and f has only a "
            f"slope from the {where}: {seen}; {verdict}. Not differentiable here: {advice}",
            edge=True,
        )  # fmt: skip

    def _inside(self, i: int, h: float, side: int) -> float | None:
        """A nearby point, on the side where f is defined, whose probes ± h both stay inside."""
        for distance in (0.1, 1.0, 0.01, 0.001):
            shift = side * distance
            if not isinstance(self.at(i, shift + h), str) and not isinstance(
                self.at(i, shift - h), str
            ):
                return self.values[i] + shift
        return None


def _domain_error(
    probe: _Probe, names: list[str], i: int, h: float, step: float, why: str, analytic: float
) -> GradcheckError:
    """Say which probe left f's domain, and suggest an h whose probes stay inside."""
    advice = "pass a smaller h"
    smaller, _ = probe.smaller_h(i, h, analytic)
    if smaller is not None:
        advice += f", e.g. gradcheck(f, inputs, h={smaller:g}), whose probes stay inside"
    sign = "+" if step > 0 else "−"
    return GradcheckError(
        f"gradcheck: f cannot be evaluated at {names[i]} {sign} h = {probe.values[i] + step:g} "
        f"(with h = {h:g}): {why}. The check nudges each input by ±h, and here that leaves "
        f"f's domain; {advice}"
    )
