"""`draw()` where learners meet it: inline in real JupyterLab, and text that fits its boxes
in real Chromium — with a label that tries to inject markup doing nothing."""

from __future__ import annotations

import pytest
from player_page import demo_notebook

from autograd_viz import MLP, Value
from autograd_viz.render import draw

pytestmark = pytest.mark.browser

_CELLS = [
    # the last expression of a cell
    """\
from autograd_viz import Value
from IPython.display import display
a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
L = (a * b + c) ** 2
L.draw()""",
    # display(), after backward, bigger font for a projector
    "L.backward()\ndisplay(L.draw(font_size=18))",
    # a label that tries to run script in the notebook page
    """\
v = Value(1.0, label='<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>')
(v * 2).draw()""",
]

# Every value node's texts inside its box (browser font metrics vs graphviz's layout).
_OVERFLOWS = """
() => {
  const bad = [];
  for (const g of document.querySelectorAll('svg g.node')) {
    const shape = g.querySelector('polygon, path, ellipse');
    const box = shape.getBBox();
    for (const t of g.querySelectorAll('text')) {
      const r = t.getBBox();
      if (r.x < box.x - 0.5 || r.x + r.width > box.x + box.width + 0.5)
        bad.push(`${g.id}: ${t.textContent} ${r.width.toFixed(1)} in ${box.width.toFixed(1)}`);
    }
  }
  return bad;
}
"""


def test_drawings_show_inline_in_jupyterlab_and_labels_inject_nothing(jupyterlab, page):
    p = page.page
    dialogs: list[str] = []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    jupyterlab.open_notebook(p, "draw_demo.ipynb", demo_notebook(*_CELLS))
    _accept_kernel_dialog(p)
    svgs = p.locator(".jp-OutputArea-output.jp-RenderedSVG")
    jupyterlab.run_all(p, "draw_demo.ipynb", ".jp-OutputArea-output.jp-RenderedSVG", count=3)
    assert svgs.count() == 3
    sizes = p.evaluate(
        """() => [...document.querySelectorAll('.jp-OutputArea-output.jp-RenderedSVG')].map(
             (out) => { const img = out.querySelector('img, svg');
                        const r = img.getBoundingClientRect();
                        const scroll = ['auto', 'scroll'].includes(getComputedStyle(out).overflowX);
                        return [img.tagName.toLowerCase(), Math.round(r.width),
                                Math.round(r.height), img.complete !== false,
                                r.width <= out.clientWidth || scroll]; })"""
    )
    for tag, width, height, loaded, reachable in sizes:
        assert tag in ("img", "svg") and loaded
        assert 100 < width <= 1400 and 20 < height < 400
        assert reachable, "a drawing wider than the output area must scroll, not be cut off"
    assert sizes[1][1] > sizes[0][1]  # font_size=18 draws bigger than the default 12
    assert p.evaluate("() => window.__pwned") is None
    assert dialogs == []
    assert page.foreign_requests() == []


def _accept_kernel_dialog(p: object) -> None:
    """Choose the notebook's own kernel if JupyterLab asks (it may, on a fresh profile)."""
    select = p.locator(".jp-Dialog button", has_text="Select")
    try:
        select.wait_for(state="visible", timeout=10_000)
    except Exception:  # no dialog: the kernel started by itself
        return
    select.click()


def test_text_fits_inside_every_box_in_chromium(page):
    *_, loss = _mlp_loss()
    x = Value(-0.123456, label="a long input name")
    y = (x * x + 1).tanh() / 3
    y.backward()
    html = "".join(
        f"<div>{d.svg()}</div>"
        for d in (
            draw(y),
            draw(y, font_size=20),
            draw(loss, collapse="neuron"),
            draw(loss, collapse="layer"),
        )
    )
    page.page.set_content(f"<!doctype html><html><body>{html}</body></html>")
    assert page.page.evaluate(_OVERFLOWS) == []


def _mlp_loss():
    m = MLP(2, [3, 2, 1], seed=5)
    out = m([0.25, -1.5])
    loss = (out - 1) ** 2
    loss.backward()
    return m, loss
