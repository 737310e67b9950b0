"""Self-check exercises in real JupyterLab and Chromium, on the committed start notebook.

A learner runs the notebook, types a wrong answer and presses Enter (a hint appears), types
`6,000` meaning 6.000 (the box's tooltip states the separator rule; the feedback asks "did you
mean 6?"), types the sum `2*3` and presses Check (right), and a teacher flips the switch that
reveals every answer. Before that, neither the widget nor the collapsed exercise cell shows the
answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = pytest.mark.browser

START = Path(__file__).resolve().parents[2] / "notebooks" / "00_start_here.ipynb"
QUESTION = "With x = 2 and y = 3, what is z = x · y?"


def _run_all_cells(page: object) -> None:
    """Run > Run All Cells once the kernel is up; again if a just-started kernel dropped it.

    The committed notebook already shows prompts [1]..[5], which would pass for "started"
    at once; so its outputs are cleared first, and a numbered or [*] prompt then really
    means this run has begun.
    """
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
        timeout=120_000
    )
    started = ".jp-InputPrompt:text-matches('\\[(\\*|\\d+)\\]')"
    page.locator(".lm-MenuBar-itemLabel", has_text="Edit").first.click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells", exact=True).click()
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.jp-InputPrompt')]"
        ".some((el) => /\\[(\\*|\\d+)\\]/.test(el.textContent))",
        timeout=30_000,
    )
    for _attempt in range(3):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:
            page.locator(started).first.wait_for(timeout=20_000)
            return
        except PlaywrightTimeoutError:  # nothing ran yet: try again
            continue
    raise AssertionError("Run All Cells never started executing the notebook")


def _on_the_teachers_machine(source: Path, target: Path) -> None:
    """A copy of the notebook whose `teacher_mode()` cell runs as on the teacher's machine
    (AUTOGRAD_VIZ_TEACHER=1): a student's copy shows the switch locked."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    switch = [c for c in cells if "teacher_mode()" in "".join(c["source"])]
    assert switch, f"{source.name} has no teacher_mode() cell"
    text = "".join(switch[-1]["source"])
    switch[-1]["source"] = 'import os\nos.environ["AUTOGRAD_VIZ_TEACHER"] = "1"\n' + text
    target.write_text(json.dumps(nb), encoding="utf-8")


def test_exercise_checks_answers_gives_hints_and_the_teacher_switch_reveals(jupyterlab, page):
    _on_the_teachers_machine(START, jupyterlab.root / START.name)
    p = page.page
    jupyterlab.open_notebook(p, START.name)  # the page joins a running kernel
    _run_all_cells(p)

    box = p.locator(".jp-OutputArea-output .widget-vbox", has_text=QUESTION).first
    box.wait_for(timeout=120_000)
    cell = p.locator(".jp-Cell", has=box)
    assert cell.locator(".jp-InputPlaceholder").count() == 1, "exercise input is not collapsed"
    assert "answer=6" not in cell.inner_text()
    assert "Answer:" not in box.inner_text()

    answer = box.locator("input[type=text]")
    answer.fill("7")
    answer.press("Enter")
    feedback = box.locator(".widget-htmlmath", has_text="Not quite")
    feedback.wait_for(timeout=30_000)
    assert "Multiply the two numbers" in feedback.inner_text()

    # The separator rule is on the answer box, and "6,000" (meant as 6.000) is not a silent wrong.
    assert box.locator("[title*='separates thousands']").count() >= 1, "the rule is not shown"
    answer.fill("6,000")
    answer.press("Enter")
    box.locator(".widget-htmlmath", has_text="Did you mean 6?").wait_for(timeout=30_000)

    answer.fill("2*3")
    box.locator("button", has_text="Check").click()
    box.locator(".widget-htmlmath", has_text="Right").wait_for(timeout=30_000)

    switch = p.locator("button", has_text="Teacher:")
    switch.scroll_into_view_if_needed()
    assert switch.inner_text().strip() == "Teacher: show all answers"
    switch.click()
    box.locator(".widget-htmlmath", has_text="Answer: 6").wait_for(timeout=30_000)
    assert switch.inner_text().strip() == "Teacher: hide all answers"  # what a click does next
    switch.click()
    p.wait_for_function(
        "(el) => !el.innerText.includes('Answer:')", arg=box.element_handle(), timeout=30_000
    )
    assert page.foreign_requests() == []
