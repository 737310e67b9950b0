"""Notebook 7 (the classic-style interface learners also open) shows the player live.

A real `jupyter notebook` server (Notebook 7, same widget manager as JupyterLab 4) on
127.0.0.1 with a random token, headless Chromium: the notebook is run with Run ▸ Run All
Cells; the player (an anywidget) renders as a widget (never as its text repr), Next ▶ steps it
in the browser and the kernel hears of it, `player.step = 3` typed in a new cell moves the view,
once it has focus a presenter's remote (PageDown / PageUp) steps it, and its phase buttons
switch the phase. An exercise renders and checks an answer; `explore()` (the same player
module, in explore mode) recomputes in the kernel when an input changes; `quiz(z)` (quiz mode)
judges a wrong and a right answer in the kernel. A screenshot is saved in the test's folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from test_lab_smoke import _run_all, start_lab, start_session, stop_lab, wait_for_server_kernel

NOTEBOOK = "nb7_player.ipynb"
CELLS = [
    """\
from autograd_viz import Value
from autograd_viz.exercises import Exercise

x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z"
player = z.animate()
player""",
    'Exercise("With x = 2 and y = 3, what is x + y?", answer=5)',
    """\
from autograd_viz import explore

explore(lambda x, y: (x + y) * y, x=2, y=3)""",
    """\
from autograd_viz import quiz

quiz(z)""",
]


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    root = tmp_path_factory.mktemp("nb7")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nbformat.write(nb, root / NOTEBOOK)
    # window.jupyterapp: the test waits until the widget manager listens on the kernel
    cmd = [sys.executable, "-m", "notebook", "--allow-root", f"--ServerApp.root_dir={root}",
           "--JupyterNotebookApp.expose_app_in_browser=True"]  # fmt: skip
    server = start_lab(cmd, root, tmp_path_factory.mktemp("nb7-home"))
    try:
        yield server
    finally:
        stop_lab(server)


_WIDGETS_LISTEN_JS = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const kernel = panel && panel.sessionContext && panel.sessionContext.session
    && panel.sessionContext.session.kernel;
  return !!(kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle'
            && kernel._targetRegistry && kernel._targetRegistry['jupyter.widget']);
}"""


def _step(player) -> int:
    return int(player.get_attribute("data-step"))


def _run_in_new_cell(page, code: str) -> str:
    """Type `code` into a new cell at the end, run it (Shift+Enter); what it printed."""
    cells = page.locator(".jp-Notebook .jp-Cell")
    before = cells.count()
    cells.last.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    cells.nth(before).wait_for()
    page.keyboard.press("Enter")
    page.keyboard.type(code)
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "(i) => /\\[\\d+\\]/.test(document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
        ".querySelector('.jp-InputPrompt').textContent)", arg=before, timeout=60_000
    )  # fmt: skip
    return " ".join(cells.nth(before).locator(".jp-OutputArea-output").all_inner_texts())


def test_player_and_exercise_work_in_notebook_7(notebook7, chromium, tmp_path: Path):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        start_session(notebook7, NOTEBOOK)
        page.goto(f"{notebook7.url}/notebooks/{NOTEBOOK}?token={notebook7.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        assert page.locator("#jp-top-panel, .jp-NotebookPanel").count()
        wait_for_server_kernel(notebook7, 120)
        # the page's own connection is up and ipywidgets' manager listens on it (a widget
        # opened before then is dropped); JupyterLab keeps comm targets in _targetRegistry
        page.wait_for_function(_WIDGETS_LISTEN_JS, timeout=120_000)
        _run_all(page)
        player = page.locator(".jp-OutputArea-output .avz-player").first
        page.locator(".jp-OutputArea-output .avz-player[data-step='1']").wait_for(timeout=60_000)
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        reprs = ("<Player of", "<Explorer of", "<Quiz on")  # a widget as its text: not rendered
        assert not [t for t in outputs if any(r in t for r in reprs) or t.startswith("Exercise:")]
        assert player.locator(".avz-caption").first.inner_text().startswith("step 1 of 9")

        player.locator("button.avz-next").click()  # in the browser, no kernel round trip
        page.locator(".avz-player[data-step='2']").wait_for()
        for _ in range(100):  # the widget tells the kernel after the frame: a moment later
            if (step := _run_in_new_cell(page, "print(player.step)").strip()) == "2":
                break
        assert step == "2"
        _run_in_new_cell(page, "player.step = 3")  # the kernel moves the view
        page.locator(".avz-player[data-step='3']").wait_for()
        player.locator(".avz-graph").first.click()  # focus: then a remote's keys step it
        page.keyboard.press("PageDown")
        assert _step(player) == 4
        page.keyboard.press("PageUp")
        assert _step(player) == 3
        player.locator("button.avz-phase[data-phase='forward']").click()
        page.locator(".avz-player[data-phase='forward'][data-step='1']").wait_for()
        for _ in range(100):
            said = _run_in_new_cell(page, "print(player.phase, player.n_frames)").strip()
            if said == "forward 3":
                break
        assert said == "forward 3"

        box = page.locator(".jp-OutputArea-output input[placeholder='your answer']").first
        box.fill("2+3")
        box.press("Enter")
        page.locator(".jp-OutputArea-output", has_text="Right").first.wait_for()

        explorer = page.locator(".jp-OutputArea-output .avz-explore").first
        explorer.locator("svg g.node").first.wait_for(timeout=60_000)
        assert explorer.locator(".avz-explore-status").text_content() == "out = 15"
        explorer.get_by_label("x, a number").fill("1")  # the kernel reruns f: (1 + 3) · 3
        page.wait_for_function(
            "() => { const t = document.querySelector('.avz-explore [id=\"v3-data\"]');"
            " return t && t.textContent === 'data 12'; }", timeout=30_000
        )  # fmt: skip
        assert explorer.locator(".avz-explore-status").text_content() == "out = 12"

        quiz = page.locator(".jp-OutputArea-output .avz-quiz").first
        dy = quiz.get_by_label("∂z/∂y", exact=True)
        dy.fill("5")
        dy.press("Enter")
        feedback = quiz.locator(".avz-quiz-feedback")
        feedback.locator("text=sum of the two paths").wait_for(timeout=30_000)
        dy.fill("8")
        dy.press("Enter")
        feedback.locator("text=✔ Right: ∂z/∂y = 8.").wait_for(timeout=30_000)
        assert quiz.locator('[id="v1-grad"]').text_content() == "grad 8"
        page.screenshot(path=str(tmp_path / "notebook7_player.png"))
    finally:
        context.close()
