"""Fixtures for the real-browser tests: JupyterLab, a local static server, Chromium via Playwright.

Everything runs on 127.0.0.1 with no internet: JupyterLab starts on a random free port with a
random token in a temporary root directory; the widget manager, RequireJS and MathJax that an
nbconvert HTML export needs are served from `tests/browser/node_modules` (installed by
`npm ci --prefix tests/browser`, which `scripts/setup.sh test` runs); Chromium is Debian's
`/usr/bin/chromium`, driven by Playwright for Python. Every page records its requests so a test
can assert that nothing left the machine, and a failing test leaves a screenshot in a temp folder
(its path is printed in the failure report).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from static_server import serve

HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE / "node_modules"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
SCREENSHOT_DIR = Path(tempfile.gettempdir()) / "autograd_viz_browser_failures"
NPM_FILES = {
    "embed-amd.js": "@jupyter-widgets/html-manager/dist/embed-amd.js",
    "require.js": "requirejs/require.js",
    "MathJax.js": "mathjax/MathJax.js",
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives a real Chromium (and JupyterLab); runs by default"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Keep each phase's report on the test item, so fixtures can see whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


# ---------------------------------------------------------------- helpers


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(
                f"the server exited with code {proc.returncode} before {url} answered"
            )
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
            last_error = error
        time.sleep(0.25)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s (last error: {last_error})")


def is_local(url: str) -> bool:
    """True for URLs that stay on this machine (127.0.0.1, localhost, data:, blob:, about:)."""
    parts = urlsplit(url)
    if parts.scheme in {"data", "blob", "about", "chrome-error"}:
        return True
    return parts.hostname in LOCAL_HOSTS


# ---------------------------------------------------------------- JupyterLab


@dataclass
class Lab:
    """A running JupyterLab: its base URL, token and root directory."""

    url: str
    token: str
    root: Path
    log: Path

    def api(self, path: str, body: dict | None = None) -> dict:
        """GET (or, with a body, POST) one of the server's REST endpoints."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    def start_kernel(self, notebook: str) -> str:
        """Start the notebook's kernel session before the page opens; its kernel id.

        The page then joins a kernel that already exists, instead of starting one while
        JupyterLab's extensions (the widget manager among them) are still loading.
        """
        session = self.api(
            "/api/sessions",
            {"path": notebook, "name": notebook, "type": "notebook", "kernel": {"name": "python3"}},
        )
        return session["kernel"]["id"]

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"

    def open_notebook(self, page: object, notebook: str, nb: object = None) -> None:
        """Write `nb` (if given) as `notebook`, start its kernel, and open it in `page` until
        its first cell is on screen: the page joins a kernel that already exists."""
        if nb is not None:
            nbformat.write(nb, self.root / notebook)
        self.start_kernel(notebook)
        page.goto(self.notebook_url(notebook))
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)

    def run_all(self, page: object, notebook: str, shown: str, count: int = 1) -> None:
        """Run > Run All Cells, as a learner does, until `count` elements match `shown`.

        JupyterLab's indicator says idle before the page's connection to the kernel is up; a
        run in that moment is dropped, or its widgets say "model not found" until the page
        reloads. So each of three tries waits until the server sees the page connected to the
        notebook's idle kernel, then tells a dropped run (no prompt changes in 20 s) from a
        slow one (it waits for every queued cell), and reloads only after a run that finished
        without the widgets; the error says which of these the last try met.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        state = "never tried"
        for _attempt in range(3):
            self._wait_connected(notebook)
            page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(
                timeout=120_000
            )
            before = page.evaluate(_PROMPTS_JS)
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            try:
                page.wait_for_function(f"(b) => ({_PROMPTS_JS})().join() !== b.join()",
                                       arg=before, timeout=20_000)  # fmt: skip
            except PlaywrightTimeoutError:
                state = f"Run All started no cell (prompts {before})"
                continue
            page.wait_for_function(f"() => !({_PROMPTS_JS})().some((p) => p.includes('*'))",
                                   timeout=240_000)  # fmt: skip
            done = "([s, n]) => document.querySelectorAll(s).length >= n"
            lost = "/model not found/.test(document.body.innerText)"
            with contextlib.suppress(PlaywrightTimeoutError):  # widgets still missing: below
                page.wait_for_function(f"([s, n]) => ({done})([s, n]) || {lost}",
                                       arg=[shown, count], timeout=30_000)  # fmt: skip
            found = page.locator(shown).count()
            if found >= count:
                return
            prompts, outputs = page.evaluate(_PROMPTS_JS), page.evaluate(_OUTPUTS_JS)
            state = (f"the run finished (prompts {prompts}) with {found} of {count} {shown!r} "
                     f"shown; the notebook's last text: {outputs!r}")  # fmt: skip
            page.reload()
            page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)
        raise AssertionError(f"Run All Cells, tried 3 times: {state}")

    def _wait_connected(self, notebook: str, timeout: float = 120) -> None:
        """Until the server reports the notebook's kernel idle with a page connected to it."""
        deadline = time.monotonic() + timeout
        seen: object = "no session"
        while time.monotonic() < deadline:
            for session in self.api("/api/sessions"):
                if session["path"] == notebook:
                    try:
                        seen = self.api(f"/api/kernels/{session['kernel']['id']}")
                    except urllib.error.HTTPError as err:  # 500 while the kernel is starting
                        seen = f"HTTP {err.code}"
                        continue
                    if seen["connections"] > 0 and seen["execution_state"] == "idle":
                        return
            time.sleep(0.3)
        raise AssertionError(f"{notebook}: no page connected to an idle kernel: {seen}")


_PROMPTS_JS = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
  .map((p) => p.textContent.trim())"""
_OUTPUTS_JS = """() => document.querySelector('.jp-Notebook').innerText.slice(-2000)"""


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder JupyterLab serves, with its own isolated Jupyter settings."""
    return tmp_path_factory.mktemp("lab")


@pytest.fixture(scope="session")
def jupyterlab(lab_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Start JupyterLab on 127.0.0.1 (random port and token), wait until it answers, stop it."""
    port, token = _free_port(), secrets.token_hex(16)
    home = tmp_path_factory.mktemp("jupyter_home")
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    # start the notebook's kernel without asking, and don't offer news
    _write_settings(home / "settings", "@jupyterlab/notebook-extension", "tracker",
                    {"autoStartDefaultKernel": True})  # fmt: skip
    _write_settings(home / "settings", "@jupyterlab/apputils-extension", "notification",
                    {"fetchNews": "false", "checkForUpdates": False})  # fmt: skip
    log = home / "jupyterlab.log"
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={lab_root}",
        "--ServerApp.open_browser=False",
        "--ServerApp.disable_check_xsrf=False",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    with log.open("wb") as log_file:
        proc = subprocess.Popen(
            command,
            cwd=lab_root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, root=lab_root, log=log)
    try:
        _wait_for_http(f"{lab.url}/api/status?token={token}", timeout=120, proc=proc)
        yield lab
    except Exception:
        sys.stderr.write(f"--- JupyterLab log ({log}) ---\n{log.read_text(errors='replace')}\n")
        raise
    finally:
        _stop(proc)


def _write_settings(settings_dir: Path, extension: str, plugin: str, values: dict) -> None:
    path = settings_dir / extension / f"{plugin}.jupyterlab-settings"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values), encoding="utf-8")


def _stop(proc: subprocess.Popen) -> None:
    """Stop a server we started (its whole process group: kernels too), politely then firmly."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


# ---------------------------------------------------------------- static files for HTML exports


@dataclass
class StaticServer:
    """One folder served on 127.0.0.1 (by tests/static_server.py)."""

    url: str
    root: Path

    def url_for(self, path: Path) -> str:
        return f"{self.url}/{path.resolve().relative_to(self.root).as_posix()}"


@pytest.fixture(scope="session")
def npm_packages() -> Path:
    """`tests/browser/node_modules` with html-manager, RequireJS, MathJax (npm ci if absent)."""
    missing = [rel for rel in NPM_FILES.values() if not (NODE_MODULES / rel).is_file()]
    if missing and shutil.which("npm"):
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=HERE, check=False, stdin=subprocess.DEVNULL, timeout=600,
        )  # fmt: skip
        missing = [rel for rel in NPM_FILES.values() if not (NODE_MODULES / rel).is_file()]
    if missing:
        pytest.fail(
            f"npm packages for the HTML-export tests are missing ({', '.join(missing)}). "
            "Install them with: npm ci --prefix tests/browser  (or: bash scripts/setup.sh test)"
        )
    return NODE_MODULES


@pytest.fixture(scope="session")
def static_server(
    tmp_path_factory: pytest.TempPathFactory, npm_packages: Path
) -> Iterator[StaticServer]:
    """Serve a temp folder (exports go there) with `node_modules` linked in, on 127.0.0.1."""
    root = tmp_path_factory.mktemp("static").resolve()
    (root / "node_modules").symlink_to(npm_packages, target_is_directory=True)
    # The widget manager's AMD modules fetch their fonts (Font Awesome: the ▶ ■ icons) from
    # /@jupyter-widgets/ beside the page's origin, so serve its dist folder there too.
    html_manager = npm_packages / "@jupyter-widgets" / "html-manager" / "dist"
    (root / "@jupyter-widgets").symlink_to(html_manager, target_is_directory=True)
    with serve(root) as url:
        yield StaticServer(url=url, root=root)


@pytest.fixture(scope="session")
def local_export_urls(static_server: StaticServer) -> dict[str, str]:
    """nbconvert HTMLExporter settings that load widgets, RequireJS and MathJax from disk."""
    base = f"{static_server.url}/node_modules"
    return {
        "widget_renderer_url": f"{base}/{NPM_FILES['embed-amd.js']}",
        "require_js_url": f"{base}/{NPM_FILES['require.js']}",
        "mathjax_url": f"{base}/{NPM_FILES['MathJax.js']}?config=TeX-AMS_CHTML-full,Safe",
    }


# ---------------------------------------------------------------- Chromium


@pytest.fixture(scope="module")
def browser(chromium: object) -> object:
    """Debian's Chromium, headless, off the network: the shared fixture of tests/conftest.py
    (per module, not per session: a live sync_playwright blocks every other one)."""
    return chromium


@dataclass
class RecordedPage:
    """A Playwright page plus every URL it requested, every URL that answered with an HTTP
    error (or failed to load), and every console error it logged."""

    page: object
    requests: list[str]
    console_errors: list[str]
    failed: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests if not is_local(url)]


@pytest.fixture
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[RecordedPage]:
    """A fresh page (own context) that records requests; screenshots itself if the test fails."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    new_page = context.new_page()
    recorded = RecordedPage(page=new_page, requests=[], console_errors=[])
    new_page.on("request", lambda r: recorded.requests.append(r.url))
    new_page.on("requestfailed", lambda r: recorded.failed.append(f"{r.url} ({r.failure})"))
    new_page.on(
        "response",
        lambda r: recorded.failed.append(f"{r.url} (HTTP {r.status})") if r.status >= 400 else None,
    )
    new_page.on(
        "console", lambda m: recorded.console_errors.append(m.text) if m.type == "error" else None
    )
    try:
        yield recorded
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
            shot = SCREENSHOT_DIR / f"{request.node.name}.png"
            with contextlib.suppress(Exception):
                new_page.screenshot(path=str(shot), full_page=True)
                report.sections.append(("browser", f"screenshot: {shot}"))
                print(f"\nscreenshot of the failing page: {shot}", file=sys.stderr)
        context.close()


@pytest.fixture
def opened(page: RecordedPage, tmp_path: Path):
    """Open `save_html(root, **options)`'s standalone player in `page`, at its first step."""
    from autograd_viz.export import save_html

    def _open(root, **options):
        path = save_html(root, tmp_path / "p.html", **options)
        p = page.page
        p.goto(path.as_uri())
        p.locator(".avz-player[data-step='1']").wait_for()
        return p

    return _open
