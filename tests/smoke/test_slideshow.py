"""Live slides: jupyterlab-slideshow's deck mode presents a notebook with its widgets live.

jupyterlab-slideshow (the maintained jupyterlab-contrib fork of jupyterlab-deck) restyles the
live notebook as slides, so players, exercises and quizzes stay the kernel's widgets — unlike
RISE with ipywidgets 8, which showed them as text. Each test opens a copy of a walkthrough
notebook in the JupyterLab our setup installs (real server, headless Chromium at projector size
1280×720), runs it (or presents it as it opens, below), presses the deck button on the notebook
toolbar and moves through the slides with → as a presenter would.

Every notebook with slide metadata is measured view by view at 1280×720 and 1920×1080 as a
teacher presents it who opens it and starts the deck without running it (its saved outputs and
widget state; notebook 03 also after Run All): the test makes the first cell of each view (a
slide, subslide or fragment: a cell with no slide type joins the view before it) the deck's
active cell through JupyterLab's own notebook model (the page runs with
`expose_app_in_browser`), which is what the deck's keys do, and steps every player on a view
through all of its steps with its own slider; every view's cells must lie inside the screen (the
tallest view per size is printed), and every presented cell must have been on one of them.
Notebook 03's deck is also walked from its first slide to its last with PageDown (what a
presenter's remote sends; the kit's JupyterLab settings in jupyter-config/ bind it, and PageUp,
to the deck's next/previous view, which jupyterlab-slideshow itself binds only to the arrows and
Space): the remote reaches every presented cell and steps every player to its last step before
the deck moves on.

A cell whose slide type is the literal "-" is on no slide in this deck (tests/test_notebooks.py
keeps that value out of the notebooks); here the code cells must be on screen.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import shutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbformat.sign import NotebookNotary
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from test_lab_smoke import (
    LabServer,
    _committed_widget_outputs,
    _run_all,
    _wait_for_connected_kernel,
    _wait_for_kernel_idle,
    jupyter_data_dir,
    start_lab,
    stop_lab,
)

ROOT = Path(__file__).resolve().parents[2]
DECK = "03_backprop_by_hand.ipynb"  # the walkthrough with players and exercises on its slides
PROJECTOR = {"width": 1280, "height": 720}

_ON_SCREEN = ".jp-Deck .jp-Cell.jp-deck-mod-onscreen"


def _has_slides(path: Path) -> bool:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    kinds = {c["metadata"].get("slideshow", {}).get("slide_type") for c in cells}
    return bool(kinds & {"slide", "subslide"})


# Every other notebook with slide metadata is measured too (each a JupyterLab page of its own,
# presented as it opens, from its saved outputs), at 1280x720 and 1920x1080.
OTHER_DECKS = [
    p.name
    for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
    if _has_slides(p) and p.name != DECK
]
FULL_HD = {"width": 1920, "height": 1080}


@pytest.fixture(scope="module")
def lab_on_copies(tmp_path_factory) -> Iterator[LabServer]:
    root, home = tmp_path_factory.mktemp("decks"), tmp_path_factory.mktemp("lab-home")
    # Trusted, as on the teacher's machine once they ran and saved the lesson: JupyterLab then
    # draws its saved widgets as it opens (an untrusted copy shows their text forms until run).
    jupyter_data_dir(home).mkdir()
    notary = NotebookNotary(data_dir=str(jupyter_data_dir(home)))
    for notebook in {DECK, *OTHER_DECKS}:
        shutil.copy(ROOT / "notebooks" / notebook, root / notebook)
        notary.sign(nbformat.read(root / notebook, as_version=4))
    jupyter = Path(sys.executable).with_name("jupyter")
    # window.jupyterapp: the measure goes to each view through the notebook's own model
    expose = "--LabApp.expose_app_in_browser=True"
    server = start_lab(
        [str(jupyter), "lab", "--allow-root", expose, f"--ServerApp.root_dir={root}"],
        root,
        home,
    )
    try:
        yield server
    finally:
        stop_lab(server)


@contextlib.contextmanager
def _present(
    server: LabServer, chromium, name: str, widget: str | None = ".avz-player", viewport=PROJECTOR,
    run: bool = True,
):
    """Open `name`, Run All, wait for `widget`, then present it in deck mode from the top. With
    `run=False`, present it as it opens, from its saved outputs and widget state (a teacher who
    presents a lesson without running it first), once every saved widget is drawn."""
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{server.url}/lab/tree/{name}?reset&token={server.token}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
        _wait_for_connected_kernel(server, page, 120)
        # the deck's "active" setting is shared by the pages of one server: leave a deck
        # another page started, to reach the Run menu
        stop = page.locator(".jp-Deck-Remote .jp-deck-mod-stop")
        if page.locator("body[data-jp-deck-mode='presenting']").count() and stop.count():
            stop.first.click()
            page.wait_for_selector("body[data-jp-deck-mode='presenting']", state="detached")
        if run:
            _run_all(page)
            if widget:
                page.locator(f".jp-NotebookPanel:not(.lm-mod-hidden) {widget}").first.wait_for(
                    timeout=120_000
                )
            _wait_for_kernel_idle(page, 300_000)
        else:
            _wait_for_saved_widgets(server, page, name)
        _start_deck(page)
        _no_old_deck_keys(page, name)
        yield page, errors
    finally:
        with contextlib.suppress(Exception):  # stop presenting: the setting outlives the page
            page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click(timeout=5_000)
        context.close()


# Every saved widget view drawn from the notebook's widget state (a view not drawn yet shows its
# text form, or says it is loading, with no widget node under its output).
_SAVED_WIDGETS_DRAWN = """(n) => {
  const drawn = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) '
    + '.jp-OutputArea-output')]
    .filter(o => o.querySelector(':scope > [class*="jupyter-widgets"]'));  // -disconnected too
  return drawn.length === n && drawn.every(o => o.offsetHeight > 0);
}"""


# How many outputs are drawn widgets, and what each widget output not drawn shows (its text form,
# "Loading widget...", "Error displaying widget: model not found"), to say why a wait ran out.
_UNDRAWN_OUTPUTS = """() => {
  const outs = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) '
    + '.jp-OutputArea-output')];
  const drawn = (o) => o.querySelector(':scope > [class*="jupyter-widgets"]') && o.offsetHeight;
  return {drawn: outs.filter(drawn).length, others: outs
    .filter(o => !drawn(o) && /widget/.test(o.dataset.mimeType + o.innerText))
    .map(o => `${o.dataset.mimeType}: ${o.innerText.trim().slice(0, 80)}`)};
}"""


def _wait_for_saved_widgets(server: LabServer, page, name: str) -> None:
    """Until every saved widget of `name` is drawn, which takes 0-3 s here, also with both
    cores busy. Twice, on a loaded machine, some were never drawn: deck 12 waited past 120 s on
    CI, and deck 11's three widgets said "Error displaying widget: model not found", which a
    reload mended. That is a race known upstream: ipywidgets' manager reads the saved state while
    the new kernel connects (jupyter-widgets/ipywidgets issues 3823 and 2549). A teacher reloads
    (docs/teachers_guide.md says so); so does this wait, once, and says so in the log with what
    the widget outputs showed; a second failure fails with that text."""
    saved = _committed_widget_outputs(ROOT / "notebooks" / name)
    for attempt in range(2):
        try:
            page.wait_for_function(_SAVED_WIDGETS_DRAWN, arg=saved, timeout=60_000)
            return
        except PlaywrightTimeoutError:
            shown = page.evaluate(_UNDRAWN_OUTPUTS)
            if attempt:
                raise AssertionError(
                    f"{name}: of {saved} saved widgets, some were not drawn in 60 s, twice "
                    f"(the page reloaded between); the outputs not drawn show: {shown}"
                ) from None
            warnings.warn(
                f"{name}: saved widgets not drawn in 60 s; reloading the page once. The "
                f"outputs not drawn showed: {shown}",
                stacklevel=2,
            )
            page.reload()
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
            _wait_for_connected_kernel(server, page, 120)


def _no_old_deck_keys(page, name: str) -> None:
    """A notebook's saved widget state from the removed ipywidgets player carries that
    player's own deck-key script (window.agvDeckKeys). Once such a saved output is drawn as the
    notebook opens (whether it is depends on what is on screen first), it moves the deck on
    every PageDown and → besides the new player's listener: two moves a press, a player's
    slide left after one step, a player found at step 2."""
    assert not page.evaluate("() => !!window.agvDeckKeys"), (
        f"{name}: a saved output of the old player installed its deck keys (agvDeckKeys): "
        "re-run the notebook so its saved outputs and widget state hold the new player"
    )


def _start_deck(page) -> None:
    """Present the notebook from the top: the deck opens on the active cell's slide."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="deck:toggle"]').click()
    page.wait_for_selector("body[data-jp-deck-mode='presenting']", state="attached")
    page.wait_for_selector(_ON_SCREEN, timeout=30_000)


@pytest.fixture(scope="module")
def deck(lab_on_copies, chromium):
    """Notebook 03, run, then presented in deck mode from its first slide."""
    with _present(lab_on_copies, chromium, DECK) as presented:
        yield presented


def _advance_until(page, selector: str, limit: int = 80, remote: bool = False):
    """Go forward until a cell on screen is or holds `selector`: with → (the deck's key, which
    needs the notebook focused), or with the deck's on-screen remote (works whatever has focus,
    e.g. after a click on a widget)."""
    for _ in range(limit):
        found = page.locator(f"{_ON_SCREEN}{selector}")
        if found.count():
            return found.first
        if remote:
            _moved(page, page.locator(".jp-Deck-Remote .jp-deck-mod-direction-forward").click)
        else:
            _press(page, "ArrowRight")
    how = "clicks on the remote's forward button" if remote else "presses of →"
    raise AssertionError(f"no slide of {DECK} shows {selector} within {limit} {how}")


def test_code_cells_are_on_the_slides(deck):
    page, _ = deck
    nb = json.loads((ROOT / "notebooks" / DECK).read_text(encoding="utf-8"))
    hidden = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code"
        and cell["metadata"].get("slideshow", {}).get("slide_type") == "-"
    ]
    assert not hidden, f"{DECK}: code cells {hidden} have slide_type '-': on no slide in the deck"
    code = _advance_until(page, ".jp-CodeCell .jp-InputArea")
    assert code.is_visible()


def test_the_player_is_live_on_its_slide_and_steps(deck, tmp_path):
    page, errors = deck
    player = _advance_until(page, " .avz-player")
    player.scroll_into_view_if_needed()
    assert not page.locator(_ON_SCREEN, has_text="<Player of").count(), "player shown as text"
    caption = player.locator(".avz-caption").first
    before = caption.inner_text()
    assert before.startswith("step 1 of"), before
    player.locator("button.avz-next").click()  # stepped in the page; the kernel follows
    page.locator(f"{_ON_SCREEN} .avz-player[data-step='2']").first.wait_for(timeout=30_000)
    assert player.locator(".avz-caption").first.inner_text().startswith("step 2 of")
    box = player.bounding_box()
    assert box and box["width"] > 300 and box["height"] > 200, box
    page.screenshot(path=str(tmp_path / "deck_player.png"))
    assert not errors, errors


def _caption(page) -> str:
    return page.locator(f"{_ON_SCREEN} .avz-player .avz-caption").first.inner_text()


def _player_on_screen(page) -> bool:
    return page.locator(f"{_ON_SCREEN} .avz-player").count() > 0


def _caption_if_on_screen(page) -> str | None:
    """The on-screen player's caption, or None if no player is on screen, read at once (a
    PageDown's move may still land: checking the player, then reading it, can miss it)."""
    return page.evaluate(
        "(sel) => { const c = document.querySelector(sel); return c ? c.innerText : null; }",
        f"{_ON_SCREEN} .avz-player .avz-caption",
    )


def _press(page, key: str) -> bool:
    """Press `key` and wait for the deck's view to change and settle (a move lands in steps);
    False if nothing changed within a ceiling only a stuck deck reaches."""
    return _moved(page, lambda: page.keyboard.press(key))


def _moved(page, act) -> bool:
    """Do `act` and wait for the deck's view to change and settle; False if it did not change."""
    before = page.evaluate(_MEASURE_LIVE)["state"]
    act()
    try:
        page.wait_for_function(
            f"(before) => ({_MEASURE_LIVE})().state !== before", arg=before, timeout=15_000
        )
    except PlaywrightTimeoutError:
        return False
    _settled(page)
    return True


def test_the_remote_steps_the_player_then_changes_slides(deck, tmp_path):
    """PageDown (what a presenter's remote sends; the deck itself binds only arrows and Space)
    steps the on-screen player to its last step with no click, then moves the deck on;
    PageUp comes back and steps it back."""
    page, errors = deck
    _advance_until(page, " .avz-player")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    match = re.match(r"step (\d+) of (\d+)", _caption(page))
    assert match, _caption(page)
    k, n = int(match.group(1)), int(match.group(2))
    for step in range(k + 1, n + 1):
        page.keyboard.press("PageDown")
        page.wait_for_function(
            "([sel, text]) => [...document.querySelectorAll(sel)].some("
            "(c) => c.innerText.startsWith(text))",
            arg=[f"{_ON_SCREEN} .avz-player .avz-caption", f"step {step} of {n}"],
            timeout=30_000,
        )
        assert _player_on_screen(page), f"PageDown left the player's slide at step {step - 1}"
    page.screenshot(path=str(tmp_path / "deck_player_last_step.png"))
    presses = 0
    # then the slide's fragments, then the next slide
    while (caption := _caption_if_on_screen(page)) is not None:
        assert caption.startswith(f"step {n} of {n}"), "stepped past the last step"
        assert presses < 5, "PageDown after the last step did not change slides"
        _press(page, "PageDown")
        presses += 1
    print(f"\nPageDown: {n - k} steps, then {presses} presses to leave the player's slide")
    for _ in range(5):  # the deck's back skips the slide's fragments at once
        _press(page, "PageUp")
        caption = _caption_if_on_screen(page)
        if caption is not None:
            break
    assert caption is not None, "PageUp did not come back to the player's slide"
    assert caption.startswith(f"step {n} of {n}"), "the player was not left at its end"
    page.keyboard.press("PageUp")
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll(sel)].some("
        "(c) => c.innerText.startsWith(text))",
        arg=[f"{_ON_SCREEN} .avz-player .avz-caption", f"step {n - 1} of {n}"],
        timeout=30_000,
    )
    # after a click inside the player (its focus there), the remote still leaves the slide
    page.locator(f"{_ON_SCREEN} .avz-player button.avz-next").first.click()
    page.locator(f"{_ON_SCREEN} .avz-player[data-step='{n}']").first.wait_for(timeout=30_000)
    for _ in range(6):
        _press(page, "PageDown")
        if not _player_on_screen(page):
            break
    assert not _player_on_screen(page), "after a click on the player, PageDown is trapped"
    assert not errors, errors


def _first_exercise_answer() -> float:
    """The `answer=` of the deck's first Exercise cell, read from its source."""
    nb = json.loads((ROOT / "notebooks" / DECK).read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "Exercise(" in source:
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.keyword) and node.arg == "answer":
                    return float(ast.literal_eval(node.value))
    raise AssertionError(f"{DECK} has no Exercise(..., answer=<number>) cell")


def test_an_exercise_answers_right_and_wrong_on_its_slide(deck, tmp_path):
    page, errors = deck
    answer = _first_exercise_answer()
    box = _advance_until(page, " input[placeholder='your answer']", remote=True)
    exercise = box.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]")
    box.fill(f"{answer + 1000:g}")
    box.press("Enter")
    exercise.get_by_text("Not quite", exact=False).first.wait_for(timeout=30_000)
    box.fill(f"{answer:g}")
    box.press("Enter")
    exercise.get_by_text("Right", exact=False).first.wait_for(timeout=30_000)
    page.screenshot(path=str(tmp_path / "deck_exercise.png"))
    assert not errors, errors


# Each slide in turn: the on-screen cells' boxes against the screen, and how far the deck's
# notebook scrolls (content below the screen a presenter would have to scroll to).
_MEASURE_LIVE = """() => {
  const cells = [...document.querySelectorAll('.jp-Deck .jp-Cell.jp-deck-mod-onscreen')];
  let top = 1e9, bottom = -1e9;
  for (const c of cells) {
    const r = c.getBoundingClientRect();
    top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
  }
  const heights = cells.map((c) => Math.round(c.getBoundingClientRect().height));
  const index = (c) => [...c.parentNode.children].indexOf(c);
  const nb = document.querySelector('.jp-Deck .jp-Notebook');
  const active = nb.querySelector(':scope .jp-Cell.jp-mod-active');
  const state = (active ? index(active) : -1) + '>' + cells.map((c) => index(c) + ':'
    + c.classList.contains('jp-deck-mod-visible') + ':'
    + ((c.querySelector('.avz-caption') || {}).innerText || '')).join('|');
  const what = cells.map((c) => c.querySelector('.avz-player') ? 'player'
    : c.querySelector('.widget-text input, .avz-exercise') ? 'exercise'
    : c.classList.contains('jp-MarkdownCell') ? 'md' : 'code');
  const title = cells.map((c) => c.innerText.trim()).join(' ').slice(0, 40);
  const players = cells.filter((c) => c.querySelector('.avz-player .avz-caption'))
    .map((c) => [index(c), c.querySelector('.avz-player .avz-caption').innerText]);
  return {top: Math.round(top), bottom: Math.round(bottom), vh: innerHeight,
          scroll: nb.scrollHeight - nb.clientHeight, what, title, heights, state, players,
          cells: cells.map(index), last: nb.querySelectorAll(':scope .jp-Cell').length - 1};
}"""


def _presented_cells(name: str) -> list[int]:
    """The indices of the notebook's cells that are on some slide (not skip, not notes)."""
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type") for c in nb["cells"]]
    return [i for i, kind in enumerate(kinds) if kind not in ("skip", "notes")]


def _view_starts(name: str) -> list[int]:
    """The presented cells that open a view of the deck: its first, then each slide, subslide
    and fragment. A cell with no slide type is shown with the view before it, so making it the
    active cell shows that same view again."""
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type") for c in nb["cells"]]
    presented = _presented_cells(name)
    return [i for i in presented if i == presented[0] or kinds[i] in VIEW_STARTS]


VIEW_STARTS = ("slide", "subslide", "fragment")


def _has_player(name: str) -> bool:
    """Whether the notebook shows a player (its committed outputs hold one)."""
    return "<Player of" in (ROOT / "notebooks" / name).read_text(encoding="utf-8")


_PAUSE = "() => new Promise((r) => setTimeout(() => requestAnimationFrame(r), 100))"


# The deck's keys need focus inside the notebook in command mode: its active cell, as
# JupyterLab gives it after a click on the slide (the notebook node itself, else).
_FOCUS_NOTEBOOK = """() => {
  const nb = document.querySelector('.jp-Deck .jp-Notebook');
  nb.focus();
  const cell = nb.querySelector(':scope .jp-Cell.jp-mod-active');
  if (cell && cell.tabIndex >= 0) cell.focus();
}"""


def _focus_notebook(page) -> None:
    """Give the deck's notebook the keys, and wait until it has them."""
    page.evaluate(_FOCUS_NOTEBOOK)
    page.wait_for_function(
        "() => !!document.activeElement?.closest('.jp-Deck .jp-Notebook')"
    )


def _settled(page, looks: int = 3) -> dict:
    """The view measured once it has stayed the same for `looks` looks 0.1 s apart (a press's
    move lands in steps: the active cell first, the cells on screen after; the deck fades in;
    a resize lays out again)."""
    seen: list[tuple] = []
    for _ in range(40):
        page.evaluate(_PAUSE)
        s = page.evaluate(_MEASURE_LIVE)
        seen.append((s["state"], s["top"], s["bottom"], s["scroll"]))
        if len(seen) >= looks and len(set(seen[-looks:])) == 1:
            return s
    return s


def _excess(s: dict) -> int:
    return max(s["bottom"] - s["vh"], -s["top"], s["scroll"], 0)


def _walk(page, name: str, sizes: tuple[dict, ...] = (PROJECTOR, FULL_HD)) -> dict[str, list]:
    """Every view of the deck from its first slide to its last with PageDown, what a
    presenter's remote sends (every fragment, subslide and player step), measured at each of
    `sizes` and printed; the views that overflow, per size. The page's viewport is sizes[0];
    each view is measured there, then the window is resized to each other size, measured,
    and resized back (the deck must stay on the same view) — unless the view shows the same
    cells at the same heights as the one before (a player's next step, the active cell moved).
    On the way, every player met must be stepped to its last step before the deck leaves its
    slide (the remote steps the player, and never traps the presenter: the walk reaches the
    last slide).

    A press waits for what is shown to change; one that only moves the deck's active cell within
    a slide shows nothing new, and after the wait it is still seen as a move (the state compared
    includes the active cell)."""
    _no_old_deck_keys(page, name)
    label = {id(size): f"{size['width']}x{size['height']}" for size in sizes}
    if _presented_cells(name)[0] not in page.evaluate(_MEASURE_LIVE)["cells"]:
        # earlier tests moved on: stop presenting and start again from the first slide
        page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
        page.wait_for_selector("body[data-jp-deck-mode='presenting']", state="detached")
        _start_deck(page)
    # the keys go to the notebook (as after a presenter's first click on the slide), not to the
    # toolbar button that started the deck
    _focus_notebook(page)
    views, left_early, seen = [], [], set()
    over: dict[str, list] = {label[id(size)]: [] for size in sizes}
    tallest = dict.fromkeys(over, 0)
    measured = None
    for _ in range(300):
        s = _settled(page)
        if views:
            shown = dict(s["players"])
            for cell, caption in views[-1]["players"]:
                m = re.match(r"step (\d+) of (\d+)", caption)
                if cell not in shown and m and m.group(1) != m.group(2):
                    left_early.append((cell, caption))
        views.append(s)
        seen.update(s["cells"])
        layout = (s["cells"], s["heights"])
        for size in sizes:
            at = s
            if size is not sizes[0]:
                if layout == measured:
                    continue  # the same cells, the same heights: only a step or caption moved
                page.set_viewport_size(size)
                at = _settled(page, looks=2)
                page.set_viewport_size(sizes[0])
                back = _settled(page, looks=2)
                assert back["state"] == s["state"], (
                    f"{name}: resizing the window moved the deck ({s['state']} -> {back['state']})"
                )
            excess = _excess(at)
            tallest[label[id(size)]] = max(tallest[label[id(size)]], at["bottom"] - at["top"])
            print(f"  {label[id(size)]} cells {at['cells']} {at['what']} heights {at['heights']}: "
                  f"{at['top']}-{at['bottom']} px, over {excess}  {at['title']!r}")  # fmt: skip
            if excess > 0:
                over[label[id(size)]].append((at["cells"], at["what"], at["heights"], excess))
        measured = layout
        for _attempt in range(3):
            page.keyboard.press("PageDown")
            try:
                # wait for what the room sees to change (a step, a fragment, a slide): a press
                # whose first move only changed the active cell goes on by itself a moment
                # later, later still on a busy machine, and a view measured in between would be
                # followed by a press that skips the view it goes on to
                page.wait_for_function(
                    f"(before) => {{ const s = ({_MEASURE_LIVE})().state; "
                    "return s.slice(s.indexOf('>') + 1) !== before; }",
                    arg=s["state"].split(">", 1)[1], timeout=3_000,
                )  # fmt: skip
                break
            except Exception:
                # a slow machine may land the move late: press again only if it did not (a
                # second press would skip a view), with the keys back on the notebook; a move
                # of the active cell alone is a move too
                if _settled(page)["state"] != s["state"]:
                    break
                _focus_notebook(page)
        else:
            break  # nothing changed after every try: the last slide
    players = {cell for v in views for cell, _ in v["players"]}
    for size, n in over.items():
        print(f"{len(views)} views of {name} at {size}: the tallest {tallest[size]} px; "
              f"{len(players)} players; {len(n)} overflow: {n}")  # fmt: skip
    assert len(views) > 5, f"PageDown stopped after {len(views)} views of {name}"
    missed = sorted(set(_presented_cells(name)) - seen)
    assert not missed, f"{name}: PageDown never reached cells {missed} (stuck on a slide?)"
    assert not left_early, (
        f"{name}: PageDown left a player's slide before its last step: {left_early}"
    )
    return {size: views for size, views in over.items() if views}


# Every view of a deck at the current window size, with no key press: each view's first cell made
# the deck's active cell through the notebook's model (what the deck's own keys do), measured once
# its layout has stayed the same for two frames; every player on a view stepped through all of its
# steps with its own slider (the first time its slide is on screen), each step measured.
_MEASURE_EVERY_VIEW = (
    """async (indices) => {
  const measure = """
    + _MEASURE_LIVE
    + """;
  const nb = window.jupyterapp.shell.currentWidget.content;
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const settled = async () => {
    let last = null;
    for (let k = 0; k < 200; k++) {
      await frame();
      const s = measure();
      const key = JSON.stringify([s.state, s.top, s.bottom, s.scroll, s.heights]);
      if (key === last) return s;
      last = key;
    }
    return {...measure(), unsettled: true};
  };
  const onScreen = (cell) => cell.node.classList.contains('jp-deck-mod-onscreen');
  const views = [], stepped = new Set();
  for (const i of indices) {
    nb.activeCellIndex = i;
    for (let k = 0; k < 200 && !(nb.activeCell && onScreen(nb.activeCell)); k++) await frame();
    views.push(await settled());
    for (const cell of nb.widgets.filter(onScreen)) {
      const index = nb.widgets.indexOf(cell);
      const slider = cell.node.querySelector('.avz-player .avz-slider');
      if (!slider || stepped.has(index)) continue;
      stepped.add(index);
      for (let step = 1; step <= Number(slider.max); step++) {
        slider.value = String(step);
        slider.dispatchEvent(new Event('input', {bubbles: true}));
        views.push(await settled());
      }
    }
  }
  return views;
}"""
)


def _measure_every_view(page, name: str, sizes=(PROJECTOR, FULL_HD)) -> dict[str, list]:
    """Every view of the presented deck `name` at each of `sizes`, measured as a presenter shows
    it: each view's first cell made the active cell in turn, every player stepped to each of its
    steps. Prints each size's figures; returns the views that do not fit, per size."""
    _no_old_deck_keys(page, name)
    presented = _presented_cells(name)
    over: dict[str, list] = {}
    for size in sizes:
        label = f"{size['width']}x{size['height']}"
        page.set_viewport_size(size)
        views = page.evaluate(_MEASURE_EVERY_VIEW, _view_starts(name))
        unsettled = [v["state"] for v in views if v.get("unsettled")]
        assert not unsettled, f"{name} at {label}: views whose layout never settled: {unsettled}"
        seen = {cell for v in views for cell in v["cells"]}
        missed = sorted(set(presented) - seen)
        assert not missed, f"{name}: cells {missed} were on no view of the deck"
        overflow = [(v["cells"], v["what"], v["heights"], _excess(v)) for v in views
                    if _excess(v) > 0]  # fmt: skip
        tallest = max(v["bottom"] - v["top"] for v in views)
        players = len({cell for v in views for cell, _ in v["players"]})
        print(f"\n{len(views)} views of {name} at {label}: the tallest {tallest} px; "
              f"{players} players; {len(overflow)} overflow: {overflow}")  # fmt: skip
        if overflow:
            over[label] = overflow
    page.set_viewport_size(sizes[0])
    return over


def test_the_remote_walks_the_whole_deck_stepping_every_player(deck):
    """Notebook 03's deck from its first slide to its last with PageDown alone, as a presenter's
    remote sends it: every presented cell is reached, every player is stepped to its last step
    before the deck leaves its slide, and every view fits the projector."""
    page, errors = deck
    over = _walk(page, DECK, sizes=(PROJECTOR,))
    assert not over, f"{DECK}: views that do not fit the projector: {over}"
    assert not errors, errors


@pytest.mark.parametrize("name", [DECK, *OTHER_DECKS], ids=lambda n: n[:2])
def test_every_deck_fits_the_projector_presented_as_it_opens(lab_on_copies, chromium, name):
    """Every deck presented from its saved outputs, not run: what a teacher sees who opens the
    lesson and presents it at once, and the same outputs a run gives (nbval checks that). Each
    saved widget is drawn "not connected" (ipywidgets' icon on each part), which made every
    exercise 179 px tall, and the exercise slides of 03, 07, 12 and 13 overflow 1280x720."""
    with _present(lab_on_copies, chromium, name, run=False) as (page, errors):
        over = _measure_every_view(page, name)
        assert not over, f"{name}: views that do not fit the projector: {over}"
        assert not errors, errors


def test_every_view_of_the_deck_fits_the_projector(deck):
    page, errors = deck
    over = _measure_every_view(page, DECK)
    assert not over, f"{DECK}: views that do not fit the projector: {over}"
    assert not errors, errors


def test_pagedown_changes_slides_without_a_player(lab_on_copies, chromium):
    [name] = [n for n in OTHER_DECKS if n.startswith("02_")]
    assert not _has_player(name)
    with _present(lab_on_copies, chromium, name, run=False) as (page, errors):
        page.evaluate("() => document.querySelector('.jp-Deck .jp-Notebook').focus()")

        def after(key: str) -> list[int]:
            for _ in range(3):  # the first press may land on the skipped cell after the title
                _press(page, key)
            return page.evaluate(_MEASURE_LIVE)["cells"]

        first = page.evaluate(_MEASURE_LIVE)["cells"]
        second = after("ArrowRight")
        assert second != first, "→ did not change slides either: the deck has no focus"
        assert after("PageDown") != second, "three presses of PageDown left the deck as it was"
        assert not errors, errors
