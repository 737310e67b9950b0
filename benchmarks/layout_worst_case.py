"""The slowest layouts the size guards admit: how long `dot` works on each, natively.

`draw()` refuses a graph of more than 500 values (`max_nodes`) and, at the renderer seam, one
whose placement graph is larger than `autograd_viz.view.layout.MAX_LAYOUT_WORK` (a value feeding
operations far apart along a chain, as in `x*w*w*…*w`). Within both, the seam caps dot's
iterations (`autograd_viz.view.layout.bounded`). This script builds the graphs that make dot
work hardest — shared weights reused along a chain, random graphs with long and crossing
edges, a full MLP, a long chain — each grown to the largest size both guards admit, and
times one `dot -Tsvg` run on each: CPU seconds of the `dot` process (what the graph costs,
whatever else the machine runs) and wall seconds. It also lays out the two graphs the issue
named (`x*w*…*w` with 100 w's; 40 and 60 layers of `z = (z * w).tanh()`) with and without
the bounds, the unbounded runs stopped at `--cap` seconds.

Where Node.js and the site's Graphviz-WASM (`lite/node_modules/@hpcc-js/wasm-graphviz`, from
`npm ci` in `lite/`) are present, each graph is also laid out by Graphviz-WASM in Node's V8,
the WebAssembly engine Chromium runs; where Playwright and /usr/bin/chromium are present too,
in a real Chromium page (wall seconds of the one `layout()` call, as the playground makes it).
Every table starts and ends with the machine's load average: read the times beside it.

Run: `python benchmarks/layout_worst_case.py` (a few minutes; `--cap 60` for the unbounded
runs' limit, `--quick` to skip them).

Measured 2026-12-02 (`--quick`, load average 7.4-8.2 on 2 cores; dot 2.43.0, Graphviz-WASM
16.1.0 from @hpcc-js/wasm-graphviz 1.29.2, Chromium 156): the worst graph the guards admit
took 5.32 s of dot's CPU natively (4 weights round robin, 11.0 s wall on the busy machine)
and 1.93 s in the Chromium page (a random graph; 1.89 s of CPU in Node). The issue's link
`x*w*…*w` with 100 w's: 1.35 s of dot's CPU, 0.25 s in Chromium; 60 layers of
`(z*w).tanh()`: 1.69 s and 0.24 s.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from autograd_viz import MLP, Value
from autograd_viz.api import to_dot
from autograd_viz.core.errors import GraphTooLargeError
from autograd_viz.view.layout import _EDGE, MAX_LAYOUT_WORK, bounded, layout_work

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from examples import power_chain, shared_tanh, tanh_chain  # noqa: E402  (the tests' graphs, timed here)

MAX_VALUES = 500  # draw()'s default max_nodes


def round_robin(k: int, weights: int = 4) -> Value:
    """k multiplications cycling through a few shared weights."""
    ws = [Value(0.9, label=f"w{i}") for i in range(weights)]
    z = Value(0.3, label="x")
    for i in range(k):
        z = z * ws[i % weights]
    return z


def random_dag(k: int, seed: int = 0, recent: int | None = None) -> Value:
    """k operations, each on two values picked at random among all before it (or among the
    last `recent`): long edges and many crossings; everything summed into one output."""
    rnd = random.Random(seed)
    values = [Value(rnd.uniform(-1, 1), label=f"a{i}") for i in range(6)]
    for _ in range(k):
        pool = values if recent is None else values[-recent:]
        a, b = rnd.choice(pool), rnd.choice(pool)
        values.append(a * b if rnd.random() < 0.5 else a + b)
    used = {id(p) for v in values for p in v.parents}
    out = Value(0.0, label="s")
    for v in values:
        if id(v) not in used:
            out = out + v
    return out


def fan_out(k: int) -> Value:
    """One x times k constants, summed pairwise: k arrows leave x into the same column."""
    x = Value(1.5, label="x")
    terms = [x * Value(0.1 * (i + 1), label=f"c{i}") for i in range(k)]
    while len(terms) > 1:
        terms = [a + b for a, b in zip(terms[::2], terms[1::2])] + terms[len(terms) & ~1 :]
    return terms[0]


def mlp(k: int) -> Value:
    out = MLP(2, [k, k, 1], seed=0)([1.0, -2.0])
    out.backward()
    return out


def all_pairs(k: int) -> Value:
    """Every product of two of k inputs, summed along one chain: the products sit early,
    the chain reaches them late, and their arrows cross each other."""
    xs = [Value(0.1 * (i + 1), label=f"x{i}") for i in range(k)]
    out = Value(0.0, label="s")
    for i in range(k):
        for j in range(i + 1, k):
            out = out + xs[i] * xs[j]
    return out


FAMILIES: dict[str, Callable[[int], Value]] = {
    "x*w*…*w": power_chain,
    "(z*w).tanh() layers": shared_tanh,
    "4 weights round robin": round_robin,
    "random graph": random_dag,
    "random graph, seed 1": lambda k: random_dag(k, seed=1),
    "random graph, seed 2": lambda k: random_dag(k, seed=2),
    "all pairs, chain sum": all_pairs,
    "random graph, last 20": lambda k: random_dag(k, recent=20),
    "fan-out of one value": fan_out,
    "tanh chain": tanh_chain,
    "MLP(2, [k, k, 1])": mlp,
}


def _dot(root: Value) -> str | None:
    """The DOT of root's drawing, every value drawn, or None when a guard refuses it (a
    network over the limit, which a drawing would collapse into boxes, counts as refused)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "collapsed to one box per neuron"
            dot = to_dot(root, max_nodes=MAX_VALUES)
        bounded(dot)
    except (GraphTooLargeError, UserWarning):
        return None
    return dot


def largest(family: Callable[[int], Value]) -> tuple[int, str]:
    """The largest size the guards admit (sizes grow by doubling, then bisect)."""
    lo, hi = 1, 2
    while hi <= 1024 and _dot(family(hi)) is not None:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _dot(family(mid)) is not None else (lo, mid)
    dot = _dot(family(lo))
    assert dot is not None
    return lo, dot


def timed(dot: str, cap: float) -> tuple[float, float, bool]:
    """(CPU s, wall s, finished) of one `dot -Tsvg` run on exactly this text."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, timeout=cap,
                       check=True)  # fmt: skip
        done = True
    except subprocess.TimeoutExpired:
        done = False
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done


WASM = Path(__file__).resolve().parent.parent / "lite/node_modules/@hpcc-js/wasm-graphviz/dist"
_NODE_SCRIPT = """
const { Graphviz } = await import(process.argv[1]);
const { readFileSync } = await import("node:fs");
const gv = await Graphviz.load();
const dot = readFileSync(process.argv[2], "utf8");
const cpu0 = process.cpuUsage(), t = performance.now();
gv.layout(dot, "svg", "dot");
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify([(cpu.user + cpu.system) / 1e6, (performance.now() - t) / 1000]));
"""


def wasm_timed(dot: str, folder: Path = WASM) -> tuple[float, float] | None:
    """(CPU s, wall s) of Graphviz-WASM laying `dot` out in Node, or None without them."""
    node, index = shutil.which("node"), folder / "index.js"
    if node is None or not index.exists():
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.dot"
        path.write_text(dot, encoding="utf-8")
        out = subprocess.run([node, "--input-type=module", "-e", _NODE_SCRIPT, index.as_uri(),
                              str(path)], capture_output=True, check=True, text=True)  # fmt: skip
    cpu, wall = json.loads(out.stdout)
    return cpu, wall


_PAGE = """<!doctype html><meta charset="utf-8"><script type="module">
import { Graphviz } from "./index.js";
window.graphviz = await Graphviz.load();
</script>"""
_LAYOUT_JS = """(dot) => {
  const t = performance.now();
  window.graphviz.layout(dot, "svg", "dot");
  return (performance.now() - t) / 1000;
}"""


class Chromium:
    """Graphviz-WASM in a real Chromium page (the site's copy, served on a local port): the
    browser edition's layout, on the page's one thread as the playground runs it. Used as
    a context manager; `seconds(dot)` is the wall time of one layout, or None when
    Playwright, Chromium or the WASM folder is missing."""

    def __init__(self, folder: Path = WASM) -> None:
        self.folder, self.page = folder, None

    def __enter__(self) -> Chromium:
        import contextlib
        import os

        chromium = Path(os.environ.get("AUTOGRAD_VIZ_CHROMIUM", "/usr/bin/chromium"))
        index = self.folder / "index.js"
        if not chromium.exists() or not index.exists():
            return self
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            return self
        from static_server import serve  # the tests' one static server

        self._stack = contextlib.ExitStack()
        site = Path(self._stack.enter_context(tempfile.TemporaryDirectory()))
        shutil.copy(index, site / "index.js")
        (site / "index.html").write_text(_PAGE, encoding="utf-8")
        url = self._stack.enter_context(serve(site))
        p = self._stack.enter_context(sync_playwright())
        browser = p.chromium.launch(
            executable_path=str(chromium), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        self._stack.callback(browser.close)
        self.page = browser.new_page()
        self.page.goto(url + "/index.html")
        self.page.wait_for_function("window.graphviz !== undefined")
        return self

    def seconds(self, dot: str) -> float | None:
        return None if self.page is None else float(self.page.evaluate(_LAYOUT_JS, dot))

    def __exit__(self, *exc: object) -> None:
        if self.page is not None:
            self._stack.close()


def _load() -> str:
    """The machine's load averages (1, 5, 15 min) and cores, printed beside every figure: a
    layout time is only read right next to what else the machine was running."""
    import os

    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cap", type=float, default=60, help="seconds for unbounded runs")
    parser.add_argument("--quick", action="store_true", help="skip the unbounded runs")
    parser.add_argument(
        "--wasm", type=Path, default=WASM, help="@hpcc-js/wasm-graphviz's dist folder"
    )
    args = parser.parse_args()
    with Chromium(args.wasm) as chromium:
        _report(args, chromium)


def _report(args: argparse.Namespace, chromium: Chromium) -> None:
    print(f"guards: {MAX_VALUES} values, layout work {MAX_LAYOUT_WORK}; {_load()}")
    print(f"{'graph':28s} {'size':>5s} {'values':>6s} {'work':>6s} {'nslimit':>8s} "
          f"{'dot cpu s':>9s} {'wall s':>6s} {'wasm cpu s':>10s} {'chromium s':>10s}")  # fmt: skip
    worst, worst_wasm, worst_page = (0.0, ""), (0.0, ""), (0.0, "")
    for name, family in FAMILIES.items():
        k, dot = largest(family)
        size = layout_work(_EDGE.findall(dot))
        nslimit = bounded(dot).split("nslimit=", 1)[1].split()[0]
        cpu, wall, _ = timed(bounded(dot), cap=600)
        values = dot.count('class="input"') + dot.count('class="value"')
        values += dot.count('class="const"') + dot.count('class="output"')
        browser = wasm_timed(bounded(dot), args.wasm)
        shown = "-" if browser is None else f"{browser[0]:.2f}"
        page = chromium.seconds(bounded(dot))
        in_page = "-" if page is None else f"{page:.2f}"
        print(f"{name:28s} {k:5d} {values:6d} {size.work:6d} {nslimit:>8s} {cpu:9.2f} "
              f"{wall:6.2f} {shown:>10s} {in_page:>10s}", flush=True)  # fmt: skip
        worst = max(worst, (cpu, name))
        if browser is not None:
            worst_wasm = max(worst_wasm, (browser[0], name))
        if page is not None:
            worst_page = max(worst_page, (page, name))
    print(f"worst within the guards: {worst[1]}, {worst[0]:.2f} s of dot's CPU (native)")
    if worst_wasm[1]:
        print(f"worst in Graphviz-WASM: {worst_wasm[1]}, {worst_wasm[0]:.2f} s of CPU (Node)")
    if worst_page[1]:
        print(f"worst in Chromium: {worst_page[1]}, {worst_page[0]:.2f} s (wall, in the page)")
    print(_load())
    print("\nthe issue's graphs, bounded and (capped at --cap s) unbounded:")
    for name, root in [("x*w*…*w, 100 w's", power_chain(100)),
                       ("40 layers (z*w).tanh()", shared_tanh(40)),
                       ("60 layers (z*w).tanh()", shared_tanh(60))]:  # fmt: skip
        dot = to_dot(root, max_nodes=MAX_VALUES)
        cpu, wall, _ = timed(bounded(dot), cap=600)
        line = f"{name:28s} bounded: cpu {cpu:6.2f} s, wall {wall:6.2f} s"
        page = chromium.seconds(bounded(dot))
        if page is not None:
            line += f", Chromium {page:6.2f} s"
        if not args.quick:
            cpu, wall, done = timed(dot, cap=args.cap)
            line += f"; unbounded: cpu {cpu:6.2f} s{'' if done else ' (stopped, unfinished)'}"
        print(line, flush=True)
    print(_load())


if __name__ == "__main__":
    main()
