"""The fill-in quiz in real Chromium, as a learner meets it: player.js in quiz mode.

z = (x + y)·y at x = 2, y = 3: every gradient is a blank, an answer box on its node's grad cell
(placed by the front end from the drawing it has, no geometry from Python). Tab moves through
the blanks in backward order (z, then x + y, then x, then y); a typed answer goes to the
kernel, which judges it with the exercises' one judge: a wrong answer for ∂z/∂y names the rule
to apply (the sum of the two paths, with their numbers) and marks the box (aria-invalid, a
solid border in the palette's wrong-answer colour); the right one, 8, turns y's node to its
"known" state, blue, with its number, and the progress line counts down. First with the real
module and the real kernel side in this process (`quiz_harness`), then in real JupyterLab.
"""

from __future__ import annotations

import pytest
from player_page import BLUE, demo_notebook
from quiz_harness import show, stop

from autograd_viz import Value, quiz
from autograd_viz.front.quiz import KERNEL_GONE
from autograd_viz.nn import Neuron
from autograd_viz.view.palette import COLORS

pytestmark = pytest.mark.browser

QUIZ = ".jp-OutputArea .avz-quiz"
SOURCE = """\
from autograd_viz import Value, quiz

x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
quiz(z)"""

# The focused box: the value node it belongs to and its accessible name.
_FOCUSED = """() => {
  const el = document.activeElement;
  const blank = el && el.closest('.avz-quiz-blank');
  if (!blank) return null;
  return {node: blank.dataset.node, label: el.getAttribute('aria-label')};
}"""

# Where each box sits, and where its cell's text is drawn (client pixels).
_GEOMETRY = """() => [...document.querySelectorAll('.avz-quiz-blank')].map((fo) => {
  const r = (el) => { const b = el.getBoundingClientRect();
    return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
  const input = fo.querySelector('input');
  const label = input.getAttribute('aria-label');
  return {label, box: r(input), node: fo.dataset.node};
})"""

_CELL = """(id) => { const b = document.querySelector('[id="' + id + '"]').getBoundingClientRect();
  return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; }"""


# The kernel has answered every message the view sent.
_ANSWERED = """() => { const q = document.querySelector('.avz-quiz');
  return !!q.dataset.sent && q.dataset.answered === q.dataset.sent; }"""


def _z() -> Value:
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    return z


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _on_its_cell(page: object, box: dict, cell: str) -> None:
    where = page.evaluate(_CELL, cell)
    middle = (where["left"] + where["right"]) / 2
    assert box["left"] <= middle <= box["right"], (cell, box, where)
    assert box["top"] <= where["bottom"] and where["top"] <= box["bottom"], (cell, box, where)


def test_every_box_sits_on_its_cell_a_weights_too(page):
    p = page.page
    q = quiz(_z(), values=True)
    show(p, q)
    placed = p.evaluate(_GEOMETRY)
    assert [b["label"] for b in placed] == [b.label for b in q.blanks]
    for blank, shown in zip(q.blanks, placed):
        _on_its_cell(p, shown["box"], blank.cell)
        assert 20 < shown["box"]["bottom"] - shown["box"]["top"] < 40, shown
    data, grad = placed[0]["box"], placed[3]["box"]  # s's data box, left of its grad box
    assert data["right"] == pytest.approx(grad["left"], abs=1) and data["top"] == grad["top"]
    # a weight is a rounded box (a <path>, no polygon): its boxes sit on its cells too
    out = Neuron(2, seed=0)([Value(1.0, label="a"), Value(-1.0, label="b")])
    q = quiz(out)
    weights = {f"v{n.index}-grad" for n in q.graph.nodes if n.role == "param"}
    show(p, q)
    placed = {b["label"]: b["box"] for b in p.evaluate(_GEOMETRY)}
    assert len(weights) == 3 and weights <= {b.cell for b in q.blanks}
    for blank in q.blanks:
        _on_its_cell(p, placed[blank.label], blank.cell)


def test_a_wrong_and_a_right_answer_are_judged_by_the_kernel_and_shown_as_text(page):
    p = page.page
    q = quiz(_z())
    show(p, q)
    root = p.locator("#quiz .avz-quiz")
    assert root.locator(".avz-quiz-progress").inner_text() == "4 of 4 blanks left to fill in."
    assert p.locator("#quiz svg").get_attribute("role") == "group"  # its boxes are reachable

    # Tab order is the backward pass: z (the seed), x + y, x, y
    p.locator(".avz-quiz-blank input").first.focus()
    order = [p.evaluate(_FOCUSED)]
    for _ in range(3):
        p.keyboard.press("Tab")
        order.append(p.evaluate(_FOCUSED))
    assert [o["node"] for o in order] == ["v3", "v2", "v0", "v1"], order
    assert [o["label"] for o in order] == ["∂z/∂z", "∂z/∂(x + y)", "∂z/∂x", "∂z/∂y"], order

    dy = p.get_by_label("∂z/∂y", exact=True)
    dy.fill("5")
    dy.press("Enter")
    feedback = root.locator(".avz-quiz-feedback")
    feedback.locator("text=sum of the two paths").wait_for(timeout=10_000)
    assert feedback.inner_text().startswith("✘ Not quite. That is one path only")
    assert feedback.get_attribute("role") == "status"
    assert dy.get_attribute("aria-invalid") == "true"
    style = dy.evaluate("(el) => { const s = getComputedStyle(el); return [s.borderTopColor,"
                        " s.borderTopStyle, s.color]; }")  # fmt: skip
    assert style == [_rgb(COLORS["wrong-answer"]), "solid", _rgb(COLORS["ink"])], style
    assert p.locator("#v1-grad").text_content() == "grad ?"

    dy.fill("5+3")
    dy.press("Enter")
    feedback.locator("text=✔ Right: ∂z/∂y = 8.").wait_for(timeout=10_000)
    assert p.locator("#v1-grad").text_content() == "grad 8"
    fill = p.locator("#v1 .avz-shape").evaluate("(el) => getComputedStyle(el).fill")
    assert fill == BLUE
    assert not dy.is_visible() and p.evaluate(_FOCUSED)["label"] == "∂z/∂z"  # on to the next
    assert root.locator(".avz-quiz-progress").inner_text() == "3 of 4 blanks left to fill in."
    assert q.left == 3  # the kernel's side agrees


def test_two_misses_offer_the_equation_and_no_kernel_is_said_so(page):
    p = page.page
    q = quiz(_z())
    show(p, q)
    root = p.locator("#quiz .avz-quiz")
    offer = root.get_by_role("button", name="Show the step's equation")
    dx = p.get_by_label("∂z/∂x", exact=True)
    for typed in ("1", "1"):  # the same wrong answer twice counts twice
        dx.fill(typed)
        dx.press("Enter")
        p.wait_for_function(_ANSWERED, timeout=10_000)
    offer.wait_for(timeout=10_000)
    assert q.blanks[2].misses == 2
    offer.click()
    equation = root.locator(".avz-quiz-equation")
    equation.locator("text== ?").wait_for(timeout=10_000)
    assert equation.inner_text() == q.step_equation("∂z/∂x")
    stop(p)
    dx.fill("3")
    dx.press("Enter")
    root.locator(".avz-quiz-feedback", has_text=KERNEL_GONE).wait_for(timeout=10_000)
    assert root.get_attribute("data-kernel") == "gone"


def test_quiz_in_jupyterlab_judges_a_wrong_and_a_right_answer_in_the_kernel(
    jupyterlab, page, tmp_path
):
    p = page.page
    jupyterlab.open_notebook(p, "quiz_demo.ipynb", demo_notebook(SOURCE))
    jupyterlab.run_all(p, "quiz_demo.ipynb", f"{QUIZ} .avz-quiz-blank input")
    quiz_el = p.locator(QUIZ).first
    progress = quiz_el.locator(".avz-quiz-progress")
    assert "4 of 4" in progress.inner_text()
    blanks = quiz_el.locator(".avz-quiz-blank input")
    assert blanks.count() == 4
    dy = quiz_el.get_by_label("∂z/∂y", exact=True)
    placed = {b["label"]: b["box"] for b in p.evaluate(_GEOMETRY)}
    _on_its_cell(p, placed["∂z/∂y"], "v1-grad")

    # a wrong answer: judged in the kernel, which says which rule to apply, with its numbers
    dy.fill("5")
    dy.press("Enter")
    feedback = quiz_el.locator(".avz-quiz-feedback")
    feedback.locator("text=sum of the two paths").wait_for(timeout=30_000)
    said = feedback.inner_text()
    assert said.startswith("✘ Not quite") and "∂z/∂(x + y) = 3" in said, said
    assert dy.get_attribute("aria-invalid") == "true"
    assert quiz_el.locator("#v1 .avz-shape").evaluate("(el) => getComputedStyle(el).fill") != BLUE
    p.screenshot(path=str(tmp_path / "quiz_wrong.png"))

    # the right answer turns y's node to its "known" state: blue, with its gradient shown
    dy.fill("8")
    dy.press("Enter")
    feedback.locator("text=✔ Right: ∂z/∂y = 8.").wait_for(timeout=30_000)
    p.wait_for_function(
        "([sel, blue]) => { const el = document.querySelector(sel);"
        " return !!el && getComputedStyle(el).fill === blue; }",
        arg=[f"{QUIZ} #v1 .avz-shape", BLUE],
        timeout=30_000,
    )
    assert quiz_el.locator("#v1-grad").text_content() == "grad 8"
    progress.locator("text=3 of 4").wait_for(timeout=30_000)
    quiz_el.screenshot(path=str(tmp_path / "quiz_right.png"))
    assert page.foreign_requests() == []


def test_a_tensors_gradient_is_typed_as_its_numbers_and_judged_element_by_element(page):
    """PyTorch's small tensors: x's box takes its three numbers; rounded to two digits they
    are named as the elements not right, with the note to give 4 digits; the numbers as the
    drawing writes them fill x's cell with its gradient vector."""
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    q = quiz((x * w).tanh().sum(), names={"x": x, "w": w})
    p = page.page
    show(p, q)
    root = p.locator("#quiz .avz-quiz")
    dx = p.get_by_label("∂out/∂x", exact=True)
    _on_its_cell(p, p.evaluate(_GEOMETRY)[[b.label for b in q.blanks].index("∂out/∂x")]["box"],
                 "v0-grad")  # fmt: skip
    dx.fill("[0.39, -0.071, 4.9e-5]")
    dx.press("Enter")
    feedback = root.locator(".avz-quiz-feedback")
    feedback.locator("text=not right").wait_for(timeout=10_000)
    assert feedback.inner_text().startswith(
        "✘ Not quite. Elements 1, 2 and 3 of 3 are not right. Close: give at least 4 significant"
    )
    assert p.locator("#v0-grad").text_content() == "grad ?"
    dx.fill("0.3932, -0.07065, 4.915e-5")
    dx.press("Enter")
    feedback.locator("text=✔ Right").wait_for(timeout=10_000)
    assert p.locator("#v0-grad").text_content() == "grad [0.3932, −0.07065, 4.915e−5]"
    assert x.grad is None
