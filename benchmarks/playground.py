"""How fast the playground page (`_site/playground/`) draws, in Chromium on this machine.

It serves the built site on 127.0.0.1 (building it first with `bash scripts/lite.sh
--playground-only` if `--site` has no playground) and drives /usr/bin/chromium with Playwright:

- **cold**: a new browser context (empty HTTP cache, no service worker) opens a link; the time
  from navigation start to the first drawing on screen (the page's own `performance.now()` when
  it has shown the link's graph), and the bytes the page transferred for it;
- **warm**: the same context reloads the same link twice, once the page's service worker is
  active and its snapshot of Python is there (what a learner gets on later visits, and
  offline), and once in a context whose service workers are blocked and whose Cache Storage
  is emptied (the browser's HTTP cache alone; Python restored from the build's snapshot, or
  started afresh on a site built without one);
- **where the cold time goes**: the page's marks (`window.avzPlayground.times`: Pyodide's
  WebAssembly compiled, Python initialised, the kit imported, Graphviz-WASM ready, the first
  view computed and shown), each download's start and end (Resource Timing) and size, the
  modules the first drawing imported, and the Content-Type of the .wasm (streaming
  compilation needs `application/wasm`);
- **redraw**: typing a new expression of a 20-value graph (`tanh(w1*x1 + ... + b) * y`,
  alternating two versions), from the input event to the new drawing painted, in draw mode and
  in step mode (the kit's inline player).

It prints medians (with the range) and the machine's load average before and after: the
machine is shared, and on 2 cores a busy neighbour doubles the cold time.

Targets (issue 21): cold <= 6 s, warm <= 2 s, redraw <= 300 ms for a 20-node graph.

Run: `python benchmarks/playground.py` (`--runs N`, default 3; `--site DIR`, default _site;
`--cold-only` for the cold start and its breakdown alone).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from static_server import serve  # noqa: E402  (the tests' one static server)

CHROMIUM = Path(os.environ.get("AUTOGRAD_VIZ_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]  # fmt: skip
LINK = "#e=(x%2By)*y&x=2&y=3&mode=draw"
TWENTY = [
    "tanh(w1*x1 + w2*x2 + w3*x3 + w4*x4 + b) * y",
    "sigmoid(w1*x1 + w2*x2 + w3*x3 + w4*x4 + b) * y",
]
READY = "document.body.dataset.ready === '1'"
# Python's snapshot is there for the next visit: the build's (python.snapshot, restored on the
# first visit already) or, on a site built without one, the one the page makes in a worker
SNAPSHOT_MADE = (
    "window.avzPlayground.times.fromSnapshot === true"
    " || !!(window.avzPlayground.snapshot && window.avzPlayground.snapshot.ok)"
)
DROP_SNAPSHOT = "caches.keys().then((ks) => Promise.all(ks.map((k) => caches.delete(k))))"


SPLITS: dict[str, list[float]] = {}  # where the cold time goes: the page's own marks (s)
FETCHES: dict[str, list[tuple[float, float, int]]] = {}  # file -> (start, end s, bytes) per run
IMPORTS: list[list[str]] = []  # the modules the page's Python imported for the first drawing
WASM_TYPES: set[str] = set()  # the Content-Type the server gave each .wasm (streaming needs it)
# The page's marks (lite/playground/playground.js), in the order a cold start passes them.
MARKS = {
    "pyodideModule": "pyodide.mjs imported",
    "snapshotExpanded": "build's snapshot read (zero pages back)",
    "wasmInstantiated": "Pyodide's WebAssembly compiled",
    "pyodide": "Python initialised",
    "graphvizCompiled": "Graphviz-WASM compiled (page)",
    "wheelUnpacked": "the kit's wheel unpacked",
    "unpacked": "the kit's files in site-packages",
    "imported": "import autograd_viz",
    "modules": "the drawing modules imported",
    "graphviz": "Graphviz-WASM ready in Python",
    "python": "page's Python ready",
    "firstView": "first view computed (layout, SVG)",
    "firstDrawing": "first drawing shown",
}
RESOURCES = (
    "performance.getEntriesByType('resource').map((e) => "
    "[e.name.split('/').pop(), e.startTime, e.responseEnd, e.transferSize])"
)


def _first_drawing(page: object, split: bool = False) -> float:
    page.wait_for_function(READY, timeout=180_000)
    times = page.evaluate("window.avzPlayground.times")
    if split:
        for mark in MARKS:
            if mark in times:
                SPLITS.setdefault(mark, []).append(times[mark] / 1000)
        for name, start, end, size in page.evaluate(RESOURCES):
            FETCHES.setdefault(name, []).append((start / 1000, end / 1000, size))
        imports = page.evaluate("window.avzPlayground.imports || null")
        if imports:
            IMPORTS.append(json.loads(imports))
    return times["firstDrawing"] / 1000


def _note_wasm_type(response: object) -> None:
    if response.url.endswith(".wasm"):
        WASM_TYPES.add(response.headers.get("content-type", "(none)"))


def _transferred(page: object) -> int:
    return page.evaluate(
        "performance.getEntriesByType('navigation').concat(performance.getEntriesByType("
        "'resource')).reduce((n, e) => n + (e.transferSize || 0), 0)"
    )


def _redraws(page: object, mode: str, n: int) -> list[float]:
    from autograd_viz.playground.expression import build

    names = ["w1", "x1", "w2", "x2", "w3", "x3", "w4", "x4", "b", "y"]
    assert len(build(TWENTY[0], dict.fromkeys(names, "0.5")).topological_order()) == 20
    page.goto(page.url.split("#")[0] + f"#e=x*2&x=1&mode={mode}")
    page.wait_for_function(f"window.avzPlayground.state.mode === '{mode}'")
    times = []
    for k in range(n + 2):  # the first two build the inputs' boxes: not counted
        renders = page.evaluate("window.avzPlayground.renders")
        page.fill("#expr", TWENTY[k % 2])
        page.wait_for_function("(n) => window.avzPlayground.renders > n", arg=renders)
        page.wait_for_timeout(100)
        if k >= 2:
            times.append(page.evaluate("window.avzPlayground.last.ms") / 1000)
    return times


def _show(name: str, values: list[float], unit: str = "s", scale: float = 1.0) -> None:
    shown = [v * scale for v in values]
    print(f"{name:<44} median {statistics.median(shown):7.2f} {unit}"
          f"  (min {min(shown):.2f}, max {max(shown):.2f}, n={len(shown)})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_site")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-only", action="store_true",
                        help="only the cold first drawing and its breakdown (quicker)")  # fmt: skip
    args = parser.parse_args()
    site = args.site
    if not (site / "playground" / "index.html").exists():
        site = Path(tempfile.mkdtemp()) / "site"
        subprocess.run(["bash", "scripts/lite.sh", "--playground-only", "--output", str(site)],
                       cwd=ROOT, check=True)  # fmt: skip
    from playwright.sync_api import sync_playwright

    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    cold, warm_sw, warm_http, sizes, draw_ms, step_ms = [], [], [], [], [], []
    with serve(site, name="playground") as base, sync_playwright() as p:
        url = base + "/playground/"
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            page.on("response", _note_wasm_type)
            load = os.getloadavg()[0]
            page.goto(url + LINK)
            cold.append(_first_drawing(page, split=True))
            print(f"  cold run {len(cold)}: {cold[-1]:.2f} s (load {load:.2f})", flush=True)
            sizes.append(_transferred(page))
            if args.cold_only:
                context.close()
                continue
            page.evaluate("navigator.serviceWorker.ready.then(() => true)")
            page.wait_for_function(SNAPSHOT_MADE, timeout=180_000)
            for _ in range(2):  # the 1st reload from the worker's cache, then the 2nd
                page.reload()
                warm_sw.append(_first_drawing(page))
                assert page.evaluate("window.avzPlayground.times.fromSnapshot") is True
            context.close()

            context = browser.new_context(viewport={"width": 1280, "height": 720},
                                          service_workers="block")  # fmt: skip
            page = context.new_page()
            page.goto(url + LINK)
            _first_drawing(page)
            page.wait_for_function(SNAPSHOT_MADE, timeout=180_000)
            page.evaluate(DROP_SNAPSHOT)  # the HTTP cache alone (with the build's snapshot, if any)
            page.reload()
            warm_http.append(_first_drawing(page))
            draw_ms += _redraws(page, "draw", 5)
            step_ms += _redraws(page, "steps", 5)
            context.close()
        browser.close()
    print(f"site: {site}")
    _show("cold: first drawing, empty cache", cold)
    for mark, values in SPLITS.items():
        _show(f"  cold, at {MARKS[mark]}", values)
    print("  cold, downloads (median start -> end, s; bytes):")

    def started(item: tuple[str, list]) -> float:
        return statistics.median(r[0] for r in item[1])

    for name, runs in sorted(FETCHES.items(), key=started):
        start = statistics.median(r[0] for r in runs)
        end = statistics.median(r[1] for r in runs)
        print(f"    {name[:40]:<40} {start:6.2f} -> {end:6.2f}  {max(r[2] for r in runs):>10,}")
    if IMPORTS:
        ours = [m for m in IMPORTS[0] if m.startswith("autograd_viz")]
        print(f"  modules imported for the first drawing: {len(IMPORTS[0])} "
              f"({len(ours)} of the kit): {' '.join(IMPORTS[0])}")  # fmt: skip
    print(f"  .wasm served as: {', '.join(sorted(WASM_TYPES)) or '(no .wasm fetched)'}")
    if not args.cold_only:
        _show("warm: reload, service worker + Python snapshot", warm_sw)
        _show("warm: reload, HTTP cache only, no worker", warm_http)
        _show("redraw, 20-value graph, draw mode", draw_ms, "ms", 1000)
        _show("redraw, 20-value graph, step mode (player)", step_ms, "ms", 1000)
    print(f"{'transferred for the first drawing':<44} {statistics.median(sizes) / 1e6:7.2f} MB")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
