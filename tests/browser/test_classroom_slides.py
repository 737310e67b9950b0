"""The slide path teachers are told to use, presented in real Chromium.

RISE in JupyterLab 4 cannot show ipywidgets 8 widgets, so the teacher's guide points to
`save_slides`: a notebook becomes one offline reveal.js page with widget-free players. These
tests make the decks from the committed notebooks (notebook 03 for the classroom walk-through,
every notebook with slide metadata for the fit), open them at projector sizes (1280×720 and
1920×1080) and check what a room sees:

* every slide's content lies inside the screen, with every fragment shown and every hint and
  answer opened (the per-slide figures are printed); a player's slide shows its graph,
  caption, equation and controls at once;
* a presenter's remote steps the player: PageDown to its last step, then on to the next slide;
  PageUp back — without a click, and without a trap after one (Esc opens the overview);
* no widget shown as text, no request that leaves the machine, no hidden code on show.

Screenshots of the slides visited are saved in the tests' temporary folders.
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
PROJECTORS = [(1280, 720), (1920, 1080)]
# What a widget looks like when a page shows its repr instead of rendering it.
WIDGET_AS_TEXT = re.compile(
    r"<Player of|<InlinePlayer|<Quiz on|^Exercise: |Teacher switch:"
    r"|\b(VBox|HBox|Button|ToggleButton)\(",
    re.M,
)


def _has_slides(path: Path) -> bool:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    kinds = {c["metadata"].get("slideshow", {}).get("slide_type") for c in cells}
    return bool(kinds & {"slide", "subslide"})


SLIDE_NOTEBOOKS = [p for p in sorted((ROOT / "notebooks").glob("*.ipynb")) if _has_slides(p)]


@pytest.fixture(scope="module")
def decks(tmp_path_factory: pytest.TempPathFactory):
    """A notebook's slides, made the way the teacher's guide says: once per module each."""
    from autograd_viz.exports.slides import save_slides

    made: dict[str, Path] = {}

    def make(notebook: Path) -> Path:
        if notebook.name not in made:
            folder = tmp_path_factory.mktemp(notebook.stem[:2])
            shutil.copy(notebook, folder / notebook.name)
            with pytest.MonkeyPatch.context() as env:  # made on the teacher's machine: answers in
                env.setenv("AUTOGRAD_VIZ_TEACHER", "1")
                made[notebook.name] = save_slides(folder / notebook.name)
        return made[notebook.name]

    return make


@pytest.fixture(scope="module")
def deck(decks) -> Path:
    """Notebook 03's slides."""
    return decks(DECK_NOTEBOOK)


def _foreign(page) -> list[str]:
    """Requests that left the machine (the deck itself is a file: that one stays)."""
    return [url for url in page.foreign_requests() if not url.startswith("file:")]


def _slide_kinds() -> list[str]:
    nb = json.loads(DECK_NOTEBOOK.read_text(encoding="utf-8"))
    return [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in nb["cells"]]


def _open(page, deck: Path, size: tuple[int, int] = (1280, 720)):
    p = page.page
    p.set_viewport_size({"width": size[0], "height": size[1]})
    p.goto(deck.as_uri())
    p.wait_for_function("() => window.Reveal && Reveal.isReady()")
    p.wait_for_function(
        "() => [...document.querySelectorAll('iframe.avz-inline')]"
        ".every((f) => f.contentWindow && f.contentWindow.avzPlayer)"
    )
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
    """The frame of the player on the slide on show."""
    handle = p.locator(".reveal .slides section.present iframe.avz-inline").first
    frame = handle.element_handle().content_frame()
    assert frame is not None, "the player's frame did not load"
    return frame


def _where(p) -> tuple[int, int]:
    at = p.evaluate("() => Reveal.getIndices()")
    return at["h"], at["v"]


def _step(p) -> int:
    return p.evaluate(
        "() => Reveal.getCurrentSlide().querySelector('iframe.avz-inline')"
        ".contentWindow.avzPlayer.step()"
    )


# Every slide in turn, every fragment shown and every <details> open (the fullest it gets):
# the union of its content's boxes against the screen, the slide's own overflow (content
# scrolled out of its 1280x720 box) and any player's page taller than its frame.
_MEASURE = """async () => {
  const out = [], vw = innerWidth, vh = innerHeight;
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  const slides = Reveal.getHorizontalSlides();
  for (let h = 0; h < slides.length; h++) {
    const n = slides[h].querySelectorAll(':scope > section').length || 1;
    for (let v = 0; v < n; v++) {
      Reveal.slide(h, v, 1e6);
      const s = Reveal.getCurrentSlide();
      s.querySelectorAll('details').forEach((d) => { d.open = true; });
      await wait(60);
      let box = {top: 1e9, left: 1e9, bottom: -1e9, right: -1e9};
      for (const el of s.querySelectorAll('*')) {
        // typeset maths and drawings clip their own insides: their own box counts
        if (el.closest('aside.notes') || el.parentElement.closest('.katex, svg')) continue;
        const r = el.getBoundingClientRect();
        if (!r.width && !r.height) continue;
        box = {top: Math.min(box.top, r.top), left: Math.min(box.left, r.left),
               bottom: Math.max(box.bottom, r.bottom), right: Math.max(box.right, r.right)};
      }
      let inner = 0;
      for (const f of s.querySelectorAll('iframe')) {
        const d = f.contentDocument.documentElement;
        inner = Math.max(inner, d.scrollHeight - d.clientHeight);
      }
      const title = (s.querySelector('h1, h2, h3, p') || s).textContent.trim().slice(0, 36);
      out.push({h, v, title, top: Math.round(box.top), bottom: Math.round(box.bottom),
                left: Math.round(box.left), right: Math.round(box.right),
                scrolled: s.scrollHeight - s.clientHeight, inner, vw, vh});
    }
  }
  return out;
}"""


@pytest.mark.parametrize("size", PROJECTORS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("notebook", SLIDE_NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_slide_fits_the_projector(decks, page, notebook, size):
    p = _open(page, decks(notebook), size)
    slides = p.evaluate(_MEASURE)
    print(f"\n{notebook.name} at {size[0]}x{size[1]} (scale {p.evaluate('Reveal.getScale()'):.3f})")
    print("  slide  content box (left,top)-(right,bottom) px  overflow  title")
    over = []
    for s in slides:
        excess = max(s["bottom"] - s["vh"], s["right"] - s["vw"], -s["top"], -s["left"],
                     s["scrolled"], s["inner"], 0)  # fmt: skip
        print(f"  {s['h']:>2}.{s['v']:<3} ({s['left']},{s['top']})-({s['right']},{s['bottom']})"
              f"{excess:>10}  {s['title']}")  # fmt: skip
        if excess > 0:
            over.append((s["h"], s["v"], s["title"], excess))
    assert slides and not over, f"slides that do not fit {size}: {over}"


def test_deck_has_one_slide_per_slide_cell_and_no_widget_shown_as_text(deck, page):
    p = _open(page, deck)
    kinds = _slide_kinds()
    counts = p.evaluate(
        """() => ({
          slides: document.querySelectorAll('.reveal .slides > section').length,
          subslides: document.querySelectorAll('.reveal .slides > section > section').length,
          continued: document.querySelectorAll('.reveal .slides section.avz-continuation').length,
          text: document.querySelector('.reveal .slides').innerText,
          notes: document.querySelectorAll('.avz-widget-note').length,
          maths: document.querySelectorAll('.reveal .katex').length,
        })"""
    )
    expected = kinds.count("slide") + (kinds[0] not in ("slide", "skip"))
    assert counts["slides"] == expected
    # a slide too long for the screen continues below it, on a slide of its own
    assert counts["subslides"] - counts["continued"] == expected + kinds.count("subslide")
    assert not WIDGET_AS_TEXT.findall(counts["text"]), "a widget is shown as text"
    assert counts["notes"] == 0, "a widget of the notebook has no kernel-free form"
    assert "Exercise(" not in counts["text"], "an exercise cell's hidden code is on show"
    assert counts["maths"] > 10, "the markdown's maths was not typeset"
    assert _foreign(page) == [], _foreign(page)
    assert not page.failed, page.failed
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("size", PROJECTORS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_player_slide_shows_graph_caption_equation_and_controls(deck, page, size, tmp_path):
    p = _open(page, deck, size)
    h, v = _player_slide(p)
    p.evaluate(f"() => Reveal.slide({h}, {v})")
    player = _player(p)
    frame = p.locator(".reveal .present iframe.avz-inline").first.bounding_box()
    assert frame["y"] >= 0 and frame["y"] + frame["height"] <= size[1], frame
    scale = frame["height"] / player.evaluate("() => innerHeight")  # reveal.js scales the slide
    parts = {}
    for name in (".avz-graph svg", ".avz-caption", ".avz-eq", ".avz-controls"):
        box = player.locator(name).first.bounding_box()  # in the screen's px, as the room sees
        parts[name] = (round(box["y"]), round(box["y"] + box["height"]))
        assert box["height"] > 0 and box["y"] >= frame["y"] - 1, (name, box, frame)
        assert box["y"] + box["height"] <= frame["y"] + frame["height"] + 1, (name, box, frame)
    graph = player.locator(".avz-graph svg").first.bounding_box()
    assert graph["height"] >= 0.3 * size[1], f"the graph is small: {graph}"
    caption_px = player.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.avz-caption')).fontSize)"
    )
    assert caption_px * scale >= 20, f"caption {caption_px} px x {scale:.2f}: too small"
    print(f"\nplayer at {size}: frame {frame}, parts (top, bottom in screen px) {parts}")
    p.screenshot(path=str(tmp_path / f"slide_player_{size[0]}.png"))


def test_player_on_its_slide_steps_with_next(deck, page, tmp_path):
    p = _open(page, deck)
    h, v = _player_slide(p)
    p.evaluate(f"() => Reveal.slide({h}, {v})")
    player = _player(p)
    caption = player.locator(".avz-caption")
    assert caption.inner_text().startswith("step 1 of ")
    player.locator(".avz-next").click()
    assert caption.inner_text().startswith("step 2 of ")
    assert "2 + 3 = 5" in player.locator(".avz-eq").get_attribute("data-text")
    assert _where(p) == (h, v)
    p.screenshot(path=str(tmp_path / "slide_player_step2.png"))
    assert _foreign(page) == []


@pytest.mark.parametrize("size", PROJECTORS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_remote_steps_the_player_to_its_end_then_leaves_and_back(deck, page, size):
    p = _open(page, deck, size)
    here = tuple(_player_slide(p))
    p.evaluate(f"() => Reveal.slide({here[0]}, {here[1]})")
    caption = _player(p).locator(".avz-caption")
    n = int(re.search(r"of (\d+)", caption.inner_text()).group(1))
    for k in range(1, n):  # no click: the remote's keys reach the player through the deck
        p.keyboard.press("PageDown" if k % 2 else "ArrowRight")
        assert _step(p) == k and _where(p) == here, (k, _where(p))
    assert caption.inner_text().startswith(f"step {n} of {n}")
    presses = 0
    while _where(p) == here:  # then the slide's fragments, then the next slide
        p.keyboard.press("PageDown")
        presses += 1
        assert presses <= 5, "PageDown after the player's last step does not leave the slide"
        if _where(p) == here:
            assert _step(p) == n - 1, "the player stepped past its end"
    assert _where(p) > here, f"PageDown went back: {_where(p)}"
    while _where(p) != here:  # PageUp comes back; the player is where it was left
        p.keyboard.press("PageUp")
        presses -= 1
        assert presses >= -5
    for _ in range(8):  # the fragments hide, then the player steps back to the start
        if _step(p) < n - 1:
            break
        p.keyboard.press("PageUp")
    for k in range(n - 2, -1, -1):
        assert _step(p) == k and _where(p) == here, (k, _step(p), _where(p))
        p.keyboard.press("PageUp" if k % 2 else "ArrowLeft")
    assert _where(p) < here, "PageUp at the player's first step did not go back a slide"


def test_after_a_click_in_the_player_the_remote_is_no_trap(deck, page, tmp_path):
    p = _open(page, deck)
    here = tuple(_player_slide(p))
    p.evaluate(f"() => Reveal.slide({here[0]}, {here[1]})")
    player = _player(p)
    player.locator(".avz-next").click()  # the focus is inside the player's frame now
    n = int(re.search(r"of (\d+)", player.locator(".avz-caption").inner_text()).group(1))
    p.keyboard.press("PageDown")
    assert _step(p) == 2, "PageDown inside the player did not step it once"
    p.keyboard.press("End")
    assert _step(p) == n - 1
    for _ in range(6):
        p.keyboard.press("PageDown")
        if _where(p) != here:
            break
    assert _where(p) > here, "stuck on the player's slide after its last step"
    p.keyboard.press("PageUp")
    p.evaluate(f"() => Reveal.slide({here[0]}, {here[1]})")
    _player(p).locator(".avz-first").click()
    p.keyboard.press("Escape")
    assert p.evaluate("() => Reveal.isOverview()"), "Esc inside the player: no overview"
    p.keyboard.press("Escape")
    assert not p.evaluate("() => Reveal.isOverview()")
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


# What RISE shows of the same widget-free notebook (AUTOGRAD_VIZ_WIDGETS=0, the teacher's guide's
# RISE route) is each slide as the notebook's metadata makes it: no deck of its own continues a
# long slide on the next one. So the deck's continuations are merged back into the slides they
# came from (an approximation of RISE's page: the deck's type sizes, at 1280x720), and every slide
# holding exercises (each one's question, hint and answer as static HTML, the hidden `Exercise(`
# input left out) must fit the screen with its answers closed, as the slide first appears, and
# with any one exercise's hint and answer open (a teacher opens one at a time). The exercises'
# own heights, closed and open, are printed.
_EXERCISE_SLIDES = """async () => {
  const out = [], vh = innerHeight;
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  for (const c of [...document.querySelectorAll('.reveal .slides section.avz-continuation')]) {
    const into = c.previousElementSibling;
    [...c.children].filter((k) => !k.classList.contains('avz-continued'))
      .forEach((k) => into.appendChild(k));
    c.remove();
  }
  Reveal.sync();
  const slides = Reveal.getHorizontalSlides();
  for (let h = 0; h < slides.length; h++) {
    const n = slides[h].querySelectorAll(':scope > section').length || 1;
    for (let v = 0; v < n; v++) {
      Reveal.slide(h, v, 1e6);
      const s = Reveal.getCurrentSlide();
      const exercises = [...s.querySelectorAll('.avz-exercise')];
      if (!exercises.length) continue;
      const all = [...s.querySelectorAll('details')];
      all.forEach((d) => { d.open = false; });
      await wait(30);
      const bottom = () => Math.max(...[...s.children].filter((c) => c.tagName !== 'ASIDE')
        .map((c) => c.getBoundingClientRect().bottom));
      const closed = Math.round(bottom());
      const heights = [];
      let open = closed;
      for (const e of exercises) {
        const mine = [...e.querySelectorAll('details')];
        const before = Math.round(e.getBoundingClientRect().height);
        mine.forEach((d) => { d.open = true; });
        await wait(30);
        heights.push([before, Math.round(e.getBoundingClientRect().height)]);
        open = Math.max(open, Math.round(bottom()));
        mine.forEach((d) => { d.open = false; });
      }
      out.push({h, v, heights, closed, open, vh,
                title: (s.querySelector('h1, h2, h3, p') || s).textContent.trim().slice(0, 36)});
    }
  }
  return out;
}"""


@pytest.mark.parametrize("notebook", SLIDE_NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_exercise_slides_fit_with_answers_closed_and_one_open(decks, page, notebook):
    p = _open(page, decks(notebook))
    slides = p.evaluate(_EXERCISE_SLIDES)
    print(f"\n{notebook.name}: slides with exercises (each exercise closed / open, px on screen)")
    over = []
    for s in slides:
        print(f"  {s['h']:>2}.{s['v']:<3} content ends at {s['closed']} px closed, {s['open']} px "
              f"with one open, of {s['vh']}; exercises {s['heights']}  {s['title']}")  # fmt: skip
        if s["open"] > s["vh"]:
            over.append((s["h"], s["v"], s["title"], s["open"] - s["vh"]))
    assert not over, f"{notebook.name}: exercise slides that run off the screen: {over}"
