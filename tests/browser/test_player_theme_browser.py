"""A saved notebook reopened in JupyterLab Dark, in real Chromium: the player restored from
the saved widget state (its `_css` as saved, no cell run) colours its own text with the
palette's dark rows, and its drawing keeps its light card and the light palette. A screenshot
goes to the test's temporary folder.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.sign import NotebookNotary
from player_colours import PLAYER_COLOURS, rgb
from player_page import demo_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "dark_player.ipynb"
PLAYER = ".jp-OutputArea-output .avz-player[data-step]"
_THEME_APPLIED = """() => {
  const rgb = getComputedStyle(document.querySelector('.jp-Notebook')).backgroundColor
    .match(/[0-9.]+/g).slice(0, 3).map(Number);
  return String((rgb[0] + rgb[1] + rgb[2]) / 3 > 128) === document.body.dataset.jpThemeLight;
}"""


def _theme(page: object, theme: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Theme\s*$")).first.hover()
    page.locator(".lm-Menu-item", has_text=re.compile(f"^{theme}\\s*$")).first.click()
    page.locator(f"body[data-jp-theme-name='{theme}']").wait_for(state="attached")
    page.wait_for_function(_THEME_APPLIED)
    page.locator("#jupyterlab-splash").wait_for(state="detached")  # the switch's overlay


def test_a_saved_player_reopened_in_jupyterlab_dark_takes_the_palettes_dark_rows(
    jupyterlab, browser, tmp_path
):
    nb = demo_notebook()
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    NotebookNotary().sign(nb)  # trusted: JupyterLab restores its widgets on opening
    nbformat.write(nb, jupyterlab.root / NOTEBOOK)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(jupyterlab.notebook_url(NOTEBOOK))
        player = page.locator(PLAYER).first
        player.wait_for(timeout=90_000)
        _theme(page, "JupyterLab Dark")
        player.scroll_into_view_if_needed()
        got = player.evaluate(PLAYER_COLOURS)
        page.screenshot(path=str(tmp_path / "saved_player_dark.png"))
        print(f"\nscreenshot: {tmp_path / 'saved_player_dark.png'}")
        _theme(page, "JupyterLab Light")  # the session's other tests expect the default
    finally:
        context.close()
    assert got == {
        "caption": rgb("dark-ink"),
        "button": rgb("dark-card"),
        "forward": rgb("dark-forward-text"),
        "computed": rgb("ink"),  # the drawing: its light card, the light palette
        "pending": rgb("muted"),
    }
