"""The JupyterLite edition in real Chromium, offline: every notebook runs in the browser.

`scripts/lite.sh` builds the site into a temporary folder, a static server serves it on
127.0.0.1, and Chromium opens JupyterLab from it with every other host blocked (a request to
one fails the test). For each notebook the test clears the saved outputs and runs all cells
in the Pyodide kernel, then holds the new outputs to the committed notebook: no error output,
a drawing wherever the committed notebook has one (drawn by Graphviz-WASM, its labels inside
their boxes), a rendered widget wherever it has a widget, never a widget's text repr.

numpy and matplotlib exist for Pyodide only on its CDN, which the deployed site uses and this
test cannot reach: the statements that need them (and those that need what they made) are
commented out in the browser before the run, each with the reason, and listed in a warning.
How long the first drawing takes on a cold start is measured by benchmarks/lite_cold_start.py,
not here: a test asserts what the learner sees, not how fast.
"""

from __future__ import annotations

import ast
import contextlib
import json
import tempfile
import time
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SVG = "image/svg+xml"
# Compiled packages Pyodide serves only from its CDN: the names that bring them into a notebook.
CDN_NAMES = {"numpy", "np", "matplotlib", "plt"}
# Our own classes that draw with matplotlib (imported lazily, so the cell's imports don't show it).
CDN_CLASSES = {"TrainingView"}
CDN_REASON = "needs numpy/matplotlib, which Pyodide serves from its CDN (offline test)"
# A hang guard, not a measure: 07 runs all in about 100 s here, and took longer than 240 s
# (the old guard) on a machine 2.5 times slower than usual (the whole suite in 50 min).
RUN_ALL_TIMEOUT_S = 600


# ---------------------------------------------------------------- the site (built and served
# once a session: `built` and `site` in tests/lite/conftest.py)


class Browser:
    """A fresh Chromium context on the site: cold cache, foreign hosts blocked and recorded."""

    def __init__(self, chromium: object, site: str) -> None:
        self.site = site
        self.foreign: list[str] = []
        self.page_errors: list[str] = []
        self.context = chromium.new_context(viewport={"width": 1400, "height": 1000})
        self.context.set_default_timeout(60_000)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        self.failed: list[str] = []  # HTTP errors, for the failure report
        self.page.on("response", lambda r: r.status >= 400 and self.failed.append(
            f"{r.url} (HTTP {r.status})"))  # fmt: skip

    def _route(self, route: object) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in {"data", "blob"} or parts.hostname in LOCAL_HOSTS:
            if urlsplit(url).path.endswith("/jupyter-lite.json"):
                return self._expose_app(route)
            return route.continue_()
        self.foreign.append(url)
        return route.abort("blockedbyclient")

    @staticmethod
    def _expose_app(route: object) -> None:
        """Serve jupyter-lite.json with `window.jupyterapp` exposed, so the test can drive
        JupyterLab's own commands and read its notebook model."""
        response = route.fetch()
        config = response.json()
        config.setdefault("jupyter-config-data", {})["exposeAppInBrowser"] = "true"
        route.fulfill(response=response, body=json.dumps(config))

    def close(self) -> None:
        self.context.close()

    def open(self, notebook: str) -> None:
        # Start from an empty workspace (`reset`), then open the notebook with JupyterLab's own
        # command: otherwise JupyterLab restores every notebook this page opened before, each
        # starting its own Pyodide kernel (CI saw the 9th notebook time out behind 8 of them).
        # `reset` drops other URL parameters, so `?path=` cannot be used with it.
        self.page.goto(f"{self.site}/lab/index.html?reset")
        self.page.wait_for_function(_APP_READY_JS, timeout=120_000)
        self.page.evaluate(
            "(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", notebook
        )
        self.page.wait_for_function(_NOTEBOOK_READY_JS, arg=notebook, timeout=120_000)
        documents = self.page.evaluate(
            "() => [...window.jupyterapp.shell.widgets('main')].filter((w) => w.context).length"
        )
        assert documents == 1, f"{notebook}: {documents} documents open, expected only this one"


# ---------------------------------------------------------------- driving JupyterLab

# The app has restored its (reset, empty) workspace: the launcher is on show.
_APP_READY_JS = """() => {
  const app = window.jupyterapp;
  return !!(app && !location.search.includes('reset') && app.shell.currentWidget);
}"""

_NOTEBOOK_READY_JS = """(name) => {
  const app = window.jupyterapp;
  const panel = app && app.shell.currentWidget;
  return !!(panel && panel.context && panel.context.path.endsWith(name)
            && panel.content.widgets.length && panel.sessionContext.session
            && panel.sessionContext.session.kernel);
}"""

# Run code in the page's kernel; what it printed (and any error), line by line.
_EXECUTE_JS = """async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  let text = '';
  const future = kernel.requestExecute({code});
  future.onIOPub = (msg) => {
    const c = msg.content;
    if (msg.header.msg_type === 'stream') text += c.text;
    if (msg.header.msg_type === 'error') text += `${c.ename}: ${c.evalue}\\n`;
  };
  await future.done;
  return text.trim().split('\\n');
}"""
# Graphviz-WASM put back to not loaded, as `import autograd_viz` leaves it (the kernel's
# snapshot has the kit imported, and its loading started as the kernel started)
_FIRST_CELL_DRAWS = """\
from autograd_viz.view import wasm
wasm._graphviz = wasm._loading = None
from autograd_viz import Value
drawing = (Value(2.0, label="x") * 3).draw()
print("svg", drawing.svg().startswith("<svg"))
"""
# What the kernel's worker did as it started (lite/kernel.mjs's marks) and what it has in memory
_KERNEL_RESTORED = """\
import sys
from js import performance
print("marks", ", ".join(m.name for m in performance.getEntriesByType("mark")))
print("in memory", "IPython" in sys.modules, "autograd_viz.exercises" in sys.modules)
import gc, os, zipfile
def the_file_it_names(z):
    try:
        return os.fstat(z.fp.fileno()).st_ino == os.stat(z.filename).st_ino
    except Exception:
        return False
held = [z for z in gc.get_objects() if isinstance(z, zipfile.ZipFile) and z.fp is not None]
print("zips held open", [z.filename for z in held if not the_file_it_names(z)] or "all valid")
"""

# The saved drawings a learner sees on opening a notebook, before running anything (the
# site marks its notebooks trusted, else JupyterLab hides them): decoded pictures, once loaded.
_SAVED_DRAWINGS_JS = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  const first = panel.content.widgets.findIndex((c) => c.model.type === 'code' && c.model.outputs
    .toJSON().some((o) => o.data && o.data['image/svg+xml']));
  await panel.content.scrollToItem(first);
  for (let i = 0; i < 100; i++) {
    const imgs = [...panel.node.querySelectorAll('.jp-RenderedSVG img')];
    if (imgs.some((img) => img.complete && img.naturalWidth > 0)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}"""

# The first player on the page: its step on show, then again after a click on Next ▶ (the
# player's own module, an anywidget, rendered by Pyodide's widget manager). null: no player.
_PLAYER_NEXT_JS = """async () => {
  const player = window.jupyterapp.shell.currentWidget.node.querySelector('.avz-player');
  if (!player) return null;
  player.scrollIntoView();
  const shown = () => player.getClientRects().length > 0 ? player.dataset.step || null : null;
  const before = shown();
  player.querySelector('button.avz-next').click();
  for (let i = 0; i < 100 && shown() === before; i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return [before, shown()];
}"""

# Clear outputs, comment out what needs the CDN, and Run All: JupyterLab's own commands.
_RUN_ALL_JS = """async (patches) => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.sessionContext.ready;
  for (const [index, source] of Object.entries(patches))
    panel.content.widgets[Number(index)].model.sharedModel.setSource(source);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  app.commands.execute('notebook:run-all-cells');
}"""

# Done when the last code cell has run, or an error stopped the run; the kernel idle.
_RUN_DONE_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const code = panel.content.widgets.filter((c) => c.model.type === 'code');
  const errored = code.some((c) => c.model.outputs.toJSON().some((o) => o.output_type === 'error'));
  const last = code[code.length - 1];
  return errored || (last.model.executionCount !== null && !panel.content.widgets.some(
    (c) => c.model.type === 'code' && c.model.executionState === 'running'));
}"""

# The widget roots a cell's outputs show: ipywidgets' views carry .jupyter-widgets; the kit's
# anywidgets (player, explorer, quiz) their own root, drawn by their module once the view rendered.
_WIDGET_ROOTS_JS = """(cell) =>
  cell.node.querySelectorAll('.jp-OutputArea-output .jupyter-widgets').length
  + cell.node.querySelectorAll('.jp-OutputArea-output :is(.avz-player, .avz-explore,'
    + ' .avz-quiz):not(.jupyter-widgets *)').length"""

# Done when the page shows every output the cells hold (in the model): an output area per
# output, every image loaded, each widget view drawn or saying why not (none still "Loading
# widget"). The kernel is idle before the page has caught up: on a loaded machine, the last
# cell's output area was still empty when the page was read.
_OUTPUTS_DRAWN_JS = """() => {
  const roots = __ROOTS__;
  const panel = window.jupyterapp.shell.currentWidget;
  if (document.body.innerText.includes('Loading widget')
      || ![...document.images].every((img) => img.complete)) return false;
  return panel.content.widgets.every((cell) => {
    if (cell.model.type !== 'code') return true;
    const outputs = cell.model.outputs.toJSON();
    const views = outputs.filter((o) => o.data
      && o.data['__VIEW__'] && o.data['__VIEW__'].model_id).length;
    return cell.node.querySelectorAll('.jp-OutputArea-child').length >= outputs.length
      && (views === 0 || roots(cell) >= views
          || cell.node.innerText.includes('Error displaying widget'));
  });
}""".replace("__ROOTS__", _WIDGET_ROOTS_JS).replace("__VIEW__", WIDGET_VIEW)

# Per cell: its outputs (model) and what the page shows (DOM), for the checks below.
_READ_JS = """() => {
  const roots = __ROOTS__;
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.content.widgets.map((cell) => {
    if (cell.model.type !== 'code') return null;
    const outs = [...cell.node.querySelectorAll('.jp-OutputArea-child > .jp-OutputArea-output')];
    return {
      count: cell.model.executionCount,
      outputs: cell.model.outputs.toJSON().map((o) => ({
        type: o.output_type, mimes: Object.keys(o.data || {}),
        text: o.output_type === 'error' ? `${o.ename}: ${o.evalue}`
              : o.output_type === 'stream' && o.name === 'stderr' ? o.text : ''})),
      svgs: outs.filter((o) => (o.matches('.jp-RenderedSVG')
          && [...o.querySelectorAll('img')].some((img) => img.naturalWidth > 0))
        || (o.matches('.jp-RenderedHTMLCommon') && o.querySelector('svg'))).length,
      widgets: roots(cell),
      texts: outs.map((o) => (o.innerText || '').trim().slice(0, 200)),
    };
  });
}""".replace("__ROOTS__", _WIDGET_ROOTS_JS)

# Node texts that run out of their box (Graphviz-WASM's font metrics vs the browser's fonts):
# every drawing the notebook shows, the SVG outputs (drawn as <img>, so measured from their
# source in a hidden box) and the player's inline frames.
_OVERFLOW_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute; left:-10000px; top:0';
  document.body.appendChild(host);
  for (const cell of panel.content.widgets)
    for (const out of cell.model.type === 'code' ? cell.model.outputs.toJSON() : [])
      if (out.data && out.data['image/svg+xml']) host.insertAdjacentHTML(
        'beforeend', [].concat(out.data['image/svg+xml']).join(''));
  const bad = [];
  let measured = 0;
  for (const g of [...host.querySelectorAll('svg g.node'),
                   ...panel.node.querySelectorAll(
                     ':is(.jupyter-widgets, .avz-player, .avz-explore, .avz-quiz) svg g.node')]) {
    const shape = g.querySelector('polygon, path, ellipse');
    if (!shape) continue;
    measured += 1;
    const box = shape.getBBox();
    for (const t of g.querySelectorAll('text')) {
      const r = t.getBBox();
      const over = Math.max(box.x - r.x, r.x + r.width - (box.x + box.width));
      if (over > 0.5) bad.push(`${t.textContent}: ${over.toFixed(1)} px outside its box`);
    }
  }
  host.remove();
  return {measured, bad};
}"""


def _cdn_patches(cells: list[dict]) -> dict[int, str]:
    """{cell index: source} with every statement that needs numpy/matplotlib commented out.

    A statement needs them if it imports them, uses a name they bound, or a name bound by a
    statement that did (`fig, ax = plt.subplots()` makes `ax` need them too). A view made by
    one of our own classes that draws with matplotlib (`view = TrainingView(...)`) becomes
    `view = None`, which the course's code accepts as "no view".
    """
    tainted, patches = set(CDN_NAMES), {}
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        lines, drop, instead = source.splitlines(), set(), {}
        for stmt in ast.parse(source).body:
            if isinstance(stmt, ast.Import | ast.ImportFrom):
                modules = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else [
                    stmt.module or ""]  # fmt: skip
                uses = {m.split(".")[0] for m in modules}
            else:
                uses = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id in CDN_CLASSES
                and all(isinstance(t, ast.Name) for t in stmt.targets)
            ):
                targets = " = ".join(t.id for t in stmt.targets)
                instead[stmt.end_lineno - 1] = (
                    f"{targets} = None  # {stmt.value.func.id}: matplotlib"
                )
            elif not uses & tainted:
                continue
            else:
                tainted |= _bound_names(stmt)
            drop |= set(range(stmt.lineno - 1, stmt.end_lineno))
        if drop:
            kept = []
            for i, line in enumerate(lines):
                kept.append(f"# {line}" if i in drop else line)
                if i in instead:
                    kept.append(instead[i])
            patches[index] = f"# [offline test] commented out: {CDN_REASON}\n" + "\n".join(kept)
    return patches


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The names a statement binds in the notebook's namespace (not inside its own scopes)."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    names, todo = set(), list(ast.iter_child_nodes(stmt))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Lambda | ast.comprehension | ast.ListComp | ast.SetComp
                      | ast.DictComp | ast.GeneratorExp):  # fmt: skip
            continue  # their variables stay inside them
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _committed(notebook: str) -> list[dict]:
    return json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]


def run_notebook(browser: Browser, notebook: str) -> tuple[list[dict | None], dict[int, str]]:
    """Open `notebook`, clear it, comment out its CDN statements, Run All; the cells read back."""
    cells = _committed(notebook)
    patches = _cdn_patches(cells)
    browser.open(notebook)
    browser.page.evaluate(_RUN_ALL_JS, {str(k): v for k, v in patches.items()})
    browser.page.wait_for_function(_RUN_DONE_JS, timeout=RUN_ALL_TIMEOUT_S * 1000, polling=250)
    with contextlib.suppress(Exception):  # what is still missing is reported by the checks
        browser.page.wait_for_function(_OUTPUTS_DRAWN_JS, timeout=90_000, polling=250)
    return browser.page.evaluate(_READ_JS), patches


def _needs_torch(cell: dict) -> bool:
    """A cell that shows something only where PyTorch is installed (the course's pattern)."""
    return "if torch is not None:" in "".join(cell["source"])


def _problems(notebook: str, read: list[dict | None], patches: dict[int, str]) -> list[str]:
    """Everything a learner would see go wrong, held to the committed notebook."""
    problems = []
    for index, (cell, got) in enumerate(zip(_committed(notebook), read)):
        if cell["cell_type"] != "code" or got is None:
            continue
        where = f"{notebook} cell {index}"
        if got["count"] is None:
            problems.append(f"{where} did not run")
            continue
        for out in got["outputs"]:
            if out["type"] == "error" or out["text"]:
                problems.append(f"{where}: {out['text'].strip()[:300]}")
        if index in patches:
            continue  # part of this cell needs the CDN: what it shows is not comparable
        if _needs_torch(cell):
            continue  # PyTorch has no build for the browser: the cell says it skipped instead
        saved = [set(o.get("data", {})) for o in cell.get("outputs", [])]
        want_svg = sum(SVG in m for m in saved)
        want_widgets = sum(WIDGET_VIEW in m for m in saved)
        got_svg = sum(SVG in o["mimes"] for o in got["outputs"])
        if got_svg < want_svg or got["svgs"] < want_svg:
            problems.append(f"{where}: {want_svg} drawing(s) expected, {got['svgs']} shown")
        if got["widgets"] < want_widgets:
            shown = [t for t in got["texts"] if t][:2]
            held = [o["mimes"] for o in got["outputs"]]
            problems.append(
                f"{where}: {want_widgets} widget(s) expected, {got['widgets']} rendered "
                f"(the page shows {shown}; the cell's outputs hold {held})"
            )
    return problems


# ---------------------------------------------------------------- the tests


def test_every_relative_link_of_a_lesson_opens_in_the_site(built):
    """A lesson's link to a page beside it (00's glossary.md) is a file of the site too: the
    browser edition once shipped the notebooks alone, and the glossary link opened nothing."""
    import re

    targets = set()
    for name in NOTEBOOKS:
        for cell in json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                for target in re.findall(r"\]\(([^)\s]+)\)", "".join(cell["source"])):
                    if not re.match(r"[a-z][a-z+.-]*:|#", target):
                        targets.add(target.partition("#")[0])
    assert "glossary.md" in targets
    listing = json.loads((built / "api" / "contents" / "all.json").read_text(encoding="utf-8"))
    served = {item["path"] for item in listing["content"]}
    assert not targets - served, f"links to files the site does not serve: {targets - served}"
    for target in targets:
        assert (built / "files" / target).is_file(), target


def test_lite_build_ships_graphviz_wasm_in_the_wheel_and_the_lock(built):
    """The built site's lock lists autograd-viz with its wheel, which carries Graphviz-WASM; every
    package the kernel needs offline is served from the site, the rest only by absolute URL."""
    site = built / "static" / "pyodide"
    lock = json.loads((site / "pyodide-lock.json").read_text())["packages"]
    ours = lock["autograd-viz"]
    assert ours["imports"] == ["autograd_viz"] and ours["depends"] == ["ipywidgets", "anywidget"]
    with zipfile.ZipFile(site / ours["file_name"]) as wheel:
        assert "autograd_viz/view/graphviz_wasm.js" in wheel.namelist()
    for name in ("micropip", "ipython", "jedi", "sympy", "comm", "ipywidgets"):
        assert (site / lock[name]["file_name"]).is_file(), name
    for name in ("numpy", "matplotlib"):
        assert lock[name]["file_name"].startswith("https://cdn.jsdelivr.net/pyodide/v314.0.6/")


def test_the_kernel_starts_with_its_packages_from_the_site_with_their_bytecode(built):
    """The kernel loads its own packages and the kit as Pyodide starts, all at once (the
    `loadPyodideOptions` of lite/jupyter-lite.json), each from a wheel in the site that carries
    Pyodide's bytecode for what the kernel imports at start, so nothing is installed one after
    another or compiled in the browser before the first cell runs."""
    config = json.loads((built / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    start = kernel["loadPyodideOptions"]["packages"]
    # the names the kernel's worker skips installing when they are preloaded
    assert {"micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython"} <= set(
        start
    ), start
    assert "autograd-viz" in start
    site = built / "static" / "pyodide"
    lock = json.loads((site / "pyodide-lock.json").read_text())["packages"]
    for name in start:
        assert (site / lock[name]["file_name"]).is_file(), name
    compiled = {
        "ipython": "IPython/core/__pycache__/interactiveshell.cpython-314.pyc",
        "pyodide-kernel": "pyodide_kernel/__pycache__/kernel.cpython-314.pyc",
        "autograd-viz": "autograd_viz/__pycache__/engine.cpython-314.pyc",
    }
    for name, pyc in compiled.items():
        with zipfile.ZipFile(site / lock[name]["file_name"]) as wheel:
            assert pyc in wheel.namelist(), f"{name}: no {pyc}"


def _cold_start(chromium: object, site: str) -> tuple[float, bool, list[str]]:
    """Seconds from opening the start notebook with nothing cached to its first new drawing
    after Run All; whether its saved drawing showed before; requests that left 127.0.0.1."""
    browser = Browser(chromium, site)
    try:
        started = time.monotonic()
        browser.open(NOTEBOOKS[0])
        saved = browser.page.evaluate(_SAVED_DRAWINGS_JS)
        browser.page.evaluate(_RUN_ALL_JS, {})
        browser.page.wait_for_selector(".jp-RenderedSVG img, .jp-RenderedSVG svg", timeout=120_000)
        return time.monotonic() - started, saved, browser.foreign
    finally:
        browser.close()


def test_a_cold_start_shows_the_saved_drawing_then_draws_a_new_one_offline(chromium, site):
    """A learner's first visit: nothing cached, open the start notebook, Run All. The saved
    drawing shows before the kernel is up, a new drawing replaces it, and nothing is fetched
    from outside 127.0.0.1. (How long that takes: benchmarks/lite_cold_start.py.)"""
    _seconds, saved, foreign = _cold_start(chromium, site)
    assert saved, "the start notebook's saved drawing does not show before it is run"
    assert not foreign, f"requests left 127.0.0.1: {foreign}"


@pytest.fixture(scope="module")
def browser(chromium: object, site: str) -> Iterator[Browser]:
    """One browser for the notebook runs (each notebook gets its own page load and kernel; the
    site's files stay cached, as for a learner moving from one notebook to the next)."""
    shared = Browser(chromium, site)
    yield shared
    shared.close()


@pytest.fixture
def fresh(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Browser]:
    """The shared browser with its records cleared; a screenshot if the test fails."""
    browser.foreign.clear()
    browser.page_errors.clear()
    browser.failed.clear()
    yield browser
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        shot = (
            Path(tempfile.gettempdir()) / "autograd_viz_lite_failures" / f"{request.node.name}.png"
        )
        shot.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):
            browser.page.screenshot(path=str(shot), full_page=True)
            print(f"\nscreenshot of the failing page: {shot}; HTTP errors: {browser.failed}")


def test_a_drawing_in_the_importing_cell_waits_for_graphviz_wasm(fresh):
    """`import autograd_viz` starts loading Graphviz-WASM; a drawing asked for before it has
    loaded waits for it (the browser pauses Python: JSPI) instead of failing."""
    fresh.open(NOTEBOOKS[0])
    outputs = fresh.page.evaluate(_EXECUTE_JS, _FIRST_CELL_DRAWS)
    assert outputs == ["svg True"], outputs
    assert not fresh.foreign, f"requests left 127.0.0.1: {fresh.foreign}"


def test_the_kernel_restores_its_python_from_the_sites_snapshot(built, fresh):
    """The kernel's Pyodide is lite/kernel.mjs, which restores the snapshot the build made
    (IPython and the kit already imported) instead of starting Python; the kernel then starts
    as before (benchmarks/lite_cold_start.py: how long each step takes)."""
    config = json.loads((built / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"] == "./static/pyodide/kernel.mjs"
    for name in ("kernel.mjs", "kernel.snapshot.gz", "kernel.files.gz"):
        assert (built / "static" / "pyodide" / name).is_file(), name
    fresh.open(NOTEBOOKS[0])
    marks, memory, stale = fresh.page.evaluate(_EXECUTE_JS, _KERNEL_RESTORED)
    assert "kernel.mjs: Python restored" in marks and "kernel.mjs: resumed" in marks, marks
    assert memory == "in memory True True", memory
    # a file the snapshot held open would be a descriptor of the build's Python, not this one's
    assert stale == "zips held open all valid", stale


# Requests of the kernel's worker that probe the notebooks' folder (Python's import machinery
# looking for a module in the current directory, its first entry on sys.path).
_PROBES = ('"method":"lookup"', '"method":"readdir"')


def test_the_kernel_starts_without_probing_the_notebooks_folder(chromium, site):
    """The kernel imports its own modules (piplite, pyodide_kernel) as it restores its snapshot,
    before it mounts the notebooks' folder as its current directory: once mounted, each import
    would first look there, a request answered by the page's busy main thread (24 of them,
    before, for every kernel start)."""
    browser = Browser(chromium, site)
    probes: list[str] = []
    browser.page.on("request", lambda r: "/api/drive" in r.url and any(
        p in (r.post_data or "") for p in _PROBES) and probes.append(r.post_data))  # fmt: skip
    try:
        browser.open(NOTEBOOKS[0])
        browser.page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
            " === 'idle'",
            timeout=120_000,
        )
        assert not probes, f"the kernel's start probed the notebooks' folder: {probes[:3]}"
        where = browser.page.evaluate(
            _EXECUTE_JS, f"import os\nprint(os.getcwd(), {NOTEBOOKS[0]!r} in os.listdir())"
        )
        assert where == ["/drive True"], where  # the folder is still mounted, and current
    finally:
        browser.close()


def test_the_badges_link_starts_the_notebooks_kernel_as_jupyterlab_starts(chromium, site):
    """The badge's link (`lab/index.html?path=...`) starts the notebook's kernel as JupyterLab
    starts (lite/start_kernel/), and the notebook, once open, joins that kernel: one session,
    one kernel, with the notebooks' folder mounted as its current directory. The site leaves
    out JupyterLab's log console (lite/jupyter-lite.json): the Pyodide kernel's plugin waits
    for it, and it for the notebook's plugins, so with it the kernel could start only seconds
    later."""
    browser = Browser(chromium, site)
    said: list[str] = []
    browser.page.on("console", lambda message: said.append(message.text))
    try:
        browser.page.goto(f"{site}/lab/index.html?path={NOTEBOOKS[0]}")
        browser.page.wait_for_function(_NOTEBOOK_READY_JS, arg=NOTEBOOKS[0], timeout=120_000)
        where = browser.page.evaluate(
            _EXECUTE_JS, f"import os\nprint(os.getcwd(), {NOTEBOOKS[0]!r} in os.listdir())"
        )
        assert where == ["/drive True"], where
        running = browser.page.evaluate(
            "() => [[...window.jupyterapp.serviceManager.sessions.running()].length,"
            " [...window.jupyterapp.serviceManager.kernels.running()].length]"
        )
        assert running == [1, 1], f"sessions, kernels: {running}"
        console = browser.page.evaluate(
            "() => window.jupyterapp.commands.hasCommand('logconsole:open')"
        )
        assert not console, "the log console is back: the kernel waits for it to start"
        early = f"autograd-viz-start-kernel: started the kernel of {NOTEBOOKS[0]}"
        assert any(text.startswith(early) for text in said), said
        assert not browser.foreign, f"requests left 127.0.0.1: {browser.foreign}"
        assert not browser.page_errors, f"page errors: {browser.page_errors}"
    finally:
        browser.close()


# JupyterLab's plugins the course never uses, left out of the site (lite/jupyter-lite.json):
# each one the front end activates as it starts costs the learner's first open.
LEFT_OUT = [
    "@jupyterlab/help-extension:open",
    "@jupyterlab/lsp-extension:settings",
    "@jupyterlab/settingeditor-extension:form-ui",
    "@jupyterlab/terminal-extension:plugin",
    "@jupyterlab/workspaces-extension:sidebar",
    "@jupyterlite/application-extension:plugin-manager",
]
# What a learner, a teacher and these tests use: still there.
COMMANDS_USED = [
    "docmanager:open",
    "notebook:run-all-cells",
    "notebook:clear-all-cell-outputs",
    "deck:start",
    "toc:show-panel",
    "apputils:change-theme",
    "running:show-panel",
]
_PLUGINS_JS = """() => {
  const app = window.jupyterapp;
  return app.listPlugins().map((id) => [id, app.isPluginActivated(id)]);
}"""


def test_the_site_leaves_out_jupyterlabs_plugins_the_course_never_uses(chromium, site):
    """The plugins in LEFT_OUT (and everything else lite/jupyter-lite.json disables) are not in
    the app; every plugin that is there activated (nothing it required was left out), and the
    commands the course uses are there."""
    config = json.loads((ROOT / "lite" / "jupyter-lite.json").read_text(encoding="utf-8"))
    disabled = config["jupyter-config-data"]["disabledExtensions"]
    browser = Browser(chromium, site)
    try:
        browser.page.goto(f"{site}/lab/index.html?path={NOTEBOOKS[0]}")
        browser.page.wait_for_function(_NOTEBOOK_READY_JS, arg=NOTEBOOKS[0], timeout=120_000)
        plugins = dict(browser.page.evaluate(_PLUGINS_JS))
        # an entry with no ":" names a whole package: every plugin of it
        there = [p for p in plugins for off in [*LEFT_OUT, *disabled]
                 if p == off or p.startswith(f"{off}:")]  # fmt: skip
        assert not there, f"left out, yet in the app: {there}"
        idle = [p for p, active in plugins.items() if not active]
        assert not idle, f"plugins that did not activate: {idle}"
        missing = browser.page.evaluate(
            "(ids) => ids.filter((id) => !window.jupyterapp.commands.hasCommand(id))",
            COMMANDS_USED,
        )
        assert not missing, f"commands the course uses are gone: {missing}"
        assert not browser.page_errors, f"page errors: {browser.page_errors}"
    finally:
        browser.close()


_DECK_SHOWS_CODE_JS = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  panel.content.activeCellIndex = 0;
  await app.commands.execute('deck:start');
  const onScreen = () => [...panel.node.querySelectorAll('.jp-Cell.jp-deck-mod-onscreen')];
  for (let i = 0; i < 80; i++) {
    if (onScreen().some((c) => c.classList.contains('jp-CodeCell'))) {
      const first = onScreen()[0].innerText.split('\\n')[0];
      await app.commands.execute('deck:stop');
      return {slides: i + 1, first};
    }
    await app.commands.execute('deck:forward');
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}"""


_DECK_START_JS = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  panel.content.activeCellIndex = 0;
  await app.commands.execute('deck:start');
  await new Promise((r) => setTimeout(r, 300));
  panel.content.node.focus();
}"""

_ON_SCREEN_JS = """() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll(
  '.jp-Cell.jp-deck-mod-onscreen')].map((c) => [...c.parentNode.children].indexOf(c))"""


def test_the_site_presents_a_notebook_as_live_slides(chromium, site):
    """jupyterlab-slideshow ships in the site: its deck mode presents notebook 03 with its code
    cells on the slides (a literal "-" slide type would put them on none). A browser of its own:
    the deck keeps its state in the site's settings storage, which the notebook runs share."""
    deck = Browser(chromium, site)
    try:
        deck.open("03_backprop_by_hand.ipynb")
        shown = deck.page.evaluate(_DECK_SHOWS_CODE_JS)
        assert shown, "deck mode showed no code cell on any of notebook 03's first 80 slides"
        assert not deck.foreign, f"requests left 127.0.0.1: {deck.foreign}"
        assert not deck.page_errors, f"page errors: {deck.page_errors}"
    finally:
        deck.close()


def test_pagedown_moves_the_sites_deck_on(chromium, site):
    """A presenter's remote sends PageDown: the site's settings bind it to the deck's next view
    (jupyterlab-slideshow binds only the arrows and Space). Notebook 02 has no player, whose own
    keys would otherwise move the deck. A browser of its own, as above."""
    deck = Browser(chromium, site)
    try:
        deck.open("02_chain_rule.ipynb")
        deck.page.evaluate(_DECK_START_JS)
        before = deck.page.evaluate(_ON_SCREEN_JS)
        for _ in range(3):  # the first press may land on the skipped cell after the title
            deck.page.keyboard.press("PageDown")
            with contextlib.suppress(PlaywrightTimeoutError):  # that press showed nothing new
                deck.page.wait_for_function(
                    f"(before) => JSON.stringify(({_ON_SCREEN_JS})()) !== before",
                    arg=json.dumps(before, separators=(",", ":")), timeout=10_000,
                )  # fmt: skip
                break
        after = deck.page.evaluate(_ON_SCREEN_JS)
        assert after != before, f"three presses of PageDown left the deck on cells {before}"
        assert not deck.foreign, f"requests left 127.0.0.1: {deck.foreign}"
        assert not deck.page_errors, f"page errors: {deck.page_errors}"
    finally:
        deck.close()


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_in_the_browser_offline(fresh, notebook):
    read, patches = run_notebook(fresh, notebook)
    overflow = fresh.page.evaluate(_OVERFLOW_JS)
    steps = fresh.page.evaluate(_PLAYER_NEXT_JS)
    if patches:
        warnings.warn(
            f"{notebook}: cells {sorted(patches)} ran with their numpy/matplotlib statements "
            f"commented out ({CDN_REASON})",
            stacklevel=1,
        )
    assert not fresh.foreign, f"{notebook}: requests left 127.0.0.1: {fresh.foreign}"
    problems = _problems(notebook, read, patches)
    assert not problems, "\n".join(problems)
    assert not fresh.page_errors, f"{notebook}: page errors {fresh.page_errors}"
    drawn = any(  # a drawing the browser edition shows too (not PyTorch's: it has none)
        SVG in o.get("data", {})
        for c in _committed(notebook)
        for o in c.get("outputs", [])
        if not _needs_torch(c)
    )
    assert overflow["measured"] or not drawn, f"{notebook}: no node of its drawings was measured"
    assert not overflow["bad"], f"{notebook}: labels outside their boxes: {overflow['bad'][:10]}"
    if steps is not None:  # Next ▶ goes one step on
        assert steps[0] and steps[1] == str(int(steps[0]) + 1), f"{notebook}: player {steps}"


def test_the_page_is_read_only_once_it_shows_every_output_the_cells_hold(fresh):
    """The kernel is idle before the page has drawn the last outputs: notebook 06's last widget
    was once read as '0 rendered' on a loaded machine. The read waits for every output the
    model holds; an output area not drawn yet shows no 'Loading widget' text to wait out."""
    run_notebook(fresh, "02_chain_rule.ipynb")
    assert fresh.page.evaluate(_OUTPUTS_DRAWN_JS)
    fresh.page.evaluate(  # the last widget's output area, as the page had not drawn it yet
        """() => {
          const cells = window.jupyterapp.shell.currentWidget.content.widgets;
          for (const n of cells[26].node.querySelectorAll('.jp-OutputArea-child')) n.remove();
        }"""
    )
    assert not fresh.page.evaluate(_OUTPUTS_DRAWN_JS)
    assert not fresh.page.evaluate("() => document.body.innerText.includes('Loading widget')")
