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
from classroom_page import contrast, worst

pytestmark = pytest.mark.browser


def _page_html() -> str:
    from autograd_viz import Value
    from autograd_viz.api import player_for as animate
    from autograd_viz.front.inline import InlinePlayer

    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.label = "z"
    w = Value(1.0, label="a")
    for k in range(7):
        w = w * Value(1.0 + k / 10, label=f"w{k}")
    w.label = "out"
    m = Value(1.0, label="a")
    for k in range(4):  # about 1.3 times the page's width: fitting keeps its text >= 10 px
        m = m * Value(1.0 + k / 10, label=f"m{k}")
    small = animate(z, widgets=False)
    assert isinstance(small, InlinePlayer)
    wide = animate(w, widgets=False, phase="forward", projector=True)
    medium = animate(m, widgets=False, phase="forward")
    outputs = "".join(f"<div class='output'>{p._repr_html_()}</div>" for p in (small, wide, medium))
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>no widgets here</title></head>"
        f"<body style='max-width:1100px'>{outputs}</body></html>"
    )


@pytest.fixture(scope="module")
def inline_page(static_server):
    path = static_server.root / "inline_players.html"
    path.write_text(_page_html(), encoding="utf-8")
    return static_server.url_for(path)


def _frames(p) -> list:
    p.wait_for_function("() => document.querySelectorAll('iframe.avz-inline').length === 3")
    frames = [f for f in p.frames if f.parent_frame is not None]
    assert len(frames) == 3
    return frames


def test_inline_player_steps_without_any_widget_manager(inline_page, page, tmp_path):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(inline_page)
    small, _wide, _medium = _frames(p)
    assert p.evaluate("() => !window.require && !window.define && !window.jupyter")
    caption = small.locator(".avz-caption")
    assert caption.inner_text().startswith("step 1 of 9")
    box = p.locator("iframe.avz-inline").first.bounding_box()
    assert box["height"] >= 300, f"the inline player is not sized to its page: {box}"
    small.locator(".avz-next").click()
    assert caption.inner_text().startswith("step 2 of 9")
    assert "2 + 3 = 5" in small.locator(".avz-eq").inner_text()
    p.keyboard.press("PageDown")  # focus is in the player: a presenter's remote steps it
    assert caption.inner_text().startswith("step 3 of 9")
    p.keyboard.press("PageUp")
    p.keyboard.press("ArrowRight")
    assert caption.inner_text().startswith("step 3 of 9")
    p.screenshot(path=str(tmp_path / "inline_player.png"))
    bad = worst(contrast(small, "body"))
    assert not bad, f"texts below 4.5:1 in the widget-free player: {bad}"
    assert page.foreign_requests() == [], page.foreign_requests()
    assert not [f for f in page.failed if "favicon" not in f], page.failed


def test_inline_projector_player_keeps_the_last_step_in_view_and_reads_large(
    inline_page, page, tmp_path
):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(inline_page)
    _small, wide, _medium = _frames(p)
    p.locator("iframe.avz-inline").nth(1).scroll_into_view_if_needed()
    wide.locator(".avz-next").click()
    wide.locator("body").press("End")
    n = int(wide.locator(".avz-caption").inner_text().split(" of ")[1].split()[0])
    assert wide.locator(".avz-caption").inner_text().startswith(f"step {n} of {n}")
    sizes = wide.evaluate(
        """() => {
          const px = (s) => {
            const el = document.querySelector(s);
            return el ? parseFloat(getComputedStyle(el).fontSize) : 0;
          };
          const g = document.querySelector('.avz-graph');
          const node = g.querySelector('svg .active').getBoundingClientRect();
          const view = g.getBoundingClientRect();
          return {caption: px('.avz-caption'), equation: px('.avz-eq .katex') || px('.avz-eq'),
                  history: px('.avz-history li'), scrolls: g.scrollWidth > g.clientWidth,
                  left: node.left - view.left, right: view.right - node.right};
        }"""
    )
    p.screenshot(path=str(tmp_path / "inline_wide_projector_last_step.png"))
    for part in ("caption", "equation", "history"):
        assert sizes[part] >= 20, sizes
    assert sizes["scrolls"], f"the wide graph was squeezed to the width instead: {sizes}"
    assert sizes["left"] >= 0 and sizes["right"] >= 0, f"last step's node out of view: {sizes}"


def test_inline_fit_to_width_is_offered_only_where_text_stays_readable(inline_page, page):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(inline_page)
    _small, wide, medium = _frames(p)
    assert not wide.locator(".avz-fit").is_visible(), "fitting the 2x graph would shrink its text"
    p.locator("iframe.avz-inline").nth(2).scroll_into_view_if_needed()
    measure = """() => {
      const g = document.querySelector('.avz-graph'), svg = g.querySelector('svg');
      const scale = svg.getScreenCTM().a;
      const text = Math.min(...[...svg.querySelectorAll('g.node text')]
        .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
      return {view: g.clientWidth, full: g.scrollWidth, text: text};
    }"""
    before = medium.evaluate(measure)
    assert before["full"] > before["view"], before
    medium.locator(".avz-fit").check()
    fitted = medium.evaluate(measure)
    assert fitted["full"] <= fitted["view"] + 1 and fitted["text"] >= 10, fitted
