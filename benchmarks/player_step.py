"""Benchmark: the one player's Next → painted time in Chromium, and the bytes a player saves.

Measured, for the new player (this checkout) and, if `--old` points at a copy of the kit
from before it (`git archive main | tar -x -C /tmp/old_kit`), for the old one in the same run:

* **Next → painted** (what a learner's click meets): in headless Chromium (`/usr/bin/chromium`,
  via Playwright), `--clicks` real clicks on Next (`page.mouse.click`: CDP input events, landing
  at whatever point of the frame they arrive), each timed from the click event's own
  `event.timeStamp` (a capture listener the benchmark adds to the page) to the end of the frame
  that shows the new step: the first DOM change after the click, then `requestAnimationFrame`,
  then a task posted from it. Cross-check: Chromium's Event Timing API (`PerformanceObserver`,
  type `event`, `durationThreshold: 16`, buffered) — how many clicks had a `click`/`pointerup`
  entry (≥ 16 ms), and their durations (rounded by Chromium to 8 ms).
* **clicked right after a frame** (the measure of the previous sessions, kept as a column): a
  script `.click()` issued right after a frame (rAF, then a task), so every click waits almost a
  whole frame for the next vsync; with its "work" (the click's script plus the style and layout
  it forces: what must fit in a 16.7 ms frame). The new page runs the one module every host
  runs (widget, page, inline, deck); the old page ran `page.js` (the old widget was a Stack of
  HTMLMath frames: the issue measured it at 0.09–0.29 s, typically 0.14 s, in JupyterLab).
* **saved bytes** of two animations: notebook 03's walkthrough (the blog's z = (x + y)·y,
  9 steps) and `loss.animate(by="neuron")` on MLP(2, [16, 16, 1]) (73 steps). New: the
  widget's synced state (the step table, the module `_esm`, its `_css`). Old: the widget
  state of every model the player made (frames as HTML, controls, layouts, links) —
  measured by executing the one-cell notebook with nbclient (`store_widget_state=True`).

* with `--lab`: the widget itself in JupyterLab 4 (a server per kit, its kernel running that
  kit), click on Next → that step's frame painted: the new widget steps in the browser, the
  old one's Next ▶ went through the kernel (the issue's ~140 ms).

    python benchmarks/player_step.py
    python benchmarks/player_step.py --old /tmp/old_kit --clicks 60 --lab
    python benchmarks/player_step.py --base /tmp/main_kit --no-bytes --profile  # a change's effect
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

CHROMIUM = os.environ.get("AUTOGRAD_VIZ_CHROMIUM", "/usr/bin/chromium")
HERE = Path(__file__).resolve().parents[1]
PROFILE = False  # --profile: trace the real clicks (tracing itself slows them: a run apart)

BLOG = """
from autograd_viz import Value
x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
root, options = z, {}
"""
MLP = """
from autograd_viz import MLP
loss = (MLP(2, [16, 16, 1], seed=0)([1.0, -1.0]) - 1.0) ** 2
root, options = loss, {"by": "neuron"}
"""
CASES = {"notebook 03 (9 steps)": BLOG, "MLP(2,[16,16,1]) by neuron (73 steps)": MLP}

_PAGE = """
import sys
from autograd_viz.export import save_html
{case}
save_html(root, sys.argv[1], **options)
"""

_STATE = """
{case}
player = root.animate(**options)
player
"""

# per click on Next: "work" = the click's script plus the style and layout it forces (what
# must fit in one 16.7 ms frame), "paint" = from the click to the next painted frame
# (requestAnimationFrame, then a task: includes waiting for the frame's vsync)
_CLICK = """async ({next, reset, clicks}) => {
  const work = [], paint = [];
  for (let i = 0; i < clicks; i++) {
    if (document.querySelector(next).disabled) document.querySelector(reset).click();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const t0 = performance.now();
    document.querySelector(next).click();
    void document.body.offsetHeight;  // style and layout, now
    work.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    paint.push(performance.now() - t0);
  }
  return [work, paint];
}"""


# Real clicks: a capture listener on the page notes each click on Next (`event.timeStamp`),
# waits for the first DOM change after it (synchronous for the one player; the old widget's
# went through the kernel), then a frame (rAF) and a task posted from it: the end of the frame
# that shows the new step. `changed` (optional) names the step on show, so that an unrelated
# DOM change (JupyterLab's own) does not count.
_LISTEN = """(changed) => {
  const step = changed ? new Function("return (" + changed + ")()") : null;
  window.__avzTimes = [];
  window.__avzEvents = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === "click" || e.name === "pointerup") {
        window.__avzEvents.push([e.name, e.duration, e.startTime]);
      }
    }
  }).observe({type: "event", durationThreshold: 16, buffered: true});
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button");
    if (!button || !/Next/.test(button.textContent) || !event.isTrusted) return;
    const t0 = event.timeStamp;
    const before = step ? step() : null;
    const done = () => requestAnimationFrame(() => setTimeout(() => {
      window.__avzTimes.push([t0, performance.now() - t0]);
    }, 0));
    const seen = new MutationObserver(() => {
      if (step && step() === before) return;
      seen.disconnect();
      done();
    });
    seen.observe(document.body, {subtree: true, childList: true, attributes: true,
                                 characterData: true});
  }, true);
}"""


def _real_clicks(page: object, next_button: object, reset: str, clicks: int) -> dict:
    """`clicks` trusted clicks on `next_button` at random points of the frame; returns the
    medians and ranges of click → painted and the Event Timing entries."""
    import random

    rng = random.Random(20)
    for _ in range(clicks):
        if next_button.is_disabled():
            page.evaluate(reset)
            page.wait_for_timeout(50)
        next_button.scroll_into_view_if_needed()
        box = next_button.bounding_box()
        done = page.evaluate("() => window.__avzTimes.length")
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function(f"() => window.__avzTimes.length > {done}", timeout=10_000)
        page.wait_for_timeout(rng.uniform(20, 60))  # the next click: anywhere in a frame
    page.wait_for_timeout(300)  # the last Event Timing entries are delivered
    times = [t for _, t in page.evaluate("() => window.__avzTimes")]
    events = page.evaluate("() => window.__avzEvents")
    clicks_seen = [round(d) for name, d, _ in events if name == "click"]
    return {
        "median": statistics.median(times),
        "range": (min(times), max(times)),
        "n": len(times),
        "event timing clicks ≥16 ms": len(clicks_seen),
        "event timing durations": sorted(clicks_seen),
    }


def _python(code: str, kit: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(kit)}
    subprocess.run([sys.executable, "-c", code, *args], check=True, env=env, cwd=kit)


# the renderer main thread's work, from a Chromium trace of the real clicks: per click, ms in
# each kind (a forced style or layout inside an event handler counts in "script" too)
_KINDS = {
    "script": ("EventDispatch", "FunctionCall", "TimerFire", "FireAnimationFrame"),
    "style": ("UpdateLayoutTree",),
    "layout": ("Layout",),
    "pre-paint and paint": ("PrePaint", "Paint"),
    "layerize and commit": ("Layerize", "Commit"),
}


def _profile(trace: Path, clicks: int) -> dict:
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"
            and e["args"].get("name") == "CrRendererMain"}  # fmt: skip
    kind_of = {name: kind for kind, names in _KINDS.items() for name in names}
    spans: dict[str, list] = {kind: [] for kind in _KINDS}
    for e in events:
        if e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in main and e["name"] in kind_of:
            spans[kind_of[e["name"]]].append((e["ts"], e["ts"] + e.get("dur", 0)))
    out = {}
    for kind, found in spans.items():  # nested events of one kind (a call in a call) once
        total, end = 0.0, float("-inf")
        for start, stop in sorted(found):
            if stop > end:
                total += stop - max(start, end)
                end = stop
        out[kind] = round(total / 1000 / clicks, 2)
    return out


def _traced_clicks(browser: object, page: object, button: object, reset: str, clicks: int):
    """`_real_clicks` under Chromium's tracing; the profile per click joins the result."""
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "trace.json"
        browser.start_tracing(page=page, path=str(trace), categories=["devtools.timeline"])
        real = _real_clicks(page, button, reset, clicks)
        browser.stop_tracing()
        return {**real, "profile": _profile(trace, real["n"])}


def next_to_painted(kit: Path, case: str, clicks: int, browser: object, old: bool) -> dict:
    """On `kit`'s standalone page: real clicks on Next (median ms to the painted frame, its
    range, the Event Timing entries) and the old measure (a script click right after a frame:
    its work and its time to the painted frame)."""
    with tempfile.TemporaryDirectory() as folder:
        page_path = Path(folder) / "player.html"
        _python(_PAGE.format(case=case), kit, str(page_path))
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        page.wait_for_timeout(300)
        selectors = (
            {"next": "#avz-next", "reset": "#avz-first"}
            if old
            else {"next": ".avz-next", "reset": ".avz-first"}
        )
        page.evaluate(_LISTEN, None)
        reset = f"() => document.querySelector({selectors['reset']!r}).click()"
        button = page.locator(selectors["next"]).first
        if PROFILE:
            real = _traced_clicks(browser, page, button, reset, clicks)
        else:
            real = _real_clicks(page, button, reset, clicks)
        page.evaluate(reset)
        work, paint = page.evaluate(_CLICK, {**selectors, "clicks": clicks})
        page.close()
    return {**real, "after frame work": statistics.median(work),
            "after frame painted": statistics.median(paint)}  # fmt: skip


# the step number on show, old widget (.agv-frame-body) or new (.avz-player[data-step])
_LAB_STEP = """() => { const p = document.querySelector('.jp-OutputArea .avz-player');
  if (p) return Number(p.dataset.step);
  const f = document.querySelector('.jp-OutputArea .agv-player .agv-frame-body');
  return f ? Number(f.dataset.step) : 0; }"""
_LAB_CLICK = """async ({next, clicks}) => {
  const step = STEP;
  const work = [], paint = [];
  for (let i = 0; i < clicks; i++) {
    const buttons = [...document.querySelectorAll(next)];
    const button = buttons.find((b) => /Next/.test(b.textContent));
    const before = step();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const t0 = performance.now();
    button.click();
    void document.body.offsetHeight;  // style and layout, now
    let t1 = performance.now();
    while (step() === before && performance.now() - t0 < 5000) {  // the old one: a round trip
      await new Promise((r) => requestAnimationFrame(r));
      void document.body.offsetHeight;
      t1 = performance.now();
    }
    work.push(t1 - t0);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    paint.push(performance.now() - t0);
  }
  return [work, paint];
}""".replace("STEP", _LAB_STEP)


def lab_next_to_painted(kit: Path, clicks: int, browser: object) -> dict:
    """The widget in JupyterLab with `kit` in the kernel: real clicks on Next (to the frame
    that shows the next step; for the old widget this includes the kernel round trip), then
    the old measure (a script click right after a frame: "work" to the step laid out, and to
    the painted frame). At most 26 clicks of each: the chain has 53 steps and the old widget
    has no First button."""
    import secrets
    import socket
    import time
    import urllib.request

    import nbformat

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}  # fmt: skip
        long_chain = "from autograd_viz import Value\nx = Value(0.5, label='x')\nz = x\n"
        long_chain += "for _ in range(10):\n    z = z * x + 1\nplayer = z.animate()\nplayer"
        nb.cells = [nbformat.v4.new_code_cell(long_chain)]  # 53 steps: room for the clicks
        nbformat.write(nb, root / "bench.ipynb")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        token = secrets.token_hex(16)
        env = {**os.environ, "PYTHONPATH": str(kit), "JUPYTER_CONFIG_DIR": str(root / "cfg"),
               "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
               "JUPYTERLAB_WORKSPACES_DIR": str(root / "ws")}  # fmt: skip
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
             "--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
             f"--ServerApp.root_dir={root}"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).close()
                    break
                except OSError:
                    time.sleep(0.2)
            session = urllib.request.Request(  # the kernel starts before the page opens
                f"{url}/api/sessions",
                data=json.dumps({"path": "bench.ipynb", "name": "bench.ipynb", "type": "notebook",
                                 "kernel": {"name": "python3"}}).encode(),
                headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
            )  # fmt: skip
            urllib.request.urlopen(session, timeout=60).close()
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab/tree/bench.ipynb?token={token}&reset")
            page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
                timeout=180_000
            )
            page.wait_for_timeout(2000)  # the widget manager attaches to the kernel
            for _ in range(3):
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
                try:
                    page.wait_for_function(f"() => ({_LAB_STEP})() === 1", timeout=60_000)
                    break
                except Exception:
                    page.reload()
                    page.wait_for_timeout(3000)
            page.wait_for_timeout(1000)
            shown = page.evaluate(
                "() => [...document.querySelectorAll('.jp-OutputArea button')]"
                ".map(b => b.textContent)"
            )
            if not any("Next" in b for b in shown):
                page.screenshot(path=str(Path(tempfile.gettempdir()) / "player_step_lab.png"))
                raise RuntimeError(f"no Next button in the output ({kit}): {shown}")
            clicks = min(clicks, 26)
            page.evaluate(_LISTEN, _LAB_STEP)
            next_button = page.locator(".jp-OutputArea button", has_text="Next").first
            reset = "() => document.querySelector('.jp-OutputArea .avz-first').click()"
            if PROFILE:
                real = _traced_clicks(browser, page, next_button, reset, clicks)
            else:
                real = _real_clicks(page, next_button, reset, clicks)
            buttons = {"next": ".jp-OutputArea button", "clicks": clicks}
            work, paint = page.evaluate(_LAB_CLICK, buttons)
            page.close()
        finally:
            os.killpg(server.pid, 15)
            server.wait(timeout=30)
    return {**real, "after frame work": statistics.median(work),
            "after frame painted": statistics.median(paint)}  # fmt: skip


def saved_bytes(kit: Path, case: str) -> int:
    """Bytes of widget state an executed one-cell notebook saves for the player."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(_STATE.format(case=case))]
    with tempfile.TemporaryDirectory() as folder:
        client = NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                                resources={"metadata": {"path": folder}})  # fmt: skip
        client.execute(env={**os.environ, "PYTHONPATH": str(kit)})
    state = nb.metadata.widgets["application/vnd.jupyter.widget-state+json"]["state"]
    return len(json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _columns(which: str, got: dict) -> dict:
    low, high = got["range"]
    return {
        f"{which} click→painted ms (real clicks, median)": round(got["median"], 1),
        f"{which} click→painted range": f"{low:.1f}–{high:.1f}",
        f"{which} clicks": got["n"],
        f"{which} event timing entries ≥16 ms": got["event timing clicks ≥16 ms"],
        f"{which} event timing ms": got["event timing durations"],
        f"{which} clicked right after a frame: work ms": round(got["after frame work"], 1),
        f"{which} clicked right after a frame: →painted ms": round(got["after frame painted"], 1),
    } | ({f"{which} main thread ms per click": got["profile"]} if "profile" in got else {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, help="a copy of the kit before the one player")
    parser.add_argument("--base", type=Path, help="the one player before a change (git archive)")
    parser.add_argument("--clicks", type=int, default=40)
    parser.add_argument("--lab", action="store_true", help="also time the widget in JupyterLab")
    parser.add_argument("--no-bytes", action="store_true", help="skip the saved-bytes runs")
    parser.add_argument("--profile", action="store_true",
                        help="trace the real clicks: main-thread ms per click by kind")  # fmt: skip
    args = parser.parse_args(argv)
    global PROFILE
    PROFILE = args.profile
    from playwright.sync_api import sync_playwright

    kits = {"new": HERE} | ({"base": args.base.resolve()} if args.base else {})
    kits |= {"old": args.old.resolve()} if args.old else {}
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        for name, case in CASES.items():
            row = {"case": name}
            for which, kit in kits.items():
                got = next_to_painted(kit, case, args.clicks, browser, old=which == "old")
                row |= _columns(which, got)
                if not args.no_bytes:
                    row[f"{which} saved KB"] = round(saved_bytes(kit, case) / 1000, 1)
            rows.append(row)
        if args.lab:
            row = {"case": "widget in JupyterLab 4 (a 53-step chain)"}
            for which, kit in kits.items():
                row |= _columns(which, lab_next_to_painted(kit, args.clicks, browser))
            rows.append(row)
        browser.close()
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
