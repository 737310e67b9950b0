"""The executed notebook's HTML export (nbconvert, saved widget state) in Chromium with no
kernel and no internet: the widget manager, RequireJS and MathJax come from disk, and the
player still steps (step box ↑ ↓, slider ← →), plays and resets in the page."""

from __future__ import annotations

import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from player_page import BLUE, ORANGE, VERMILION, demo_notebook, read_player, wait_for_step

pytestmark = pytest.mark.browser

PLAYER = ".agv-player"


@pytest.fixture(scope="module")
def exported_page(static_server, local_export_urls, tmp_path_factory) -> str:
    """Execute the demo notebook (saving widget state), export it to HTML, return its URL."""
    nb = demo_notebook()
    workdir = tmp_path_factory.mktemp("export")
    NotebookClient(
        nb, timeout=180, kernel_name="python3", store_widget_state=True,
        resources={"metadata": {"path": str(workdir)}},
    ).execute()  # fmt: skip
    body, _ = HTMLExporter(**local_export_urls).from_notebook_node(nb)
    for url in local_export_urls.values():
        assert url in body, f"nbconvert did not use {url}"
    assert "cdn.jsdelivr.net" not in body and "unpkg.com" not in body
    target = static_server.root / "player_demo.html"
    target.write_text(body, encoding="utf-8")
    return static_server.url_for(target)


def test_exported_player_steps_and_plays_without_a_kernel(exported_page, page):
    p = page.page
    p.goto(exported_page)
    p.locator(f"{PLAYER} .agv-frame-body").first.wait_for(timeout=60_000)
    first = wait_for_step(p, 1)
    n = int(first.caption.split(" of ")[1].split()[0])
    assert first.caption.startswith(f"step 1 of {n}")
    assert "x = 2" in first.equation and first.active
    assert first.active_value()[1:] == (ORANGE, VERMILION)

    # without a kernel the controls that need one are hidden, the in-browser ones shown
    assert not p.locator(f"{PLAYER} button", has_text="Next").is_visible()
    assert not p.locator(f"{PLAYER} .widget-toggle-button", has_text="backward").is_visible()
    assert p.locator(f"{PLAYER} .widget-play button").first.is_visible()

    box = p.locator(f"{PLAYER} .widget-text input").first
    box.focus()
    box.press("ArrowUp")  # Next, in the browser alone
    second = wait_for_step(p, 2)
    assert "2 + 3 = 5" in second.equation and second.active != first.active
    box.press("ArrowDown")  # Prev
    assert wait_for_step(p, 1).equation == first.equation
    handle = p.locator(f"{PLAYER} .widget-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    assert wait_for_step(p, 2).equation == second.equation
    handle.press("ArrowLeft")
    assert wait_for_step(p, 1).equation == first.equation

    p.locator(f"{PLAYER} .widget-play button").first.click()  # ▶
    last = wait_for_step(p, n)
    assert last.equation.endswith("= 8") and "backward" in last.caption
    assert last.active != first.active
    assert last.active_value()[1:] == (BLUE, VERMILION)
    p.locator(f"{PLAYER} .widget-play button").nth(1).click()  # ■ back to the start
    assert wait_for_step(p, 1).equation == first.equation

    p.wait_for_function(
        "() => !!document.querySelector('.agv-eq .MathJax, .agv-eq .MathJax_CHTML')",
        timeout=30_000,
    )
    assert read_player(p).typeset, "the local MathJax typeset the equation"
    assert page.foreign_requests() == [], "the export reached for the internet"
    assert page.failed == [], "some files the page needs did not load"
