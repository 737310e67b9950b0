"""explore() in the JupyterLite edition: anywidget's front end and its Python side ship inside
the site, so a cell running `explore(...)` renders in the browser and recomputes in the
Pyodide kernel when an input changes, with every host but 127.0.0.1 blocked (no CDN)."""

from __future__ import annotations

import contextlib
import json
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_lite_site import NOTEBOOKS, Browser

pytestmark = pytest.mark.browser

CODE = """\
from autograd_viz import explore
explore(lambda x, y: (x + y) * y, x=2, y=3)"""

# Put CODE in the notebook's first code cell, clear outputs, run that cell only.
_RUN_FIRST_JS = """async (code) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.sessionContext.ready;
  const index = panel.content.widgets.findIndex((c) => c.model.type === 'code');
  panel.content.widgets[index].model.sharedModel.setSource(code);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  panel.content.activeCellIndex = index;
  await app.commands.execute('notebook:run-cell');
}"""


@pytest.fixture
def lite(chromium: object, site: str, request: pytest.FixtureRequest) -> Iterator[Browser]:
    browser = Browser(chromium, site)
    yield browser
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        shot = Path(tempfile.gettempdir()) / "autograd_viz_lite_failures" / "explore.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):
            browser.page.screenshot(path=str(shot), full_page=True)
            print(
                f"\nscreenshot of the failing page: {shot}; HTTP errors: {browser.failed}; "
                f"page errors: {browser.page_errors}"
            )
    browser.close()


def test_the_site_ships_anywidget_front_end_and_wheels(built):
    """anywidget's labextension is a federated extension of the site; anywidget, psygnal and
    typing-extensions are wheels served by the site, and autograd-viz depends on anywidget."""
    ext = built / "extensions" / "anywidget" / "package.json"
    assert json.loads(ext.read_text())["name"] == "anywidget"
    assert "anywidget" in (built / "jupyter-lite.json").read_text()
    pyodide = built / "static" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())["packages"]
    for name in ("anywidget", "psygnal", "typing-extensions"):
        wheel = pyodide / lock[name]["file_name"]
        assert wheel.is_file() and wheel.name.endswith("-none-any.whl"), name
    assert set(lock["anywidget"]["depends"]) == {"ipywidgets", "psygnal", "typing-extensions"}
    assert "anywidget" in lock["autograd-viz"]["depends"]
    with zipfile.ZipFile(pyodide / lock["psygnal"]["file_name"]) as wheel:
        assert not [n for n in wheel.namelist() if n.endswith((".so", ".pyd"))]


def test_explore_renders_and_recomputes_in_the_browser_edition(lite):
    lite.open(NOTEBOOKS[0])
    page = lite.page
    page.evaluate(_RUN_FIRST_JS, CODE)
    explorer = page.locator(".jp-OutputArea .avz-explore").first
    grad = explorer.locator('[id="v1-grad"]')
    expect(grad).to_have_text("grad 8", timeout=180_000)  # drawn by Graphviz-WASM in Pyodide
    explorer.get_by_label("x, a number").fill("1")  # ∂z/∂y = x + 2y = 7
    expect(grad).to_have_text("grad 7", timeout=30_000)
    assert explorer.locator('[id="v3-data"]').text_content() == "data 12"
    explorer.locator('g[id="v1"]').click()
    assert explorer.locator(".avz-ask-sum").text_content().endswith("= 4 + 3 = 7")
    assert not lite.foreign, f"requests left 127.0.0.1: {lite.foreign}"
    assert not lite.page_errors, f"page errors: {lite.page_errors}"
