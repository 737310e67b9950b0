"""The README's main command works: `bash scripts/lab.sh` runs the start notebook in JupyterLab.

This is the learner's first five minutes, checked for real: the test starts `scripts/lab.sh`
itself (on a random free port on 127.0.0.1, with a random token, `--no-browser`), opens
notebooks/00_start_here.ipynb in headless Chromium through Playwright, runs every cell with
JupyterLab's own "Run → Run All Cells" menu, and then reads the page: no error or stderr
output, every widget output rendered by the widget manager (never "Loading widget…",
"Error displaying widget" or a plain-text repr such as `VBox(...)`), and as many widgets as the
committed notebook shows. The server's process group is shut down afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_NOTEBOOK = "notebooks/00_start_here.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SERVER_START_TIMEOUT = 300  # s; includes `setup.sh lab`, a no-op once set up
RUN_ALL_TIMEOUT = 300  # s; the whole notebook, drawings included


@dataclass
class LabServer:
    """A running JupyterLab: its base URL, token, process and log file."""

    url: str
    token: str
    proc: subprocess.Popen
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class RunReport:
    """What the page showed after Run All Cells."""

    cells: int
    prompts: list[str]
    errors: list[str] = field(default_factory=list)  # tracebacks and any other stderr text
    widget_outputs: int = 0
    unrendered_widgets: list[str] = field(default_factory=list)
    text_reprs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    untypeset: list[str] = field(default_factory=list)  # players' equations KaTeX never set


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def jupyter_data_dir(home: Path) -> Path:
    """Where a server started with `home` keeps its Jupyter data (the notebook signatures)."""
    return home / "data"


def _isolated_env(home: Path) -> dict[str, str]:
    """Fresh JupyterLab settings, workspaces and runtime dirs, so no earlier session leaks in."""
    settings = home / "settings"
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    # Attach every cell to the DOM, so off-screen outputs can be read too.
    tracker.write_text(json.dumps({"windowingMode": "none"}))
    # Never write the notebook back: the repository's committed outputs are nbval's reference.
    docmanager = settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    docmanager.parent.mkdir(parents=True)
    docmanager.write_text(json.dumps({"autosave": False}))
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        # no notebook trusted by an earlier session (the signature database), as on a fresh
        # machine: JupyterLab draws a notebook's saved widgets as it opens only when trusted
        "JUPYTER_DATA_DIR": str(jupyter_data_dir(home)),
        "PYTHONUNBUFFERED": "1",
    }


def start_lab(cmd: Sequence[str], cwd: Path, home: Path) -> LabServer:
    """Start `cmd` (a JupyterLab launcher taking jupyter's options) and wait until it serves."""
    port, token = _free_port(), secrets.token_urlsafe(24)
    args = [
        *cmd, "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
    ]
    log = home / "lab.log"
    t0 = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, cwd=cwd, env=_isolated_env(home), stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
    server = LabServer(f"http://127.0.0.1:{port}", token, proc, log)
    deadline = t0 + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(
                f"{' '.join(args)} exited with {proc.returncode} before serving:\n"
                f"{server.log_text()}"
            )
        status = f"{server.url}/api/status?token={token}"
        with contextlib.suppress(OSError), urllib.request.urlopen(status, timeout=2):
            return server
        time.sleep(0.2)
    stop_lab(server)
    raise AssertionError(f"JupyterLab did not answer within {SERVER_START_TIMEOUT}s:\n"
                         f"{server.log_text()}")


def stop_lab(server: LabServer) -> None:
    """Shut the server down (it stops its kernels), then make sure its process group is gone."""
    with contextlib.suppress(OSError):
        request = urllib.request.Request(
            f"{server.url}/api/shutdown?token={server.token}", method="POST"
        )
        urllib.request.urlopen(request, timeout=10).close()
    try:
        server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.proc.pid, signal.SIGTERM)
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):  # anything left in the group
        os.killpg(server.proc.pid, signal.SIGKILL)


def _widget_class_names() -> list[str]:
    """Names whose text repr means a widget was printed instead of rendered (`VBox(...)`)."""
    import ipywidgets

    names, todo = set(), [ipywidgets.DOMWidget]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    with contextlib.suppress(ImportError):  # our own widgets, once the player module exists
        import autograd_viz.player  # noqa: F401

        todo = [ipywidgets.DOMWidget]
        while todo:
            cls = todo.pop()
            names.add(cls.__name__)
            todo.extend(cls.__subclasses__())
    return sorted(names)


# What a widget output holds once its view is drawn: an ipywidgets view, or the player (an
# anywidget: its view is the drawn .avz-player).
_VIEWS = "'.jupyter-widgets, .avz-player .avz-graph svg'"

# Output elements in JupyterLab: rendered MIME outputs carry `data-mime-type` (stderr and error
# tracebacks both render as application/vnd.jupyter.stderr); the ipywidgets renderer does not,
# and holds the widget view (`.jupyter-widgets`; the player, an anywidget, draws `.avz-player`)
# or its failure text. Outputs nested inside an Output widget live in the widget's state, not
# in the notebook's cell outputs.
_READ_PAGE_JS = """
() => {
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const text = el => (el.innerText || '').trim().slice(0, 600);
  return {
    cells: nb.querySelectorAll('.jp-Cell').length,
    prompts: [...nb.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.innerText.trim()),
    outputs: [...nb.querySelectorAll('.jp-OutputArea-output')].map(o => ({
      mime: o.getAttribute('data-mime-type'),
      text: text(o),
      nested: o.parentElement.closest('.jupyter-widgets') !== null,
      // an ipywidgets view, or the player (an anywidget: its view is the drawn .avz-player)
      widgetViews: o.querySelectorAll(__VIEWS__).length
        + (o.classList.contains('jupyter-widgets') ? 1 : 0),
    })),
  };
}
""".replace("__VIEWS__", _VIEWS)
_WIDGET_FAILURES = ("Loading widget", "Error displaying widget")

# Done when the page holds `want` widget outputs (the committed notebook's count) and each shows
# its view or says why not (none still "Loading widget"). The kernel is idle before the widget
# manager has made the last views, and an output area not yet drawn shows no text to wait out.
_WIDGETS_SHOWN_JS = """(want) => {
  if (document.body.innerText.includes('Loading widget')) return false;
  const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const outs = [...nb.querySelectorAll('.jp-OutputArea-output')].filter((o) =>
    o.getAttribute('data-mime-type') === null
    && o.parentElement.closest('.jupyter-widgets') === null);
  return outs.length >= want && outs.every((o) =>
    o.querySelectorAll(__VIEWS__).length > 0
    || o.classList.contains('jupyter-widgets')
    || (o.innerText || '').includes('Error displaying widget'));
}""".replace("__VIEWS__", _VIEWS)


def _read_page(page, widget_names: Sequence[str]) -> RunReport:
    raw = page.evaluate(_READ_PAGE_JS)
    report = RunReport(cells=raw["cells"], prompts=raw["prompts"])
    repr_re = re.compile("^({})\\(".format("|".join(map(re.escape, widget_names))))
    for out in raw["outputs"]:
        mime, text = out["mime"], out["text"]
        if mime in ("application/vnd.jupyter.stderr", "application/vnd.jupyter.error"):
            report.errors.append(text)
        elif mime is None:  # the widget renderer's output
            report.widget_outputs += not out["nested"]
            if any(f in text for f in _WIDGET_FAILURES) or out["widgetViews"] == 0:
                report.unrendered_widgets.append(text or "<empty widget output>")
        elif mime == "text/plain" and repr_re.match(text):
            report.text_reprs.append(text)
    return report


def _wait_for_kernel_idle(page, timeout_ms: int) -> None:
    page.wait_for_selector(
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status='idle']",
        timeout=timeout_ms, state="attached",
    )


def start_session(server: LabServer, notebook: str) -> None:
    """Start the notebook's kernel through the REST API, so the page joins a running kernel.

    A learner clicks Run All seconds after the page opens; a test clicks within milliseconds,
    while JupyterLab may still be connecting a kernel it started itself, and then drops the run.
    """
    body = json.dumps({"path": notebook, "name": notebook, "type": "notebook",
                       "kernel": {"name": "python3"}}).encode()
    request = urllib.request.Request(
        f"{server.url}/api/sessions?token={server.token}", data=body, method="POST",
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=120).close()


def wait_for_server_kernel(server: LabServer, timeout_s: float) -> None:
    """Until the server reports a kernel with a page connected and idle (the page's own
    indicator says idle before the kernel's websocket is up; cells run then are only cleared,
    never executed). Any frontend: Notebook 7 has no JupyterLab status bar to read."""
    deadline = time.monotonic() + timeout_s
    kernels: object = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{server.url}/api/kernels?token={server.token}") as resp:
                kernels = json.load(resp)
        except urllib.error.HTTPError as err:
            # jupyter_server answers 500 while it lists a kernel that is still starting
            # ("'last_activity' trait ... expected a datetime, not the NoneType None"): ask again
            kernels = f"HTTP {err.code} from /api/kernels"
        else:
            if any(k["connections"] > 0 and k["execution_state"] == "idle" for k in kernels):
                return
        time.sleep(0.3)
    raise AssertionError(f"no kernel connected and idle within {timeout_s}s: {kernels}")


def _wait_for_connected_kernel(server: LabServer, page, timeout_s: float) -> None:
    """Until the server reports a kernel with the page connected and idle, and the page agrees."""
    wait_for_server_kernel(server, timeout_s)
    page.wait_for_function(
        "() => /\\|\\s*Idle/.test((document.querySelector('#jp-main-statusbar') || {}).innerText)",
        timeout=int(timeout_s * 1000),
    )
    _wait_for_kernel_idle(page, int(timeout_s * 1000))


_ANY_CELL_STARTED_JS = """() => [...document.querySelectorAll(
  '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')]
  .some(p => /\\[(\\*|\\d+)\\]/.test(p.innerText))"""


def _run_all(page) -> None:
    """Run → Run All Cells, as a learner would; once more if no cell started (a lost click)."""
    for attempt in range(2):
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:
            page.wait_for_function(_ANY_CELL_STARTED_JS, timeout=30_000)
            return
        except Exception:
            if attempt:
                raise


def run_all_cells(browser, server: LabServer, notebook: str, widgets: int = 0) -> RunReport:
    """Open `notebook` (a path under the server root) in `browser` (a Playwright Browser), run
    all cells and read the page, once it shows the `widgets` widget outputs expected."""
    widget_names = _widget_class_names()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        start_session(server, notebook)
        page = context.new_page()
        page_errors: list[str] = []
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        page.goto(f"{server.url}/lab/tree/{notebook}?reset&token={server.token}")
        page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=120_000)
        _wait_for_connected_kernel(server, page, 120)
        dialog = page.locator(".jp-Dialog")
        if dialog.count():
            raise AssertionError(
                f"JupyterLab opened {notebook} with a dialog in the way (a learner would be "
                f"stuck here): {dialog.first.inner_text()!r}"
            )
        _run_all(page)
        # Every code cell gets an execution count; none is still queued ([*]) or unrun ([ ]).
        try:
            page.wait_for_function(
                """() => {
                  const ps = [...document.querySelectorAll(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
                  // A cell whose input is collapsed shows no prompt text at all.
                  const texts = ps.map(p => p.innerText.trim());
                  return texts.some(t => /^\\[\\d+\\]/.test(t))
                    && texts.every(t => t === '' || /^\\[\\d+\\]/.test(t));
                }""",
                timeout=RUN_ALL_TIMEOUT * 1000,
            )
        except Exception as exc:
            shot = server.log.with_name("run_all_failure.png")
            page.screenshot(path=str(shot), full_page=True)
            prompts = _read_page(page, widget_names).prompts
            raise AssertionError(
                f"Run All Cells did not finish within {RUN_ALL_TIMEOUT}s (prompts: {prompts}); "
                f"screenshot: {shot}; server log: {server.log}"
            ) from exc
        _wait_for_kernel_idle(page, RUN_ALL_TIMEOUT * 1000)
        # Widget views render asynchronously once their models arrive; what is still missing
        # after the wait, the checks report.
        with contextlib.suppress(Exception):
            page.wait_for_function(_WIDGETS_SHOWN_JS, arg=widgets, timeout=90_000, polling=250)
        untypeset = """() => [...document.querySelectorAll('.avz-player .avz-eq')]
            .filter(e => !e.querySelector('.katex')).map(e => e.getAttribute('data-text'))"""
        with contextlib.suppress(Exception):  # KaTeX comes from the kernel, once per page
            page.wait_for_function(f"() => ({untypeset})().length === 0", timeout=30_000)
        report = _read_page(page, widget_names)
        report.page_errors = page_errors
        report.untypeset = page.evaluate(untypeset)
        return report
    finally:
        context.close()


def _committed_widget_outputs(path: Path) -> int:
    nb = json.loads(path.read_text())
    return sum(
        WIDGET_VIEW in out.get("data", {})
        for cell in nb["cells"] if cell["cell_type"] == "code"
        for out in cell.get("outputs", [])
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Iterator[LabServer]:
    server = start_lab(["bash", str(ROOT / "scripts" / "lab.sh")], ROOT,
                       tmp_path_factory.mktemp("lab"))
    try:
        yield server
    finally:
        stop_lab(server)


def test_lab_sh_serves_jupyterlab_with_the_widget_and_slideshow_extensions(lab):
    log = lab.log_text()
    assert "is running at" in log, log
    with urllib.request.urlopen(f"{lab.url}/lab?token={lab.token}", timeout=30) as resp:
        page = resp.read().decode()
    config = json.loads(re.search(r'id="jupyter-config-data"[^>]*>\s*(\{.*?\})\s*</script>',
                                  page, re.S).group(1))
    federated = {ext["name"] for ext in config.get("federated_extensions", [])}
    assert "@jupyter-widgets/jupyterlab-manager" in federated, federated
    assert "jupyterlab-slideshow" in federated, federated


def test_start_notebook_runs_all_cells_in_chromium_without_errors(lab, chromium):
    path = ROOT / START_NOTEBOOK
    assert path.is_file(), f"{START_NOTEBOOK} is missing: it is what lab.sh opens"
    try:
        report = run_all_cells(chromium, lab, START_NOTEBOOK, _committed_widget_outputs(path))
    finally:
        # The committed outputs are nbval's reference: the run must never write them back.
        saves = [line for line in lab.log_text().splitlines() if "Saving file at" in line]
        assert not saves, f"JupyterLab saved a file during the smoke test: {saves}"
    ran = [p for p in report.prompts if re.fullmatch(r"\[\d+\]:", p)]
    assert ran and all(p in ran or p == "" for p in report.prompts), (
        f"not every cell ran: {report.prompts}"
    )
    assert not report.errors, (
        "error or stderr output after Run All:\n" + "\n---\n".join(report.errors)
    )
    # the committed notebook opens with its saved players (no kernel side): the players the
    # run makes must still get KaTeX, and typeset the restored ones too
    assert not report.untypeset, f"players whose equation KaTeX never typeset: {report.untypeset}"
    assert not report.unrendered_widgets, (
        "widgets that did not render:\n" + "\n---\n".join(report.unrendered_widgets)
    )
    assert not report.text_reprs, (
        "widgets shown as plain text (the widget manager never took them):\n"
        + "\n---\n".join(report.text_reprs)
    )
    assert report.widget_outputs == _committed_widget_outputs(path), (
        f"the browser shows {report.widget_outputs} widget outputs; the committed notebook has "
        f"{_committed_widget_outputs(path)}"
    )
    assert not report.page_errors, "JavaScript errors in the page:\n" + "\n".join(
        report.page_errors
    )
