"""The kit's widgets keep hearing their kernel when anywidget's start-up wait runs out.

anywidget (0.11) gives each model 2 s to load its module; on a busy machine it takes longer,
and anywidget then drops every message the kernel sends that model ("[anywidget] Failed to
initialize model."): explore stayed on its old numbers and said the kernel had gone, the quiz
gave no verdict, a player's equation was never typeset. CI met this once under load. Here the
page's 2 s timers are made to run out at once (an init script), so every model misses the
wait, in real JupyterLab with a real kernel: each widget must still answer.
"""

from __future__ import annotations

import pytest
from player_page import demo_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "anywidget_wait.ipynb"
EXPLORE = """\
from autograd_viz import Value, explore, quiz
explore(lambda x, y: (x + y) * y, x=2, y=3)"""
QUIZ = """\
x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
quiz(z)"""
PLAYER = "(x * y).animate()"

# anywidget's wait is `AbortSignal.timeout(2000)`: every 2 s timeout of the page ends at once
_NO_WAIT = """(() => {
  const timeout = AbortSignal.timeout.bind(AbortSignal);
  AbortSignal.timeout = (ms) => timeout(ms === 2000 ? 0 : ms);
})()"""


def test_explore_quiz_and_player_hear_the_kernel_after_anywidgets_wait_ran_out(jupyterlab, page):
    p = page.page
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    p.add_init_script(_NO_WAIT)
    jupyterlab.open_notebook(p, NOTEBOOK, demo_notebook(EXPLORE, QUIZ, PLAYER))
    jupyterlab.run_all(p, NOTEBOOK, ".jp-OutputArea .avz-player .avz-eq")
    # the wait ran out: anywidget reports it, and without the kit's fix every answer is lost
    assert any("Failed to initialize model" in e for e in errors), errors

    explorer = p.locator(".jp-OutputArea .avz-explore").first
    grad = explorer.locator('[id="v1-grad"]')
    assert grad.text_content() == "grad 8"
    explorer.get_by_label("x, a number").fill("1")  # ∂z/∂y = x + 2y = 7
    p.wait_for_function("(e) => e.textContent === 'grad 7'", arg=grad.element_handle(),
                        timeout=20_000)  # fmt: skip
    assert explorer.get_attribute("data-kernel") is None  # never "the kernel has gone"

    board = p.locator(".jp-OutputArea .avz-quiz").first
    dy = board.get_by_label("∂z/∂y", exact=True)
    dy.fill("8")
    dy.press("Enter")
    board.locator(".avz-quiz-feedback", has_text="✔ Right: ∂z/∂y = 8.").wait_for(timeout=20_000)

    # the player's KaTeX comes from its kernel side: its equation is typeset
    p.locator(".jp-OutputArea .avz-player .avz-eq .katex").first.wait_for(timeout=30_000)
    assert page.foreign_requests() == []
