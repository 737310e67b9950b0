"""A derivation as data — `Step`, one line of it (its kind, the values and SVG edges it touches,
what is known after it, its equation as text and LaTeX), and the phases a derivation has —
with every step's values and gradients kept as views on one shared table of final numbers,
so a trace of n steps costs O(n) memory, not O(n²); `autograd_viz.trace` writes the lines,
and frames, players, exports and notebooks read the Steps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autograd_viz.core._equations import Eq
from autograd_viz.core.errors import TraceError

if TYPE_CHECKING:  # annotations only
    from autograd_viz.core.graph import Graph

PHASES = ("forward", "backward", "both")

KINDS = ("value", "seed", "local", "contribution", "accumulate")


def check_phase(phase: object) -> str:
    """`phase` if it is one of PHASES; else a TraceError saying which ones there are.

    The one phase check: trace, frames, the player and the exports all call it.
    """
    if phase not in PHASES:
        raise TraceError(f"phase must be one of {', '.join(map(repr, PHASES))}; got {phase!r}")
    return phase


class _Revealed(Mapping):
    """A read-only {value index: number} of what is known after one step.

    Every step shares one table of final numbers and the step at which each is
    revealed, so a trace of n steps costs O(n) memory, not O(n²).
    """

    __slots__ = ("_final", "_rank", "_order", "_count")

    def __init__(
        self, final: dict[int, float], rank: dict[int, int], order: list[int], count: int
    ) -> None:
        # rank[i]: position of i in the reveal order; the first `count` are known
        self._final, self._rank, self._order, self._count = final, rank, order, count

    def __getitem__(self, key: int) -> float:
        if self._rank.get(key, self._count) < self._count:
            return self._final[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return self._rank.get(key, self._count) < self._count

    def __iter__(self) -> Iterator[int]:
        return iter(self._order[: self._count])

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return repr(dict(self))

    @property
    def view_key(self) -> tuple[int, int]:
        """Which table this is a view of, and how much of it is known: two views with equal
        keys hold the same numbers."""
        return id(self._order), self._count

    def added_since(self, earlier: Mapping) -> list[int] | None:
        """What is known here and not in `earlier`, a view of the same table at an earlier
        step (None if it is not: then the caller compares in full)."""
        same = isinstance(earlier, _Revealed) and earlier._order is self._order
        if not same or earlier._count > self._count:  # type: ignore[union-attr]
            return None
        return self._order[earlier._count : self._count]  # type: ignore[union-attr]


@dataclass(frozen=True)
class Step:
    """One line of the derivation.

    `index` (position in the trace), `phase` ("forward" | "backward"), `kind`
    ("value" | "seed" | "local" | "contribution" | "accumulate"), `nodes` (value
    indices the step reads or writes), `edges` (SVG edge ids it travels), `active`
    (the value index it is about), `values` / `grads` (read-only {index: number}
    known after the step; grads only once complete), `text` and `latex`, and `flag`:
    where a learner's own engine goes wrong at this step, what it did ('' elsewhere).
    """

    index: int
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    values: Mapping[int, float]
    grads: Mapping[int, float]
    text: str
    latex: str
    flag: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass
class _Line:
    phase: str
    kind: str
    nodes: tuple[int, ...]
    edges: tuple[str, ...]
    active: int
    eq: Eq
    reveal_values: tuple[int, ...] = ()
    reveal_grads: tuple[int, ...] = ()
    flag: str = ""


def _steps(graph: Graph, lines: list[_Line], phase: str, grads: list[float]) -> list[Step]:
    """Turn lines into Steps whose values/grads are views on one shared table."""
    order = graph.nodes
    values_final = {node.index: node.data for node in order}
    # the forward pass is taken as done when only the backward pass is traced
    value_order: list[int] = list(range(len(order))) if phase == "backward" else []
    grads_final: dict[int, float] = {}
    grad_order: list[int] = []
    value_counts, grad_counts = [], []
    seen = set(value_order)
    for line in lines:
        for i in line.reveal_values:
            if i not in seen:
                seen.add(i)
                value_order.append(i)
        for p in line.reveal_grads:
            grads_final[p] = grads[p]
            grad_order.append(p)
        value_counts.append(len(value_order))
        grad_counts.append(len(grad_order))
    value_rank = {i: n for n, i in enumerate(value_order)}
    grad_rank = {i: n for n, i in enumerate(grad_order)}
    return [
        Step(
            index=s,
            phase=line.phase,
            kind=line.kind,
            nodes=line.nodes,
            edges=line.edges,
            active=line.active,
            values=_Revealed(values_final, value_rank, value_order, value_counts[s]),
            grads=_Revealed(grads_final, grad_rank, grad_order, grad_counts[s]),
            text=line.eq.text,
            latex=line.eq.latex,
            flag=line.flag,
        )
        for s, line in enumerate(lines)
    ]
