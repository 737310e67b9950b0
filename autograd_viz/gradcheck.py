"""Numerical gradient checking, so that backprop is trusted only after it is compared with finite
differences: `gradcheck(f, inputs)` runs `f` on Values, back-propagates, nudges each input by ±h
(central differences, error O(h²)) and reports analytic and numeric gradients side by side with
their errors, as a table that tests and notebooks share. Where no fair verdict is possible it says
why instead of a bare FAIL: a probe outside `f`'s domain is refused with an `h` that works, an
input at a kink (ReLU at 0) is reported as not differentiable there, and one on the edge of the
domain (sqrt at 0) as one-sided.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from autograd_viz._checks import is_number
from autograd_viz.engine import Value


class GradcheckError(ValueError):
    """gradcheck cannot compare at these inputs (e.g. a probe x ± h leaves f's domain)."""


@dataclass(frozen=True)
class GradRow:
    """One input's analytic and numerical gradient and how far apart they are.

    `kink` is true when the slopes left and right of the input differ (f is not
    differentiable there); `edge` when f is defined on one side of the input only (sqrt
    at 0), so no step h gives a two-sided slope and `numeric` is the one-sided one;
    `note` says in words what a failing row means.
    """

    name: str
    analytic: float
    numeric: float
    abs_error: float
    rel_error: float
    ok: bool
    note: str = ""
    kink: bool = False
    edge: bool = False

    @property
    def verdict(self) -> str:
        """`ok`, `FAIL`, `kink` (no single slope to compare with) or `edge` (one side only)."""
        return "ok" if self.ok else "kink" if self.kink else "edge" if self.edge else "FAIL"


@dataclass(frozen=True)
class GradReport:
    """The result of `gradcheck`: one row per input; true when every row passes."""

    rows: tuple[GradRow, ...]
    tol: float

    @property
    def ok(self) -> bool:
        return all(row.ok for row in self.rows)

    def __bool__(self) -> bool:
        return self.ok

    def __getitem__(self, name: str) -> GradRow:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(f"no input named {name!r}; inputs are {[r.name for r in self.rows]}")

    def __str__(self) -> str:
        header = ("input", "analytic", "numeric", "abs error", "rel error", "")
        lines = [
            (
                r.name,
                f"{r.analytic:.6g}",
                f"{r.numeric:.6g}",
                f"{r.abs_error:.1e}",
                f"{r.rel_error:.1e}",
                r.verdict,
            )
            for r in self.rows
        ]
        widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
        failing = [r for r in self.rows if not r.ok]
        if not failing:
            verdict = "all gradients match"
        elif all(r.kink or r.edge for r in failing):
            verdict = "NOT DIFFERENTIABLE at these inputs: no single slope to compare"
        else:
            verdict = "SOME GRADIENTS DO NOT MATCH"
        body = [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in lines)]
        notes = [f"{r.name}: {r.note}" for r in self.rows if r.note]
        return "\n".join([*body, f"{verdict} (tolerance {self.tol:g})", *notes])

    def __repr__(self) -> str:
        return str(self)


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
        from autograd_viz.engines.read import is_graph

        if not is_graph(out):
            raise TypeError(
                f"gradcheck: f must return a value of {getattr(engine, '__name__', engine)}, "
                f"got {type(out).__name__}"
            )
        return out
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: f must return a Value, got {type(out).__name__}")
    return out


def _check_engine(engine: object) -> None:
    """`engine` must make nodes of a graph from numbers (the learner's Value class), nodes
    with a `backward()` to check; anything else is refused before f runs."""
    from autograd_viz.engines.read import is_graph

    name = getattr(engine, "__name__", repr(engine))
    usage = "e.g. from micrograd.engine import Value; gradcheck(f, [2.0], engine=Value)"
    library = (getattr(engine, "__module__", "") or "").split(".")[0]
    if library in ("numpy", "torch"):  # array libraries: not a scalar engine's Value class
        extra = (
            " (for PyTorch, torch.autograd.gradcheck checks tensors)" if library == "torch" else ""
        )
        raise TypeError(
            f"gradcheck: engine={library}.{name} is an array type, not a scalar engine; "
            f"engine= takes your own micrograd-style Value class{extra}; {usage}"
        )
    try:
        made = engine(1.0) if callable(engine) else None
    except Exception as err:  # the class cannot be built from one number
        raise TypeError(
            f"gradcheck: engine must be your Value class, called with a number to make an "
            f"input, but {name}(1.0) raised {type(err).__name__}: {err}; {usage}"
        ) from None
    if not is_graph(made):
        raise TypeError(
            f"gradcheck: engine must be your Value class, called with a number to make an "
            f"input (a node with data, grad and _prev), got {engine!r}; {usage}"
        )
    if not callable(getattr(made, "backward", None)):
        raise TypeError(
            f"gradcheck: your {name} nodes have no backward() method, and gradcheck compares "
            f"the gradients backward() gives with central differences; add backward() to "
            f"{name} first (a topological sort of the graph, then each node's _backward in "
            f"reverse order)"
        )


def _leaf(engine: Callable[[float], object] | None, x: float, name: str) -> object:
    """An input of the check: our Value, or one of the learner's own class, labelled."""
    if engine is None:
        return Value(x, label=name)
    leaf = engine(x)
    with contextlib.suppress(AttributeError):  # __slots__ without a label: unlabelled is fine
        leaf.label = name
    return leaf


def _number(name: str, v: object) -> float:
    if isinstance(v, Value):
        raise TypeError(
            f"gradcheck: input {name!r} is a Value; gradcheck makes the Values itself from plain "
            f"numbers: pass its number, {v.data!r} (a Value's number is its .data)"
        )
    if isinstance(v, str):
        raise TypeError(
            f"gradcheck: input {name!r} is the string {v!r}; pass a number, e.g. float({v!r})"
        )
    if not is_number(v):
        raise TypeError(f"gradcheck: input {name!r} must be a number, got {type(v).__name__}")
    x = float(v)
    if not math.isfinite(x):
        raise ValueError(f"gradcheck: input {name!r} is {x}; slopes need finite inputs")
    return x


def _read_inputs(inputs: object) -> tuple[list[str], list[float], bool]:
    """Names, numbers, and whether `f` takes them by name (a mapping) or by position."""
    if isinstance(inputs, (str, bytes)):
        raise TypeError(
            f"gradcheck: inputs must be numbers, got the string {inputs!r}; pass a dict such as "
            '{"a": 1.0, "b": 2.0} (bound by name) or a list such as [1.0, 2.0] (by position)'
        )
    if isinstance(inputs, (Value, numbers.Real)):
        one = inputs.data if isinstance(inputs, Value) else inputs
        raise TypeError(
            f"gradcheck: inputs must be a dict or a list of plain numbers, got one "
            f"{type(inputs).__name__}; wrap it, e.g. gradcheck(f, [{one!r}])"
        )
    if isinstance(inputs, Mapping):
        names = list(inputs)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"gradcheck: input names must be strings, got {name!r}")
        return names, [_number(n, v) for n, v in inputs.items()], True
    if not isinstance(inputs, Iterable):
        raise TypeError(
            f"gradcheck: inputs must be a dict or a list of numbers, got {type(inputs).__name__}"
        )
    values = list(inputs)
    names = [f"x{i + 1}" for i in range(len(values))]
    return names, [_number(n, v) for n, v in zip(names, values)], False


def _check_binding(f: Callable[..., Value], names: list[str], by_name: bool = True) -> None:
    """Refuse inputs that do not fit f's parameters (names of a mapping, or how many in a
    list), before f runs."""
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # a builtin without a signature: let the call say
        return
    params = ", ".join(signature.parameters)
    if not by_name:
        try:
            signature.bind(*names)
        except TypeError as err:
            raise TypeError(
                f"gradcheck: {len(names)} input(s) given but f takes ({params}): {err}. A list "
                "binds by position: give one number per parameter"
            ) from None
        return
    try:
        signature.bind(**dict.fromkeys(names, 0.0))
    except TypeError as err:
        raise TypeError(
            f"gradcheck: the inputs are named {names} but f takes ({params}): {err}. A dict binds "
            "by name, so name each input after one of f's parameters (or pass a list to bind "
            "by position)"
        ) from None


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


def gradcheck(
    f: Callable[..., Value],
    inputs: Mapping[str, float] | Sequence[float],
    *,
    h: float = 1e-6,
    tol: float = 1e-5,
    engine: Callable[[float], object] | None = None,
) -> GradReport:
    """Compare backprop's gradients of `f` with central differences.

    `engine` checks your own engine instead of ours: the micrograd-style class the inputs
    are made with (`engine(number)`), whose `backward()` gives the analytic side.

    `inputs` is a mapping from names to numbers, passed to `f` by name (so the order of
    the mapping does not matter), or a plain sequence passed by position (names are then
    x1, x2, ...). An input passes when |analytic − numeric| ≤ tol·max(1, |numeric|).

    >>> report = gradcheck(lambda a, b: (a * b).tanh(), {"b": -1.5, "a": 0.5})
    >>> report.ok
    True
    """
    if not callable(f):
        raise TypeError(
            f"gradcheck: f must be a function of the inputs, got {type(f).__name__}: {f!r}; "
            "e.g. gradcheck(lambda a, b: a * b, [2.0, 3.0])"
        )
    names, values, by_name = _read_inputs(inputs)
    if not values:
        raise ValueError("gradcheck needs at least one input")
    if not is_number(h) or not (0 < h < math.inf):
        raise ValueError(f"gradcheck: step h must be a positive number, got {h!r}")
    if not is_number(tol) or not (0 < tol < math.inf):
        raise ValueError(
            f"gradcheck: tol must be a positive number (e.g. 1e-5), got {tol!r}; "
            "with tol <= 0 no numerical slope could ever match"
        )
    for name, x in zip(names, values):
        if x + h == x or x - h == x:  # the probes would not move: a slope of 0, a false FAIL
            raise ValueError(
                f"gradcheck: h = {h:g} is too small to move input {name!r} = {x:g} (x + h == x "
                f"in floating point); pass a larger h, e.g. h={max(1e-6, abs(x) * 1e-6):g}"
            )
    keyword_names = names if by_name else None
    _check_binding(f, names, by_name)
    if engine is not None:
        _check_engine(engine)

    leaves = [_leaf(engine, v, n) for n, v in zip(names, values)]
    out = _output(_call(f, keyword_names, leaves), engine)
    if not math.isfinite(out.data):
        raise GradcheckError(
            f"gradcheck: f = {out.data} at these inputs; there is no slope to measure. "
            "Choose inputs where f is finite"
        )
    try:
        out.backward()
    except (ArithmeticError, ValueError) as err:  # a learner's rule with no value here
        raise GradcheckError(
            f"gradcheck: backward() raised {type(err).__name__}: {err}, at these inputs "
            f"({', '.join(f'{n} = {v:g}' for n, v in zip(names, values))}): a local "
            "derivative has no finite value here (x**0.5 at 0). Choose inputs inside f's domain"
        ) from err
    probe = _Probe(f, keyword_names, values, tol, engine)
    rows = []
    for i, (name, leaf) in enumerate(zip(names, leaves)):
        analytic = float(leaf.grad)
        up, down = probe.at(i, h), probe.at(i, -h)
        edge = None
        if isinstance(up, str) or isinstance(down, str):
            edge = probe.edge_row(name, i, h, out.data, analytic)
        if edge is not None:  # a smaller h cannot help: say so in the report, as for a kink
            rows.append(edge)
            continue
        for step, y in ((h, up), (-h, down)):
            if isinstance(y, str):
                raise _domain_error(probe, names, i, h, step, y, analytic)
        numeric = (up - down) / (2 * h)
        abs_error = abs(analytic - numeric)
        rel_error = abs_error / max(abs(analytic), abs(numeric), 1e-12)
        ok = probe.agrees(analytic, numeric)
        kink, note = (False, "") if ok else probe.kink_note(name, i, h, out.data, analytic)
        rows.append(GradRow(name, analytic, numeric, abs_error, rel_error, ok, note, kink))
    return GradReport(tuple(rows), tol)
