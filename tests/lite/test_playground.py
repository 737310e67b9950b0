"""The playground page (`_site/playground/`) in real Chromium, with every host but 127.0.0.1
blocked: it types expressions, steps, answers a quiz blank, moves an input in explore, restores
a shared link, walks Back, downloads its notebook (run under nbval), refuses every hostile link,
fits a phone and a projector, works by keyboard, and opens again offline once loaded.

The site is built by `bash scripts/lite.sh --playground-only` (the page and the Pyodide it
loads, in seconds) into a temporary folder, or is the whole site's build when the session
makes that for the other lite tests (it writes the same playground): tests/lite/conftest.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from static_server import serve

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LOCAL_HOSTS = {"127.0.0.1"}
READY = "document.body.dataset.ready === '1'"


@pytest.fixture(scope="module")
def site(playground_built: Path) -> Iterator[str]:
    """The playground, built as the README says and served on 127.0.0.1."""
    with serve(playground_built, name="playground") as url:
        yield f"{url}/playground/"


class Page:
    """One Chromium page on the playground: foreign hosts blocked and recorded, alert() and a
    canary global watched, page errors kept."""

    def __init__(self, chromium: object, site: str, width: int = 1280, height: int = 720) -> None:
        self.site = site
        self.foreign: list[str] = []
        self.errors: list[str] = []
        # the service worker would answer requests before route() sees them (Playwright's
        # caveat): blocked here, tested on its own in test_opens_again_offline
        self.context = chromium.new_context(
            viewport={"width": width, "height": height}, service_workers="block",
            accept_downloads=True,
        )  # fmt: skip
        self.context.set_default_timeout(90_000)
        self.context.route("**/*", self._route)
        self.context.add_init_script(
            "window.avzCanary = 0; window.alert = () => { window.avzCanary += 1; };"
        )
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def _route(self, route: object) -> None:
        parts = urlsplit(route.request.url)
        if parts.scheme in {"data", "blob"} or parts.hostname in LOCAL_HOSTS:
            return route.continue_()
        self.foreign.append(route.request.url)
        return route.abort("blockedbyclient")

    def open(self, fragment: str) -> None:
        try:
            self.page.goto(self.site + fragment)
            self.page.wait_for_function(READY, timeout=120_000)
        except Exception as err:  # Playwright raises its one Error type for every failure
            if "Target crashed" not in str(err):
                raise
            # Chromium's renderer died under the test run's load (once in some eight whole
            # runs, never alone): said in the run's warnings, and tried once more in a new
            # tab; a page that crashes every time still fails here.
            warnings.warn(f"the playground's tab crashed opening {fragment!r}", stacklevel=2)
            self.page = self.context.new_page()
            self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
            self.page.goto(self.site + fragment)
            self.page.wait_for_function(READY, timeout=120_000)

    def go(self, fragment: str) -> None:
        """Follow a link to another state of the same page (no reload), and wait for it."""
        renders = self.renders()
        self.page.goto(self.site + fragment)
        self.wait_rendered(renders)

    def renders(self) -> int:
        return self.page.evaluate("window.avzPlayground.renders")

    def wait_rendered(self, after: int) -> None:
        self.page.wait_for_function(
            "(n) => window.avzPlayground.renders > n", arg=after, timeout=60_000
        )
        # a render that ended while more typing was queued: wait for the queue to empty
        self.page.wait_for_timeout(50)

    def type_expression(self, text: str) -> None:
        renders = self.renders()
        self.page.fill("#expr", text)
        self.page.wait_for_function(
            "(t) => window.avzPlayground.state && window.avzPlayground.state.e === t", arg=text
        )
        self.wait_rendered(renders)

    def wait_new_entry(self) -> None:
        """Until the page's next change makes a new history entry, not replaces the last
        one (changes closer together than its PUSH_AFTER_MS are one entry)."""
        self.page.wait_for_function(
            "performance.now() > window.avzPlayground.pushAfter", polling=50)

    def state(self) -> dict:
        return self.page.evaluate("window.avzPlayground.state")

    def hash_params(self) -> dict:
        return self.page.evaluate(
            "() => Object.fromEntries(location.hash.slice(1).split('&')"
            ".map((p) => p.split('=').map(decodeURIComponent)))"
        )

    def frame(self) -> object:
        return self.page.frame_locator(".player iframe")

    def player_step(self) -> int:
        return self.page.evaluate(
            "document.querySelector('.player iframe').contentWindow.avzPlayer.step()"
        )

    def close(self) -> None:
        assert self.foreign == [], f"requests to other hosts: {self.foreign}"
        assert self.errors == [], f"page errors: {self.errors}"
        self.context.close()


@pytest.fixture(scope="module")
def page(chromium: object, site: str) -> Iterator[Page]:
    """One loaded page for the tests that follow links within it (Pyodide loads once)."""
    p = Page(chromium, site)
    p.open("#e=(x%2By)*y&x=2&y=3&mode=steps")
    yield p
    p.close()


def _kit_player(text: str, values: dict[str, str], phase: str = "both") -> object:
    from autograd_viz import animate
    from autograd_viz.playground.expression import build

    return animate(build(text, values), widgets=False, phase=phase)


def test_a_link_with_plus_reads_as_plus_and_is_written_back_canonically(page: Page) -> None:
    assert page.state() == {"e": "(x+y)*y", "x": "2", "y": "3", "mode": "steps",
                            "phase": "both", "notation": "blog", "step": "1"}  # fmt: skip
    assert page.hash_params()["e"] == "(x+y)*y"
    assert page.page.input_value("#expr") == "(x+y)*y"
    assert [page.page.input_value(f"#inputs input[name={n}]") for n in "xy"] == ["2", "3"]
    assert page.page.text_content("#summary") == "z = 15; ∂z/∂x = 3, ∂z/∂y = 8"


def test_stepping_shows_the_kits_captions_and_equations_and_goes_into_the_link(page: Page) -> None:
    kit = _kit_player("(x+y)*y", {"x": "2", "y": "3"})
    frame = page.frame()
    for k in range(1, 4):
        frame.locator(".avz-next").click()
        page.page.wait_for_function(
            "(k) => window.avzPlayground.state.step === String(k + 1)", arg=k, timeout=10_000
        )  # the link counts as the caption does: frame k is "step k+1 of ..."
        assert frame.locator(".avz-caption").text_content() == kit.frames.caption(k).text
        assert frame.locator(".avz-eq").get_attribute("data-text") == kit.frames.steps[k].text
    assert page.hash_params()["step"] == "4"
    assert frame.locator(".avz-caption").text_content().startswith("step 4 of ")


def test_typing_an_expression_redraws_it_with_new_inputs(page: Page) -> None:
    page.type_expression("tanh(w*x + b)")
    names = page.page.eval_on_selector_all("#inputs input", "els => els.map((e) => e.name)")
    assert names == ["w", "x", "b"]
    assert page.state()["x"] == "2" and page.state()["w"] == "1"  # x kept, new names get 1
    renders = page.renders()
    page.page.fill("#inputs input[name=w]", "-3")
    page.wait_rendered(renders)
    kit = _kit_player("tanh(w*x + b)", {"w": "-3", "x": "2", "b": "1"})
    assert page.frame().locator(".avz-eq").get_attribute("data-text") == kit.frames.steps[0].text
    assert page.hash_params()["w"] == "-3"


def test_each_mode_shows_what_the_kit_makes(page: Page) -> None:
    from autograd_viz.playground.expression import build
    from autograd_viz.trace import trace

    page.go("#e=x*y%2Bx&x=2&y=3&mode=draw")
    svg = page.page.inner_html(".graph-box")
    assert "<svg" in svg and page.page.locator(".graph-box svg g.node").count() >= 4
    page.go("#e=x*y%2Bx&x=2&y=3&mode=derivation&notation=adjoint&phase=backward")
    lines = page.page.eval_on_selector_all(".derivation li", "els => els.map((e) => e.textContent)")
    z = build("x*y+x", {"x": "2", "y": "3"})
    assert lines == [s.text for s in trace(z, "backward", notation="adjoint")]
    assert page.page.is_visible("#notation") and page.page.input_value("#notation") == "adjoint"


def test_a_quiz_blank_is_answered_with_the_kits_feedback(page: Page) -> None:
    """The quiz is the notebooks' own widget drawn by the one player module (quiz mode), its
    kernel the page's Python: the same boxes, verdicts and offered equation as in JupyterLab."""
    page.go("#e=(x%2By)*y&x=2&y=3&mode=quiz")
    quiz = page.page.locator(".widget.quiz .avz-quiz")
    quiz.locator("input.avz-quiz-input").first.wait_for(timeout=120_000)
    assert quiz.locator("svg foreignObject.avz-quiz-blank").count() == 4  # on the drawing
    blank = quiz.locator("input[aria-label='∂z/∂y']")
    feedback = quiz.locator(".avz-quiz-feedback")
    blank.fill("5")
    blank.press("Enter")
    page.page.wait_for_function(
        "document.querySelector('.avz-quiz-feedback').textContent !== ''")
    assert feedback.text_content().startswith("✘ Not quite.")
    assert "avz-quiz-wrong" in feedback.get_attribute("class")
    assert quiz.locator(".avz-quiz-offer").is_hidden()
    blank.fill("7")
    blank.press("Enter")
    quiz.locator(".avz-quiz-offer").wait_for(state="visible")  # two misses
    quiz.locator(".avz-quiz-offer").click()
    from autograd_viz import quiz as kits_quiz
    from autograd_viz.playground.expression import build

    kit = kits_quiz(build("(x+y)*y", {"x": "2", "y": "3"})).step_equation("∂z/∂y")
    page.page.wait_for_function(
        "(t) => document.querySelector('.avz-quiz-equation').textContent === t", arg=kit)
    blank.fill("5+3")
    blank.press("Enter")
    page.page.wait_for_function(
        "document.querySelector('.avz-quiz-feedback').textContent.startsWith('✔')"
    )
    assert feedback.text_content() == "✔ Right: ∂z/∂y = 8."
    assert blank.is_hidden()  # filled in: the cell shows the number
    assert quiz.locator("text[id$='-grad']", has_text="grad 8").count() == 1
    assert quiz.locator(".avz-quiz-progress").text_content() == "3 of 4 blanks left to fill in."
    assert quiz.get_attribute("data-kernel") is None  # the page's Python answered every time
    page.go("#e=(x%2By)*y&x=2&y=3&mode=draw")  # another mode and back: the quiz as it was
    page.go("#e=(x%2By)*y&x=2&y=3&mode=quiz")
    quiz.locator(".avz-quiz-progress").wait_for()
    assert quiz.locator(".avz-quiz-progress").text_content() == "3 of 4 blanks left to fill in."


def test_explore_moves_an_input_and_the_graph_its_link_and_summary_follow(page: Page) -> None:
    """Explore is the notebooks' `explore()` drawn by the one player module (explore mode):
    a slider move is recomputed by the page's Python on the same layout, and the page's own
    input box, link and summary follow; typing in the page's box moves the explorer."""
    page.go("#e=(x%2By)*y&x=2&y=3&mode=explore")
    explore = page.page.locator(".widget.explore .avz-explore")
    explore.locator("svg").wait_for(timeout=120_000)

    def cell(node: int, what: str) -> str:
        return explore.locator(f"[id='v{node}-{what}']").text_content()

    assert (cell(1, "grad"), cell(3, "data")) == ("grad 8", "data 15")
    box = explore.locator(".avz-explore-input input[type=number]").first
    box.fill("1")
    box.press("Enter")
    page.page.wait_for_function(
        "document.querySelector(\"[id='v1-grad']\").textContent === 'grad 7'")
    assert cell(3, "data") == "data 12" and cell(0, "grad") == "grad 3"
    assert explore.get_attribute("data-kernel") is None
    page.page.wait_for_function("window.avzPlayground.state.x === '1'")
    assert page.page.input_value("#inputs input[name=x]") == "1"
    assert page.hash_params()["x"] == "1"
    assert page.page.text_content("#summary") == "z = 12; ∂z/∂x = 3, ∂z/∂y = 7"
    svgs = page.page.evaluate("document.querySelectorAll('.widget svg').length")
    renders = page.renders()
    page.page.fill("#inputs input[name=y]", "4")  # the page's own box: the explorer follows
    page.wait_rendered(renders)
    page.page.wait_for_function(
        "document.querySelector(\"[id='v1-grad']\").textContent === 'grad 9'")
    assert cell(3, "data") == "data 20"
    assert explore.locator(".avz-explore-input input[type=number]").nth(1).input_value() == "4"
    assert page.page.evaluate("document.querySelectorAll('.widget svg').length") == svgs
    assert page.page.text_content("#summary") == "z = 20; ∂z/∂x = 4, ∂z/∂y = 9"
    # typing on in the page's box: what is typed stays as typed ("-0" is not rewritten "0")
    x = page.page.locator("#inputs input[name=x]")
    x.click()
    x.press("Control+a")  # typed over (an emptied box would be given 1)
    for key in "-0.5":
        renders = page.renders()
        x.press(key)
        if key != "-":  # "-" alone is no number: refused, nothing to draw
            page.wait_rendered(renders)
    assert x.input_value() == "-0.5"
    page.page.wait_for_function(
        "document.querySelector(\"[id='v1-grad']\").textContent === 'grad 7.5'")
    assert page.hash_params()["x"] == "-0.5"


def test_back_walks_through_what_was_typed(page: Page) -> None:
    page.go("#e=x*2&x=3&mode=draw")
    page.wait_new_entry()  # typing paused (also after the tests before): a new history entry
    page.type_expression("x*3")
    page.wait_new_entry()
    page.type_expression("x*4")
    renders = page.renders()
    page.page.go_back()
    page.wait_rendered(renders)
    assert page.page.input_value("#expr") == "x*3" and page.state()["e"] == "x*3"
    assert page.page.text_content("#summary").startswith("z = 9;")
    renders = page.renders()
    page.page.go_back()
    page.wait_rendered(renders)
    assert page.page.input_value("#expr") == "x*2"
    renders = page.renders()
    page.page.go_forward()
    page.wait_rendered(renders)
    assert page.page.input_value("#expr") == "x*3"


def test_the_notebook_download_builds_the_same_expression_and_runs_under_nbval(
    page: Page, tmp_path: Path
) -> None:
    page.go("#e=tanh(w*x%2Bb)&w=-3&x=2&b=0.5&mode=explore&phase=backward")
    page.page.locator(".avz-explore svg").wait_for(timeout=120_000)
    with page.page.expect_download() as info:
        page.page.click("#download")
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.name == "playground.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join(c["source"] for c in notebook["cells"] if c["cell_type"] == "code")
    assert "z = (w * x + b).tanh()" in code and 'z.animate(phase="backward")' in code
    assert "explore(lambda w, x, b: (w * x + b).tanh(), w=-3.0, x=2.0, b=0.5)" in code
    assert page.page.text_content("#status").startswith("Notebook downloaded")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(path), "--nbval-lax", "--nbval-current-env",
         "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "5 passed" in run.stdout  # the five code cells: the last is the page's explorer


def test_copy_link_copies_the_state(page: Page) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.go("#e=x*2&x=3&mode=draw")
    page.page.evaluate("document.querySelector('#status').textContent = ''")
    page.page.click("#copy")
    page.page.wait_for_function("document.querySelector('#status').textContent !== ''")
    assert page.page.text_content("#status") == "Link copied: paste it anywhere."
    copied = page.page.evaluate("navigator.clipboard.readText()")
    assert copied == page.page.url and "e=x*2&x=3&mode=draw" in copied


HOSTILE = [
    # (the link's fragment, the character the message must name)
    ("#e=" + quote("__import__('os')"), "'_' at column 1"),
    ("#e=" + quote("().__class__"), "'.' at column 3"),
    ("#e=" + quote("lambda: 1"), "':' at column 7"),
    ("#e=" + quote("9**9**9"), "the exponent of '**' at column 2"),
    ("#e=" + "x" * 10_000, "column 501"),
    ("#e=" + "(" * 500 + "x" + ")" * 500, "'(' at column 31"),
    ("#e=" + quote("<script>alert(1)</script>"), "'<' at column 1"),
    ("#e=" + quote("javascript:alert(1)"), "':' at column 11"),
    ("#e=x*2&x=" + quote("<script>alert(1)</script>"), "the value of x is not a number: '<'"),
    ("#e=x*2&x=" + quote("javascript:alert(1)"), "the value of x is not a number: 'j'"),
    ("#e=" + quote("<img src=x onerror=alert(1)>"), "'<' at column 1"),
    ("#e=x*2&x=" + quote('"><svg onload=alert(1)>'), "'\"' at column 1"),
]


@pytest.mark.parametrize(("fragment", "named"), HOSTILE, ids=[h[1][:24] for h in HOSTILE])
def test_a_hostile_link_gets_a_message_naming_the_character_and_runs_nothing(
    page: Page, fragment: str, named: str
) -> None:
    page.go("#e=x*2&x=3&mode=draw")  # a good state first: the hostile one must replace it
    scripts = page.page.evaluate("document.scripts.length")
    page.go(fragment)
    assert page.page.is_visible("#error")
    what = page.page.text_content("#error-what")
    assert named in what, what
    pointer = page.page.text_content("#error-pointer")
    assert pointer.splitlines()[-1].strip() == "^"
    assert page.page.evaluate("window.avzCanary") == 0
    assert page.page.evaluate("document.scripts.length") == scripts
    dangerous = "#error *, #inputs *, #summary *, #view script, #view img, #view [onerror]"
    tags = page.page.eval_on_selector_all(dangerous, "els => els.map((e) => e.tagName)")
    assert set(tags) <= {"P", "PRE", "LABEL", "INPUT"}, tags
    assert page.page.get_attribute("#expr", "aria-invalid") in (None, "true")


def test_hostile_keys_and_settings_in_a_link_are_ignored(page: Page) -> None:
    page.go("#e=x*2&x=3&mode=" + quote("<script>") + "&" + quote("<b>") + "=1&__proto__=1&step=x")
    assert page.state() == {"e": "x*2", "x": "3", "mode": "draw", "phase": "both",
                            "notation": "blog"}  # fmt: skip
    assert page.page.evaluate("window.avzCanary") == 0
    assert page.page.evaluate("Object.prototype.hasOwnProperty('x')") is False


def test_a_shared_link_reloads_into_the_same_graph_and_step(chromium: object, site: str) -> None:
    p = Page(chromium, site)
    try:
        p.open("#e=(x%2By)*y&x=2&y=3&mode=steps&step=7")
        kit = _kit_player("(x+y)*y", {"x": "2", "y": "3"})
        # both visits restore the build's snapshot of Python just started (python.snapshot)
        for visit in range(2):  # step=7 is the step the page shows as 7: frame 6
            assert p.player_step() == 6 and p.state()["step"] == "7"
            caption = p.frame().locator(".avz-caption").text_content()
            assert caption == kit.frames.caption(6).text and caption.startswith("step 7 of ")
            assert p.page.input_value("#expr") == "(x+y)*y"
            assert p.page.evaluate("window.avzPlayground.times.fromSnapshot === true")
            if visit == 0:
                p.page.reload()
                p.page.wait_for_function(READY, timeout=120_000)
    finally:
        p.close()


def test_a_refused_first_link_leaves_no_loading_line(chromium: object, site: str) -> None:
    """Opened on a refused link, the page says what is wrong and no longer says Python is
    still loading (the 'Python is ready; loading autograd_viz and Graphviz…' line)."""
    p = Page(chromium, site)
    try:
        p.open("#e=" + quote("9**9**9"))
        assert "the exponent of '**' at column 2" in p.page.text_content("#error-what")
        assert p.page.query_selector("#loading") is None
        assert "loading" not in p.page.text_content("#view").lower()
        assert p.page.text_content("#view") == "Nothing drawn yet: fix the expression above."
    finally:
        p.close()


def test_an_input_named_like_the_output_is_refused(page: Page) -> None:
    page.go("#e=z*x&z=2&x=3&mode=derivation")
    assert page.page.is_visible("#error")
    assert "'z' is the output's name" in page.page.text_content("#error-what")


# What a cold first drawing needs: each is requested before Python starts (issue 21's 6 s)
FIRST_DRAWING = ("pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
                 "autograd_viz.files", "graphviz_wasm.js", "python.snapshot")  # fmt: skip


def test_a_cold_start_requests_everything_at_once_and_restores_the_builds_python(
    chromium: object, site: str
) -> None:
    """Empty cache, no service worker: every download the first drawing needs has started
    before Pyodide's WebAssembly is even compiled; Python is restored from the build's
    snapshot, not started; Graphviz-WASM is compiled by the page beside it; the kit's files
    are written before Python starts (no wheel or zip unpacked in Python)."""
    p = Page(chromium, site)
    try:
        p.open("#e=x*2&x=3&mode=draw")
        times = p.page.evaluate("window.avzPlayground.times")
        started = dict(p.page.evaluate(
            "performance.getEntriesByType('resource')"
            ".map((e) => [e.name.split('/').pop(), e.startTime])"
        ))  # fmt: skip
        for name in FIRST_DRAWING:
            assert started[name] < times["wasmInstantiated"], f"{name} asked for late"
        assert times["fromSnapshot"] is True
        assert times["unpacked"] < times["pyodide"]  # the kit's files in before Python
        assert times["graphvizCompiled"] < times["python"]
        unpacked = [n for n in started if n.endswith((".whl", ".zip")) and n != FIRST_DRAWING[1]]
        assert unpacked == []
        assert p.page.text_content("#summary") == "z = 6; ∂z/∂x = 2"
    finally:
        p.close()


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 720)])
def test_fits_a_phone_and_a_projector_and_works_by_keyboard(
    chromium: object, site: str, page: Page, width: int, height: int
) -> None:
    # the projector is the loaded page's own size; a phone opens the page at its size
    own = page.page.viewport_size == {"width": width, "height": height}
    p = page if own else Page(chromium, site, width, height)
    try:
        wide = "+".join(f"tanh(a{i}*x)" for i in range(8))  # wider than either screen
        if not own:
            p.open("#e=" + quote(wide) + "&x=0.5&mode=draw")
        widget = {"quiz": ".avz-quiz input.avz-quiz-input", "explore": ".avz-explore svg"}
        for mode in ("draw", "steps", "quiz", "explore", "derivation"):
            p.go("#e=" + quote(wide) + f"&x=0.5&mode={mode}")
            if mode in widget:
                p.page.wait_for_selector(widget[mode], timeout=120_000)
            page_width = p.page.evaluate("document.documentElement.scrollWidth")
            assert page_width <= width, f"{mode}: the page scrolls sideways ({page_width} px)"
        p.go("#e=" + quote(wide) + "&x=0.5&mode=draw")
        box = p.page.evaluate(
            "(() => { const b = document.querySelector('.graph-box');"
            " return [b.scrollWidth, b.clientWidth]; })()"
        )
        assert box[0] > box[1], "the graph scrolls inside its box"
        # keyboard only: Tab to the expression, type, Tab to the modes, arrows to choose
        p.page.evaluate("document.activeElement.blur()")
        for _ in range(10):
            p.page.keyboard.press("Tab")
            if p.page.evaluate("document.activeElement.id") == "expr":
                break
        assert p.page.evaluate("document.activeElement.id") == "expr"
        renders = p.renders()
        p.page.keyboard.press("Control+a")
        p.page.keyboard.type("x*x")
        p.page.wait_for_function("window.avzPlayground.state.e === 'x*x'")
        p.wait_rendered(renders)
        for _ in range(10):
            p.page.keyboard.press("Tab")
            if p.page.evaluate("document.activeElement.name") == "mode":
                break
        renders = p.renders()
        p.page.keyboard.press("ArrowRight")  # draw -> step through
        p.wait_rendered(renders)
        assert p.state()["mode"] == "steps"
        p.page.wait_for_selector(".player iframe")
        assert p.page.text_content("#loads").count("nothing you type leaves the page") == 1
    finally:
        if not own:
            p.close()


def test_opens_again_offline_once_loaded(chromium: object, site: str) -> None:
    context = chromium.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.goto(site + "#e=x*2&x=3&mode=draw")
        page.wait_for_function(READY, timeout=120_000)
        assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        context.set_offline(True)
        page.goto(site + "#e=x*5&x=3&mode=draw")
        page.reload()
        page.wait_for_function(READY, timeout=120_000)
        assert page.text_content("#summary") == "z = 15; ∂z/∂x = 5"
    finally:
        context.close()
