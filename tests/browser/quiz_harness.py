"""A page that runs the quiz's real front end (player.js in quiz mode) in Chromium with the real
kernel side in this Python process: a stand-in anywidget model whose `send()` hands the message
to `Quiz`'s handler through a Playwright binding and takes the new `state` back (the comm of a
notebook, minus the notebook). `stop()` makes it stop answering, as a stopped kernel does.
"""

from __future__ import annotations

import json

from autograd_viz.front.quiz import Quiz

# The stand-in model: get/set/on/off/send, as anywidget gives a render function.
_MODEL = """
([state, text]) => {
  const listeners = {};
  const fire = (name) => (listeners[name] || []).slice().forEach((fn) => fn());
  window.avzKernelStopped = false;
  const model = {
    get: (key) => state[key],
    set: (key, value) => { state[key] = value; },
    save_changes() {},
    send(content) {
      if (window.avzKernelStopped) return;
      window.avzQuizKernel(JSON.stringify(content)).then((answer) => {
        state.state = JSON.parse(answer);
        fire("change:state");
      });
    },
    on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); },
    off(name, fn) { listeners[name] = (listeners[name] || []).filter((f) => f !== fn); },
  };
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  return import(url).then((module) => {
    const el = document.createElement("div");
    el.id = "quiz";
    document.body.appendChild(el);
    module.default.render({ model, el });
  });
}
"""

STATE = ("mode", "svg", "slots", "asked", "intro", "answer_help", "state", "kernel_gone",
         "timeout_ms")  # fmt: skip


def show(page: object, quiz: Quiz) -> None:
    """Render `quiz` on `page` (a Playwright page), its kernel side in this process."""

    if not hasattr(page, "avz_quiz"):  # the binding is the page's, once: it asks the latest

        def kernel(message: str) -> str:
            page.avz_quiz._handle_custom_msg(json.loads(message), [])
            return json.dumps(page.avz_quiz.state)

        page.expose_function("avzQuizKernel", kernel)
    page.avz_quiz = quiz
    # the widget's stylesheet in the page's head, as anywidget puts it there
    head = f"<style>{quiz._css}</style>"
    page.set_content(f"<!doctype html><html><head>{head}</head><body></body></html>")
    state = {key: getattr(quiz, key) for key in STATE}
    page.evaluate(_MODEL, [state, quiz._esm])
    page.wait_for_selector("#quiz svg")


def stop(page: object) -> None:
    """From now on, the stand-in kernel never answers."""
    page.evaluate("() => { window.avzKernelStopped = true; }")
