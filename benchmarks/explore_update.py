"""Benchmark: `explore()` update time, from an input change to the new numbers painted.

The issue's budget: ≤ 100 ms for a 20-node graph, kernel side + browser paint. The graph:
two tanh neurons on two inputs and a squared error (20 values, 7 inputs). Each update sets
the x1 number box to a new value and fires its `input` event in Chromium, then waits until
the kernel's answer is applied and the frame that shows it has ended ("painted": a
`requestAnimationFrame` after the answer, then a task posted from it — the end used by
`benchmarks/player_step.py`). The measure of earlier sessions ("two rAFs": two animation
frames after the answer, which waits a whole extra frame) is kept as a column. With `--lab`,
each update is also split: request sent → answer arrives (`apply()` starts: the kernel's
handler plus transit both ways), `apply()` itself, and the kernel's handler alone (timed in
the kernel); and the bytes of websocket frames each way per update.

* `kernel`: `Explorer.recompute` alone in Python (f, the snapshot, the trace, the ask table);
* `chromium`: the whole round trip in Chromium with the kernel side in this process (the real
  ES module; the comm is a Playwright binding, `tests/browser/explore_harness.py`);
* `jupyterlab` (with `--lab`): the same in real JupyterLab, over a real kernel's comm.

    python benchmarks/explore_update.py               # 30 updates each
    python benchmarks/explore_update.py --lab --check # exit 1 if a median is over 100 ms
    python benchmarks/explore_update.py --lab --base /tmp/main_kit --nodelay  # the splits
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE.parent / "tests"))

from autograd_viz import Value, explore  # noqa: E402
from autograd_viz.open.snapshot import snapshot  # noqa: E402

BUDGET_MS = 100.0
F_SOURCE = """\
def f(x1, x2, w1, w2, v1, v2, b):
    h = (x1 * w1 + x2 * w2 + b).tanh()
    k = (x1 * v1 + x2 * v2).tanh()
    return (h * k - 0.5) ** 2
"""
INPUTS = {"x1": 2.0, "x2": 0.5, "w1": -1.0, "w2": 1.0, "v1": 0.5, "v2": -0.5, "b": 1.0}

# One update: set x1, fire `input`, wait for the answer to be applied, then the end of the
# frame that shows it (rAF, then a task); the old end (two rAFs) is noted on the way. The
# view marks `avz-explore-answer` / `avz-explore-applied` (performance marks) in `apply()`.
_UPDATE = """async ([value, scope]) => {
  const root = document.querySelector(scope + ' .avz-explore');
  const box = root.querySelector('[aria-label="x1, a number"]');
  const before = root.dataset.answered;
  const t0 = performance.now();
  const applied = new Promise((done) => {
    const seen = new MutationObserver(() => {
      if (root.dataset.answered !== before) { seen.disconnect(); done(performance.now()); }
    });
    seen.observe(root, { attributes: true, attributeFilter: ['data-answered'] });
  });
  box.value = String(value);
  box.dispatchEvent(new Event('input'));
  const t1 = await applied;
  let twoRafs = 0;
  const painted = await new Promise((r) => requestAnimationFrame(() => {
    setTimeout(() => r(performance.now()), 0);
    requestAnimationFrame(() => { twoRafs = performance.now(); });
  }));
  while (!twoRafs) await new Promise((r) => setTimeout(r, 1));
  const mark = (name) => {
    const m = performance.getEntriesByName(name, 'mark').pop();
    return m && m.startTime >= t0 ? m.startTime : null;
  };
  const answer = mark('avz-explore-answer');
  return {painted: painted - t0, twoRafs: twoRafs - t0, applied: t1 - t0,
          sentAt: performance.timeOrigin + t0,
          answerAt: answer === null ? null : performance.timeOrigin + answer,
          transit: answer === null ? null : answer - t0,
          apply: answer === null ? null : mark('avz-explore-applied') - answer};
}"""


def _f():
    namespace: dict = {}
    exec(F_SOURCE, namespace)
    return namespace["f"]


def _values(n: int) -> list[float]:
    return [round(1.0 + 0.037 * k, 3) for k in range(1, n + 1)]


def kernel_ms(n: int) -> list[float]:
    ex = explore(_f(), **INPUTS)
    out = []
    for x in _values(n):
        start = time.perf_counter()
        ex.recompute({**INPUTS, "x1": x})
        out.append((time.perf_counter() - start) * 1000)
    return out


def chromium_ms(n: int) -> list[float]:
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from explore_harness import show
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page()
        show(page, explore(_f(), **INPUTS))
        out = [page.evaluate(_UPDATE, [x, "#explorer"]) for x in _values(n)]
        browser.close()
    return out


# in the benchmark's kernel: each request's handler timed, one line per request in a file
_TIMED = """import time
from autograd_viz.front import explore as _explore_module
_handler = _explore_module.Explorer._on_request
def _timed(self, change):
    start, wall = time.perf_counter(), time.time() * 1000
    _handler(self, change)
    with open({path!r}, "a") as out:
        ms = (time.perf_counter() - start) * 1000
        out.write(f"{{ms}} {{wall}} {{wall + ms}}\\n")
_explore_module.Explorer._on_request = _timed
"""


# --nodelay: a server config that turns Nagle's algorithm off on the kernel's websocket
# (jupyter_server leaves it on: a small frame written after another waits for the browser's
# delayed ACK, up to 40 ms on Linux) — to see how much of the way back that is
_NODELAY = """from jupyter_server.services.kernels.websocket import KernelWebsocketHandler
_open = KernelWebsocketHandler.open
async def _open_nodelay(self, *args, **kwargs):
    self.set_nodelay(True)
    return await _open(self, *args, **kwargs)
KernelWebsocketHandler.open = _open_nodelay
"""


def jupyterlab_ms(
    n: int, kit: Path | None = None, nodelay: bool = False
) -> tuple[list[dict], list[float], dict]:
    """`n` updates in real JupyterLab (its kernel running `kit`, else this checkout): per
    update the browser's split, the kernel handler's ms, and websocket bytes per update."""
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="explore_bench_"))
    nb = nbformat.v4.new_notebook()
    timed = _TIMED.format(path=str(root / "kernel_ms.txt"))
    code = f"{timed}\n{F_SOURCE}\nfrom autograd_viz import explore\nexplore(f, **{INPUTS!r})"
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nbformat.write(nb, root / "bench.ipynb")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(8)
    log = (root / "jupyterlab.log").open("wb")
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".cfg"), "JUPYTER_PLATFORM_DIRS": "1"}
    if kit is not None:
        env["PYTHONPATH"] = str(kit)
    if nodelay:
        (root / ".cfg").mkdir(exist_ok=True)
        (root / ".cfg" / "jupyter_server_config.py").write_text(_NODELAY)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: see {root / 'jupyterlab.log'}")
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        # the notebook's kernel first (as tests/browser/conftest.py does): no "Select Kernel"
        session = {"path": "bench.ipynb", "name": "bench.ipynb", "type": "notebook",
                   "kernel": {"name": "python3"}}  # fmt: skip
        urllib.request.urlopen(urllib.request.Request(
            f"{url}/api/sessions", data=json.dumps(session).encode(),
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        ), timeout=60).close()  # fmt: skip
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            frames = {"sent": [0, 0], "received": [0, 0]}  # websocket frames, bytes

            def count(way: str, payload: object) -> None:
                frames[way][0] += 1
                frames[way][1] += len(payload)

            def watch(ws: object) -> None:
                ws.on("framesent", lambda payload: count("sent", payload))
                ws.on("framereceived", lambda payload: count("received", payload))

            page.on("websocket", watch)
            page.goto(f"{url}/lab/tree/bench.ipynb?token={token}&reset")
            idle = ".jp-Notebook-ExecutionIndicator[data-status='idle']"
            try:
                page.locator(idle).first.wait_for(timeout=180_000)
            except Exception as err:
                page.screenshot(path=str(root / "no_kernel.png"))
                shot = root / "no_kernel.png"
                raise RuntimeError(f"no idle kernel in JupyterLab: see {shot}") from err
            for _attempt in range(3):
                dialog = page.locator(".jp-Dialog")
                if dialog.count():  # e.g. a kernel or news question: say so, then dismiss it
                    print("  (dismissed a JupyterLab dialog:", dialog.first.inner_text()[:80], ")")
                    page.keyboard.press("Escape")
                page.locator(".jp-Cell .jp-InputArea-editor").first.click()
                page.keyboard.press("Shift+Enter")
                try:
                    page.wait_for_selector(".jp-OutputArea .avz-explore svg", timeout=60_000)
                    break
                except Exception:
                    continue
            page.wait_for_timeout(1000)
            (root / "kernel_ms.txt").write_text("")
            before = {k: list(v) for k, v in frames.items()}
            out = [page.evaluate(_UPDATE, [x, ".jp-OutputArea"]) for x in _values(n)]
            page.wait_for_timeout(500)
            per = {way: [(frames[way][i] - before[way][i]) / n for i in range(2)]
                   for way in frames}  # fmt: skip
            browser.close()
        kernel = [[float(x) for x in line.split()] for line in
                  (root / "kernel_ms.txt").read_text().splitlines()]  # fmt: skip
        for update, (_ms, start, end) in zip(out, kernel, strict=False):  # wall clock, ms
            update["to kernel"] = start - update["sentAt"]
            update["from kernel"] = None if update["answerAt"] is None else update["answerAt"] - end
        return out, [k[0] for k in kernel], per
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=30, help="updates per measurement")
    parser.add_argument("--lab", action="store_true", help="also measure in real JupyterLab")
    parser.add_argument("--check", action="store_true", help="exit 1 if over the budget")
    parser.add_argument("--base", type=Path, help="with --lab: also a copy of the kit before")
    parser.add_argument("--nodelay", action="store_true",
                        help="with --lab: also with TCP_NODELAY on its websocket")  # fmt: skip
    args = parser.parse_args()
    nodes = len(snapshot(_f()(**{k: Value(v) for k, v in INPUTS.items()})).nodes)
    answer = len(json.dumps(explore(_f(), **INPUTS).recompute({**INPUTS, "x1": 1.5})))
    print(f"explore() update, a graph of {nodes} values, {args.repeat} updates each; "
          f"one answer is {answer / 1000:.1f} KB of JSON")  # fmt: skip
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    over = False

    def line(name: str, times: list[float]) -> None:
        times = [t for t in times if t is not None]
        if not times:
            print(f"  {name:<34} (not marked by this kit)")
            return
        print(f"  {name:<34} median {statistics.median(times):6.1f} ms   "
              f"range {min(times):6.1f}–{max(times):6.1f} ms   n={len(times)}")  # fmt: skip

    line("kernel: recompute()", kernel_ms(args.repeat))
    runs = {"chromium (harness)": chromium_ms(args.repeat)}
    splits = {}
    if args.lab:
        labs = {"jupyterlab": (None, False)}
        labs |= {"jupyterlab base": (args.base, False)} if args.base else {}
        labs |= {"jupyterlab, no Nagle": (None, True)} if args.nodelay else {}
        for which, (kit, nodelay) in labs.items():
            runs[which], kernel, frames = jupyterlab_ms(args.repeat, kit, nodelay)
            splits[which] = (kernel, frames)
    for name, got in runs.items():
        line(f"{name}: painted (rAF, task)", [u["painted"] for u in got])
        line(f"{name}: two rAFs (old measure)", [u["twoRafs"] for u in got])
        if name in splits:
            kernel, frames = splits[name]
            line(f"{name}: sent → answer arrives", [u["transit"] for u in got])
            line(f"{name}: browser → kernel handler", [u.get("to kernel") for u in got])
            line(f"{name}: kernel handler → apply()", [u.get("from kernel") for u in got])
            line(f"{name}: apply()", [u["apply"] for u in got])
            line(f"{name}: kernel handler", kernel)
            print(f"  {name}: per update, websocket frames sent {frames['sent'][0]:.1f} "
                  f"({frames['sent'][1] / 1000:.1f} KB), received {frames['received'][0]:.1f} "
                  f"({frames['received'][1] / 1000:.1f} KB)")  # fmt: skip
        over |= statistics.median([u["painted"] for u in got]) > BUDGET_MS
    print(f"budget: median ≤ {BUDGET_MS:.0f} ms (kernel side + browser paint)")
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())
