"""The kit in marimo: `marimo edit` on 127.0.0.1, headless Chromium, a learner's notebook.

marimo shows an anywidget natively (its own widget host) but no ipywidgets composite. The
notebook (`marimo_notebook.py`, copied to a temp folder: marimo writes a `__marimo__` cache
beside it) draws `z`, explores `(x + y) * y` and animates `z`. Checked: after Run all, the
drawing renders as SVG, the explorer renders, and changing x in its number box recomputes
every gradient in the kernel (y's goes from 8 to 7); no request leaves the machine.

`z.animate()` is the anywidget player (static/player.js): marimo renders it (never its "Jupyter
widgets are not supported in marimo" notice), and Next and Last step it. `quiz(z)` is the same
module in quiz mode: an answer typed into a blank is judged in marimo's kernel.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from autograd_viz.view.palette import COLORS

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "marimo_notebook.py"
_SHOTS = Path(tempfile.gettempdir()) / "autograd_viz_browser_failures"
NOT_SUPPORTED = "Jupyter widgets are not supported in marimo"

pytest.importorskip("marimo", reason="marimo is a test extra: pip install -e '.[test]'")


def _rgb(name: str) -> str:
    return "rgb({}, {}, {})".format(*(int(COLORS[name][k : k + 2], 16) for k in (1, 3, 5)))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def marimo_url(tmp_path_factory):
    """`marimo edit` of the notebook on 127.0.0.1 (random port), headless; stopped after."""
    root = tmp_path_factory.mktemp("marimo")
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    port = _free_port()
    log = (root / "marimo.log").open("wb")
    env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / "config")}
    marimo = Path(sys.executable).with_name("marimo")
    proc = subprocess.Popen(
        [str(marimo), "edit", "--headless", "--host", "127.0.0.1", "--port", str(port),
         "--no-token", "--skip-update-check", "--no-sandbox", NOTEBOOK.name],
        cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"marimo exited: {(root / 'marimo.log').read_text(errors='replace')}")
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"marimo did not answer on {url} within 120 s")
                time.sleep(0.5)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@pytest.fixture(scope="module")
def notebook(marimo_url, chromium):
    """The notebook open in Chromium, every cell run (Run all, as a learner does)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(marimo_url)
    run_all = page.locator('[data-testid="run-button"]').last
    run_all.wait_for(timeout=120_000)
    for _attempt in range(4):  # a click before marimo's kernel is up is dropped: click again
        run_all.click()
        try:
            page.locator(".avz-explore svg").first.wait_for(timeout=30_000)
            break
        except Exception:
            continue
    else:
        _SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(_SHOTS / "marimo_run_all.png"), full_page=True)
        raise AssertionError(f"no explorer after Run all; screenshot: {_SHOTS}/marimo_run_all.png")
    page.requests = requests
    yield page
    context.close()


def _foreign(urls: list[str]) -> list[str]:
    local = {"127.0.0.1", "localhost"}
    return [u for u in urls if urlsplit(u).scheme in ("http", "https", "ws", "wss")
            and urlsplit(u).hostname not in local]  # fmt: skip


def test_a_drawing_renders_in_marimo(notebook):
    drawing = notebook.locator("svg:has(g#v1):not(.avz-explore svg)").first
    drawing.wait_for(timeout=60_000)
    texts = drawing.locator("text").all_text_contents()
    assert "grad 8" in texts and "data 15" in texts


def test_explore_recomputes_in_marimos_kernel_when_an_input_changes(notebook):
    explorer = notebook.locator(".avz-explore").first
    grad = explorer.locator('[id="v1-grad"]')
    assert grad.text_content() == "grad 8"
    explorer.get_by_label("x, a number").fill("1")  # ∂z/∂y = x + 2y = 7
    expect(grad).to_have_text("grad 7", timeout=30_000)  # (marimo's widgets live in a shadow DOM)
    assert explorer.locator('[id="v3-data"]').text_content() == "data 12"
    assert explorer.locator(".avz-explore-status").text_content() == "out = 12"
    # ask the graph works there too
    explorer.locator('g[id="v1"]').click()
    assert explorer.locator(".avz-ask-sum").text_content().endswith("= 4 + 3 = 7")
    # its colours are the palette's, declared inside marimo's shadow tree too (on :host)
    picked = explorer.locator("svg .avz-ask-picked > :is(polygon, path, ellipse):first-of-type")
    assert picked.first.evaluate("(s) => getComputedStyle(s).stroke") == _rgb("active")
    assert _foreign(notebook.requests) == []


def test_the_player_steps_in_marimo(notebook):
    """The player is an anywidget: marimo renders it, and Next steps it (in the page; marimo
    keeps the widget's `step` in its kernel)."""
    notebook.locator("text=z.animate()").first.wait_for(timeout=60_000)
    player = notebook.locator(".avz-player").first
    player.wait_for(timeout=60_000)
    assert NOT_SUPPORTED not in notebook.locator("body").inner_text()
    expect(player).to_have_attribute("data-step", "1")
    caption = player.locator(".avz-caption")
    assert caption.text_content().startswith("step 1 of 9")
    assert caption.evaluate("(c) => getComputedStyle(c).color") == _rgb("ink")
    assert "x = 2" in player.locator(".avz-eq").get_attribute("data-text")
    assert player.locator(".avz-graph g.node.active").count() > 0
    before = player.locator(".avz-graph g.node.active").evaluate_all(
        "(nodes) => nodes.map((g) => g.id)"
    )
    player.locator("button.avz-next").click()
    expect(player).to_have_attribute("data-step", "2", timeout=30_000)
    assert caption.text_content().startswith("step 2 of 9")
    assert "2 + 3 = 5" in player.locator(".avz-eq").get_attribute("data-text")
    after = player.locator(".avz-graph g.node.active").evaluate_all(
        "(nodes) => nodes.map((g) => g.id)"
    )
    assert after and after != before, "the highlighted node moved on"
    player.locator("button.avz-last").click()
    expect(player).to_have_attribute("data-step", "9", timeout=30_000)
    assert player.locator(".avz-eq").get_attribute("data-text").endswith("= 8")
    assert _foreign(notebook.requests) == []


def test_the_quiz_judges_answers_in_marimos_kernel(notebook):
    """The quiz is an anywidget too: marimo renders it, and a typed answer goes to its kernel
    (a custom message) and comes back judged, as text."""
    quiz = notebook.locator(".avz-quiz").first
    quiz.wait_for(timeout=60_000)
    dy = quiz.get_by_label("∂z/∂y", exact=True)
    dy.fill("5")
    dy.press("Enter")
    feedback = quiz.locator(".avz-quiz-feedback")
    expect(feedback).to_contain_text("sum of the two paths", timeout=30_000)
    assert feedback.text_content().startswith("✘ Not quite")
    dy.fill("5+3")
    dy.press("Enter")
    expect(feedback).to_have_text("✔ Right: ∂z/∂y = 8.", timeout=30_000)
    assert quiz.locator('[id="v1-grad"]').text_content() == "grad 8"
    assert quiz.locator(".avz-quiz-progress").text_content() == "3 of 4 blanks left to fill in."
    assert _foreign(notebook.requests) == []
