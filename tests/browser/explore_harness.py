"""A page that runs the explorer's real ES module in Chromium with the real kernel side in
this Python process: a stand-in anywidget model whose `save_changes()` calls
`Explorer._on_request` through a Playwright binding (the comm of a notebook, minus the
notebook). `stop()` makes it stop answering, as a stopped kernel does.

Used by tests/browser/test_explore_browser.py and benchmarks/explore_update.py.
"""

from __future__ import annotations

import json

from autograd_viz.front.explore import Explorer

# The stand-in model: get/set/save_changes/on/off, as anywidget gives a render function.
_MODEL = """
([state, text]) => {
  const listeners = {};
  const fire = (name) => (listeners[name] || []).slice().forEach((fn) => fn());
  window.avzKernelStopped = false;
  const model = {
    get: (key) => state[key],
    set: (key, value) => { state[key] = value; },
    save_changes() {
      if (window.avzKernelStopped) return;
      window.avzKernel(JSON.stringify(state.request)).then((answer) => {
        const got = JSON.parse(answer);
        if (got.svg !== undefined) { state.svg = got.svg; fire("change:svg"); }
        state.inputs = got.inputs;
        state.result = got.result;
        fire("change:result");
      });
    },
    on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); },
    off(name, fn) { listeners[name] = (listeners[name] || []).filter((f) => f !== fn); },
  };
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  return import(url).then((module) => {
    const el = document.createElement("div");
    el.id = "explorer";
    document.body.appendChild(el);
    module.default.render({ model, el });
  });
}
"""

STATE = ("mode", "svg", "spec", "inputs", "request", "result", "kernel_gone", "timeout_ms")


def show(page: object, explorer: Explorer) -> None:
    """Render `explorer` on `page` (a Playwright page), its kernel side in this process."""

    def kernel(request: str) -> str:
        before = explorer.svg
        explorer.request = json.loads(request)
        answer = {"result": explorer.result, "inputs": explorer.inputs}
        if explorer.svg != before:
            answer["svg"] = explorer.svg
        return json.dumps(answer)

    page.expose_function("avzKernel", kernel)
    # the widget's stylesheet in the page's head, as anywidget puts it there
    head = f"<style>{explorer._css}</style>"
    page.set_content(f"<!doctype html><html><head>{head}</head><body></body></html>")
    state = {key: getattr(explorer, key) for key in STATE}
    page.evaluate(_MODEL, [state, explorer._esm])
    page.wait_for_selector("#explorer svg")


def stop(page: object) -> None:
    """From now on, the stand-in kernel never answers."""
    page.evaluate("() => { window.avzKernelStopped = true; }")
