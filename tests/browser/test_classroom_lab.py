"""The classroom in real JupyterLab 4 and Chromium at projector size (1280×720).

One notebook, run once for the module: the blog's z = (x + y)·y as a normal player and a
projector player, a graph more than twice the player's width, an exercise and the teacher
switch. Everything is measured in the page, never read from CSS source:

* projector mode: the graph fills the player's width, node text renders at least 1.6× the
  normal player's in pixels, caption, history and equation are at least 20 px, and a
  presenter's remote (PageDown/PageUp, → ←) steps the player once it has focus;
* WCAG AA: every text the kit draws or styles reaches 4.5:1 in JupyterLab Light, Dark and
  Dark High Contrast, computed from the painted colours;
* a wide graph scrolls, shows that it does, and keeps each step's active node in view, to the
  last step; a wide drawing keeps its size and scrolls in its output;
* the teacher switch says what it will do next; a phase switch never shows a stale step.

Screenshots go to the module's temporary folder (printed at the end of each test).
"""

from __future__ import annotations

import re

import pytest
from classroom_page import contrast, worst
from player_page import demo_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "classroom.ipynb"
CELLS = [
    """\
from autograd_viz import Value
from autograd_viz.exercises import Exercise, teacher_mode

x, y = Value(2.0, label="x"), Value(3.0, label="y")
z = (x + y) * y
z.label = "z\"""",
    "z.animate()",
    "z.animate(projector=True)",
    """\
w = Value(1.0, label="a")
for k in range(7):  # a chain of products: its drawing is more than twice the player's width
    w = w * Value(1.0 + k / 10, label=f"w{k}")
w.label = "out"
w.animate(phase="forward")""",
    """\
m = Value(1.0, label="a")
for k in range(4):  # about 1.3 times the player's width: fitting keeps its text >= 10 px
    m = m * Value(1.0 + k / 10, label=f"m{k}")
m.animate(phase="forward")""",
    'Exercise("With x = 2 and y = 3, what is x + y?", answer=5, hint="Add them.")',
    """\
import os
os.environ["AUTOGRAD_VIZ_TEACHER"] = "1"  # the teacher's machine: the switch is unlocked
teacher_mode()""",
    "w.draw()",
]
PLAYERS = ".jp-OutputArea-output .avz-player"
THEMES = ["JupyterLab Light", "JupyterLab Dark", "JupyterLab Dark High Contrast"]


@pytest.fixture(scope="module")
def classroom(jupyterlab, browser, tmp_path_factory):
    """The notebook run in JupyterLab at 1280×720, file browser closed; (page, screenshot dir)."""
    shots = tmp_path_factory.mktemp("classroom_screenshots")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(60_000)
    page = context.new_page()
    jupyterlab.open_notebook(page, NOTEBOOK, demo_notebook(*CELLS))
    open_tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if open_tab.count():
        open_tab.first.click()  # close the file browser: the notebook takes the width
    jupyterlab.run_all(page, NOTEBOOK, f"{PLAYERS} .avz-graph svg", count=4)
    try:
        yield page, shots
    finally:
        print(f"\nclassroom screenshots: {shots}")
        context.close()


def _player(page: object, k: int) -> object:
    player = page.locator(PLAYERS).nth(k)
    player.scroll_into_view_if_needed()
    return player


def _step(player: object) -> int:
    return int(player.get_attribute("data-step"))  # 1-based, as the caption counts


_SIZES = """(player) => {
  const body = player;
  const svg = body.querySelector('.avz-graph svg');
  const box = svg.getBoundingClientRect();
  const scale = svg.getScreenCTM().a;  // SVG user units -> CSS pixels on screen
  const node = [...svg.querySelectorAll('g.node text')]
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale).sort((a, b) => a - b);
  const px = (sel) => {
    const el = body.querySelector(sel);
    return el ? parseFloat(getComputedStyle(el).fontSize) : 0;
  };
  const math = '.avz-eq .katex';  // the typeset equation (KaTeX), else its text
  const eq = body.querySelector(math) ? px(math) : px('.avz-eq');
  const graph = body.querySelector('.avz-graph').getBoundingClientRect();
  return {player: player.getBoundingClientRect().width, graph: graph.width,
          svgWidth: box.width, svgHeight: box.height, bottom: box.bottom,
          node: node[Math.floor(node.length / 2)],
          caption: px('.avz-caption'), history: px('.avz-history li'), equation: eq,
          controls: player.querySelector('.avz-play').getBoundingClientRect().bottom};
}"""


def test_projector_mode_fills_the_width_and_reads_from_the_back_row(classroom):
    page, shots = classroom
    normal = _player(page, 0).evaluate(_SIZES)
    big = _player(page, 1)
    # a presenter's remote: focus the player once (click its graph), then PageDown/PageUp
    big.locator(".avz-graph").first.click()
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    assert _step(big) == 3, "PageDown did not step the focused player"
    page.keyboard.press("PageUp")
    assert _step(big) == 2
    page.keyboard.press("ArrowRight")
    assert _step(big) == 3
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    assert _step(big) == 3
    sizes = big.evaluate(_SIZES)
    big.screenshot(path=str(shots / "projector_player.png"))
    print(f"\nprojector at 1280x720: {sizes}; normal player: {normal}")
    assert sizes["graph"] >= 0.97 * sizes["player"], sizes
    fills_width = sizes["svgWidth"] >= 0.95 * sizes["graph"]
    fills_height = sizes["svgHeight"] >= 0.95 * (720 * 0.62)  # the height left after controls
    assert fills_width or fills_height, f"the graph does not fill the player: {sizes}"
    assert sizes["node"] >= 1.6 * normal["node"], (sizes["node"], normal["node"])
    for part in ("caption", "history", "equation"):
        assert sizes[part] >= 20, f"projector {part} is {sizes[part]:.1f} px (< 20): {sizes}"


# The theme's stylesheet has applied: the notebook's background is as light or as dark as the
# theme says it is (JupyterLab names the theme on <body> while its stylesheet may still load).
_THEME_APPLIED = """() => {
  const rgb = getComputedStyle(document.querySelector('.jp-Notebook')).backgroundColor
    .match(/[0-9.]+/g).slice(0, 3).map(Number);
  const light = (rgb[0] + rgb[1] + rgb[2]) / 3 > 128;
  return String(light) === document.body.dataset.jpThemeLight;
}"""


@pytest.mark.parametrize("theme", THEMES)
def test_every_kit_text_meets_wcag_aa(classroom, theme):
    page, shots = classroom
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
    page.locator(".lm-Menu-item", has_text=re.compile(r"^Theme\s*$")).first.hover()
    page.locator(".lm-Menu-item", has_text=re.compile(f"^{theme}\\s*$")).first.click()
    page.locator(f"body[data-jp-theme-name='{theme}']").wait_for(state="attached")
    page.wait_for_function(_THEME_APPLIED)  # its stylesheet, not only its name
    # feedback, hint and answer texts on show too
    box = page.locator(".jp-OutputArea-output input[placeholder='your answer']").first
    box.scroll_into_view_if_needed()
    box.fill("4")
    box.press("Enter")
    page.locator(".jp-OutputArea-output", has_text="Not quite").first.wait_for()
    player = _player(page, 0)
    player.locator(".avz-graph").first.click()
    page.keyboard.press("PageDown")  # a step with history lines and a highlighted node
    page.keyboard.press("PageDown")
    texts = contrast(page, ".jp-Notebook .jp-OutputArea-output")
    page.screenshot(path=str(shots / f"contrast_{theme.replace(' ', '_')}.png"), full_page=True)
    assert len(texts) > 50, f"too few texts measured: {len(texts)}"
    where = {t.where.split(".")[0] for t in texts}
    assert {"text", "div", "input"} <= where, where  # SVG labels, HTML text, form fields
    lowest = min(texts, key=lambda t: t.ratio)
    print(f"\n{theme}: {len(texts)} texts measured, lowest contrast {lowest}")
    bad = worst(texts)
    assert not bad, f"{theme}: {len(bad)} texts below 4.5:1, worst first: {bad[:8]}"


def test_wide_graph_scrolls_and_keeps_the_active_node_in_view(classroom):
    page, shots = classroom
    wide = _player(page, 2)
    graph = wide.locator(".avz-graph").first
    size = graph.evaluate("(g) => ({view: g.clientWidth, full: g.scrollWidth})")
    assert size["full"] >= 2 * size["view"], f"the test graph is not twice as wide: {size}"
    hint = wide.locator(".avz-scroll-hint").first
    assert hint.is_visible(), "a wide graph shows no sign that it scrolls"
    assert not wide.locator(".avz-fit").is_visible(), "fitting would shrink its text below 10 px"
    wide.locator(".avz-graph").first.click()
    n = int(wide.locator(".avz-caption").first.inner_text().split(" of ")[1].split()[0])
    for _ in range(n - 1):
        page.keyboard.press("PageDown")
    assert _step(wide) == n
    seen = wide.evaluate(
        """(player) => {
          const g = player.querySelector('.avz-graph');
          const node = g.querySelector('g.node.active');
          const a = node.getBoundingClientRect(), v = g.getBoundingClientRect();
          return {left: a.left - v.left, right: v.right - a.right, scroll: g.scrollLeft,
                  id: node.id};
        }"""
    )
    wide.screenshot(path=str(shots / "wide_graph_last_step.png"))
    assert seen["left"] >= 0 and seen["right"] >= 0, f"the active node is out of view: {seen}"
    assert seen["scroll"] > 0, seen


_FIT = """(player) => {
  const g = player.querySelector('.avz-graph');
  const svg = g.querySelector('svg');
  const scale = svg.getScreenCTM().a;
  const text = Math.min(...[...svg.querySelectorAll('g.node text')]
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
  return {view: g.clientWidth, full: g.scrollWidth, svg: svg.getBoundingClientRect().width,
          text: text};
}"""


def test_fit_to_width_shrinks_a_wide_graph_only_as_far_as_readable(classroom):
    page, shots = classroom
    player = _player(page, 3)
    before = player.evaluate(_FIT)
    assert before["full"] > before["view"], f"the test graph fits already: {before}"
    player.locator(".avz-fit").click()
    fitted = player.evaluate(_FIT)
    player.screenshot(path=str(shots / "fit_to_width.png"))
    assert fitted["full"] <= fitted["view"] + 1 and fitted["svg"] <= fitted["view"] + 1, fitted
    assert fitted["text"] >= 10, f"fitted node text is {fitted['text']:.1f} px: {fitted}"
    player.locator(".avz-fit").click()
    assert player.evaluate(_FIT)["full"] > before["view"], "unticking did not restore the size"


def test_wide_drawing_keeps_its_size_and_scrolls_in_its_output(classroom):
    page, shots = classroom
    box = page.locator(".jp-OutputArea-output .avz-wide-drawing").first
    box.scroll_into_view_if_needed()
    size = box.evaluate(
        """(box) => {
          const svg = box.querySelector('svg');
          return {view: box.clientWidth, full: box.scrollWidth,
                  svg: svg.getBoundingClientRect().width,
                  px: svg.width.baseVal.value};
        }"""
    )
    box.screenshot(path=str(shots / "wide_drawing.png"))
    assert size["full"] > size["view"], f"the wide drawing does not scroll: {size}"
    assert abs(size["svg"] - size["px"]) < 1, f"the drawing was shrunk to the column: {size}"
    assert box.get_by_text("scroll it sideways").is_visible()


def test_teacher_switch_says_what_it_will_do_next(classroom):
    page, _shots = classroom
    switch = page.locator(".jp-OutputArea-output .widget-toggle-button").last
    switch.scroll_into_view_if_needed()
    assert "show all answers" in switch.inner_text()
    switch.click()
    page.locator(".jp-OutputArea-output", has_text="Answer:").first.wait_for()
    assert "hide all answers" in switch.inner_text()
    switch.click()
    page.wait_for_function(
        "() => !document.querySelector('.jp-Notebook').innerText.includes('Answer:')"
    )
    assert "show all answers" in switch.inner_text()


def test_small_graph_has_no_blank_gap_before_its_equation(classroom):
    page, _shots = classroom
    gap = _player(page, 0).evaluate(
        """(player) => {
          const body = player;
          const svg = body.querySelector('.avz-graph svg').getBoundingClientRect();
          const eq = body.querySelector('.avz-eq').getBoundingClientRect();
          const lines = body.querySelectorAll('.avz-history li').length;
          const line = parseFloat(getComputedStyle(body).lineHeight) || 20;
          return {gap: eq.top - svg.bottom, lines: lines, line: line};
        }"""
    )
    # what may sit between graph and equation: the history lines on show, and a little margin
    allowed = gap["lines"] * 1.6 * gap["line"] + 24
    assert gap["gap"] <= allowed, f"blank gap under the graph: {gap}"


_RECORD = """(player) => {
  window.avzSeen = [];
  new MutationObserver(() => {
    const caption = player.querySelector('.avz-caption').textContent;
    if (caption && caption !== window.avzSeen[window.avzSeen.length - 1]) {
      window.avzSeen.push(caption);
    }
  }).observe(player, {childList: true, subtree: true, attributes: true});
}"""


def test_phase_switch_never_shows_a_stale_step(classroom):
    page, _shots = classroom
    player = _player(page, 0)
    player.locator(".avz-graph").first.click()
    page.keyboard.press("Home")
    for _ in range(5):
        page.keyboard.press("PageDown")
    assert _step(player) == 6
    before = player.locator(".avz-caption").first.inner_text()
    player.evaluate(_RECORD)
    player.locator(".avz-phase[data-phase='backward']").click()
    player.locator(".avz-caption", has_text="step 1 of").first.wait_for()
    # the switch is one model change, drawn in the frame it lands: two more frames show any
    # step it would pass on its way
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    seen = page.evaluate("window.avzSeen")
    after = player.locator(".avz-caption").first.inner_text()
    assert after.startswith("step 1 of") and "backward pass" in after
    stale = [c for c in seen if c not in (before, after)]
    assert not stale, f"a phase switch showed other steps on its way to step 1: {seen}"
