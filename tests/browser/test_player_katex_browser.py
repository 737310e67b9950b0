"""KaTeX reaches a JupyterLab page once, however many players it shows, in real Chromium.

KaTeX (~300 KB) is not saved with the notebook: a player asks its kernel side for it. The
notebook here has six players and is saved with their widget state, as the course's notebooks
are, so it opens with six restored players that have no kernel side; then Run All makes six
live ones. The test counts, on the page's kernel websocket, the requests for KaTeX the page
sends and the KaTeX answers it receives: one of each, and every player's equation typeset
(each player asking for itself sent six and got six).
"""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.sign import NotebookNotary
from player_page import demo_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "six_players.ipynb"
SETUP = 'from autograd_viz import Value\nx, y = Value(2.0, label="x"), Value(3.0, label="y")'
EXPRESSIONS = ["(x + y) * y", "x * y + x", "(x * y).tanh()", "x ** 2 + y", "x - y * y", "x / y"]
PLAYERS = ".jp-OutputArea-output .avz-player"
UNTYPESET = f"""() => [...document.querySelectorAll('{PLAYERS} .avz-eq')]
  .filter((e) => !e.querySelector('.katex')).length"""
REQUEST = re.compile(rb'"want"\s*:\s*"katex"')
ANSWER = re.compile(rb'"katex"\s*:\s*"')  # KaTeX's script itself, in the answer's content


def _saved_notebook(path) -> None:
    """Six players, executed and saved with outputs and widget state, and trusted (JupyterLab
    shows an untrusted notebook's widgets not at all), so they are restored on opening."""
    nb = demo_notebook(SETUP, *(f"({e}).animate()" for e in EXPRESSIONS))
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    assert len(nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]) >= 6
    NotebookNotary().sign(nb)
    nbformat.write(nb, path)


def test_a_page_of_six_players_gets_katex_once_and_typesets_them_all(jupyterlab, page):
    _saved_notebook(jupyterlab.root / NOTEBOOK)
    sent: list[bytes] = []
    received: list[bytes] = []

    def frames(ws: object) -> None:
        ws.on("framesent", lambda f: sent.append(f if isinstance(f, bytes) else f.encode()))
        ws.on("framereceived", lambda f: received.append(f if isinstance(f, bytes) else f.encode()))

    p = page.page
    p.on("websocket", frames)
    jupyterlab.start_kernel(NOTEBOOK)
    p.goto(jupyterlab.notebook_url(NOTEBOOK))
    p.locator(f"{PLAYERS}[data-step]").nth(len(EXPRESSIONS) - 1).wait_for(timeout=90_000)
    # the restored players have asked (their messages go nowhere: no kernel side)
    p.wait_for_function("() => !!window.avzKatex && window.avzKatex.waiting.some((w) => w.asked)",
                        timeout=60_000)  # fmt: skip
    p.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(timeout=120_000)
    p.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    p.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    p.wait_for_function(
        "(n) => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
        ".filter((e) => /^\\[\\d+\\]/.test(e.textContent.trim())).length === n",
        arg=len(EXPRESSIONS) + 1,
        timeout=120_000,
    )
    p.locator(f"{PLAYERS}[data-step]").nth(len(EXPRESSIONS) - 1).wait_for(timeout=60_000)
    p.wait_for_function(f"() => ({UNTYPESET})() === 0", timeout=60_000)
    # KaTeX is installed and nobody is asking: askKatex sends nothing more from here on (every
    # request sent is in `sent` already), and each request sent gets one answer
    p.wait_for_function("() => !!window.katex && window.avzKatex && !window.avzKatex.asking",
                        timeout=60_000)  # fmt: skip
    p.wait_for_function(f"() => ({UNTYPESET})() === 0", timeout=60_000)
    assert p.locator(PLAYERS).count() == len(EXPRESSIONS)
    assert p.evaluate(UNTYPESET) == 0, "every player's equation is typeset"
    requests = sum(bool(REQUEST.search(f)) for f in sent)
    answers = [f for f in received if ANSWER.search(f) and len(f) > 100_000]
    assert (requests, len(answers)) == (1, 1), (
        f"the page asked for KaTeX {requests} times and received it {len(answers)} times "
        f"({sum(map(len, answers)) / 1e6:.1f} MB)"
    )
    print(f"\n[katex] {requests} request(s), {len(answers)} answer(s), "
          f"{sum(map(len, answers)) / 1e6:.2f} MB received")  # fmt: skip
    assert page.foreign_requests() == []
