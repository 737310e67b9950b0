"""How fast the playground page (`_site/playground/`) draws, in Chromium on this machine.

It serves the built site on 127.0.0.1 (building it first with `bash scripts/lite.sh
--playground-only` if `--site` has no playground) and drives /usr/bin/chromium with Playwright:

- **cold**: a new browser context (empty HTTP cache, no service worker) opens a link; the time
  from navigation start to the first drawing on screen (the page's own `performance.now()` when
  it has shown the link's graph), and the bytes the page transferred for it;
- **warm**: the same context reloads the same link twice, once the page's service worker is
  active and its snapshot of Python is made (what a learner gets on later visits, and
  offline), and once in a context whose service workers are blocked and whose Cache Storage
  is emptied (the browser's HTTP cache alone, Python started afresh);
- **redraw**: typing a new expression of a 20-value graph (`tanh(w1*x1 + ... + b) * y`,
  alternating two versions), from the input event to the new drawing painted, in draw mode and
  in step mode (the kit's inline player).

It prints medians (with the range) and the machine's load average before and after: the
machine is shared, and on 2 cores a busy neighbour doubles the cold time.

Targets (issue 21): cold <= 6 s, warm <= 2 s, redraw <= 300 ms for a 20-node graph.

Run: `python benchmarks/playground.py` (`--runs N`, default 3; `--site DIR`, default _site).
"""

from __future__ import annotations

import argparse
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
SNAPSHOT_MADE = "!!(window.avzPlayground.snapshot && window.avzPlayground.snapshot.ok)"
DROP_SNAPSHOT = "caches.keys().then((ks) => Promise.all(ks.map((k) => caches.delete(k))))"


SPLITS: dict[str, list[float]] = {}  # where the cold time goes: the page's own marks


def _first_drawing(page: object, split: bool = False) -> float:
    page.wait_for_function(READY, timeout=180_000)
    times = page.evaluate("window.avzPlayground.times")
    if split:
        for mark in ("pyodide", "unpacked", "modules", "graphviz", "firstDrawing"):
            SPLITS.setdefault(mark, []).append(times[mark] / 1000)
    return times["firstDrawing"] / 1000


def _transferred(page: object) -> int:
    return page.evaluate(
        "performance.getEntriesByType('navigation').concat(performance.getEntriesByType("
        "'resource')).reduce((n, e) => n + (e.transferSize || 0), 0)"
    )


def _redraws(page: object, mode: str, n: int) -> list[float]:
    from autograd_viz.expression import build

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
            page.goto(url + LINK)
            cold.append(_first_drawing(page, split=True))
            sizes.append(_transferred(page))
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
            page.evaluate(DROP_SNAPSHOT)  # the HTTP cache alone: Python starts afresh
            page.reload()
            warm_http.append(_first_drawing(page))
            assert not page.evaluate("window.avzPlayground.times.fromSnapshot")
            draw_ms += _redraws(page, "draw", 5)
            step_ms += _redraws(page, "steps", 5)
            context.close()
        browser.close()
    print(f"site: {site}")
    _show("cold: first drawing, empty cache", cold)
    names = {"pyodide": "Pyodide ready", "unpacked": "the kit's wheel unpacked",
             "modules": "the kit imported", "graphviz": "Graphviz-WASM ready",
             "firstDrawing": "first drawing shown"}  # fmt: skip
    for mark, values in SPLITS.items():
        _show(f"  cold, at {names[mark]}", values)
    _show("warm: reload, service worker + Python snapshot", warm_sw)
    _show("warm: reload, HTTP cache only, no snapshot", warm_http)
    _show("redraw, 20-value graph, draw mode", draw_ms, "ms", 1000)
    _show("redraw, 20-value graph, step mode (player)", step_ms, "ms", 1000)
    print(f"{'transferred for the first drawing':<44} {statistics.median(sizes) / 1e6:7.2f} MB")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
