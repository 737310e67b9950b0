"""What one Next writes to the page, in Chromium on the standalone page (the module every host
runs): only what changes. An equal write still invalidates style and layout, a rebuilt list or
a re-parsed equation costs script, style and layout on the click's frame; and stepping on by
the step's own changes must leave exactly the page a jump to that step leaves.

Timings live in `benchmarks/player_step.py`; these tests count and compare DOM writes."""

from __future__ import annotations

import pytest
from examples import blog_z

from autograd_viz import Value

pytestmark = pytest.mark.browser


def _neuron() -> Value:
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2, b = Value(-3.0, label="w1"), Value(1.0, label="w2"), Value(6.88, label="b")
    o = (x1 * w1 + x2 * w2 + b).tanh()
    o.label = "o"
    return o


# the mutation records of one Next (a script click: the handler runs synchronously)
_RECORDS = """() => {
  const records = [];
  const seen = new MutationObserver((r) => records.push(...r));
  seen.observe(document.querySelector('.avz-player'), {subtree: true, childList: true,
    attributes: true, attributeOldValue: true, characterData: true});
  document.querySelector('.avz-player .avz-next').click();
  records.push(...seen.takeRecords());
  seen.disconnect();
  return records.map((r) => ({type: r.type, name: r.attributeName, old: r.oldValue,
    now: r.type === 'attributes' ? r.target.getAttribute(r.attributeName) : null,
    tag: r.target.nodeName, added: r.addedNodes.length, removed: r.removedNodes.length}));
}"""


def test_a_next_writes_no_attribute_whose_value_stays_the_same(opened):
    p = opened(blog_z())
    for _ in range(7):  # every Next of the forward pass and into the backward pass
        records = p.evaluate(_RECORDS)
        same = [r for r in records if r["type"] == "attributes" and r["old"] == r["now"]]
        assert same == [], same  # the old player rewrote aria-pressed x3, max, start, ...
        assert any(r["type"] == "attributes" and r["name"] == "class" for r in records)


def test_a_next_keeps_the_history_lines_still_on_show(opened):
    p = opened(blog_z())
    for _ in range(4):
        p.keyboard.press("ArrowRight")
    before, kept = p.evaluate(
        """() => {
      const lines = () => [...document.querySelectorAll('.avz-player .avz-history li')];
      const before = lines();
      before.forEach((li, n) => { li.avzMark = n; });
      document.querySelector('.avz-player .avz-next').click();
      return [before.map((li) => li.textContent),
              lines().map((li) => [li.avzMark === undefined ? null : li.avzMark, li.textContent])];
    }"""
    )
    assert len(before) == 4 and len(kept) == 5  # steps 1-4, then 1-5 (the page keeps 6 lines)
    # the lines still in reach are the same elements; one line is new, at the end
    assert [mark for mark, _ in kept] == [0, 1, 2, 3, None], kept
    assert [text for _, text in kept[:4]] == before
    assert kept[-1][1] == "∂z/∂(x + y) = y = 3"  # step 5's own line


def test_each_equation_is_typeset_once_and_shown_again_as_the_same_element(opened):
    p = opened(blog_z())
    p.wait_for_function("() => !!document.querySelector('.avz-player .avz-eq .katex')")
    same = p.evaluate(
        """() => {
      const eq = document.querySelector('.avz-player .avz-eq');
      const next = document.querySelector('.avz-player .avz-next');
      const prev = document.querySelector('.avz-player .avz-prev');
      next.click();
      const second = eq.firstElementChild;
      prev.click();
      const first = eq.firstElementChild;
      next.click();
      return [second === eq.firstElementChild, first !== second,
              eq.dataset.text, !!eq.querySelector('.katex-mathml math')];
    }"""
    )
    assert same == [True, True, "x + y = 2 + 3 = 5", True]


# every step's page: the drawing, the caption, the equation's text, the history, the controls
_PAGE = """() => {
  const r = document.querySelector('.avz-player');
  return [r.querySelector('svg').outerHTML, r.querySelector('.avz-caption').textContent,
          r.querySelector('.avz-eq').dataset.text, r.querySelector('.avz-history').outerHTML,
          [...r.querySelectorAll('button')].map((b) => b.disabled + b.getAttribute('aria-pressed')),
          r.querySelector('.avz-slider').value, r.querySelector('tbody').textContent];
}"""


@pytest.mark.parametrize("make", [blog_z, _neuron], ids=["blog", "neuron"])
def test_stepping_on_shows_the_page_a_jump_to_that_step_shows(opened, make):
    p = opened(make())
    p.locator(".avz-player .avz-table summary").click()  # the table follows the step too
    for phase in ["both", "forward", "backward"]:
        p.locator(f".avz-player .avz-phase[data-phase='{phase}']").click()
        n = p.evaluate("() => document.querySelector('.avz-player').avzPlayer.count()")
        stepped = []
        for k in range(n):
            if k:
                p.locator(".avz-player .avz-next").click()
            stepped.append(p.evaluate(_PAGE))
        for k in range(n):  # jumps: each from the far end
            p.evaluate(
                "(k) => { const a = document.querySelector('.avz-player').avzPlayer;"
                " a.go(k === a.count() - 1 ? 0 : a.count() - 1); a.go(k); }",
                k,
            )
            assert p.evaluate(_PAGE) == stepped[k], f"{phase} step {k + 1}"


def test_a_step_keeps_ask_the_graphs_classes_on_the_nodes_it_restyles(opened):
    p = opened(blog_z())
    p.keyboard.press("End")  # every node and edge restyled at least once on the way
    lost = p.evaluate(
        """() => [...document.querySelectorAll('.avz-player svg g[role=button]')]
             .filter((g) => !g.classList.contains('avz-ask-node')).map((g) => g.id)"""
    )
    assert lost == []  # the old player's class writes dropped them: no pointer, no focus ring
    p.locator(".avz-player svg g#v1").click()  # asking y marks it as the one asked...
    y = p.locator(".avz-player svg g#v1")
    at_end = y.get_attribute("class")
    assert "avz-ask-picked" in at_end
    p.keyboard.press("Home")  # ...and a step that restyles y keeps the mark
    assert y.get_attribute("class") != at_end and "avz-ask-picked" in y.get_attribute("class")


# the widget's module with a stand-in anywidget model that notes each save_changes()
_WIDGET = """([esm, css, data]) => {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  const state = {data: data, step: 1, phase: data.phase};
  window.avzSaves = [];
  const model = {
    get: (key) => state[key],
    set: (key, value) => { state[key] = value; },
    save_changes: () => window.avzSaves.push(state.step),
    on: () => {}, off: () => {}, send: () => {},
  };
  const url = URL.createObjectURL(new Blob([esm], {type: "text/javascript"}));
  return import(url).then((m) => {
    const el = document.createElement("div");
    document.body.append(el);
    m.default.render({model, el});
  });
}"""


def test_the_widget_tells_the_kernel_of_a_step_after_its_frame_not_in_the_click(page, tmp_path):
    player = blog_z().animate()
    p = page.page
    (tmp_path / "blank.html").write_text("<!doctype html><html><body></body></html>")
    p.goto((tmp_path / "blank.html").as_uri())
    p.evaluate(_WIDGET, [player._esm, player._css, player.data])
    p.locator(".avz-player[data-step='1']").wait_for()
    saves = p.evaluate(
        """async () => {
      const next = document.querySelector('.avz-player .avz-next');
      next.click();
      const inTheClick = window.avzSaves.slice();
      next.click();  // a second step before the frame: told once, as the latest
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      await new Promise((r) => setTimeout(r, 0));
      const afterTheFrame = window.avzSaves.slice();
      await new Promise((r) => setTimeout(r, 150));
      return [inTheClick, afterTheFrame, window.avzSaves.slice()];
    }"""
    )
    assert saves == [[], [3], [3]]  # the old module saved in the click: [[2], [2, 3], [2, 3]]
