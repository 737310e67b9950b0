"""explore() and "ask the graph" in real Chromium: the real ES module with the real kernel
side (`explore_harness`), then in real JupyterLab with a real kernel that is then stopped."""

from __future__ import annotations

import json
import urllib.request

import nbformat
import pytest
from explore_harness import show, stop

from autograd_viz import explore
from autograd_viz.front.explore import KERNEL_GONE
from autograd_viz.view.palette import COLORS

pytestmark = pytest.mark.browser

_CELLS = """() => Object.fromEntries([...document.querySelectorAll('svg text[id]')]
  .map((t) => [t.id, t.textContent]))"""
_PLACES = """() => Object.fromEntries([...document.querySelectorAll('svg g.node')]
  .map((g) => [g.id, g.querySelector('polygon, path, ellipse').getAttribute('points') ||
                     g.querySelector('polygon, path, ellipse').getAttribute('d')]))"""


# Texts that run out of their node's box, in browser font metrics.
_OVERFLOWS = """() => {
  const bad = [];
  for (const g of document.querySelectorAll('svg g.node')) {
    const box = g.querySelector('polygon, path, ellipse').getBBox();
    for (const t of g.querySelectorAll('text')) {
      const r = t.getBBox();
      if (r.x < box.x - 0.5 || r.x + r.width > box.x + box.width + 0.5) bad.push(t.textContent);
    }
  }
  return bad;
}"""


def f(x, y):
    return (x + y) * y


def _rgb(colour: str) -> str:
    return "rgb({}, {}, {})".format(*(int(colour[k : k + 2], 16) for k in (1, 3, 5)))


def _wait_text(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.textContent === t; }",
        arg=[selector, text],
        timeout=10_000,
    )


def test_changing_an_input_updates_every_value_and_gradient_on_the_same_layout(page):
    ex = explore(f, x=2, y=3)
    show(page.page, ex)
    p = page.page
    assert p.evaluate(_CELLS)["v1-grad"] == "grad 8"
    places = p.evaluate(_PLACES)
    p.evaluate("() => { document.querySelector('svg').dataset.first = '1'; }")
    p.get_by_label("x, a number").fill("1")  # z = (1 + 3) · 3 = 12, ∂z/∂y = x + 2y = 7
    _wait_text(p, '[id="v1-grad"]', "grad 7")
    cells = p.evaluate(_CELLS)
    assert cells == ex.result["cells"]
    assert cells["v3-data"] == "data 12" and cells["v0-grad"] == "grad 3"
    assert p.evaluate(_PLACES) == places  # nothing moved
    assert p.evaluate("() => document.querySelector('svg').dataset.first") == "1"  # same SVG
    # the slider: y to -2 gives z = (1 - 2) · (-2) = 2
    p.evaluate("""() => { const s = document.querySelector('[aria-label="y, a slider"]');
                          s.value = '-2'; s.dispatchEvent(new Event('input')); }""")
    _wait_text(p, '[id="v3-data"]', "data 2")
    assert p.get_by_label("y, a number").input_value() == "-2"
    assert p.locator(".avz-explore-status").text_content() == "out = 2"
    # longer numbers than the layout started with still fit their boxes
    p.get_by_label("x, a number").fill("-0.0012345")
    _wait_text(p, '[id="v0-data"]', "data −0.001234")
    assert p.evaluate(_CELLS)["v3-data"] == "data 4.002"  # (x + y) · y at y = −2
    assert p.evaluate(_CELLS)["v1-grad"] == "grad −4.001"  # x + 2y
    assert p.evaluate(_OVERFLOWS) == []
    assert p.evaluate(_PLACES) == places
    assert page.foreign_requests() == [] and page.console_errors == []


def test_clicking_a_value_shows_its_chain_rule_sum_and_each_term_lights_its_edges(page):
    ex = explore(f, x=2, y=3)
    show(page.page, ex)
    p = page.page
    p.locator('g[id="v1"]').click()
    panel = p.locator(".avz-ask-panel")
    assert panel.is_visible()
    assert p.locator(".avz-ask-sum").text_content() == (
        "∂out/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8"
    )
    live = p.locator(".avz-ask-live")
    assert live.text_content() == p.locator(".avz-ask-sum").text_content()
    terms = p.locator(".avz-ask-term")
    assert terms.all_text_contents() == [
        "ȳ via the product = x + y = 5",
        "ȳ via the sum = ∂out/∂(x + y) · ∂(x + y)/∂y = 3 · 1 = 3",
    ]
    lit = "() => [...document.querySelectorAll('svg .avz-ask-on')].map((g) => g.id)"
    path = "() => [...document.querySelectorAll('svg .avz-ask-path')].map((g) => g.id)"
    terms.nth(1).hover()
    assert sorted(p.evaluate(lit)) == ["op2-v2", "v1-op2-1"]
    assert sorted(p.evaluate(path)) == ["op3-v3", "v2-op3-0"]  # on through x + y to the output
    terms.nth(0).focus()
    assert sorted(p.evaluate(lit)) == ["op3-v3", "v1-op3-1"]  # one term at a time
    stroke = "() => getComputedStyle(document.querySelector('svg .avz-ask-on > path')).stroke"
    assert p.evaluate(stroke) == _rgb(COLORS["active"])  # ask.js copies no colour: the palette
    assert p.evaluate(path) == []  # the product is the output's own operation
    assert live.text_content() == "ȳ via the product = x + y = 5"  # said to a screen reader
    p.keyboard.press("Escape")
    assert not panel.is_visible() and p.evaluate(lit) == []
    # a screen reader reaches the nodes as buttons, each asking its question (Chromium's own
    # accessibility tree: inside role="img" they would be presentational, i.e. gone)
    tree = p.context.new_cdp_session(p).send("Accessibility.getFullAXTree")["nodes"]
    buttons = [
        n["name"]["value"]
        for n in tree
        if n.get("role", {}).get("value") == "button" and not n.get("ignored")
    ]
    assert "y: why is its gradient 8?" in buttons and "x: why is its gradient 3?" in buttons
    # the keyboard: Tab reaches the value nodes, Enter opens the sum of the focused one
    p.locator('g[id="v0"]').focus()
    p.keyboard.press("Enter")
    assert (
        p.locator(".avz-ask-sum").text_content()
        == "∂out/∂x = ∂out/∂(x + y) · ∂(x + y)/∂x = 3 · 1 = 3"
    )
    # an edge: its local derivative, on hover and on focus
    p.locator('g[id="v1-op3-1"]').focus()
    assert (
        p.locator(".avz-ask-tip").text_content()
        == "local derivative: ∂((x + y) · y)/∂y = x + y = 5"
    )
    # an open panel follows new inputs
    p.locator('g[id="v1"]').click()
    p.get_by_label("x, a number").fill("1")
    _wait_text(p, ".avz-ask-sum", "∂out/∂y = ȳ via the product + ȳ via the sum = 4 + 3 = 7")
    assert page.console_errors == []


def test_a_branch_in_f_is_laid_out_again_and_the_view_says_so(page):
    def g(x):
        return x * x if x.data > 0 else x + 1

    show(page.page, explore(g, x=2))
    p = page.page
    p.get_by_label("x, a number").fill("-1")
    p.wait_for_function(
        "() => /laid out again/.test(document.querySelector('.avz-explore-status').textContent)"
    )
    assert p.evaluate(_CELLS)["v2-data"] == "data 0"  # -1 + 1
    assert p.locator('g[id="op2"]').text_content().strip().endswith("+")


def test_a_stopped_kernel_is_said_not_a_frozen_view(page):
    ex = explore(f, x=2, y=3)
    ex.timeout_ms = 800
    show(page.page, ex)
    p = page.page
    stop(p)
    p.get_by_label("x, a number").fill("1")
    _wait_text(p, ".avz-explore-status", KERNEL_GONE)
    assert p.evaluate(_CELLS)["v1-grad"] == "grad 8"  # the last numbers stay, marked stale
    assert p.locator("#explorer .avz-explore").get_attribute("data-kernel") == "gone"
    opacity = "() => getComputedStyle(document.querySelector('.avz-explore-drawing')).opacity"
    assert p.evaluate(opacity) == "0.5"  # the old numbers, greyed out under the message


def test_an_error_in_f_is_shown_in_the_view(page):
    show(page.page, explore(lambda x: x.log(), x=2))
    p = page.page
    p.get_by_label("x, a number").fill("")  # half-typed: said here, the kernel is not asked
    assert p.locator(".avz-explore-status").text_content() == "x: type a number"
    assert p.locator(".avz-explore").get_attribute("data-sent") is None
    p.get_by_label("x, a number").fill("-1")
    p.wait_for_function(
        "() => /^ValueError: log/.test(document.querySelector('.avz-explore-status').textContent)"
    )


# ---------------------------------------------------------------- real JupyterLab


_NOTEBOOK_CELL = """\
from autograd_viz import explore
explore(lambda x, y: (x + y) * y, x=2, y=3)"""


def test_explore_in_jupyterlab_updates_then_says_when_the_kernel_is_stopped(jupyterlab, page):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(_NOTEBOOK_CELL)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    p = page.page
    jupyterlab.open_notebook(p, "explore_demo.ipynb", nb)
    grad = '.jp-OutputArea [id="v1-grad"]'
    jupyterlab.run_all(p, "explore_demo.ipynb", grad)
    assert p.locator(grad).text_content() == "grad 8"
    p.locator(".jp-OutputArea").get_by_label("x, a number").fill("1")
    p.wait_for_function(
        "(s) => document.querySelector(s).textContent === 'grad 7'", arg=grad, timeout=20_000
    )
    # stop the kernel, as Kernel > Shut Down does, then change an input again: the kernel the
    # notebook's session has now (on a busy machine the page may have started its own)
    with urllib.request.urlopen(
        urllib.request.Request(
            f"{jupyterlab.url}/api/sessions",
            headers={"Authorization": f"token {jupyterlab.token}"},
        ),
        timeout=60,
    ) as answer:
        sessions = json.load(answer)
    [kernel] = [s["kernel"]["id"] for s in sessions if s["path"].endswith("explore_demo.ipynb")]
    request = urllib.request.Request(
        f"{jupyterlab.url}/api/kernels/{kernel}",
        method="DELETE",
        headers={"Authorization": f"token {jupyterlab.token}"},
    )
    urllib.request.urlopen(request, timeout=60).close()
    # the page has seen its kernel go (JupyterLab's kernel indicator leaves "idle")
    p.locator(".jp-Notebook-ExecutionIndicator:not([data-status='idle'])").first.wait_for(
        state="attached", timeout=60_000
    )
    p.locator(".jp-OutputArea").get_by_label("x, a number").fill("5")
    p.wait_for_function(
        "(t) => [...document.querySelectorAll('.avz-explore-status')]"
        ".some((e) => e.textContent === t)",
        arg=KERNEL_GONE,
        timeout=20_000,
    )
    assert p.locator(grad).text_content() == "grad 7"
    assert page.foreign_requests() == []
