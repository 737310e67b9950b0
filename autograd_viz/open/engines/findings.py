"""What a check of a learner's engine says, as plain data: a finding (one place where their backward
pass goes wrong, in a sentence and a hint) and a rule's verdict (right, wrong, unchecked or missing,
and what it was checked against). The check of their graph (`autograd_viz.open.engines.check`) and
the probes of their class (`autograd_viz.open.engines.probe`) both speak in these terms."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["MISSING", "RIGHT", "UNCHECKED", "WRONG", "Finding", "RuleCheck"]

RIGHT, WRONG, UNCHECKED, MISSING = "right", "wrong", "unchecked", "missing"


@dataclass(frozen=True)
class Finding:
    """One place where the learner's backward pass goes wrong.

    `node` is the index (in the drawing's topological order) of the node whose rule (or
    whose place in the order) is wrong, `name` its name, `method` the learner's method,
    `operand`/`sent`/`right` what was sent to which operand and what the rule gives;
    `message` says it in one sentence, `hint` guesses the bug. `phase` is "forward" for a
    value that does not follow from its operation (then `sent` is the value, `right` what
    the operation gives), "backward" for a gradient, "seed" for an output their backward()
    never seeds with 1.
    """

    node: int | None
    name: str
    method: str
    message: str
    hint: str = ""
    operand: int | None = None
    sent: float | None = None
    right: float | None = None
    phase: str = "backward"

    def __str__(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


@dataclass(frozen=True)
class RuleCheck:
    """One of the learner's operations (a method), and whether its backward rule is right,
    wrong or unchecked; `how` says what it was checked against."""

    method: str
    op: str
    status: str
    how: str
    nodes: tuple[int, ...] = ()
    detail: str = ""


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol * 1e-3)
