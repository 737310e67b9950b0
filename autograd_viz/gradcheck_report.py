"""What a gradient check says (`gradcheck` makes it): one `GradRow` per input with its analytic
and numerical gradient, how far apart they are and, for a failing row, why in words (a kink, the
edge of f's domain); the `GradReport` of all the rows, true when every row passes and printed as
the table that tests and notebooks share; and `GradcheckError`, for inputs where no fair
comparison is possible.
"""

from __future__ import annotations

from dataclasses import dataclass


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
