"""How long `draw()` takes next to graphviz alone, for graphs of ~10, ~100 and ~1,000 values.

For each graph the script times the whole drawing — `draw(root).svg()`: graph walk,
DOT text, one `dot -Tsvg` run through a pipe, SVG ids — and, alternately in the same
loop, raw `dot -Tsvg` on the very same DOT text, so both see the same machine load.
It prints medians and their ratio (target: at most 1.1x), the SVG size, and the time
of the collapsed drawing of a one-sample MLP(2,[16,16,1]) forward pass (target: at
most 100 ms). For reference it then times a micrograd-style `draw_dot` (the
graphviz package, record nodes named by `id()`, as in micrograd's notebook) on
micrograd Values of the same shapes (if micrograd is installed; the issue measured
12 / 23 / 387 ms), and our drawing of MLP(2,[16,16,1]) on 5 samples, where
micrograd's took 17 s and 7 MB.

Run: `python benchmarks/draw_speed.py` (add `--quick` for fewer repeats).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
import warnings

from autograd_viz import MLP, Neuron, Value
from autograd_viz.api import draw, to_dot
from autograd_viz.view.svg import tag_cells


def _graphs() -> list[tuple[str, Value]]:
    x = [Value(1.0, label="x1"), Value(-2.0, label="x2")]
    small = (Neuron(2, seed=0)(x) - 1) ** 2  # one neuron and a squared error
    small.label = "loss"
    medium = MLP(2, [4, 4, 1], seed=0)([1.0, -2.0])
    large = MLP(2, [16, 16, 1], seed=0)([1.0, -2.0])
    graphs = [("~10 values", small), ("~100 values", medium), ("~1,000 values", large)]
    for _, root in graphs:
        root.backward()
    return graphs


def _raw_dot(source: bytes) -> None:
    subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True, check=True)


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _python_ms(root: Value, n: int, raw_svg: str, repeats: int) -> float:
    """Our own work alone (graph walk, DOT text, SVG ids), without the `dot` run."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        draw(root, max_nodes=n)
        tag_cells(raw_svg)
        times.append(time.perf_counter() - t)
    return _median_ms(times)


def main(repeats: int = 41) -> None:
    print("draw(root).svg() vs raw `dot -Tsvg` on the same DOT, alternating; medians")
    print(
        f"{'graph':<15}{'values':>7}{'runs':>6}{'draw ms':>10}{'dot ms':>9}{'ratio':>8}"
        f"{'best':>7}{'ours ms':>9}{'SVG KB':>8}"
    )
    for name, root in _graphs():
        n = len(root.topological_order())
        runs = repeats if n < 500 else max(5, repeats // 4)
        source = to_dot(root, max_nodes=n).encode("utf-8")
        ours, raw = [], []
        svg = ""
        for _ in range(runs):  # alternate, so both see the same machine load
            t = time.perf_counter()
            svg = draw(root, max_nodes=n).svg()
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            _raw_dot(source)
            raw.append(time.perf_counter() - t)
        a, b = _median_ms(ours), _median_ms(raw)
        ratio = statistics.median(o / r for o, r in zip(ours, raw))  # pairs share the load
        best = min(ours) / min(raw)  # the least-disturbed run of each
        raw_svg = subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True).stdout
        own = _python_ms(root, n, raw_svg.decode("utf-8"), runs)
        print(
            f"{name:<15}{n:>7}{runs:>6}{a:>10.1f}{b:>9.1f}{ratio:>7.2f}x{best:>6.2f}x{own:>9.2f}"
            f"{len(svg) / 1024:>8.0f}"
        )
    print(
        "ratio: median over alternating pairs of draw time / dot time; best: fastest draw /"
        " fastest dot; 'ours ms': graph walk + DOT text + SVG ids, the part that is not `dot`"
    )

    out = MLP(2, [16, 16, 1], seed=0)([1.0, -2.0])
    out.backward()
    n = len(out.topological_order())
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = draw(out)  # above max_nodes: collapses by itself
        for _ in range(repeats):
            t = time.perf_counter()
            svg = draw(out, collapse="neuron").svg()
            times.append(time.perf_counter() - t)
    print(
        f"MLP(2,[16,16,1]) one sample, {n} values, collapse='neuron': "
        f"{_median_ms(times):.1f} ms median (target <= 100 ms), {len(svg) / 1024:.0f} KB SVG; "
        f"default draw() collapses it by itself: {auto.caption is not None}"
    )


def _micrograd_style_svg(root: object) -> bytes:
    """micrograd's notebook drawing, rebuilt: one record node per value named by id()."""
    import graphviz

    seen, stack, edges = set(), [root], []
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        for child in v._prev:
            edges.append((child, v))
            stack.append(child)
    dot = graphviz.Digraph(format="svg", graph_attr={"rankdir": "LR"})
    for v in seen:
        uid = str(id(v))
        dot.node(uid, label=f"{{ data {v.data:.4f} | grad {v.grad:.4f} }}", shape="record")
        if v._op:
            dot.node(uid + v._op, label=v._op)
            dot.edge(uid + v._op, uid)
    for a, b in edges:
        dot.edge(str(id(a)), str(id(b)) + b._op)
    return dot.pipe()


def micrograd_reference(repeats: int) -> None:
    try:
        from micrograd import nn as mg_nn
        from micrograd.engine import Value as MgValue
    except ImportError:
        print("(micrograd not installed: no micrograd-style reference)")
        return
    random.seed(0)
    x = [MgValue(1.0), MgValue(-2.0)]
    graphs = [
        ("~10 values", (mg_nn.Neuron(2)(x) - 1) ** 2),
        ("~100 values", mg_nn.MLP(2, [4, 4, 1])([1.0, -2.0])),
        ("~1,000 values", mg_nn.MLP(2, [16, 16, 1])([1.0, -2.0])),
    ]
    print("micrograd-style draw_dot on micrograd Values of the same shapes (reference):")
    for name, root in graphs:
        root.backward()
        times, svg = [], b""
        for _ in range(repeats if name != "~1,000 values" else max(3, repeats // 8)):
            t = time.perf_counter()
            svg = _micrograd_style_svg(root)
            times.append(time.perf_counter() - t)
        print(f"  {name:<15}{_median_ms(times):>8.1f} ms {len(svg) / 1024:>7.0f} KB")


def five_samples() -> None:
    m = MLP(2, [16, 16, 1], seed=0)
    xs = [[1.0, -2.0], [0.5, 0.5], [-1.0, 2.0], [2.0, 1.0], [0.0, -1.0]]
    loss = sum(((m(x) - 1) ** 2 for x in xs), Value(0.0, label="zero"))
    loss.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        d = draw(loss)
        svg = d.svg()
        ms = (time.perf_counter() - t) * 1000
    print(
        f"MLP(2,[16,16,1]) on 5 samples, {len(loss.topological_order())} values: draw() "
        f"{ms:.0f} ms, {len(svg) / 1024:.0f} KB SVG ({d.summary})"
    )


if __name__ == "__main__":
    runs = 9 if "--quick" in sys.argv else 41
    main(repeats=runs)
    five_samples()
    micrograd_reference(repeats=runs // 3)
