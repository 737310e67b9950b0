"""Numerical gradient checking: trust backprop only after comparing it to finite differences.

`gradcheck(f, inputs)` runs `f` on Values, back-propagates, then nudges each
input by ±h and measures the slope (central differences, error O(h²)). The
report lists analytic and numeric gradients side by side with their errors and
prints as a table, so tests and notebooks use the same check.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from autograd_viz.engine import Value


@dataclass(frozen=True)
class GradRow:
    """One input's analytic and numerical gradient and how far apart they are."""

    name: str
    analytic: float
    numeric: float
    abs_error: float
    rel_error: float
    ok: bool


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
                "ok" if r.ok else "FAIL",
            )
            for r in self.rows
        ]
        widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]
        fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
        verdict = "all gradients match" if self.ok else "SOME GRADIENTS DO NOT MATCH"
        body = [fmt.format(*header).rstrip(), *(fmt.format(*row).rstrip() for row in lines)]
        return "\n".join([*body, f"{verdict} (tolerance {self.tol:g})"])

    def __repr__(self) -> str:
        return str(self)


def numeric_gradient(
    f: Callable[..., Value], values: Sequence[float], index: int, h: float = 1e-6
) -> float:
    """Central difference (f(x+h) - f(x-h)) / 2h in the input at `index`."""
    up = list(values)
    down = list(values)
    up[index] += h
    down[index] -= h
    f_up = _evaluate(f, up)
    f_down = _evaluate(f, down)
    return (f_up - f_down) / (2 * h)


def _evaluate(f: Callable[..., Value], values: Sequence[float]) -> float:
    out = f(*(Value(v) for v in values))
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: f must return a Value, got {type(out).__name__}")
    return out.data


def gradcheck(
    f: Callable[..., Value],
    inputs: Mapping[str, float] | Sequence[float],
    *,
    h: float = 1e-6,
    tol: float = 1e-5,
) -> GradReport:
    """Compare backprop's gradients of `f` with central differences.

    `inputs` is a mapping from names to numbers (or a plain sequence; names are
    then x1, x2, ...). An input passes when |analytic − numeric| ≤ tol·max(1, |numeric|).

    >>> report = gradcheck(lambda a, b: (a * b).tanh(), {"a": 0.5, "b": -1.5})
    >>> report.ok
    True
    """
    if isinstance(inputs, Mapping):
        names, values = list(inputs), [float(v) for v in inputs.values()]
    else:
        values = [float(v) for v in inputs]
        names = [f"x{i + 1}" for i in range(len(values))]
    if not values:
        raise ValueError("gradcheck needs at least one input")
    if not (h > 0 and math.isfinite(h)):
        raise ValueError(f"gradcheck: step h must be a positive number, got {h!r}")

    leaves = [Value(v, label=n) for n, v in zip(names, values)]
    out = f(*leaves)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: f must return a Value, got {type(out).__name__}")
    out.backward()

    rows = []
    for i, (name, leaf) in enumerate(zip(names, leaves)):
        numeric = numeric_gradient(f, values, i, h)
        abs_error = abs(leaf.grad - numeric)
        rel_error = abs_error / max(abs(leaf.grad), abs(numeric), 1e-12)
        ok = abs_error <= tol * max(1.0, abs(numeric))
        rows.append(GradRow(name, leaf.grad, numeric, abs_error, rel_error, ok))
    return GradReport(tuple(rows), tol)
