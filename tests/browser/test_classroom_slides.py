"""The slide path teachers are told to use, presented in real Chromium.

RISE in JupyterLab 4 cannot show ipywidgets 8 widgets (tests/smoke/test_rise_slides.py pins
that), so the teacher's guide points to `save_slides`: notebook 03 becomes one offline reveal.js
page with widget-free players. This test makes that deck from the committed notebook, opens it
at projector size (1280×720), goes to the player's slide, steps the player with its Next button
and with a presenter remote's PageDown, opens an exercise's answer, and fails on any widget
shown as text, any request that leaves the machine, or any hidden code on show. Screenshots
of the slides it visits are saved in the test's temporary folder.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DECK_NOTEBOOK = ROOT / "notebooks" / "03_backprop_by_hand.ipynb"
# What a widget looks like when a page shows its repr instead of rendering it.
WIDGET_AS_TEXT = re.compile(
    r"<Player of|<InlinePlayer|<Quiz on|^Exercise: |Teacher switch:"
    r"|\b(VBox|HBox|Button|ToggleButton)\(",
    re.M,
)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Notebook 03's slides, made the way the teacher's guide says (once per module)."""
    from autograd_viz.viz.slides import save_slides

    folder = tmp_path_factory.mktemp("deck")
    notebook = folder / DECK_NOTEBOOK.name
    shutil.copy(DECK_NOTEBOOK, notebook)
    return save_slides(notebook)


def _foreign(page) -> list[str]:
    """Requests that left the machine (the deck itself is a file: that one stays)."""
    return [url for url in page.foreign_requests() if not url.startswith("file:")]


def _slide_kinds() -> list[str]:
    nb = json.loads(DECK_NOTEBOOK.read_text(encoding="utf-8"))
    return [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in nb["cells"]]


def _open(page, deck: Path):
    p = page.page
    p.set_viewport_size({"width": 1280, "height": 720})
    p.goto(deck.as_uri())
    p.wait_for_function("() => window.Reveal && Reveal.isReady()")
    return p


def _player_slide(p) -> list[int]:
    where = p.evaluate(
        """() => {
          const slides = [...document.querySelectorAll('.reveal .slides > section')];
          for (let h = 0; h < slides.length; h++) {
            const subs = [...slides[h].querySelectorAll(':scope > section')];
            for (let v = 0; v < subs.length; v++)
              if (subs[v].querySelector('iframe.avz-inline')) return [h, v];
          }
          return null;
        }"""
    )
    assert where is not None, "no slide of the deck holds a player"
    return where


def _player(p):
    frames = [f for f in p.frames if f.parent_frame is not None]
    assert frames, "the player's frame did not load"
    return frames[0]


def test_deck_has_one_slide_per_slide_cell_and_no_widget_shown_as_text(deck, page):
    p = _open(page, deck)
    kinds = _slide_kinds()
    counts = p.evaluate(
        """() => ({
          slides: document.querySelectorAll('.reveal .slides > section').length,
          subslides: document.querySelectorAll('.reveal .slides > section > section').length,
          text: document.querySelector('.reveal .slides').innerText,
          notes: document.querySelectorAll('.avz-widget-note').length,
          maths: document.querySelectorAll('.reveal .katex').length,
        })"""
    )
    expected = kinds.count("slide") + (kinds[0] not in ("slide", "skip"))
    assert counts["slides"] == expected
    assert counts["subslides"] == expected + kinds.count("subslide")
    assert not WIDGET_AS_TEXT.findall(counts["text"]), "a widget is shown as text"
    assert counts["notes"] == 0, "a widget of the notebook has no kernel-free form"
    assert "Exercise(" not in counts["text"], "an exercise cell's hidden code is on show"
    assert counts["maths"] > 10, "the markdown's maths was not typeset"
    assert _foreign(page) == [], _foreign(page)
    assert not page.failed, page.failed
    assert not page.console_errors, page.console_errors


def test_player_on_its_slide_steps_with_next_and_a_presenter_remote(deck, page, tmp_path):
    p = _open(page, deck)
    h, v = _player_slide(p)
    p.evaluate(f"() => Reveal.slide({h}, {v})")
    player = _player(p)
    caption = player.locator("#avz-caption")
    first = caption.inner_text()
    assert first.startswith("step 1 of ")
    box = p.locator(".reveal .present iframe.avz-inline").bounding_box()
    assert box and box["height"] > 300, f"the player's frame is not sized to its page: {box}"
    p.screenshot(path=str(tmp_path / "slide_player_step1.png"))

    player.locator("#avz-next").click()
    assert caption.inner_text().startswith("step 2 of ")
    equation = player.locator("#avz-equation").inner_text()
    assert "2 + 3 = 5" in equation

    # The player has focus now: a remote's PageDown steps it and leaves the slide alone.
    here = p.evaluate("() => Reveal.getIndices()")
    p.keyboard.press("PageDown")
    assert caption.inner_text().startswith("step 3 of ")
    assert p.evaluate("() => Reveal.getIndices()") == here, "the remote changed the slide"
    p.keyboard.press("PageUp")
    assert caption.inner_text().startswith("step 2 of ")
    p.screenshot(path=str(tmp_path / "slide_player_step2.png"))

    # Focus back on the slide: the same key moves to the next slide.
    p.locator(".reveal .present h1, .reveal .present h2, .reveal .present p").first.click()
    p.keyboard.press("PageDown")
    assert p.evaluate("() => Reveal.getIndices()") != here, "the remote did not move on"
    assert _foreign(page) == []


def test_exercise_on_a_slide_shows_its_question_and_reveals_its_answer(deck, page, tmp_path):
    p = _open(page, deck)
    exercise = p.locator(".avz-exercise").first
    question = exercise.locator("p").first.inner_text()
    assert "∂z/∂s" in question or "x = 2" in question
    where = exercise.evaluate(
        """(el) => {
          const sub = el.closest('.slides > section > section');
          const h = [...document.querySelectorAll('.reveal .slides > section')]
            .indexOf(sub.parentElement);
          return [h, [...sub.parentElement.children].indexOf(sub)];
        }"""
    )
    p.evaluate(f"() => Reveal.slide({where[0]}, {where[1]})")
    answer = exercise.locator("details", has_text="Show the answer")
    assert not answer.evaluate("(d) => d.open")
    answer.locator("summary").click()
    assert answer.evaluate("(d) => d.open")
    assert "Answer:" in answer.inner_text()
    p.screenshot(path=str(tmp_path / "slide_exercise_revealed.png"))
