"""Drawing a learner's own engine costs about what drawing ours does.

Builds the same ~1,000-value expression twice — with `autograd_viz.Value` and with
`micrograd.engine.Value` from PyPI (operands in a set, a closure per node, labels set as
attributes) — and times `autograd_viz.draw(root).svg()` on both, alternating in one loop
so both see the same machine load. The foreign graph is read through the same door
(`autograd_viz.open.engines.read.read_graph` into the graph snapshot), so the extra cost is the one
walk that recovers operand order from each node's closure. Target: the foreign drawing
within 1.2x of ours. It also times the Python part alone (DOT text, no `dot` run), where
the reading shows most.

Run: `python benchmarks/foreign_draw.py` (add `--quick` for fewer repeats).
"""

from __future__ import annotations

import statistics
import sys
import time

import autograd_viz
from autograd_viz import Value


def build(cls: type, n_terms: int = 125) -> object:
    """sum_i relu(w_i * x_i + b_i) ** 2 — 8 values per term, ~1,000 values in all."""
    total = None
    for i in range(n_terms):
        x, w, b = cls(0.01 * i - 0.6), cls(0.5 - 0.003 * i), cls(0.1)
        for v, name in ((x, f"x{i}"), (w, f"w{i}"), (b, f"b{i}")):
            v.label = name
        term = (w * x + b).relu() ** 2
        total = term if total is None else total + term
    total.label = "L"
    total.backward()
    return total


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _pairs(ours: object, theirs: object, runs: int, work) -> tuple[float, float, float]:
    a, b = [], []
    for _ in range(runs):  # alternate, so both see the same load
        t = time.perf_counter()
        work(ours)
        a.append(time.perf_counter() - t)
        t = time.perf_counter()
        work(theirs)
        b.append(time.perf_counter() - t)
    ratio = statistics.median(y / x for x, y in zip(a, b))
    return _median_ms(a), _median_ms(b), ratio


def main(runs: int = 15) -> None:
    try:
        from micrograd.engine import Value as MicrogradValue
    except ImportError:
        sys.exit("micrograd is not installed: pip install micrograd==0.1.0 (the bench extra)")
    ours, theirs = build(Value), build(MicrogradValue)
    n = len(ours.topological_order())
    dot_ours = autograd_viz.draw(ours, max_nodes=n).source
    dot_theirs = autograd_viz.draw(theirs, max_nodes=n).source
    same = "identical" if dot_ours == dot_theirs else "DIFFERENT"
    print(f"{n} values; DOT text of the two drawings: {same}")

    full = _pairs(ours, theirs, runs, lambda r: autograd_viz.draw(r, max_nodes=n).svg())
    text = _pairs(ours, theirs, runs * 4, lambda r: autograd_viz.draw(r, max_nodes=n).source)
    print(f"{'':<30}{'ours ms':>9}{'micrograd ms':>14}{'ratio':>8}")
    row = f"{'draw(root).svg()':<30}{full[0]:>9.1f}{full[1]:>14.1f}{full[2]:>7.2f}x"
    print(f"{row}  (target <= 1.2x)")
    print(f"{'DOT text only (no layout)':<30}{text[0]:>9.1f}{text[1]:>14.1f}{text[2]:>7.2f}x")
    print("ratio: median over alternating pairs of micrograd time / our time")


if __name__ == "__main__":
    main(runs=5 if "--quick" in sys.argv else 15)
