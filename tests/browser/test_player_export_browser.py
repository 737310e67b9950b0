"""The player in an nbconvert HTML export, opened from file:// with every network request
refused: the output's kernel-free HTML (the one player module, its step table and packed
KaTeX) plays — Next, keys, phase — and typesets its equations, asking the network for nothing.

The notebook is saved as JupyterLab saves it by default (outputs, no widget state), so
nbconvert shows each output's HTML; the kit's own `save_notebook_html` is checked too.
"""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient
from player_page import BLUE, DEMO_SOURCE, VERMILION, demo_notebook

pytestmark = pytest.mark.browser

# nbconvert's own template asks for MathJax and RequireJS from a CDN; the player needs neither
TEMPLATE_CDN = ("cdnjs.cloudflare.com/ajax/libs/mathjax", "cdnjs.cloudflare.com/ajax/libs/require")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> object:
    """`jupyter nbconvert --to html` of the executed demo notebook (no widget state)."""
    folder = tmp_path_factory.mktemp("export")
    nb = demo_notebook()
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(folder)}}).execute()  # fmt: skip
    nbformat.write(nb, folder / "demo.ipynb")
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(folder / "demo.ipynb")],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return folder / "demo.html"


def _offline(page: object) -> list[str]:
    """Refuse every request that is not a file of this machine; the list of all asked for."""
    asked: list[str] = []

    def route(r: object) -> None:
        asked.append(r.request.url)
        if r.request.url.startswith(("file:", "data:", "about:", "blob:")):
            r.continue_()
        else:
            r.abort()

    page.context.route("**/*", route)
    return asked


_STATE = """(doc) => {
  const p = doc.querySelector('.avz-player');
  const node = p.querySelector('.avz-graph g.node.active .avz-shape');
  return {step: Number(p.dataset.step), caption: p.querySelector('.avz-caption').textContent,
          equation: p.querySelector('.avz-eq').dataset.text,
          katex: !!p.querySelector('.avz-eq .katex .katex-mathml'),
          paint: node ? [getComputedStyle(node).fill, getComputedStyle(node).stroke] : null};
}"""


def _state(frame: object) -> dict:
    return frame.evaluate(f"() => ({_STATE})(document)")


def test_the_nbconvert_export_plays_offline_from_file(exported, page):
    p = page.page
    asked = _offline(p)
    p.goto(exported.as_uri())
    frame_el = p.locator("iframe.avz-inline").first
    frame_el.wait_for()
    frame = frame_el.element_handle().content_frame()
    frame.locator(".avz-player[data-step='1']").wait_for(timeout=30_000)
    frame.locator(".avz-eq .katex").wait_for(timeout=30_000)  # the packed KaTeX unpacked
    first = _state(frame)
    assert first["caption"] == "step 1 of 9 — forward pass" and first["katex"]
    assert "x = 2" in first["equation"]

    frame.locator("button.avz-next").click()
    second = _state(frame)
    assert second["step"] == 2 and "2 + 3 = 5" in second["equation"]
    frame.locator(".avz-graph").click()
    p.keyboard.press("End")
    last = _state(frame)
    assert last["step"] == 9 and last["equation"].endswith("= 8")
    assert last["paint"] == [BLUE, VERMILION] and last["katex"]
    p.keyboard.press("Home")
    assert _state(frame)["step"] == 1
    frame.locator("button.avz-phase[data-phase='backward']").click()
    assert _state(frame)["caption"] == "step 1 of 6 — backward pass · the seed"
    frame.locator("button.avz-play").click()  # plays to the end by itself, then stops
    frame.wait_for_function(
        "() => document.querySelector('.avz-player').dataset.step === '6' && "
        "document.querySelector('.avz-play').textContent.includes('Play')",
        timeout=20_000,
    )

    foreign = [u for u in asked if not u.startswith(("file:", "data:", "about:", "blob:"))]
    assert [u for u in foreign if not any(t in u for t in TEMPLATE_CDN)] == [], foreign
    assert not page.console_errors or all(
        "net::ERR_FAILED" in e or "MathJax" in e or "require" in e for e in page.console_errors
    ), page.console_errors


def test_save_notebook_html_plays_its_player_offline(tmp_path, page):
    from autograd_viz.exports.notebook_html import save_notebook_html

    nb = demo_notebook(DEMO_SOURCE)
    nbformat.write(nb, tmp_path / "demo.ipynb")
    out = save_notebook_html(tmp_path / "demo.ipynb")
    p = page.page
    asked = _offline(p)
    p.goto(out.as_uri())
    frame_el = p.locator("iframe.avz-inline").first
    frame_el.wait_for()
    frame = frame_el.element_handle().content_frame()
    frame.locator(".avz-player[data-step='1']").wait_for(timeout=30_000)
    frame.locator(".avz-eq .katex").wait_for(timeout=30_000)  # the page's own KaTeX
    frame.locator("button.avz-next").click()
    assert _state(frame)["step"] == 2
    assert [u for u in asked if not u.startswith(("file:", "data:", "about:", "blob:"))] == []
