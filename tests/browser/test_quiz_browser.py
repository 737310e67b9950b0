"""The fill-in quiz in real JupyterLab and Chromium, as a learner meets it.

z = (x + y)·y at x = 2, y = 3: every gradient is a blank on its node's grad cell. Tab moves
through the blanks in backward order (z, then x + y, then x, then y); a wrong answer for
∂z/∂y names the rule to apply (the sum of the two paths, with their numbers); the right one,
8, turns y's node to its "known" state, blue, and the progress line counts down. The blanks
take their colours from the palette's custom properties, declared with the quiz's stylesheet
(quiz.css copies no colour).
"""

from __future__ import annotations

import nbformat
import pytest
from player_page import BLUE, demo_notebook
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from autograd_viz.viz.palette import COLORS

pytestmark = pytest.mark.browser

QUIZ = ".jp-OutputArea .avz-quiz"
SOURCE = """\
from autograd_viz import Value, quiz

x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
quiz(z)"""

# The focused blank: the value node it belongs to and its accessible name.
_FOCUSED = """() => {
  const el = document.activeElement;
  const blank = el && el.closest('.avz-quiz-blank');
  if (!blank) return null;
  const node = [...blank.classList].find((c) => c.startsWith('avz-quiz-node-'));
  return {node: node && node.slice('avz-quiz-node-'.length),
          label: el.labels && el.labels.length ? el.labels[0].textContent : ''};
}"""

# Where a blank sits, and where its node's grad cell is drawn (client pixels).
_GEOMETRY = """([blank, cell]) => {
  const r = (el) => { const b = el.getBoundingClientRect();
    return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
  return {blank: r(blank), cell: r(cell)};
}"""


def _run_until_the_quiz_shows(page: object) -> None:
    """Run All until the quiz is on screen; a run dropped by a just-connected kernel (or a
    "model not found" widget) is retried, at most three times, as a learner would."""
    shown = f"{QUIZ} .avz-quiz-blank input"
    done = "(s) => !!document.querySelector(s) || /model not found/.test(document.body.innerText)"
    for _attempt in range(3):
        page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
            timeout=120_000
        )
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:
            page.wait_for_function(done, arg=shown, timeout=30_000)
        except PlaywrightTimeoutError:
            continue
        if page.locator(shown).count():
            return
        page.reload()
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)
    raise AssertionError("the quiz never appeared in JupyterLab")


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _fill(blank: object, text: str) -> None:
    blank.fill(text)
    blank.press("Enter")


def test_quiz_tab_follows_the_backward_pass_hints_the_two_paths_and_turns_y_blue(jupyterlab, page):
    nbformat.write(demo_notebook(SOURCE), jupyterlab.root / "quiz_demo.ipynb")
    jupyterlab.start_kernel("quiz_demo.ipynb")
    p = page.page
    p.goto(jupyterlab.notebook_url("quiz_demo.ipynb"))
    p.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)
    _run_until_the_quiz_shows(p)
    quiz = p.locator(QUIZ).first
    progress = quiz.locator(".avz-quiz-progress")
    assert "4 of 4" in progress.inner_text()

    # Tab order is the backward pass: z (the seed), x + y, x, y
    blanks = quiz.locator(".avz-quiz-blank input")
    assert blanks.count() == 4
    blanks.first.focus()
    order = [p.evaluate(_FOCUSED)]
    for _ in range(3):
        p.keyboard.press("Tab")
        order.append(p.evaluate(_FOCUSED))
    assert [o["node"] for o in order] == ["v3", "v2", "v0", "v1"], order
    assert [o["label"] for o in order] == ["∂z/∂z", "∂z/∂(x + y)", "∂z/∂x", "∂z/∂y"], order

    # each blank sits on its own node's grad cell
    dy = quiz.get_by_label("∂z/∂y", exact=True)
    where = p.evaluate(_GEOMETRY, [dy.element_handle(), quiz.locator("#v1-grad").element_handle()])
    middle = (where["cell"]["left"] + where["cell"]["right"]) / 2
    assert where["blank"]["left"] <= middle <= where["blank"]["right"], where
    assert where["blank"]["top"] <= where["cell"]["bottom"], where
    assert where["cell"]["top"] <= where["blank"]["bottom"], where

    # a wrong answer says which rule to apply, with the numbers it needs
    _fill(dy, "5")
    feedback = quiz.locator(".avz-quiz-feedback")
    feedback.locator("text=sum of the two paths").wait_for(timeout=30_000)
    said = feedback.inner_text()
    assert "∂z/∂y" in said and "5" in said and "3" in said, said
    # the missed blank's border is the palette's wrong-answer colour, its text the ink
    missed = quiz.locator(".avz-quiz-blank.avz-quiz-missed input")
    missed.wait_for(timeout=30_000)
    style = missed.evaluate(
        "(el) => { const s = getComputedStyle(el); return [s.borderTopColor, s.color]; }"
    )
    assert style == [_rgb(COLORS["wrong-answer"]), _rgb(COLORS["ink"])], style
    shape = quiz.locator("#v1 .avz-shape")
    assert shape.evaluate("(el) => getComputedStyle(el).fill") != BLUE

    # the right answer turns y's node to its "known" state: blue, with its gradient shown
    _fill(dy, "8")
    p.wait_for_function(  # the picture is redrawn: find y's node afresh each time
        "([sel, blue]) => { const el = document.querySelector(sel);"
        " return !!el && getComputedStyle(el).fill === blue; }",
        arg=[f"{QUIZ} #v1 .avz-shape", BLUE],
        timeout=30_000,
    )
    assert quiz.locator("#v1-grad").text_content() == "grad 8"
    progress.locator("text=3 of 4").wait_for(timeout=30_000)
    assert page.foreign_requests() == []
