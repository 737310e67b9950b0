"""Static exports: the filmstrip (HTML and SVG), the standalone HTML page with its own
controls — driven in real headless Chromium with no network — and the self-playing SVG."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from examples import sum_times_y

from autograd_viz import Value
from autograd_viz.export import (
    ExportError,
    filmstrip,
    save_gif,
    save_html,
    save_svg_animation,
    standalone_html,
    svg_animation,
)
from autograd_viz.frames import Frames

SVG_NS = "{http://www.w3.org/2000/svg}"


def _node_classes(svg: str) -> dict[str, str]:
    """Each node's classes of the step's state (asking the graph adds avz-ask-* of its own)."""
    found = re.findall(r'<g id="((?:v|op)\d+)" class="([^"]*)"', svg)
    return {
        key: " ".join(c for c in cls.split() if not c.startswith("avz-ask")) for key, cls in found
    }


# ---- filmstrip ---------------------------------------------------------------------------


def test_filmstrip_html_shows_chosen_frames_with_their_equations():
    strip = filmstrip(sum_times_y(), steps=[1, -1], columns=2)
    page = strip.html()
    assert strip.indices == [1, 8]
    assert page.count("<figure") == 2 and page.count("<svg") == 2
    assert "s = x + y = 2 + 3 = 5" in page and "∂z/∂y = 5 + 3 = 8" in page
    assert "step 2 of 9 — forward pass" in page and "step 9 of 9 — backward pass" in page
    assert "repeat(2," in page and "break-inside:avoid" in page
    assert 'data-step="1"' in page and 'data-step="8"' in page
    assert 'id="v1"' not in page and 'data-avz="v1"' in page  # two copies, no duplicate ids
    assert not strip._repr_html_().startswith("<!doctype")


def test_filmstrip_svg_is_one_wellformed_svg_with_a_caption_per_frame(tmp_path):
    strip = filmstrip(sum_times_y(), columns=3)
    path = strip.save(tmp_path / "strip.svg")
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG_NS}svg"
    nested = root.findall(f"{SVG_NS}svg")
    assert len(nested) == 9
    texts = ["".join(t.itertext()) for t in root.findall(f"{SVG_NS}text")]
    assert "∂z/∂s = y = 3" in texts and "step 5 of 9 — backward pass · a local derivative" in texts
    widths = {float(s.get("width")) for s in nested}
    assert len(widths) == 1  # every frame the same size: one layout
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))


def test_long_equations_wrap_in_the_svg_filmstrip():
    x = Value(0.5, label="x")
    y = x.tanh().sigmoid()
    svg = filmstrip(y, steps=[-1], rankdir="TB").svg()  # a narrow frame, a long equation
    lines = re.findall(r"<text [^>]*>([^<]*)</text>", svg.split("</svg>")[-2])
    assert len(lines) >= 3  # caption + an equation broken over several lines


def test_filmstrip_refuses_bad_choices_clearly(tmp_path):
    z = sum_times_y()
    with pytest.raises(IndexError, match=r"frames are 0\.\.8"):
        filmstrip(z, steps=[9])
    with pytest.raises(ValueError, match="steps is empty"):
        filmstrip(z, steps=[])
    with pytest.raises(ValueError, match="columns"):
        filmstrip(z, columns=0)
    with pytest.raises(ValueError, match=r"\.html or \.svg"):
        filmstrip(z).save(tmp_path / "strip.png")


def test_exports_accept_frames_and_reuse_their_layout():
    frames = Frames(sum_times_y())
    assert filmstrip(frames).frames is frames
    assert filmstrip(frames, phase="backward").frames.base_svg == frames.base_svg
    assert len(filmstrip(frames, phase="forward").indices) == 3
    with pytest.raises(TypeError, match="laid out already"):
        filmstrip(frames, font_size=20)
    with pytest.raises(TypeError, match="needs a Value or Frames"):
        filmstrip("z")  # type: ignore[arg-type]


# ---- standalone HTML -------------------------------------------------------------------


def test_standalone_html_needs_no_network():
    page = standalone_html(sum_times_y())
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script src" not in page
    assert page.count("<svg") == 1  # the layout once; frames are data


def test_exports_are_byte_identical_across_runs():
    assert standalone_html(sum_times_y()) == standalone_html(sum_times_y())
    assert svg_animation(sum_times_y()) == svg_animation(sum_times_y())
    assert filmstrip(sum_times_y()).svg() == filmstrip(sum_times_y()).svg()


def test_standalone_html_escapes_labels_out_of_script_and_markup():
    x = Value(1.0, label="</script><script>alert(1)</script>")
    page = standalone_html(x * 2)
    assert "<script>alert(1)" not in page
    assert page.count("<script") == 3  # KaTeX, the step table (data), the player module


@pytest.fixture
def open_page(chromium, tmp_path):
    """Open a file in a fresh page; record every request and fail on dialogs or JS errors."""
    pages = []

    def _open(path: Path):
        page = chromium.new_page()
        page.requests = []  # type: ignore[attr-defined]
        page.errors = []  # type: ignore[attr-defined]
        page.on("request", lambda r: page.requests.append(r.url))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("dialog", lambda d: page.errors.append(f"dialog: {d.message}"))
        page.goto(path.as_uri())
        pages.append(page)
        return page

    yield _open
    for page in pages:
        try:
            page.screenshot(path=str(tmp_path / "last.png"))
        finally:
            page.close()


def _state(page) -> tuple[str, str, str]:
    """The equation, the id of the highlighted (active) element and the step caption."""
    return tuple(
        page.evaluate(
            """() => [document.querySelector('.avz-eq').dataset.text,
                  document.querySelector('.avz-graph g.node.active').id,
                  document.querySelector('.avz-caption').textContent]"""
        )
    )


def test_standalone_html_steps_with_buttons_keys_and_slider(open_page, tmp_path):
    z = sum_times_y()
    frames = Frames(z)
    page = open_page(save_html(frames, tmp_path / "backprop.html", interval=0.1))
    assert _state(page) == ("inputs: x = 2, y = 3", "v0", "step 1 of 9 — forward pass")
    page.click(".avz-next")
    assert _state(page) == ("s = x + y = 2 + 3 = 5", "op2", "step 2 of 9 — forward pass")
    page.click(".avz-prev")
    assert _state(page)[0] == "inputs: x = 2, y = 3"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _state(page)[:2] == ("z = s · y = 5 · 3 = 15", "op3")
    page.locator(".avz-slider").fill("6")  # the slider counts steps from 1, as the caption
    assert _state(page) == (
        "ȳ via the product = s = 5",
        "v1",
        "step 6 of 9 — backward pass · a local derivative",
    )
    page.keyboard.press("End")
    assert page.text_content("#v1-grad") == "grad 8"
    page.keyboard.press("Home")
    assert page.text_content("#v1-grad") == "grad ?"
    assert page.is_disabled(".avz-prev") and not page.is_disabled(".avz-next")
    assert page.evaluate("() => !!document.querySelector('.avz-eq .katex')")  # typeset offline
    assert not page.errors, page.errors
    assert all(url.startswith("file://") for url in page.requests), page.requests


def test_standalone_html_lists_the_earlier_lines_of_the_derivation(open_page, tmp_path):
    frames = Frames(sum_times_y())
    page = open_page(save_html(frames, tmp_path / "backprop.html"))
    shown = "() => [...document.querySelectorAll('.avz-history li')].map(li => li.textContent)"
    assert page.evaluate(shown) == []
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert page.evaluate(shown) == [s.text for s in frames.steps[:4]]  # then step 5's equation
    assert _state(page)[0] == frames.steps[4].text
    page.click(".avz-prev")
    assert len(page.evaluate(shown)) == 3


def test_standalone_html_frames_match_the_python_frames(open_page, tmp_path):
    frames = Frames(sum_times_y())
    page = open_page(save_html(frames, tmp_path / "backprop.html"))
    for k in range(len(frames)):
        if k:
            page.keyboard.press("ArrowRight")
        shown = page.evaluate("() => document.querySelector('.avz-graph svg').outerHTML")
        assert _node_classes(shown) == _node_classes(frames.frame_svg(k)), k
        cells = dict(re.findall(r'<text id="(v\d+-\w+)"[^>]*>([^<]*)</text>', shown))
        want = dict(re.findall(r'<text id="(v\d+-\w+)"[^>]*>([^<]*)</text>', frames.frame_svg(k)))
        assert cells == want, k


def test_standalone_html_plays_to_the_end_and_stops(open_page, tmp_path):
    page = open_page(save_html(sum_times_y(), tmp_path / "play.html", interval=0.05))
    page.select_option(".avz-speed", label="fast")
    page.keyboard.press(" ")
    page.wait_for_function(
        "() => document.querySelector('.avz-caption').textContent.startsWith('step 9 of 9')",
        timeout=10_000,
    )
    page.wait_for_function(
        "() => document.querySelector('.avz-play').textContent.includes('Play')", timeout=5_000
    )
    assert _state(page)[:2] == ("∂z/∂y = 5 + 3 = 8", "v1")
    page.keyboard.press("End")  # stay at the end while the speed changes
    page.select_option(".avz-speed", label="slow")  # 0.1 s a step: 0.8 s to reach the end
    page.click(".avz-play")  # at the end, Play starts again from the first step
    caption, label = page.evaluate(
        "() => [document.querySelector('.avz-caption').textContent,"
        " document.querySelector('.avz-play').textContent]"
    )
    assert not caption.startswith("step 9") and "Pause" in label
    assert not page.errors, page.errors


def test_hostile_label_stays_text_in_the_browser(open_page, tmp_path):
    x = Value(1.0, label="</script><script>alert(1)</script>")
    page = open_page(save_html(x * 2, tmp_path / "hostile.html"))
    page.keyboard.press("ArrowRight")
    assert "(</script><script>alert(1)</script>) · 2" in _state(page)[0]
    assert not page.errors, page.errors


# ---- animated SVG -------------------------------------------------------------------------


def test_svg_animation_is_wellformed_holds_the_drawing_once_and_keeps_ids_unique(tmp_path):
    path = save_svg_animation(sum_times_y(), tmp_path / "anim.svg", seconds_per_step=2)
    root = ET.parse(path).getroot()
    assert len(root.findall(f"{SVG_NS}svg")) == 1  # one drawing, not one per frame
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))
    delays = {
        g.get("style").split("animation-delay:")[1]
        for g in root.iter(f"{SVG_NS}g")
        if g.get("class") == "avz-w"
    }
    assert {"0s", "2s", "16s"} <= delays  # versions start on step boundaries
    with pytest.raises(ValueError, match=r"ending in \.svg"):
        save_svg_animation(sum_times_y(), tmp_path / "anim.gif")


def test_svg_animation_is_far_smaller_than_a_copy_per_frame():
    from autograd_viz import MLP

    out = MLP(2, [3, 1], seed=3)([1.0, -2.0])
    frames = Frames(out)
    animated = svg_animation(frames)
    assert len(animated) < 0.25 * sum(len(frames.frame_svg(k)) for k in range(len(frames)))


_VISIBLE_AT = """(t) => {
  for (const a of document.getAnimations()) { a.pause(); a.currentTime = t * 1000; }
  const out = {};
  for (const g of document.querySelectorAll('g[data-avz]')) {
    const cls = g.getAttribute('class') || '';
    if (!/^(node|edge)/.test(cls) || getComputedStyle(g).visibility !== 'visible') continue;
    if (g.dataset.avz in out) return 'two versions of ' + g.dataset.avz + ' at once';
    out[g.dataset.avz] = cls;
  }
  const texts = [...document.querySelectorAll('svg > g.avz-w > text, svg > text')]
    .filter(e => getComputedStyle(e).visibility === 'visible').map(e => e.textContent);
  return [out, texts];
}"""


def test_svg_animation_shows_every_frame_in_turn_in_chromium(open_page, tmp_path):
    frames = Frames(sum_times_y())
    path = tmp_path / "anim.svg"
    path.write_text(svg_animation(frames, seconds_per_step=1), encoding="utf-8")
    page = open_page(path)
    for k in range(len(frames)):
        classes, texts = page.evaluate(_VISIBLE_AT, k + 0.5)
        want = {
            html.unescape(i): c
            for i, c in re.findall(
                r'<g id="([^"]+)" class="((?:node|edge)[^"]*)"', frames.frame_svg(k)
            )
        }
        assert classes == want, k
        assert texts[0] == frames.caption(k).text  # the widget's caption, too
        assert " ".join(texts[1:]) == frames.steps[k].text
    assert page.evaluate(_VISIBLE_AT, 9.5)[1][0] == "step 1 of 9 — forward pass"  # it loops
    assert not page.errors, page.errors


# ---- animated GIF -------------------------------------------------------------------------


def _share_near(image, rgb: tuple[int, int, int], tol: int = 12) -> float:
    """The share of pixels within `tol` of a colour in every channel."""
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    return float(np.all(np.abs(pixels - np.array(rgb)) <= tol, axis=-1).mean())


def test_gif_has_one_frame_per_step_with_the_colours_of_each_state(tmp_path):
    from PIL import Image

    path = save_gif(sum_times_y(), tmp_path / "backprop.gif", seconds_per_step=0.5, width=600)
    gif = Image.open(path)
    assert gif.n_frames == 9 and gif.size[0] == 600 and gif.info["loop"] == 0
    durations, orange, blue = [], [], []
    for k in range(gif.n_frames):
        gif.seek(k)
        durations.append(gif.info["duration"])
        orange.append(_share_near(gif, (0xE6, 0x9F, 0x00)))
        blue.append(_share_near(gif, (0x56, 0xB4, 0xE9)))
    assert durations == [500] * 8 + [1500]  # the final gradients stay up longer
    assert all(b < 0.001 for b in blue[:3])  # forward frames: no blue at all
    assert orange[0] > 0.02 and orange[2] > orange[0]  # orange spreads as values appear
    assert blue[3] > 0.01 and blue[8] > blue[3]  # blue spreads as gradients become final
    assert orange[8] < 0.01  # at the end every value node is blue


def test_gif_without_cairosvg_says_what_to_install(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "cairosvg", None)  # makes `import cairosvg` fail
    with pytest.raises(ExportError, match="pip install cairosvg"):
        save_gif(sum_times_y(), tmp_path / "backprop.gif")


def test_gif_refuses_bad_paths_and_sizes(tmp_path):
    with pytest.raises(ValueError, match=r"ending in \.gif"):
        save_gif(sum_times_y(), tmp_path / "backprop.png")
    with pytest.raises(ValueError, match="width"):
        save_gif(sum_times_y(), tmp_path / "backprop.gif", width=10)


@pytest.mark.parametrize("name", ["exports.filmstrip", "front.page", "exports.animation"])
def test_the_docstring_examples_hold(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"autograd_viz.{name}"))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("all", r"steps is a list of frame indices, e\.g\. steps=\[0, 2, -1\], or None \(all "
                r"frames\); got the string 'all'"),
        (3, r"got int: 3; for one frame, steps=\[3\]"),
        ([True, 1], r"got True in \[True, 1\]"),
        ([0.0], r"got 0\.0 in \[0\.0\]"),
    ],
)  # fmt: skip
def test_filmstrip_steps_of_the_wrong_kind_are_refused_before_the_layout(
    steps, message, monkeypatch
):
    # steps='all' said "step 'a' does not exist" after laying the graph out
    import autograd_viz.exports.filmstrip as strip_mod

    def no_work(*args, **kwargs):
        raise AssertionError("the frames were made before steps was checked")

    monkeypatch.setattr(strip_mod, "frames_of", no_work)
    with pytest.raises(TypeError, match=message):
        filmstrip(sum_times_y(), steps=steps)


def test_filmstrip_takes_numpys_integers_as_steps():
    assert filmstrip(sum_times_y(), steps=np.array([0, -1])).indices == [0, 8]


@pytest.mark.parametrize("seconds", [True, False, "1", float("nan"), 0.01, 61])
def test_seconds_per_step_must_be_a_number_of_seconds(seconds, tmp_path):
    # True was accepted as one second
    message = r"seconds_per_step must be a number of seconds between 0\.05 and 60, got"
    with pytest.raises(ValueError, match=message):
        svg_animation(Frames(sum_times_y()), seconds_per_step=seconds)
    with pytest.raises(ValueError, match=message):
        save_gif(sum_times_y(), tmp_path / "a.gif", seconds_per_step=seconds)


def test_seconds_per_step_may_be_a_numpy_number():
    svg = svg_animation(Frames(sum_times_y()), seconds_per_step=np.float64(2.0))
    assert "animation-delay:2s" in svg
