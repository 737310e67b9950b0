"""The widget-free player inline, in a page with no widget manager (as Colab, VS Code without
one, nbviewer or a saved HTML page would show a notebook output), in real Chromium.

The page holds only what `animate(widgets=False)` puts in a notebook output (its HTML), twice
— a normal player and a projector one over a graph more than twice as wide — and nothing
else: no RequireJS, no widget manager, no kernel. The test steps each player with its buttons
and with a presenter's keys once it has focus, measures the projector's text sizes, checks the
last step's node of the wide graph is scrolled into view, and that nothing left the machine.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _page_html() -> str:
    from autograd_viz import Value
    from autograd_viz.viz.inline import InlinePlayer, animate

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    w = Value(1.0, label="a")
    for k in range(7):
        w = w * Value(1.0 + k / 10, label=f"w{k}")
    w.label = "out"
    small = animate(z, widgets=False)
    assert isinstance(small, InlinePlayer)
    wide = InlinePlayer(w, phase="forward", projector=True)
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>no widgets here</title></head>"
        f"<body style='max-width:1100px'><div class='output'>{small._repr_html_()}</div>"
        f"<div class='output'>{wide._repr_html_()}</div></body></html>"
    )


@pytest.fixture(scope="module")
def inline_page(static_server):
    path = static_server.root / "inline_players.html"
    path.write_text(_page_html(), encoding="utf-8")
    return static_server.url_for(path)


def _frames(p) -> list:
    p.wait_for_function("() => document.querySelectorAll('iframe.avz-inline').length === 2")
    frames = [f for f in p.frames if f.parent_frame is not None]
    assert len(frames) == 2
    return frames


def test_inline_player_steps_without_any_widget_manager(inline_page, page, tmp_path):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(inline_page)
    small, _wide = _frames(p)
    assert p.evaluate("() => !window.require && !window.define && !window.jupyter")
    caption = small.locator("#avz-caption")
    assert caption.inner_text().startswith("step 1 of 9")
    box = p.locator("iframe.avz-inline").first.bounding_box()
    assert box["height"] >= 300, f"the inline player is not sized to its page: {box}"
    small.locator("#avz-next").click()
    assert caption.inner_text().startswith("step 2 of 9")
    assert "2 + 3 = 5" in small.locator("#avz-equation").inner_text()
    p.keyboard.press("PageDown")  # focus is in the player: a presenter's remote steps it
    assert caption.inner_text().startswith("step 3 of 9")
    p.keyboard.press("PageUp")
    p.keyboard.press("ArrowRight")
    assert caption.inner_text().startswith("step 3 of 9")
    p.screenshot(path=str(tmp_path / "inline_player.png"))
    assert page.foreign_requests() == [], page.foreign_requests()
    assert not [f for f in page.failed if "favicon" not in f], page.failed


def test_inline_projector_player_keeps_the_last_step_in_view_and_reads_large(
    inline_page, page, tmp_path
):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(inline_page)
    _small, wide = _frames(p)
    p.locator("iframe.avz-inline").nth(1).scroll_into_view_if_needed()
    wide.locator("#avz-next").click()
    wide.locator("body").press("End")
    n = int(wide.locator("#avz-caption").inner_text().split(" of ")[1].split()[0])
    assert wide.locator("#avz-caption").inner_text().startswith(f"step {n} of {n}")
    sizes = wide.evaluate(
        """() => {
          const px = (s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize);
          const g = document.querySelector('.avz-graph');
          const node = g.querySelector('svg .active').getBoundingClientRect();
          const view = g.getBoundingClientRect();
          return {caption: px('#avz-caption'), equation: px('#avz-equation'),
                  history: px('.avz-derivation li'), scrolls: g.scrollWidth > g.clientWidth,
                  left: node.left - view.left, right: view.right - node.right};
        }"""
    )
    p.screenshot(path=str(tmp_path / "inline_wide_projector_last_step.png"))
    for part in ("caption", "equation", "history"):
        assert sizes[part] >= 20, sizes
    assert sizes["scrolls"], f"the wide graph was squeezed to the width instead: {sizes}"
    assert sizes["left"] >= 0 and sizes["right"] >= 0, f"last step's node out of view: {sizes}"
