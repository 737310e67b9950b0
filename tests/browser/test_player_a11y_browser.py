"""The one player's accessibility, projector sizing and wide-graph scrolling, in Chromium on
the standalone page (the same module as the widget, the inline player and the deck).

* the caption and the equation are one `aria-live="polite"` region; the caption, the
  slider's value text and the graph's name say what `Frames.caption` wrote, every word;
* every control has an accessible name;
* the graph's text alternative (label, operation, value, gradient, state) is reachable with
  the keyboard alone and follows the step on show;
* focus is always visible; state is never carried by colour alone;
* a graph wider than the player scrolls and brings each step's node into view.
"""

from __future__ import annotations

import pytest
from examples import blog_z

from autograd_viz import Value
from autograd_viz.frames import Frames
from autograd_viz.nn import MLP

pytestmark = pytest.mark.browser

# what the player says at each step of a phase: the caption, its coloured title, the
# slider's value text and the graph's accessible name
_SAID = """(phase) => {
  const root = document.querySelector('.avz-player');
  root.querySelector(`.avz-phase[data-phase='${phase}']`).click();
  const api = root.avzPlayer, out = [];
  for (let k = 0; k < api.count(); k++) {
    api.go(k);
    const title = root.querySelector('.avz-caption span');
    out.push([root.querySelector('.avz-caption').textContent, title.className,
              title.textContent, root.querySelector('.avz-slider').getAttribute('aria-valuetext'),
              root.querySelector('.avz-graph svg').getAttribute('aria-label')]);
  }
  return out;
}"""


def _mlp_loss():
    return (MLP(2, [3, 1], seed=0)([0.5, -1.0]) - 1.0) ** 2


@pytest.mark.parametrize(
    ("make", "options"), [(blog_z, {}), (_mlp_loss, {"by": "neuron"})], ids=["blog", "by-neuron"]
)
def test_every_step_says_the_caption_frames_wrote(opened, make, options):
    frames = Frames(make(), **options)
    p = opened(make(), **options)
    for phase in ("forward", "backward", "both"):
        these = frames.for_phase(phase)
        said = p.evaluate(_SAID, phase)
        assert len(said) == len(these)
        for k, (caption, cls, title, valuetext, name) in enumerate(said):
            wrote = these.caption(k)
            assert caption == valuetext == wrote.text, (phase, k)
            assert (cls, title) == (f"avz-phase-{wrote.phase}", wrote.title)
            assert name == wrote.lead + these.steps[k].text


def test_caption_and_equation_are_one_polite_live_region(opened):
    p = opened(blog_z())
    regions = p.locator(".avz-player [aria-live]")
    assert regions.count() == 2  # the step's, and asking the graph's (silent until asked)
    assert [regions.nth(i).get_attribute("aria-live") for i in range(2)] == ["polite"] * 2
    assert p.locator(".avz-player .avz-ask-live").inner_text() == ""
    live = p.locator(".avz-player .avz-now[aria-live]")
    assert live.count() == 1
    p.keyboard.press("ArrowRight")
    text = live.inner_text()
    assert "step 2 of 9 — forward pass" in text
    # the maths reaches a screen reader as MathML (KaTeX's htmlAndMathml output)
    assert live.locator(".katex-mathml math").count() == 1
    assert live.locator(".avz-eq").get_attribute("data-text") == "x + y = 2 + 3 = 5"


def test_every_control_has_an_accessible_name(opened):
    p = opened(blog_z())
    nameless = p.evaluate(
        """() => [...document.querySelectorAll(
              '.avz-player button, .avz-player input, .avz-player select, .avz-player summary')]
          .filter((c) => !(c.getAttribute('aria-label') || c.textContent.trim() ||
                           (c.labels && c.labels.length && c.labels[0].textContent.trim())))
          .map((c) => c.outerHTML)"""
    )
    assert nameless == []
    names = p.evaluate(
        "() => [...document.querySelectorAll('.avz-player button')]"
        ".map((b) => b.getAttribute('aria-label') || b.textContent)"
    )
    assert "Next step (→ or PageDown)" in names and "Play (Space)" in names
    assert p.locator(".avz-player [role=group][aria-label=Phase]").count() == 1


def test_the_graph_as_a_table_is_reached_by_keyboard_and_follows_the_step(opened):
    p = opened(blog_z())
    for _ in range(40):  # Tab through the player until the table's summary has focus
        p.keyboard.press("Tab")
        if p.evaluate("() => document.activeElement.tagName") == "SUMMARY":
            break
    else:
        raise AssertionError("Tab never reached the graph's table")
    p.keyboard.press("Enter")
    rows = (
        "() => [...document.querySelectorAll('.avz-table tbody tr')]"
        ".map((r) => [...r.cells].map((c) => c.textContent))"
    )
    first = p.evaluate(rows)
    assert [r[:2] for r in first] == [["x", "input"], ["y", "input"], ["x + y", "+"], ["z", "*"]]
    assert first[3][2:] == ["?", "?", "not computed yet"]
    p.keyboard.press("End")
    last = p.evaluate(rows)
    assert last[1][2:] == ["3", "8", "gradient final — this step"]  # y: ∂z/∂y = 8
    assert last[3][2:4] == ["15", "1"]


def test_focus_is_always_visible(opened):
    p = opened(blog_z())
    for name in ("button.avz-next", "input.avz-slider", "select.avz-speed"):
        p.locator(name).focus()
        p.keyboard.press("Shift")  # a keyboard user: :focus-visible applies
        style = p.evaluate(
            "() => { const s = getComputedStyle(document.activeElement);"
            " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
        )
        assert style[0] != "none" and style[1] >= 2, (name, style)


def test_state_is_never_carried_by_colour_alone(opened):
    p = opened(blog_z())
    p.keyboard.press("End")
    shown = p.evaluate(
        """() => ({caption: document.querySelector('.avz-caption').textContent,
                   pressed: document.querySelector('.avz-phase[aria-pressed=true]').textContent,
                   width: parseFloat(getComputedStyle(document.querySelector(
                     'g.node.active .avz-shape')).strokeWidth)})"""
    )
    assert "backward pass" in shown["caption"]  # the phase in words, not only in blue
    assert shown["pressed"] == "both"  # the phase on show: pressed, bold and underlined
    assert shown["width"] >= 3  # the active value: a thick border, not only a colour
    p.keyboard.press("Home")
    assert p.locator("#v3-data").text_content() == "data ?"  # not computed: "?", not grey


def test_a_wide_graph_scrolls_and_brings_each_step_into_view(opened):
    x = Value(1.5, label="x")
    out = x
    for k in range(9):
        out = out * Value(1.0 + k / 10, label=f"w{k}")
    p = opened(out, title="wide")
    p.set_viewport_size({"width": 900, "height": 900})
    p.wait_for_function("() => document.querySelector('.avz-player.avz-wide') !== null")
    assert p.locator(".avz-wide-note").is_visible()
    p.locator("button.avz-phase[data-phase='forward']").click()
    p.locator(".avz-player").focus()
    p.keyboard.press("End")  # the forward pass's last step: the output, at the far right
    in_view = """() => { const g = document.querySelector('.avz-graph').getBoundingClientRect();
                   const a = document.querySelector('g.node.active').getBoundingClientRect();
                   return [document.querySelector('.avz-graph').scrollLeft,
                           a.left >= g.left - 1 && a.right <= g.right + 1]; }"""
    # scrolled: the step's node is in view (scrolling may be smooth: wait until it is there)
    p.wait_for_function(f"() => {{ const [left, inside] = ({in_view})(); return left && inside; }}")
    right = p.evaluate(in_view)[0]
    p.keyboard.press("Home")
    p.wait_for_function(
        "(right) => document.querySelector('.avz-graph').scrollLeft < right", arg=right
    )


def test_projector_mode_sets_every_text_at_20_px_or_more(opened):
    p = opened(blog_z(), projector=True)
    sizes = p.evaluate(
        """() => ['.avz-caption', '.avz-eq', 'button.avz-next', '.avz-history', 'select']
          .map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))"""
    )
    assert min(sizes) >= 20, sizes
    width = p.evaluate(
        "() => [document.querySelector('.avz-graph svg').getBoundingClientRect().width,"
        " document.querySelector('.avz-graph').clientWidth]"
    )
    assert width[0] >= width[1] - 2  # the graph fills the player's width


def test_asking_a_value_of_the_player_shows_its_chain_rule_sum_without_a_kernel(opened):
    # issue 20 item 4 in the player itself (the page: the same module as widget and deck)
    p = opened(blog_z())
    y = p.locator(".avz-graph svg g#v1")
    y.focus()
    p.keyboard.press("Enter")
    panel = p.locator(".avz-ask-panel")
    panel.wait_for(state="visible")
    assert "∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8" in panel.inner_text()
    assert "5 + 3 = 8" in p.locator(".avz-ask-live").inner_text()
    p.keyboard.press("Escape")
    panel.wait_for(state="hidden")
    assert p.locator(".avz-player").get_attribute("data-step") == "1"  # asking is not stepping
